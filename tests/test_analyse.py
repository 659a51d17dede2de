"""``xactika analyse``: the search weighs each decision from the seat's view alone."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from xactika.core.bots.agents import RandomAgent, self_play
from xactika.core.bots.heuristic import HeuristicAgent
from xactika.core.engine.api import (
    Bid,
    Command,
    Config,
    Event,
    PresetDeal,
    legal_actions,
    replay,
    start,
    step,
)
from xactika.core.engine.errors import XactikaError
from xactika.core.engine.views import view, visible
from xactika.core.games.xactika import DECK, HAND_SIZE
from xactika.frontends.records import analyse
from xactika.frontends.records import replay as replayer
from xactika.frontends.records.analysisform import MARKS, mark_of
from xactika.protocol.records.textform import format_record

DEALS = 12  # few deals: the figures are still exact for a seed, and the tests fast


def _deal(seed: int) -> PresetDeal:
    cards = random.Random(seed).sample(DECK, len(DECK))
    hands = tuple(tuple(cards[s * HAND_SIZE:(s + 1) * HAND_SIZE]) for s in range(4))
    return PresetDeal(hands, tuple(cards[4 * HAND_SIZE:]))


def _game(deal: PresetDeal, moves: int, commands: Sequence[Command] = ()
          ) -> tuple[list[Event], list[Command]]:
    """The events of a one-round game of ``deal`` after ``moves`` commands: those given,
    then the heuristic's."""
    config = Config(game="xactika", mode="bid", players=4, rounds=1, deals=(deal,))
    events = start(config)
    state = replay(events)
    bot = HeuristicAgent(3)
    made: list[Command] = []
    for i in range(moves):
        legal = legal_actions(state)
        cmd = commands[i] if i < len(commands) else bot.choose(view(state, legal.seat or 0),
                                                              legal)
        state, new = step(state, cmd)
        events += new
        made.append(cmd)
    return events, made


def _write(path: Path, events: Sequence[Event]) -> str:
    path.write_text(format_record([("seats", "ann,bob,cy,dee")], events), encoding="utf-8")
    return str(path)


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    rc = analyse.main(list(args))
    out, err = capsys.readouterr()
    return rc, out, err


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    rc, out, err = _run(capsys, *args, "--json", "--deals", str(DEALS))
    assert rc == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


def _other_hands(deal: PresetDeal, moves: int) -> tuple[PresetDeal, list[Command]]:
    """``deal`` with a card seat 1 has not played by move ``moves`` swapped for an undealt
    one, such that the same commands stay legal; and those commands."""
    _, made = _game(deal, moves)
    played = {c.card for c in made if not isinstance(c, Bid)}
    assert deal.rest is not None
    for out in deal.hands[1]:
        if out in played:
            continue
        for into in deal.rest:
            hands = list(deal.hands)
            hands[1] = tuple(into if c == out else c for c in hands[1])
            rest = tuple(out if c == into else c for c in deal.rest)
            other = PresetDeal(tuple(hands), rest)
            try:
                _game(other, moves, made)
            except XactikaError:
                continue
            return other, made
    raise AssertionError("no swap keeps the moves legal")


