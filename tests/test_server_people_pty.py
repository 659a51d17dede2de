"""A person at the table server, in a real pseudo-terminal (``xactika play --connect``):
the clock counts down in the toolbar, other seats' moves appear while the person waits,
thinking past the bots' move timeout keeps the seat, and a bank that runs out seats a
bot until the person types ``back``. The server runs in-process on 127.0.0.1; the
other two seats are raw sockets the test drives."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest
from netkit import Client, LiveServer, first_option, in_thread

from xactika.core.engine.check import check_log
from xactika.protocol.net.clock import Clock
from xactika.protocol.net.table import table_settings
from xactika.protocol.records.textform import read_record

pexpect = pytest.importorskip("pexpect")

from test_play_pty import PROMPT, move_by_hint  # noqa: E402

XACTIKA = Path(sys.executable).with_name("xactika")
pytestmark = pytest.mark.skipif(not XACTIKA.exists(), reason="needs the installed command")


def seat(client: Client, token: str, until: str) -> list[str]:
    """A bot seat's handshake; the lines up to the first that starts with ``until``."""
    client.send(f"seat {token}")
    got = []
    while (line := client.read(20)) is not None:
        got.append(line)
        if line.startswith("hello"):
            client.send("hello 1 name=first")
        elif line.startswith("isready"):
            client.send("readyok")
        if line.startswith(until):
            break
    return got


def slow_bot(client: Client, delay: float) -> None:
    """Answer every go with its first option after ``delay`` s, until the server closes."""
    while (line := client.read(30)) is not None:
        if line.startswith("go "):
            time.sleep(delay)
            client.send(first_option(line))


def test_a_person_sees_the_clock_live_events_and_takes_the_seat_back(tmp_path: Path) -> None:
    settings = table_settings({"players": "3", "rounds": "1", "seed": "5"}, grace=10.0,
                              move_timeout=0.5, clock=Clock(7000, 2000))
    with LiveServer(tmp_path) as live:
        table = live.table(settings)
        one, two = Client(live.port), Client(live.port)
        first = in_thread(seat, one, table.seats[1].token, "go bid")
        second = in_thread(seat, two, table.seats[2].token, "go bid")
        env = dict(os.environ, NO_COLOR="1", TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1",
                   XACTIKA_HISTORY="")
        child = pexpect.spawn(str(XACTIKA), ["play", "--connect", f"127.0.0.1:{live.port}",
                                             "--token", table.seats[0].token, "--name", "Ann"],
                              env=env, encoding="utf-8", timeout=20, dimensions=(40, 120))
        child.logfile_read = open(tmp_path / "screen.log", "w", encoding="utf-8")
        try:
            child.expect("seats: 1 you, 2 first \\(remote\\), 3 first \\(2\\) \\(remote\\)")
            one.send(first_option(first.result(20)[-1]))  # seat 1 bids; seat 2 holds
            child.expect(r"seat 2 \(first\) bids \d", timeout=5)  # seen before our turn
            assert "bid>" not in child.before
            two.send(first_option(second.result(20)[-1]))
            child.expect("left on your clock")  # the toolbar counts the bank down
            child.expect(PROMPT)
            time.sleep(1.2)  # past the bots' 0.5 s move timeout: a person keeps the seat
            move_by_hint(child)
            bots = [in_thread(slow_bot, c, 0.2) for c in (one, two)]
            child.expect(PROMPT)  # our next turn: let the bank run out
            child.expect("5 seconds left on your clock", timeout=15)
            child.expect("a bot plays your seat now", timeout=15)
            child.sendline("back")
            child.expect("you are back")
            moves = 0
            while child.expect([PROMPT, "final standings"], timeout=30) == 0:
                move_by_hint(child)
                moves += 1
            assert moves >= 1  # the person played again after taking the seat back
            child.expect("Enter, 'quit' or Ctrl-D leaves")
            child.sendline("")
            child.expect(pexpect.EOF)
            for bot in bots:
                bot.result(30)
            live.wait_over(table)
        finally:
            child.close(force=True)
    record = read_record(table.record)
    check_log(list(record.events))
    assert record.header("seats") == "Ann,first,first (2)"
    assert record.header("kinds") == "human,bot,bot"
    faults = [v for k, v in record.headers if k == "fault"]
    assert len(faults) == 1 and faults[0].startswith("0 timeout: the clock (7+2) ran out")
    assert [v.split()[0] for k, v in record.headers if k == "stand-in"] == ["0"]
    assert record.header("forfeit") is None
