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
        assert made.returncode == 0 and made.stdout.startswith("created table 1: join it with")
        saved = tmp_path / "ann.token"
        ann = lobby(live.port, "join", "1", "--name", "ann", "--save-token", str(saved))
        assert ann.returncode == 0, ann.stderr
        assert f"--token-file {saved}" in ann.stdout
        assert stat.S_IMODE(saved.stat().st_mode) == 0o600
        bob = lobby(live.port, "join", "1", "--name", "bob")
        token_b = bob.stdout.split()[5]  # "table 1 seat 1: token T (give it ...)"
        assert f"XACTIKA_TOKEN={token_b} xactika play" in bob.stdout
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
        again = lobby(live.port, "rematch", token=token_a)
        assert again.returncode == 0 and again.stdout.startswith("table 2 seat 0: token ")
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
