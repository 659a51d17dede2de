"""The referee session, sans-I/O: framing, commands, errors, records, views."""

from __future__ import annotations

from pathlib import Path

import pytest

from xactika.core import Config, RandomAgent, game_rules, legal_actions, replay, view
from xactika.core.bots.agents import self_play
from xactika.protocol.notation.text import format_event
from xactika.protocol.records.textform import format_record, read_record
from xactika.protocol.referee.sansio import FINAL_WORDS, RefereeSession
from xactika.protocol.trust.tamper import commit_config, commitment

CLOCK = "2026-01-01T00:00:00Z"
NONCE = "0" * 32


def session(**kw: object) -> RefereeSession:
    return RefereeSession(clock=lambda: CLOCK, seeds=lambda: 42, nonces=lambda: NONCE,
                   **kw)  # type: ignore[arg-type]


def answer(s: RefereeSession, line: str | bytes) -> list[str]:
    out = s.feed(line)
    assert out, f"no answer to {line!r}"
    finals = [o for o in out if o.split(" ", 1)[0] in FINAL_WORDS]
    assert finals == [out[-1]], f"not exactly one final line, last: {out}"
    return out


def ok(s: RefereeSession, line: str) -> list[str]:
    out = answer(s, line)
    assert out[-1].startswith("ok "), out[-1]
    return out[:-1]


def error(s: RefereeSession, line: str | bytes, code: str) -> str:
    before = (s.game, s.pending_headers, s.seat)
    out = answer(s, line)
    assert len(out) == 1 and out[0].startswith(f"error {code} "), out
    assert (s.game, s.pending_headers, s.seat) == before
    return out[0]


def command_text(cmd: object, rules: object) -> str:
    from xactika.core import Bid

    if isinstance(cmd, Bid):
        return f"bid {cmd.seat} {cmd.bid}"
    call = getattr(cmd, "call", None)
    tail = "" if call is None else " " + rules.format_call(call)  # type: ignore[attr-defined]
    return f"play {cmd.seat} {cmd.card}{tail}"  # type: ignore[attr-defined]


def play_through(s: RefereeSession, seed: int, limit: int | None = None) -> None:
    """Drive the session's game with random legal commands, as a controller would."""
    agents = [RandomAgent(seed + i) for i in range(s.state.config.players)]
    n = 0
    while (legal := legal_actions(s.state)).seat is not None and (limit is None or n < limit):
        cmd = agents[legal.seat].choose(view(s.state, legal.seat), legal)
        ok(s, command_text(cmd, s.state.rules))
        n += 1


def test_blank_and_comment_lines_get_no_answer() -> None:
    s = session()
    for line in ["", "   ", "\r\n", "# hello", "   # indented", b"\n", b"#x\r\n"]:
        assert s.feed(line) == []


def test_whole_game_matches_self_play() -> None:
    config = commit_config(Config(mode="bid", players=4, rounds=2, seed=11), NONCE)
    agents = [RandomAgent(100 + s) for s in range(4)]
    state, events = self_play(config, agents)
    rules = game_rules("xactika")
    s = session()
    out = ok(s, "newgame mode=bid players=4 rounds=2 seed=11")
    printed = [line for line in out if line.startswith("event ")]
    play_through(s, 100)
    assert s.state == state
    assert list(s.log) == events
    assert printed == [format_event(e, rules) for e in events[:2]]
    assert ok(s, "turn") == ["turn none"]
    assert error(s, "bid 0 1", "over").startswith("error over ")


def test_every_event_is_printed_once_in_order() -> None:
    s = session()
    seen: list[str] = [line for line in ok(s, "newgame players=3 rounds=1 seed=4")
                       if line.startswith("event ")]
    agents = [RandomAgent(i) for i in range(3)]
    while (legal := legal_actions(s.state)).seat is not None:
        cmd = agents[legal.seat].choose(view(s.state, legal.seat), legal)
        out = ok(s, command_text(cmd, s.state.rules))
        assert out[-1].startswith("turn ")
        seen += [line for line in out if line.startswith("event ")]
    rules = s.state.rules
    assert seen == [format_event(e, rules) for e in s.log]
    assert [int(line.split()[1]) for line in seen] == list(range(1, len(seen) + 1))


