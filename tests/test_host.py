"""The Python host API (protocol/host.py) and ``with PlayerProcess(...)``."""

from __future__ import annotations

import sys
from pathlib import Path

from xactika.protocol.client import PlayerProcess

ROOT = Path(__file__).resolve().parent.parent
RANDOM_BOT = [sys.executable, str(ROOT / "examples" / "random_bot.py")]


def test_with_player_process_starts_and_stops_the_bot() -> None:
    with PlayerProcess(RANDOM_BOT, startup_timeout=10) as player:
        assert player.started and player.returncode is None
        player.isready(5)
    assert player.returncode == 0  # it obeyed quit
    assert not player.killed

