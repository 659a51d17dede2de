"""Complete seeded Xactika games as plain-text event logs, one file per game.

Each log is what ``xactika selfplay --mode MODE --players N --seed S`` prints, less the
standings: the bots are seeded as selfplay seeds them. A change to the rules, the deal or
the event text shows up as a readable diff in tests/__snapshots__/test_snapshots/.
Update with ``pytest tests/test_snapshots.py --snapshot-update`` and review the diff.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter

import pytest
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from xactika.core import DECK, Config, Dealt, GameOver, RandomAgent, RoundScored
from xactika.core.bots.agents import self_play
from xactika.core.games.xactika import XACTIKA
from xactika.protocol.notation.text import format_event, parse_event


class EventLogText(SingleFileSnapshotExtension):
    """One ``.txt`` file per snapshot, written as UTF-8 text."""

    _write_mode = WriteMode.TEXT
    file_extension = "txt"


@pytest.fixture
def snapshot_txt(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    return snapshot.use_extension(EventLogText)


GAMES = {
    "win-4p-seed1": Config(mode="win", players=4, seed=1),
    "lose-4p-seed2": Config(mode="lose", players=4, seed=2),
    "bid-4p-seed1": Config(mode="bid", players=4, seed=1),
    "bid-2p-seed3": Config(mode="bid", players=2, seed=3),
    "win-10p-seed4-dealer9": Config(mode="win", players=10, seed=4, dealer=9),
}


def log(config: Config) -> str:
    seed = config.seed or 0
    _, events = self_play(config, [RandomAgent(seed * 1000 + s) for s in range(config.players)])
    return "".join(format_event(e, XACTIKA) + "\n" for e in events)


@pytest.mark.parametrize("name", GAMES)
def test_game_log(name: str, snapshot_txt: SnapshotAssertion) -> None:
    text = log(GAMES[name])
    check_log(GAMES[name], text)
    assert snapshot_txt == text


def check_log(config: Config, text: str) -> None:
    """What a reviewer checks by eye in each snapshot, checked by the test as well."""
    events = [parse_event(line, XACTIKA) for line in text.splitlines()]
    deals = [e for e in events if isinstance(e, Dealt)]
    assert len(deals) == config.rounds
    for d in deals:
        every = [c for h in d.hands for c in h or ()] + list(d.aside or ())
        assert Counter(every) == Counter(DECK)
    scored = [e for e in events if isinstance(e, RoundScored)]
    assert all(sum(e.tricks) == 8 for e in scored)
    assert isinstance(events[-1], GameOver)
    assert events[-1].totals == scored[-1].totals


def test_selfplay_prints_the_snapshot_game() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "xactika.frontends.cli", "selfplay",
         "--players", "4", "--mode", "bid", "--seed", "1"],
        capture_output=True, text=True, check=True,
    ).stdout
    body, _, standings = out.partition("final standings:")
    assert body == log(GAMES["bid-4p-seed1"])
    assert "winner" in standings
