"""The log checker: a clean log passes; any changed event is caught at its seq."""

from __future__ import annotations

import attrs
import pytest

from xactika.core import Config, InvalidEvent, RandomAgent
from xactika.core.bots.agents import self_play
from xactika.core.engine.api import BidMade, Led, Played, RoundScored, TrickWon
from xactika.core.engine.check import LogCheck, check_log


def _game(mode: str = "bid", players: int = 4, seed: int = 3) -> list:
    config = Config(mode=mode, players=players, rounds=2, seed=seed)
    return self_play(config, [RandomAgent(seed + s) for s in range(players)])[1]


@pytest.mark.parametrize("mode", ["win", "lose", "bid"])
def test_clean_log_checks_complete(mode: str) -> None:
    events = _game(mode)
    assert check_log(events).complete
    assert not check_log(events[:-1]).complete


def _mutations(events: list) -> list[tuple[int, list]]:
    out = []
    for i, e in enumerate(events):
        if isinstance(e, BidMade):
            out.append((i, attrs.evolve(e, bid=(e.bid + 1) % 9)))
        elif isinstance(e, TrickWon):
            out.append((i, attrs.evolve(e, seat=(e.seat + 1) % 4)))
        elif isinstance(e, RoundScored):
            out.append((i, attrs.evolve(e, points=(e.points[0] + 1, *e.points[1:]))))
        elif isinstance(e, Led | Played):
            out.append((i, attrs.evolve(e, seat=(e.seat + 1) % 4)))
    return [(i, events[:i] + [m] + events[i + 1 :]) for i, m in out]


def test_every_single_mutation_is_caught_at_its_seq() -> None:
    events = _game()
    mutations = _mutations(events)
    assert len(mutations) > 50
    for i, mutated in mutations:
        if isinstance(events[i], BidMade):
            # another legal bid only shows in the round's score: caught there or sooner
            with pytest.raises(InvalidEvent, match=r"^seq \d+:"):
                check_log(mutated)
            continue
        with pytest.raises(InvalidEvent, match=rf"^seq {events[i].seq}:"):
            check_log(mutated)


def test_rejected_event_leaves_check_unchanged() -> None:
    events = _game()
    check = LogCheck()
    for e in events[:5]:
        check = check.apply(e)
    before = check
    with pytest.raises(InvalidEvent):
        check.apply(events[6])  # skips a seq
    assert check == before
