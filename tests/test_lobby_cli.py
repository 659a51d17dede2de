"""``xactika lobby HOST:PORT``: list, create, join, leave and rematch from the terminal,
against a live server on 127.0.0.1 (every wait bounded)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from netkit import Client, LiveServer, in_thread, play_first

from xactika.frontends.net.lobby import seat_file

XACTIKA = Path(sys.executable).with_name("xactika")
pytestmark = pytest.mark.skipif(not XACTIKA.exists(), reason="needs the installed command")


def lobby(port: int, *args: str, token: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "XACTIKA_TOKEN"}
    if token is not None:
        env["XACTIKA_TOKEN"] = token
    return subprocess.run([str(XACTIKA), "lobby", f"127.0.0.1:{port}", *args],
                          capture_output=True, text=True, timeout=60, check=False, env=env)


def test_the_lobby_command_lists_creates_joins_and_rematches(tmp_path: Path) -> None:
    with LiveServer(tmp_path) as live:
        assert lobby(live.port).stdout.startswith("no tables yet")
        made = lobby(live.port, "create", "players=2", "rounds=1")
        assert made.returncode == 0, made.stderr
        assert made.stdout.startswith("created table 1: take a seat and play it with\n")
        assert made.stdout.splitlines()[1].endswith(
            f"lobby 127.0.0.1:{live.port} join 1 --name NAME --play")  # issue 34
        saved = tmp_path / "ann.token"
        ann = lobby(live.port, "join", "1", "--name", "ann", "--save-token", str(saved))
        assert ann.returncode == 0, ann.stderr
        assert f"--token-file {saved}" in ann.stdout
        assert stat.S_IMODE(saved.stat().st_mode) == 0o600
        bob = lobby(live.port, "join", "1", "--name", "bob")
        token_b = bob.stdout.split()[5]  # "table 1 seat 2: token T (give it ...)"
        kept = seat_file(f"127.0.0.1:{live.port}", 1, 1)
        assert f"(give it to no one; kept in {kept})" in bob.stdout
        assert kept.read_text().strip() == token_b
        assert stat.S_IMODE(kept.stat().st_mode) == 0o600
        assert f"play --connect 127.0.0.1:{live.port} --token-file {kept}" in bob.stdout
        listed = lobby(live.port).stdout.splitlines()
        assert listed[0].split() == ["id", "game", "mode", "players", "rounds", "status",
                                     "open", "names", "observers"]
        assert listed[1].split() == ["1", "xactika", "bid", "2", "1", "waiting", "-",
                                     "ann,bob", "0"]
        token_a = saved.read_text().strip()
        runs = [in_thread(play_first, Client(live.port), t) for t in (token_a, token_b)]
        for run in runs:
            assert run.result(20)[-1] == "quit"
        live.wait_over(live.server.tables[0])
        # issue 34: after 'join' (--play or not), 'rematch' needs no token file: the seat's
        # token was kept; issue 41: per seat, so two seats kept here say which
        both = lobby(live.port, "rematch")
        assert both.returncode == 2
        assert "table 1 seat 1, table 1 seat 2; say which: rematch TABLE --seat S" in both.stderr
        bob_again = lobby(live.port, "rematch", "1", "--seat", "2")  # as people count seats
        assert bob_again.returncode == 0, bob_again.stderr
        assert bob_again.stdout.startswith("table 2 seat 2: token ")
        assert not kept.exists()  # the rematch's seat replaces it
        assert seat_file(f"127.0.0.1:{live.port}", 2, 1).read_text().strip() == \
            bob_again.stdout.split()[5]
        again = lobby(live.port, "rematch", token=token_a)
        assert again.returncode == 0 and again.stdout.startswith("table 2 seat 1: token ")
        left = lobby(live.port, "leave", "--token-file", str(saved))
        assert left.returncode == 1 and "cannot be left now" in left.stderr  # table 1 is over


def test_lobby_command_errors_are_one_line(tmp_path: Path) -> None:
    with LiveServer(tmp_path) as live:
        for args, code, why in [
            (["join", "1"], 2, "join needs the table's number and a name"),
            (["join", "7", "--name", "x"], 1, "no lobby table 7"),
            (["create", "players=99"], 1, ""),
            (["rematch"], 2, "no token"),
            (["leave", "--token", "0" * 32], 1, "unknown token"),
            (["dance"], 2, "invalid choice"),
            (["watch"], 2, "watch needs the table's number"),
        ]:
            done = lobby(live.port, *args)
            assert done.returncode == code, (args, done.stderr)
            assert done.stderr.count("\n") == 1 and why in done.stderr, (args, done.stderr)
            assert done.stderr.startswith("xactika lobby: ")


def test_join_and_play_shows_and_keeps_the_token(tmp_path: Path) -> None:
    """Issue 34: after ``join 1 --name Ann --play`` the token was never shown, and
    ``rematch`` then asked for a token file."""
    with LiveServer(tmp_path) as live:
        assert lobby(live.port, "create", "players=2", "rounds=1").returncode == 0
        env = {k: v for k, v in os.environ.items() if k != "XACTIKA_TOKEN"}
        proc = subprocess.Popen(
            [str(XACTIKA), "lobby", f"127.0.0.1:{live.port}", "join", "1", "--name", "Ann",
             "--play"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, env=env)
        try:
            assert proc.stdout is not None
            shown = proc.stdout.readline()
            taking = proc.stdout.readline()
        finally:
            proc.kill()
            proc.communicate(timeout=10)
        kept = seat_file(f"127.0.0.1:{live.port}", 1, 0)
        token = kept.read_text().strip()
        assert shown == f"table 1 seat 1: token {token} (give it to no one; kept in {kept})\n"
        assert taking.startswith("taking the seat; after the game '")
        assert taking.rstrip().endswith(f"lobby 127.0.0.1:{live.port} rematch 1 --seat 1 "
                                        "--play' plays the next one")


def test_create_seats_the_servers_bots_where_seats_says(tmp_path: Path) -> None:
    """Issue 34: ``create ... seats=human,human,bot`` was refused, though the web lobby
    seats bots; the bot plays the rematch too."""
    from xactika.frontends.net.serve import bot_seats
    from xactika.protocol.net.lobby import LobbyPolicy

    with LiveServer(tmp_path, lobby=LobbyPolicy()) as live:
        live.server.lobby.bots = bot_seats(live.server, 3)
        for seats, why in [("human,bot", "seats= names 2 seats where the table has 3"),
                           ("bot,bot,1", "leaves no seat for a person"),
                           ("human,human,robot", "seat 2: a seat is human (or open), bot, ")]:
            bad = lobby(live.port, "create", "players=3", "rounds=1", f"seats={seats}")
            assert bad.returncode == 1 and why in bad.stderr, bad.stderr
        made = lobby(live.port, "create", "players=3", "rounds=1", "seats=human,human,bot")
        assert made.returncode == 0, made.stderr
        listed = lobby(live.port).stdout.splitlines()[1].split()
        assert listed[5:8] == ["waiting", "0,1", "-,-,heuristic"]
        tokens = [lobby(live.port, "join", "1", "--name", name).stdout.split()[5]
                  for name in ("ann", "bob")]
        runs = [in_thread(play_first, Client(live.port), t) for t in tokens]
        for run in runs:
            assert run.result(30)[-1] == "quit"
        table = live.server.tables[0]
        live.wait_over(table)
        assert table.faults == [] and [s.name for s in table.seats] == ["ann", "bob",
                                                                        "heuristic"]
        again = [lobby(live.port, "rematch", token=t).stdout.split()[5] for t in tokens]
        runs = [in_thread(play_first, Client(live.port), t) for t in again]
        for run in runs:
            assert run.result(30)[-1] == "quit"
        live.wait_over(live.server.tables[1])
        assert live.server.tables[1].faults == []
