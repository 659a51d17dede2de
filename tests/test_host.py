"""The Python host API (protocol/player/host.py) and ``with PlayerProcess(...)``."""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import sys
from pathlib import Path

import attrs
import pytest
from readme_blocks import readme_block

from xactika.core import Bid, Config, GameOver, Play, legal_actions, new_game, start, step, view
from xactika.core.bots.agents import RandomAgent
from xactika.core.engine.check import check_log
from xactika.protocol.player.host import AsyncBot, Bot, play_game, play_game_async, view_events
from xactika.protocol.player.process import (
    BotCrashed,
    BotIllegalMove,
    BotProtocolError,
    BotTimeout,
    PlayerProcess,
)
from xactika.protocol.records.textform import format_record, read_record
from xactika.protocol.trust.audit import audit_file

ROOT = Path(__file__).resolve().parent.parent
RANDOM_BOT = [sys.executable, str(ROOT / "examples" / "random_bot.py")]
FAULT_BOT = [sys.executable, str(ROOT / "tests" / "bots" / "fault_bot.py")]


def test_with_player_process_starts_and_stops_the_bot() -> None:
    with PlayerProcess(RANDOM_BOT, startup_timeout=10) as player:
        assert player.started and player.returncode is None
        player.isready(5)
    assert player.returncode == 0  # it obeyed quit
    assert not player.killed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_popen_handshakes_and_the_with_block_ends_the_process_on_an_exception() -> None:
    with pytest.raises(RuntimeError, match="boom"), Bot.popen(RANDOM_BOT) as bot:
        pid = bot.player.pid
        assert pid is not None and _alive(pid)
        assert bot.name == "python-random"  # the name the example bot gives in hello
        raise RuntimeError("boom")
    assert pid is not None and not _alive(pid)


def midgame(seed: int = 3, moves: int = 11) -> tuple[object, int]:
    """A Play to Bid state a few plays into round 1, and the seat to act."""
    state = new_game(Config(mode="bid", players=3, seed=seed))
    agent = RandomAgent(seed)
    for _ in range(moves):
        legal = legal_actions(state)
        assert legal.seat is not None
        state, _ = step(state, agent.choose(view(state, legal.seat), legal))
    seat = legal_actions(state).seat
    assert seat is not None
    return state, seat


def test_choose_from_a_view_and_from_events_gives_a_legal_move() -> None:
    state, seat = midgame()
    with Bot.popen(RANDOM_BOT, move_time=0.5) as bot:
        for _ in range(5):
            assert bot.choose(view(state, seat)) in legal_actions(state)
        card = bot.play(view(state, seat))
        assert isinstance(card, Play) and card in legal_actions(state)
        opening = new_game(Config(mode="bid", players=3, seed=9))
        bid = bot.bid(view(opening, 1))
        assert Bid(1, bid) in legal_actions(opening)
        with pytest.raises(ValueError, match="asks for a play, not a bid"):
            bot.bid(view(state, seat))
        with pytest.raises(ValueError, match="this is seat 1's view, not seat 2's"):
            bot.choose(view(opening, 1), seat=2)
        with pytest.raises(ValueError, match="seat 1 acts in this position, not seat 0"):
            bot.choose(view(opening, 0))  # not this view's turn
        events = start(Config(mode="bid", players=3, seed=9))
        with pytest.raises(ValueError, match="seat 1 acts in this position, not seat 2"):
            bot.choose(events, seat=2)
        assert bot.choose(events, seat=1) in legal_actions(opening)  # a record's events


def test_view_events_fold_back_to_the_view_without_other_hands() -> None:
    state, seat = midgame(seed=8, moves=16)
    seen = view(state, seat)
    events = view_events(seen)
    from xactika.core.engine.api import replay

    rebuilt = view(replay(events), seat)
    # the seat's own fold cannot count the others' hands; all else is the view
    assert attrs.evolve(rebuilt, totals=(), hand_sizes=()) == attrs.evolve(
        seen, totals=(), hand_sizes=()
    )
    assert rebuilt.hand and rebuilt.tricks and rebuilt.bids == seen.bids
    for event in events:
        hands = getattr(event, "hands", None)
        if hands is not None:  # only the seat's own hand is in the deal
            assert [h is None for h in hands] == [s != seat for s in range(3)]


def test_a_dix_draw_view_is_refused_with_one_clear_error() -> None:
    state = new_game(Config(game="dix", mode="draw", players=2, seed=4))
    agent = RandomAgent(4)
    for _ in range(4):  # two tricks: both seats have drawn
        legal = legal_actions(state)
        assert legal.seat is not None
        state, _ = step(state, agent.choose(view(state, legal.seat), legal))
    seat = legal_actions(state).seat
    assert seat is not None
    with pytest.raises(ValueError, match="pass the game's events"):
        view_events(view(state, seat))


@pytest.mark.parametrize(
    ("fault", "error"),
    [("illegal", BotIllegalMove), ("garbage", BotProtocolError), ("timeout", BotTimeout),
     ("crash-mid", BotCrashed)],
)
def test_typed_faults_and_the_faulty_bot_is_dead(fault: str, error: type) -> None:
    state, seat = midgame()
    bot = Bot.popen([*FAULT_BOT, fault], timeout=1.0)
    with bot, pytest.raises(error):
        for _ in range(5):  # the fault bot strikes at its 3rd go
            bot.choose(view(state, seat))
    assert bot.player.returncode is not None