def test_errors_name_the_problem_and_change_nothing() -> None:
    s = session()
    error(s, "bid 0 1", "phase")
    error(s, "show", "phase")
    ok(s, "newgame players=3 rounds=1 seed=5")
    ok(s, "header seats a,b,c")
    cases = [
        ("frobnicate", "unknown"),
        ("BID 1 2", "unknown"),
        ("bid 1", "usage"),
        ("bid one 2", "parse"),
        ("bid 0 2", "turn"),
        ("bid 1 99", "bid"),
        ("bid 7 1", "turn"),
        ("play 1 1111", "phase"),
        ("play 1 9999", "parse"),
        ("play 1 1111 9xx", "parse"),
        ("newgame players=1", "config"),
        ("newgame colour=red", "parse"),
        ("newgame seed", "parse"),
        ("hello 9", "version"),
        ("known", "usage"),
        ("view 9", "config"),
        ("view x", "parse"),
        ("event 1 bid seat=0 bid=1", "event"),
        ("event 4 bid seat=1 bid=1", "event"),
        ("event 3 trick-won seat=1 trick=1", "event"),
        ("event x", "parse"),
        ("load /no/such/file.log", "path"),
        ("header Bad x", "usage"),
        ("record", "usage"),
        ("play 1 1111 2st extra", "usage"),
        (b"\xff\xfe bid", "utf8"),
        (b"bid " + b"1" * 70000, "toolong"),
        ("bid 1 1\nbid 2 2", "syntax"),
    ]
    for line, code in cases:
        msg = error(s, line, code)
        assert len(msg) > len(f"error {code} ") + 5
    assert "'frobnicate'" in error(s, "frobnicate", "unknown")


def test_wrong_time_errors_say_why() -> None:
    s = session()
    ok(s, "newgame players=2 rounds=1 seed=7")
    ok(s, "bid 1 3")
    ok(s, "bid 0 4")
    assert "needs one of the calls" in error(s, "play 1 3313", "call")
    assert "not in seat 1's hand" in error(s, "play 1 2112 1ba", "card")
    assert "plays next" in error(s, "play 0 2112", "turn")
    assert "bidding is over" in error(s, "bid 1 2", "phase")
    ok(s, "play 1 3313 3ba")
    assert "only the leader" in error(s, "play 0 3312 3ba", "call")
    assert "must follow with one of 3211 3312" in error(s, "play 0 2112", "follow")


def test_crlf_tabs_and_extra_spaces_are_tolerated() -> None:
    s = session()
    ok(s, "  newgame\tplayers=2   rounds=1 seed=7 \r\n")
    assert ok(s, "bid   1\t3\r\n")[0] == "event 3 bid seat=1 bid=3"
    assert s.feed(b"isready\r\n") == ["readyok"]


def test_piping_a_record_rebuilds_the_game() -> None:
    config = Config(mode="bid", players=3, rounds=2, seed=3)
    state, events = self_play(config, [RandomAgent(s) for s in range(3)])
    for sign in (True, False):
        text = format_record({"seats": "a,b,c"}, events, sign=sign)
        s = session()
        for line in text.splitlines():
            answer(s, line)
            if line.startswith("event ") and " game-started " not in line:
                assert s.feed(line)[-1].startswith("error event ")  # a repeat is refused...
        assert s.state == state  # ...and never applied
        assert s.log == tuple(events)
        assert ("seats", "a,b,c") in s.game.headers


def test_forged_events_are_refused() -> None:
    config = Config(mode="win", players=2, rounds=1, seed=8)
    _, events = self_play(config, [RandomAgent(s) for s in range(2)])
    rules = game_rules("xactika")
    lines = [format_event(e, rules) for e in events]
    s = session()
    for line in lines[:2]:
        ok(s, line)
    # a deal that is not the seed's
    other = format_event(self_play(Config(mode="win", players=2, rounds=1, seed=9),
                                   [RandomAgent(0), RandomAgent(1)])[1][1], rules)
    s2 = session()
    ok(s2, lines[0])
    assert "does not match" in error(s2, other, "event")
    # a play of a card the seat does not hold
    lead = lines[2].split()
    fake = " ".join(lead[:4] + ["card=" + ("1111" if lead[4] != "card=1111" else "1112")]
                    + lead[5:])
    error(s, fake, "event")
    for line in lines[2:]:
        ok(s, line)
    assert s.state.over


def test_derived_events_may_be_left_out_and_commands_may_follow() -> None:
    config = Config(mode="bid", players=2, rounds=1, seed=12)
    _, events = self_play(config, [RandomAgent(s) for s in range(2)])
    rules = game_rules("xactika")
    s = session()
    actions = [e for e in events if type(e).__name__ in ("BidMade", "Led", "Played")]
    ok(s, format_event(events[0], rules))
    for event in actions[:9]:
        ok(s, format_event(event, rules))
    play_through(s, 5)
    assert s.state.over
    assert replay(s.log) == s.state
    assert s.log[:10] == tuple(events[:10])


def test_load_continues_and_record_writes_as_it_goes(tmp_path: Path) -> None:
    path = tmp_path / "game.log"
    s = session(record=path)
    ok(s, "header seats ann,bob,cy")
    ok(s, "newgame players=3 rounds=1 seed=21")
    play_through(s, 7, limit=10)
    on_disk = read_record(path)
    assert on_disk.events == s.log
    assert "\n".join(ok(s, "log")) + "\n" == path.read_text()  # log = the file
    assert ("seats", "ann,bob,cy") in on_disk.headers
    t = session(files=tmp_path)
    out = ok(t, "load game.log")
    assert out[-1] == s.feed("turn")[0]
    assert t.state == s.state and t.log == s.log
    play_through(s, 99)
    play_through(t, 99)
    assert t.state == s.state
    # a second game in the recording session goes to game-2.log
    ok(s, "newgame players=2 rounds=1 seed=1")
    assert read_record(tmp_path / "game-2.log").events == s.log
    assert read_record(path).events[-1] == t.log[-1]


