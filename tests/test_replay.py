"""``xactika replay``: the pure cursor, the screens, and the viewer driven by keys."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from xactika.core import Config, RandomAgent, RoundScored, TrickWon
from xactika.core.bots.agents import self_play
from xactika.core.engine.api import Dealt, replay
from xactika.frontends.records.replay import (
    Cursor,
    Game,
    apply_keys,
    goto_round,
    next_event,
    next_round,
    next_trick,
    next_view,
    prev_event,
    prev_round,
    prev_trick,
    run_viewer,
    screen,
)
from xactika.frontends.repl import render
from xactika.protocol.records.textform import format_record, read_record
from xactika.protocol.trust.tamper import commit_config

CONFIG = commit_config(Config(mode="bid", players=4, rounds=3, seed=21))


def make_game(config: Config = CONFIG, cut: int | None = None) -> Game:
    _, events = self_play(config, [RandomAgent(s) for s in range(config.players)])
    names = ",".join(["ann", "bob", "cy", "di"][: config.players])
    text = format_record([("seats", names)], events[:cut])
    return Game.from_record(read_record(io.StringIO(text)))


def test_the_state_at_every_position_is_the_fold_of_the_events_so_far() -> None:
    g = make_game()
    for pos in (0, 1, 17, len(g.events) // 2, g.last()):
        assert g.states[pos] == replay(g.events[: pos + 1])


def test_stepping_by_event_trick_and_round() -> None:
    g = make_game()
    c = Cursor()
    assert prev_event(g, c).message == "at the first event"
    c = next_event(g, c)
    assert isinstance(g.events[c.pos], Dealt)
    # tricks: every trick-won in order, and back again
    ends = []
    t = c
    while True:
        moved = next_trick(g, t)
        if moved.pos == t.pos:
            assert moved.message == "no trick after this one"
            break
        assert isinstance(g.events[moved.pos], TrickWon)
        ends.append(moved.pos)
        t = moved
    assert len(ends) == 8 * 3
    assert prev_trick(g, t).pos == ends[-2]
    # rounds: the deals, forward, back, and by number
    deals = [i for i, e in enumerate(g.events) if isinstance(e, Dealt)]
    assert next_round(g, c).pos == deals[1]
    assert next_round(g, next_round(g, c)).pos == deals[2]
    assert next_round(g, Cursor(deals[2])).message == "this is the last round"
    assert prev_round(g, Cursor(deals[2] + 5)).pos == deals[2]
    assert prev_round(g, Cursor(deals[2])).pos == deals[1]
    assert goto_round(g, c, 3).pos == deals[2]
    assert goto_round(g, c, 4).message == "no round 4: the record has rounds 1 to 3"
    assert apply_keys(g, c, ["2", "j"]).pos == deals[1]
    assert apply_keys(g, c, ["G"]).pos == g.last()
    assert apply_keys(g, Cursor(9), ["g"]).pos == 0
    assert apply_keys(g, c, ["x"]).message.startswith("unknown key 'x'")


def test_views_cycle_and_scores_stand_as_they_were() -> None:
    g = make_game()
    c = Cursor()
    seats = []
    for _ in range(5):
        c = next_view(g, c)
        seats.append(c.seat)
    assert seats == [0, 1, 2, 3, None]
    assert apply_keys(g, c, ["3", "s"]).seat == 2  # typed as people count seats
    assert apply_keys(g, c, ["7", "s"]).message == "no seat 7: seats are 1 to 4"
    assert apply_keys(g, c, ["0", "s"]).message == "no seat 0: seats are 1 to 4"
    scored = [i for i, e in enumerate(g.events) if isinstance(e, RoundScored)]
    before = screen(g, Cursor(scored[1] - 1))
    after = screen(g, Cursor(scored[1]))
    first = g.events[scored[0]]
    second = g.events[scored[1]]
    assert isinstance(first, RoundScored) and isinstance(second, RoundScored)
    def rows(text: str, label: str) -> list[list[str]]:
        return [[cell.strip() for cell in ln.split("│")] for ln in text.splitlines()
                if ln.split(" ")[0] == label and "│" in ln]

    assert rows(before, "total") == [["total", *(str(t) for t in first.totals)]]
    assert rows(after, "total") == [["total", *(str(t) for t in second.totals)]]
    assert rows(before, "2") == [] and len(rows(after, "2")) == 1
    end = screen(g, Cursor(g.last()))
    assert "final standings" in end
    assert "final standings" not in before


def test_a_seat_view_never_shows_another_seats_hand() -> None:
    g = make_game()
    for pos in range(g.last()):
        state = g.states[pos]
        for seat in range(4):
            text = screen(g, Cursor(pos, seat), render.PLAIN)
            for other in range(4):
                if other == seat or not state.hands:
                    continue
                for card in state.hands[other]:
                    assert str(card) not in text, (pos, seat, card)
            if state.hands:
                for card in state.hands[seat]:
                    assert str(card) in text
        # the omniscient view shows them all
        if state.hands:
            text = screen(g, Cursor(pos), render.PLAIN)
            assert all(str(card) in text for hand in state.hands for card in hand)


def test_unfinished_and_illegal_records_are_shown_up_to_where_they_stop() -> None:
    g = make_game(cut=30)
    assert "the game is unfinished" in screen(g, Cursor(g.last()))
    _, events = self_play(CONFIG, [RandomAgent(s) for s in range(4)])
    text = format_record([], events).replace("bid seat=2", "bid seat=3", 1)
    bad = Game.from_record(read_record(io.StringIO(text)))
    assert bad.problem is not None and "illegal bid 0 by seat 3" in bad.problem
    assert "stops following the rules" in screen(bad, Cursor(bad.last()))


def test_the_viewer_runs_on_keys(tmp_path: Path) -> None:
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    g = make_game()
    deals = [i for i, e in enumerate(g.events) if isinstance(e, Dealt)]
    with create_pipe_input() as pipe:
        pipe.send_text("rr")  # two rounds on
        pipe.send_text("\x1b[B")  # down arrow: no round after the last
        pipe.send_text("2s")  # the second seat's view
        pipe.send_text("2\r")  # round 2
        pipe.send_text("tl")  # a trick, then an event
        pipe.send_text("q")
        c = run_viewer(g, Cursor(), render.PLAIN, input=pipe, output=DummyOutput())
    expected = next_event(g, next_trick(g, Cursor(deals[1])))
    assert (c.pos, c.seat) == (expected.pos, 1)


def test_cli_prints_the_screen_without_a_terminal(tmp_path: Path) -> None:
    _, events = self_play(CONFIG, [RandomAgent(s) for s in range(4)])
    path = tmp_path / "g.log"
    path.write_text(format_record([("seats", "ann,bob,cy,di")], events), encoding="utf-8")
    cli = [sys.executable, "-m", "xactika.frontends.cli", "replay", str(path)]
    done = subprocess.run([*cli, "--keys", "r r t", "--seat", "2"], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "round 2 of 3, trick 1, view: seat 2 (bob)" in done.stdout
    assert "seat 2 (bob)'s hand" in done.stdout
    for args, message in [(["--round", "9"], "no round 9"), (["--seat", "5"], "no seat 5"),
                          (["--seat", "0"], "no seat 0")]:
        done = subprocess.run([*cli, *args], capture_output=True, text=True, check=False)
        assert done.returncode == 2 and message in done.stderr
    done = subprocess.run([*cli[:-1], str(tmp_path / "none.log")], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 2 and "cannot read" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("game", ["dix"])
def test_other_games_replay_too(game: str) -> None:
    g = make_game(Config(game=game, mode="draw", players=2, seed=5))
    c = apply_keys(g, Cursor(), ["t", "t", "0", "s"])
    assert "turned up:" in screen(g, c)
    assert "trick 2" in screen(g, c)


def test_jsonl_records_replay_the_same(tmp_path: Path) -> None:
    from xactika.frontends.records.replay import load
    from xactika.protocol.records.jsonl import text_to_jsonl

    _, events = self_play(CONFIG, [RandomAgent(s) for s in range(4)])
    text = format_record([("seats", "ann,bob,cy,di")], events)
    (tmp_path / "g.log").write_text(text, encoding="utf-8")
    (tmp_path / "g.jsonl").write_text(text_to_jsonl(text.splitlines()), encoding="utf-8")
    a, b = load(str(tmp_path / "g.log")), load(str(tmp_path / "g.jsonl"))
    assert a.events == b.events and a.names == b.names
    assert screen(a, Cursor(40, 2)) == screen(b, Cursor(40, 2))


@pytest.mark.parametrize("columns", [60, 80])
def test_nothing_is_cut_on_a_narrow_terminal(columns: int) -> None:
    import re

    from prompt_toolkit.data_structures import Size
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output.vt100 import Vt100_Output

    g = make_game()
    buf = io.StringIO()
    out = Vt100_Output(buf, lambda: Size(rows=60, columns=columns), term="xterm")
    with create_pipe_input() as pipe:
        pipe.send_text("r2sq")  # round 1, seat 2's view: the line of the others' hands
        c = run_viewer(g, Cursor(), render.PLAIN, input=pipe, output=out)
    drawn = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][0-9A-Za-z]|\x1b[=>]|[\r\n\x08]", "",
                   buf.getvalue())
    for line in screen(g, c).splitlines():
        assert line.strip() in drawn  # wrapped where too long, never cut
    assert "g G: first/last event" in drawn and "q: quit" in drawn
