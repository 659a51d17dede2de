"""The real prompt_toolkit prompt, fed keystrokes through a pipe: whole seeded games."""

from __future__ import annotations

import io
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

from xactika.core import Bid, Config, start
from xactika.core.bots.agents import make_agent
from xactika.core.engine.api import GameOver
from xactika.core.engine.check import check_log
from xactika.core.games.xactika import SHAPE_TOKENS
from xactika.frontends.repl import play
from xactika.frontends.repl.shell import BOT, HUMAN, SeatSpec, Shell


def new_session(seed: int, mode: str, rounds: int, seats: list[SeatSpec] | None = None
                ) -> Shell:
    config = Config(mode=mode, players=4, rounds=rounds, seed=seed)
    specs = seats or [SeatSpec(HUMAN)] + [SeatSpec(BOT, "heuristic")] * 3
    return Shell(start(config), specs,
                   lambda s: make_agent(specs[s].name, seed * 1000 + s),
                   make_hint=lambda s: make_agent("heuristic", s))


def planned_lines(seed: int, mode: str, rounds: int, seats: list[SeatSpec] | None = None
                  ) -> tuple[list[str], list[object]]:
    """Play the game once without a terminal; the lines typed and the events it makes.

    Bots are seeded, so the same lines typed at the prompt must give the same game.
    """
    session = new_session(seed, mode, rounds, seats)
    session.advance()
    lines = []
    while not session.over:
        seat = session.human_to_act
        assert seat is not None
        found = session.hint(seat)
        assert found is not None
        command = found[0]
        if isinstance(command, Bid):
            line = str(command.bid)
        else:
            pos = session.shown_hand(seat).index(command.card) + 1
            line = str(pos) if command.call is None else (
                f"play {pos} {SHAPE_TOKENS[command.call.shape]}")
        assert session.handle(line).moved
        lines.append(line)
    return lines, list(session.events)


@contextmanager
def piped() -> Iterator[PipeInput]:
    with create_pipe_input() as pipe:
        yield pipe


def run_prompt(session: Shell, keys: str | list[str]) -> tuple[int, str]:
    """Run the shell on keystrokes. With a list, a chunk ending in Tab waits (in a
    feeder thread) until the completion has landed in the line before the next chunk."""
    out = io.StringIO()
    chunks = [keys] if isinstance(keys, str) else keys
    with piped() as pipe:
        read = play.prompt_reader(session, None, input=pipe, output=DummyOutput())

        def feed() -> None:
            for chunk in chunks:
                pipe.send_text(chunk)
                if chunk.endswith("\t"):
                    deadline = time.monotonic() + 10
                    typed = chunk.rstrip("\t")
                    while time.monotonic() < deadline:
                        app = read.prompt.app
                        text = app.current_buffer.text if app.is_running else ""
                        if text.startswith(typed) and len(text) > len(typed):
                            break
                        time.sleep(0.01)

        feeder = threading.Thread(target=feed, daemon=True)
        feeder.start()
        code = play.Loop(session, read, out, interactive=True).run()
        feeder.join(5)
    return code, out.getvalue()


@pytest.mark.parametrize(("seed", "mode"), [(3, "bid"), (21, "win"), (5, "lose")])
def test_a_whole_seeded_game_through_the_prompt(seed: int, mode: str) -> None:
    lines, events = planned_lines(seed, mode, 2)
    keys = "".join(line + "\r" for line in lines) + "quit\r"
    session = new_session(seed, mode, 2)
    code, text = run_prompt(session, keys)
    assert code == 0
    assert session.events == events
    assert isinstance(session.events[-1], GameOver)
    assert check_log(session.events).complete
    assert "final standings" in text
    assert text.count("(each cell:") >= 2  # a score table after each round


def test_tab_completion_ctrl_c_and_bad_input_at_the_prompt() -> None:
    lines, events = planned_lines(3, "bid", 1)
    # "sc<Tab>" completes to scores; Ctrl-C drops a half-typed line; junk is refused
    extra = ["sc\t", "\r", "play 12\x03", "frobnicate\r", "bid 99\r"]
    keys = [*extra, *(line + "\r" for line in lines), "\r"]
    session = new_session(3, "bid", 1)
    code, text = run_prompt(session, keys)
    assert code == 0
    assert session.events == events
    assert "no round has been scored yet" in text  # the completed 'scores'
    assert "unknown command 'frobnicate'" in text
    assert "bid 99 is out of range" in text
    assert "no card at position 12" not in text  # the Ctrl-C'd line never ran


def test_ctrl_d_asks_before_leaving_an_unfinished_game() -> None:
    session = new_session(3, "bid", 1)
    # Ctrl-D, answer no; then Ctrl-D, answer yes
    code, text = run_prompt(session, "\x04n\r\x04y\r")
    assert code == 0
    assert text.count("your bid") >= 1
    assert len(session.events) == 5  # three bots bid, nobody else moved


def test_hot_seat_through_the_prompt() -> None:
    seats = [SeatSpec(HUMAN, "ann"), SeatSpec(BOT, "heuristic"), SeatSpec(HUMAN, "bob"),
             SeatSpec(BOT, "heuristic")]
    lines, events = planned_lines(9, "win", 1, seats)
    session = new_session(9, "win", 1, seats)
    # every change of person takes two Enters (hide, then ready); the first takes one
    keys = []
    last = None
    probe = new_session(9, "win", 1, seats)
    probe.advance()
    for line in lines:
        seat = probe.human_to_act
        if seat != last:
            keys.append("\r" if last is None else "\r\r")
            last = seat
        probe.handle(line)
        keys.append(line + "\r")
    code, text = run_prompt(session, "".join(keys) + "quit\r")
    assert code == 0
    assert session.events == events
    assert text.count(play.CLEAR) == sum(1 for k in keys if k.startswith("\r")) - 1


def test_hot_seat_keeps_no_input_history(tmp_path: Path) -> None:
    """Up-arrow must not show the next person the last one's typing (refused cards too)."""
    from prompt_toolkit.history import DummyHistory, FileHistory

    seats = [SeatSpec(HUMAN, "ann"), SeatSpec(HUMAN, "bob"), SeatSpec(BOT, "random"),
             SeatSpec(BOT, "random")]
    with piped() as pipe:
        hot = play.prompt_reader(new_session(1, "win", 1, seats), tmp_path / "h",
                                 input=pipe, output=DummyOutput())
        solo = play.prompt_reader(new_session(1, "win", 1), tmp_path / "h",
                                  input=pipe, output=DummyOutput())
    assert isinstance(hot.prompt.history, DummyHistory)
    assert isinstance(solo.prompt.history, FileHistory)
