"""Snapshot logs of seeded Dix games, one plain-text event log per game.

The bots are seeded as ``xactika selfplay`` seeds them, so each log is what
``xactika selfplay --game dix --seed N ...`` prints (less the standings).
Update with ``pytest tests/test_dix_snapshots.py --snapshot-update`` and review the diff.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from xactika.core import Config, RandomAgent, game_rules, visible
from xactika.core.bots.agents import self_play
from xactika.protocol.notation.text import format_event

RULES = game_rules("dix")


class EventLog(SingleFileSnapshotExtension):
    _write_mode = WriteMode.TEXT
    file_extension = "log"


@pytest.fixture
def snapshot_log(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    return snapshot.use_extension(EventLog)


GAMES = {
    "draw-seed1": {"mode": "draw", "seed": 1},  # the joker turned up: no trumps
    "draw-seed2-dealer1": {"mode": "draw", "seed": 2, "dealer": 1},
    "draw-seed5-2rounds": {"mode": "draw", "seed": 5, "rounds": 2},
    "nodraw-seed1": {"mode": "nodraw", "seed": 1},
    "nodraw-seed4-dealer1": {"mode": "nodraw", "seed": 4, "dealer": 1},
}


def _game(settings: dict[str, object]) -> list[object]:
    config = Config(**{"game": "dix", "players": 2, "rounds": 1, **settings})  # type: ignore[arg-type]
    seed = config.seed or 0
    _, events = self_play(config, [RandomAgent(seed * 1000 + s) for s in range(2)])
    return events


@pytest.mark.parametrize("name", GAMES)
def test_dix_game_log(name: str, snapshot_log: SnapshotAssertion) -> None:
    events = _game(GAMES[name])
    assert snapshot_log == "".join(format_event(e, RULES) + "\n" for e in events)


def test_dix_game_log_as_seat_0_sees_it(snapshot_log: SnapshotAssertion) -> None:
    events = _game(GAMES["draw-seed1"])
    assert snapshot_log == "".join(format_event(visible(e, 0), RULES) + "\n" for e in events)


def test_selfplay_prints_the_snapshot_game() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "xactika.frontends.cli", "selfplay", "--game", "dix", "--seed",
         "5", "--rounds", "2"],
        capture_output=True, text=True, check=True,
    ).stdout
    events = _game(GAMES["draw-seed5-2rounds"])
    assert out.startswith("".join(format_event(e, RULES) + "\n" for e in events))