def test_a_bot_that_cannot_start_is_bot_crashed() -> None:
    with pytest.raises(BotCrashed) as caught:
        Bot.popen([*FAULT_BOT, "crash-start"])
    assert caught.value.startup


def test_play_game_mixes_a_process_and_built_in_bots_and_records_it() -> None:
    with Bot.popen(RANDOM_BOT, move_time=0.5) as bot:
        record = play_game(Config(mode="bid", players=4, rounds=2, seed=12),
                           [bot, "heuristic", "random", RandomAgent(1)], seed=1)
    assert isinstance(record.events[-1], GameOver)
    assert record.header("seats") == "python-random,heuristic,random,RandomAgent"
    assert check_log(list(record.events)).state.over  # re-decided event by event
    assert record.events[1].hands == new_game(Config(mode="bid", players=4, seed=12)).hands


def test_one_bot_cannot_sit_in_two_seats() -> None:
    with Bot.popen(RANDOM_BOT) as bot, pytest.raises(ValueError, match="already playing"):
        play_game(Config(mode="win", players=2, rounds=1, seed=1), [bot, bot])


def test_many_games_at_once_with_asyncio() -> None:
    async def main() -> list[object]:
        bots = [await Bot.popen_async(RANDOM_BOT, move_time=0.5) for _ in range(6)]
        try:
            assert all(isinstance(b, AsyncBot) for b in bots)
            games = [
                play_game_async(Config(mode="win", players=2, rounds=1, seed=i),
                                [bots[2 * i], bots[2 * i + 1]])
                for i in range(3)
            ]
            records = await asyncio.gather(*games)
            state, seat = midgame()
            moves = await asyncio.gather(*(b.choose(view(state, seat)) for b in bots))
            assert all(m in legal_actions(state) for m in moves)
            return list(records)
        finally:
            await asyncio.gather(*(b.quit() for b in bots))

    records = asyncio.run(main())
    assert [isinstance(r.events[-1], GameOver) for r in records] == [True] * 3  # type: ignore[attr-defined]


def test_the_readme_example_runs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """It prints a decision, the game's end and the record's text, and saves a record
    that reads back and audits clean."""
    for name in ("examples",):
        (tmp_path / name).symlink_to(ROOT / name)
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    namespace: dict[str, object] = {}
    with contextlib.redirect_stdout(out):
        exec(compile(readme_block("Driving a bot from Python"), "README.md", "exec"),
             namespace)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("Bid(seat=1, bid=")
    assert lines[1].startswith("GameOver(")
    assert lines[2] == "header record 1" and lines[-1].startswith("result ")
    saved = (tmp_path / "game.log").read_text(encoding="utf-8")
    assert saved.splitlines() == lines[2:]
    record = namespace["record"]
    assert read_record(tmp_path / "game.log") == record
    report = audit_file(str(tmp_path / "game.log"))
    assert report.status == "ok" and report.complete and report.problems == []


def test_a_record_prints_as_its_text_and_writes_atomically(tmp_path: Path) -> None:
    record = play_game(Config(mode="win", players=3, rounds=1, seed=4),
                       ["heuristic", "random", "random"], seed=4)
    text = format_record(record)
    assert str(record) + "\n" == text
    assert read_record(io.StringIO(text)) == record  # headers, events and result
    path = tmp_path / "g.jsonl"
    path.write_text("old\n", encoding="utf-8")
    record.write(path)
    assert read_record(path) == record and path.read_text().startswith("{")
    record.write(tmp_path / "g.log")
    assert (tmp_path / "g.log").read_text(encoding="utf-8") == text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.jsonl", "g.log"]  # no temp left


def test_choose_sends_a_bot_nothing_of_the_cards_its_seat_cannot_see() -> None:
    from test_player_hidden import _SPLIT, find_leaks

    config = Config(mode="bid", players=4, rounds=2, seed=21)
    state = new_game(config)
    events = list(start(config))
    every_card = {str(c) for c in state.rules.deck}
    agent = RandomAgent(21)
    sent: list[str] = []
    with Bot.popen(RANDOM_BOT, on_line=lambda d, line: sent.append(line) if d == ">" else None
                   ) as bot:
        for move in range(60):
            legal = legal_actions(state)
            assert legal.seat is not None
            sent.clear()
            if move % 2:  # a game's events: the record's whole history
                assert bot.choose(events) in legal
                assert find_leaks(events, legal.seat, sent) == []
            else:  # a view: its round rebuilt; only own and played cards may appear
                seen = view(state, legal.seat)
                assert bot.choose(seen) in legal
                known = {str(c) for c in seen.hand}
                known |= {str(c) for t in seen.tricks for _, c in t.plays}
                known |= {str(c) for _, c in seen.trick}
                named = {w for line in sent for w in _SPLIT.split(line)} & every_card
                assert named and named <= known
            state, new = step(state, agent.choose(view(state, legal.seat), legal))
            events.extend(new)


def test_a_signed_record_read_back_prints_as_its_file(tmp_path: Path) -> None:
    from xactika.protocol.trust.signing import Signer

    record = play_game(Config(mode="bid", players=2, rounds=1, seed=6), ["random", "random"])
    text = format_record(record.headers, record.events, signer=Signer.generate())
    (tmp_path / "s.log").write_text(text, encoding="utf-8")
    again = read_record(tmp_path / "s.log")
    assert again.sig is not None and format_record(again) == text == str(again) + "\n"
    again.write(tmp_path / "t.log")
    assert (tmp_path / "t.log").read_text(encoding="utf-8") == text
