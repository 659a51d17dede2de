"""What a new player reads (issue 34): plurals, banners and headers that fit."""

from __future__ import annotations

import pytest

from xactika.core import Config, legal_actions, new_game, view
from xactika.core.bots import heuristic
from xactika.core.bots.heuristic import HeuristicAgent


@pytest.mark.parametrize(("estimate", "words"), [(1.0, "make 1 trick"), (2.0, "make 2 tricks"),
                                                 (1.5, "make 1.5 tricks")])
def test_the_bid_hint_counts_tricks_in_english(estimate: float, words: str,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(heuristic, "bid_estimate", lambda hand: estimate)
    state = new_game(Config(mode="bid", players=4, rounds=1, seed=3))
    legal = legal_actions(state)
    _, why = HeuristicAgent(1).explain(view(state, legal.seat or 0), legal)
    assert why.endswith(words) or f"{words};" in why, why
