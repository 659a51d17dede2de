"""Issue 41: a remote person who quits mid-game (``quit`` or Ctrl-D, then ``y``) leaves at
once: the program ends and the server hears it (``leave``: a bot plays the seat, nobody
waits out its grace), in ``play --connect``, ``lobby HOST join N --play`` and ``lobby
HOST rematch --play``. Before, the main thread closed the socket's file while the reader
thread was blocked reading it, and hung."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest
from netkit import Client, LiveServer, in_thread, play_first

from xactika.protocol.net.lobby import LobbyPolicy
from xactika.protocol.net.table import Table, table_settings

pexpect = pytest.importorskip("pexpect")

from test_play_pty import PROMPT  # noqa: E402

XACTIKA = Path(sys.executable).with_name("xactika")
pytestmark = pytest.mark.skipif(not XACTIKA.exists(), reason="needs the installed command")
ENV = dict(os.environ, NO_COLOR="1", TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1",
           XACTIKA_HISTORY="")


def spawn(args: list[str], tmp_path: Path, token: str | None = None) -> pexpect.spawn:
    env = {k: v for k, v in ENV.items() if k != "XACTIKA_TOKEN"}
    if token is not None:
        env["XACTIKA_TOKEN"] = token
    child = pexpect.spawn(str(XACTIKA), args, env=env, encoding="utf-8", timeout=20,
                          dimensions=(40, 120))
    child.logfile_read = open(tmp_path / "screen.log", "a", encoding="utf-8")
    return child


def wait_dropped(live: LiveServer, table: Table, seat: int) -> None:
    """Until the server has seen the seat's connection end (its link is gone); the
    seat counts as gone at once: a bot plays it (not after the 30 s grace)."""
    async def wait() -> None:  # on the server's loop: each turn of it may change the seat
        s = table.seats[seat]
        while s.link is not None or not s.replaced:
            await asyncio.sleep(0.01)

    live.call(wait(), 10)  # the grace is 30 s: a seat replaced within 10 s was left
    assert table.seats[seat].fault is None  # a stand-in, not a forfeit: it can come back
    assert any(reason == "left" for s, reason, _detail in table.faults if s == seat)


def quit_mid_game(child: pexpect.spawn, ctrl_d: bool) -> None:
    """At the person's first prompt: leave (quit or Ctrl-D), say yes; the program ends."""
    child.expect(PROMPT)
    if ctrl_d:
        child.sendcontrol("d")
    else:
        child.sendline("quit")
    child.expect(r"leave this unfinished game\?")
    child.sendline("y")
    child.expect(pexpect.EOF, timeout=10)  # it hung here for good
    child.close()
    assert child.exitstatus == 0


@pytest.mark.parametrize("ctrl_d", [False, True])
def test_quitting_play_connect_ends_and_the_server_hears_it(tmp_path: Path,
                                                           ctrl_d: bool) -> None:
    settings = table_settings({"players": "2", "rounds": "2", "seed": "5"}, grace=30.0,
                              move_timeout=30.0)
    with LiveServer(tmp_path) as live:
        table = live.table(settings)
        bot = in_thread(play_first, Client(live.port), table.seats[1].token)
        child = spawn(["play", "--connect", f"127.0.0.1:{live.port}", "--name", "Ann"],
                      tmp_path, token=table.seats[0].token)
        try:
            quit_mid_game(child, ctrl_d)
            wait_dropped(live, table, 0)
            live.wait_over(table)  # a bot played Ann's seat: the game went on at once
        finally:
            child.close(force=True)
        del bot
    screen = (tmp_path / "screen.log").read_text(encoding="utf-8")
    assert "Traceback" not in screen
    assert "connection to the server is lost" not in screen  # leaving is no loss to report


def test_quitting_lobby_join_and_rematch_play_ends(tmp_path: Path) -> None:
    with LiveServer(tmp_path, lobby=LobbyPolicy()) as live:
        where = f"127.0.0.1:{live.port}"
        made = spawn(["lobby", where, "create", "players=2", "rounds=1"], tmp_path)
        made.expect(pexpect.EOF)
        ann = spawn(["lobby", where, "join", "1", "--name", "ann", "--play"], tmp_path)
        ann.expect("token ([0-9a-f]+) ")
        bob_token = _lobby(live.port, "join 1 name=bob")
        bob = in_thread(play_first, Client(live.port), bob_token)
        try:
            quit_mid_game(ann, ctrl_d=False)
            table = live.server.tables[0]
            wait_dropped(live, table, 0)
            # a bot plays ann's seat to the end of table 1; the rematch seats ann again
            # with the token kept for her, and quitting that game ends too
            assert bob.result(20)[-1] == "quit"
            live.wait_over(table)
            bob = in_thread(play_first, Client(live.port),
                            _lobby(live.port, f"rematch {bob_token}"))
            again = spawn(["lobby", where, "rematch", "--play"], tmp_path)
            try:
                quit_mid_game(again, ctrl_d=True)
                wait_dropped(live, live.server.tables[1], 0)
            finally:
                again.close(force=True)
        finally:
            ann.close(force=True)


def _lobby(port: int, command: str) -> str:
    """One lobby command over a raw socket: the seat's token it answers."""
    client = Client(port)
    client.send("lobby")
    assert client.read() is not None
    client.send(command)
    answer = client.read() or ""
    client.close()
    return answer.split("token=")[1].split()[0]