def test_load_recomputes_derived_events_lost_in_a_crash(tmp_path: Path) -> None:
    config = Config(mode="bid", players=2, rounds=1, seed=30)
    _, events = self_play(config, [RandomAgent(s) for s in range(2)])
    cut = next(i for i, e in enumerate(events) if type(e).__name__ == "TrickWon")
    path = tmp_path / "cut.log"
    path.write_text(format_record({}, events[:cut], sign=False))
    s = session(files=tmp_path)
    ok(s, "load cut.log")
    assert s.log == tuple(events[: cut + 1])


def test_bad_load_keeps_the_game(tmp_path: Path) -> None:
    s = session(files=tmp_path)
    ok(s, "newgame players=2 rounds=1 seed=2")
    bad = tmp_path / "bad.log"
    bad.write_text("header game xactika\nevent 1 game-started game=xactika mode=bid "
                   "players=2 rounds=1 dealer=0 seed=2\nevent 2 bid seat=0 bid=1\n")
    msg = error(s, "load bad.log", "record")
    assert "line 3:" in msg


def test_record_command_writes_the_game_so_far(tmp_path: Path) -> None:
    s = session(files=tmp_path)
    ok(s, "newgame players=2 rounds=1 seed=2")
    ok(s, "bid 1 2")
    ok(s, "record late.log")
    ok(s, "bid 0 3")
    assert read_record(tmp_path / "late.log").events == s.log
    error(s, "record no/such/dir.log", "error")
    ok(s, "record off")
    ok(s, "play 1 " + str(s.state.hands[1][0]) + " "
       + str(s.state.hands[1][0].calls[0]))
    assert len(read_record(tmp_path / "late.log").events) == 4


def test_log_output_is_a_record_that_reads_back() -> None:
    s = session()
    ok(s, "header seats x,y")
    ok(s, "newgame players=2 rounds=1 seed=3")
    play_through(s, 1, limit=6)
    from io import StringIO

    text = "\n".join(ok(s, "log")) + "\n"
    record = read_record(StringIO(text))
    assert record.events == s.log
    assert record.headers[:2] == (("record", "1"), ("seats", "x,y"))


def test_handshake_and_introspection() -> None:
    s = session()
    out = answer(s, "hello")
    assert out[0].startswith("id name=xactika version=") and out[0].endswith(" protocol=1")
    assert out[1] == "ok hello"
    names = [line.split()[1] for line in ok(s, "commands")]
    for name in names:
        assert answer(s, f"known {name}") == ["ok known yes"]
    assert answer(s, "known undo") == ["ok known no"]
    assert s.feed("isready") == ["readyok"]
    assert answer(s, "quit") == ["ok quit"] and s.done


def test_dix_plays_through_the_protocol() -> None:
    s = session()
    ok(s, "newgame game=dix players=2 seed=4")
    play_through(s, 3)
    assert s.state.over and replay(s.log) == s.state


@pytest.mark.parametrize("seat", [0, 1, 2])
def test_seat_view_game_started_and_deal_hide_secrets(seat: int) -> None:
    s = session(seat=seat)
    out = ok(s, "newgame players=3 rounds=1 seed=77")
    assert "seed=" not in out[0]
    hands = out[1].split("hands=")[1].split()[0].split("/")
    assert [h == "?" for h in hands] == [i != seat for i in range(3)]
    assert "aside=?" in out[1]


def test_a_view_seat_the_new_game_lacks_is_refused() -> None:
    s = session()
    ok(s, "view 3")
    assert "seats 0 to 1" in error(s, "newgame players=2 rounds=1 seed=1", "config")
    ok(s, "newgame players=4 rounds=1 seed=1")


def test_seeded_games_commit_to_the_seed_and_reveal_it_at_the_end() -> None:
    s = session(seat=0)
    out = ok(s, "newgame players=2 rounds=1")
    config = s.state.config
    assert config.seed == 42 and config.nonce == NONCE
    assert config.commit == commitment("xactika", 42, NONCE)
    assert f"commit={config.commit}" in out[0]
    assert "seed=" not in out[0] and "nonce=" not in out[0]
    play_through(s, 3)
    last = s.feed("log")[-3]  # then the result line (spec/RECORDS.md) and ok log
    assert last.startswith("event ") and " game-over " in last
    assert f"seed=42 nonce={NONCE}" in last
    assert "commit" in error(s, f"newgame seed=1 nonce={NONCE} commit={'ab' * 32}", "config")


def test_show_after_the_game_has_no_trick_in_progress() -> None:
    """After game-over there is no trick 9 of 8: `show` says trick=-."""
    s = session()
    ok(s, "newgame mode=win players=2 rounds=1 seed=5")
    assert any(line.startswith("state trick=1 ") for line in ok(s, "show"))
    play_through(s, 7)
    trick = next(line for line in ok(s, "show") if line.startswith("state trick="))
    assert trick.startswith("state trick=- "), trick
