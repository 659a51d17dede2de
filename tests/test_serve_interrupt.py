"""Issue 41: Ctrl-C of an ``xactika serve`` that has played games (its bots think in
spawned worker processes) printed a 25-line ``SpawnProcess-1 ... KeyboardInterrupt``
traceback from each worker: the terminal's Ctrl-C reaches the whole process group. It
stops quietly now, with one line."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from netkit import Client, play_first
from test_lobby_cli import lobby

XACTIKA = Path(sys.executable).with_name("xactika")
pytestmark = pytest.mark.skipif(not XACTIKA.exists(), reason="needs the installed command")


def test_ctrl_c_of_a_serve_that_played_stops_with_one_line(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [str(XACTIKA), "serve", "--port", "0", "--tables", "0", "--no-journal", "--pace",
         "off", "--out", str(tmp_path / "records")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
        start_new_session=True)  # its own process group, as a terminal's job is
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first.startswith("listening on 127.0.0.1:"), first
        port = int(first.split()[2].rsplit(":", 1)[1])
        made = lobby(port, "create", "players=3", "rounds=1", "seats=human,bot,bot")
        assert made.returncode == 0, made.stderr
        token = lobby(port, "join", "1", "--name", "ann").stdout.split()[5]
        assert play_first(Client(port), token)[-1] == "quit"  # the bots thought, in workers
        os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C at the terminal does
        _out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert err.strip() == "interrupted", err  # the command line's one line for Ctrl-C
    assert proc.returncode in (0, 130)