def test_the_hidden_cards_change_nothing(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    deal = _deal(5)
    moves = 4 + 4 * 3  # the bids and three tricks: the round goes on, seat 1 holds cards
    other, made = _other_hands(deal, moves)
    a = _write(tmp_path / "a.log", _game(deal, moves)[0])
    b = _write(tmp_path / "b.log", _game(other, moves, made)[0])
    assert Path(a).read_text() != Path(b).read_text()
    seat0 = _json(capsys, a, "--seat", "1")  # typed as people count seats: seat 0
    assert len(seat0["decisions"]) == 4 and {d["seat"] for d in seat0["decisions"]} == {0}
    assert _json(capsys, b, "--seat", "1") == seat0
    # seat 1 holds the swapped card, so its own analysis may and does change
    assert _json(capsys, a, "--seat", "2") != _json(capsys, b, "--seat", "2")
    # and seat 0's own log, which never held another hand, is analysed the same
    log = tmp_path / "seat0.log"
    log.write_text(format_record([("seats", "ann,bob,cy,dee"), ("view", "0")],
                                 [visible(e, 0) for e in _game(deal, moves)[0]]))
    assert _json(capsys, str(log)) == seat0


def test_a_planted_blunder_is_marked(tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    deal = _deal(9)
    events, made = _game(deal, 4 * 9)
    first = made[0]
    assert isinstance(first, Bid)
    planted = [Bid(first.seat, 8 if first.bid < 4 else 0), *made[1:]]
    edited = _game(deal, len(planted), planted)[0]  # the rest of the moves kept, re-chained
    honest = _json(capsys, _write(tmp_path / "honest.log", events))
    blunder = _json(capsys, _write(tmp_path / "blunder.log", edited))
    before, after = honest["decisions"][0], blunder["decisions"][0]
    assert before["seq"] == after["seq"] == 3
    assert after["made"] == {"bid": planted[0].bid}
    assert after["mark"] == "blunder" and after["loss"] >= MARKS[0][1]
    assert before["mark"] != "blunder"
    assert blunder["summary"][first.seat]["blunder"] >= 1


def test_the_json_shape(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    events, _ = _game(_deal(2), 4 + 8)
    path = _write(tmp_path / "g.log", events)
    data = _json(capsys, path)
    assert data == _json(capsys, path)  # seeded: the same record, the same figures
    assert (data["analysis"], data["game"], data["mode"], data["players"], data["deals"],
            data["seats"]) == (1, "xactika", "bid", 4, DEALS, [0, 1, 2, 3])
    assert data["thresholds"] == dict(MARKS)
    assert [d["seq"] for d in data["decisions"]] == list(range(3, 3 + 4)) + [
        e.seq for e in events[6:] if e.kind in ("lead", "play")]
    state = replay(events[:2])
    for d in data["decisions"][:4]:
        assert d["trick"] is None and not d["forced"]
        assert len(d["options"]) == len(legal_actions(state).bids)
        state = replay(events[: d["seq"]])
    for d in data["decisions"]:
        if d["forced"]:
            assert d["options"] == [] and d["loss"] == 0 and d["points"] is None
            continue
        points = [o["points"] for o in d["options"]]
        assert d["best"] == max(points)
        assert d["made"] in [o["move"] for o in d["options"]]
        assert d["loss"] == pytest.approx(d["best"] - d["points"], abs=2e-3)
        assert d["mark"] == mark_of(d["loss"])
    lead = next(d for d in data["decisions"] if d["made"].get("call"))
    assert len(lead["options"]) == 4 * HAND_SIZE  # every card with each of its calls
    for row in data["summary"]:
        mine = [d for d in data["decisions"] if d["seat"] == row["seat"]]
        assert row["decisions"] == len(mine) and row["name"] == "ann,bob,cy,dee".split(
            ",")[row["seat"]]
        weighed = [d for d in mine if not d["forced"]]
        assert row["forced"] == len(mine) - len(weighed)
        assert row["average_loss"] == pytest.approx(
            sum(d["loss"] for d in weighed) / len(weighed), abs=2e-3)
        for mark in ("inaccuracy", "mistake", "blunder"):
            assert row[mark] == sum(d["mark"] == mark for d in mine)


def test_the_same_figures_in_any_process(tmp_path: Path) -> None:
    """Seeded by the record alone: neither Python's hash seed nor the run matters."""
    path = _write(tmp_path / "g.log", _game(_deal(6), 4 + 8)[0])
    outs = set()
    for hash_seed in ("1", "2"):
        done = subprocess.run(
            [sys.executable, "-m", "xactika.frontends.cli", "analyse", path, "--json",
             "--deals", "6"], capture_output=True, text=True, timeout=120, check=True,
            env={**os.environ, "PYTHONHASHSEED": hash_seed})
        outs.add(done.stdout)
    assert len(outs) == 1 and json.loads(outs.pop())["decisions"]


def test_the_text_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path / "g.log", _game(_deal(2), 4 + 4)[0])
    rc, out, _ = _run(capsys, path, "--seat", "3", "--deals", str(DEALS))
    assert rc == 0
    assert "round 1" in out and "seat 3 (cy): bid" in out and "summary" in out
    assert "seat 1 (ann)" not in out


def _error(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    rc, out, err = _run(capsys, *args)
    assert rc == 2 and out == ""
    assert err.startswith("xactika analyse: ") and err.count("\n") == 1
    return err


def test_bad_input_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert "cannot read" in _error(capsys, str(tmp_path / "nope.log"))
    good = _write(tmp_path / "g.log", _game(_deal(2), 4)[0])
    damaged = tmp_path / "damaged.log"
    damaged.write_text(Path(good).read_text().replace("event 3 bid", "event 3 bud"))
    assert "line " in _error(capsys, str(damaged))
    damaged.write_text(Path(good).read_text().replace("event 3 bid seat=1", "event 3 bid seat=2"))
    assert "stops following the rules at event 3" in _error(capsys, str(damaged))
    assert "no seat 5: seats are 1 to 4" in _error(capsys, good, "--seat", "5")
    assert "no seat 0: seats are 1 to 4" in _error(capsys, good, "--seat", "0")
    assert "at least 1" in _error(capsys, good, "--deals", "0")
    for game in ("dix", "ohhell"):
        config = Config(game=game, players=2 if game == "dix" else 4, rounds=1, seed=1)
        events = self_play(config, [RandomAgent(s) for s in range(config.players)])[1]
        path = tmp_path / f"{game}.log"
        path.write_text(format_record([], events), encoding="utf-8")
        assert "no search to analyse with" in _error(capsys, str(path))


def test_the_replay_shows_it_beside_each_move(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path / "g.log", _game(_deal(2), 4 + 4)[0])
    out = _run(capsys, path, "--json", "--deals", str(DEALS), "--seat", "2")[1]
    analysis = tmp_path / "g.json"
    analysis.write_text(out)
    first = json.loads(out)["decisions"][0]
    assert replayer.main([path, "--analysis", str(analysis), "--keys", "l l"]) == 0
    shown = capsys.readouterr().out
    assert f"analysis: seat 2 (bob): bid {first['made']['bid']} {first['points']:+.2f}" in shown
    # another seat's view shows nothing of bob's options
    assert replayer.main([path, "--analysis", str(analysis), "--keys", "l l", "--seat", "1"]
                       ) == 0
    assert "analysis:" not in capsys.readouterr().out
    # --analyse weighs them first, with the default deals
    assert replayer.main([path, "--analyse", "--keys", "l l"]) == 0
    assert "analysis: seat 2 (bob): bid " in capsys.readouterr().out
    other = _write(tmp_path / "other.log", _game(_deal(3), 4 + 4)[0])
    assert replayer.main([other, "--analysis", str(analysis)]) == 2
    err = capsys.readouterr().err
    assert "the analysis is of another record" in err and err.count("\n") == 1
    analysis.write_text('{"analysis": 1, "decisions": [{"seq": "3"}]}')
    assert replayer.main([path, "--analysis", str(analysis)]) == 2
    assert "must be integers" in capsys.readouterr().err


@pytest.mark.filterwarnings("ignore:.*httpx.*")  # TestClient's notice on httpx
def test_the_web_viewer_shows_it_beside_each_move(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from starlette.testclient import TestClient

    from xactika.frontends.web.viewer import ANALYSIS_SUFFIX, viewer_app

    events = _game(_deal(4), 4 * 9)[0]
    assert events[-1].kind == "game-over"  # the viewer serves a folder's finished games
    path = _write(tmp_path / "g.log", events)
    out = _run(capsys, path, "--json", "--deals", "4")[1]
    moves = {d["seq"]: d["seat"] for d in json.loads(out)["decisions"]}
    with TestClient(viewer_app(tmp_path)) as client:
        def shown(seat: str | None) -> dict[int, str]:
            params = {"file": "g.log"} | ({"seat": seat} if seat is not None else {})
            data = client.get("/replay/api/record", params=params).json()
            return {i + 1: e["analysis"] for i, e in enumerate(data["events"])
                    if e["analysis"] is not None}

        assert shown(None) == {}  # no analysis beside the record: none shown
        (tmp_path / ("g.log" + ANALYSIS_SUFFIX)).write_text(out)
        everyone = shown(None)
        assert set(everyone) == set(moves)
        assert all(line.startswith(f"seat {moves[seq] + 1} (") for seq, line in everyone.items())
        assert set(shown("2")) == {seq for seq, seat in moves.items() if seat == 2}
        (tmp_path / ("g.log" + ANALYSIS_SUFFIX)).write_text(out.replace('"seq": 3,',
                                                                         '"seq": 4,', 1))
        data = client.get("/replay/api/record", params={"file": "g.log"}).json()
        assert "another record" in data["analysis_problem"]
        assert all(e["analysis"] is None for e in data["events"])
