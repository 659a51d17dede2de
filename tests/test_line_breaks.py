"""A line is split only at ``\\n``, and its words only at spaces and tabs (issue 40):
``quit\\u2028`` is not ``quit``, ``seat T\\u2028`` names no seat. Python's
``str.split()`` and ``str.splitlines()`` take U+2028, U+0085, U+001C and NBSP for
breaks; every reader of our lines is held here to the protocol's framing (PLAYER.md
section 1). One test per reader: the player protocol's bot sides (the lean random bot
and a core bot), the host's typed reader, the engine, the table server."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest
from netkit import Client, LiveServer

from xactika.frontends.stdio.bot import honest_session, serve
from xactika.protocol.player import wire
from xactika.protocol.player.lean import LeanRandomSession
from xactika.protocol.referee.sansio import RefereeSession

XACTIKA = Path(sys.executable).with_name("xactika")
BREAKS = ["\u2028", "\u2029", "\x85", "\x1c", "\x0b", "\xa0", "\u3000"]


@pytest.mark.parametrize("mark", BREAKS)
def test_the_typed_reader_takes_no_other_break_for_a_blank(mark: str) -> None:
    assert not isinstance(wire.read(f"quit{mark}"), wire.Quit)
    assert wire.first_word(f"quit{mark}") == f"quit{mark}"
    assert isinstance(wire.read("quit \t\r"), wire.Quit)  # the protocol's blanks


@pytest.mark.parametrize("mark", BREAKS)
@pytest.mark.parametrize("session", [lambda: LeanRandomSession(1),
                                     lambda: honest_session("heuristic", 1)],
                         ids=["lean random", "heuristic"])
def test_a_bot_reads_quit_with_a_line_separator_as_an_unknown_command(
        session: object, mark: str) -> None:
    one = session()  # type: ignore[operator]
    out = io.BytesIO()
    serve(one, io.BytesIO(f"quit{mark}\nisready\n".encode()), out)
    lines = out.getvalue().decode().split("\n")
    assert not one.done and lines[0].startswith("info ignoring unknown command"), lines
    assert lines[1] == "readyok"


def test_xactika_bot_random_goes_on_after_quit_with_u2028() -> None:
    """The issue's own case, the process itself: it answers the isready after it."""
    done = subprocess.run([str(XACTIKA), "bot", "random"], input="quit\u2028\nisready\n",
                          capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.split("\n")[1] == "readyok", done.stdout


@pytest.mark.parametrize("mark", BREAKS)
def test_the_engine_reads_quit_with_a_line_separator_as_an_unknown_command(
        mark: str) -> None:
    engine = RefereeSession()
    assert engine.feed(f"quit{mark}\n".encode())[0].startswith("error ")
    assert not engine.done


def test_the_server_finds_no_seat_in_a_token_with_a_line_separator(
        tmp_path: Path) -> None:
    with LiveServer(tmp_path) as live:
        table = live.table()
        client = Client(live.port)
        client.send(f"seat {table.seats[0].token}\u2028")
        line = client.read()
        assert line is not None and line.startswith("error"), line
        assert table.seats[0].link is None
