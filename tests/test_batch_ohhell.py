"""The batched Oh Hell simulator (core/batch/ohhell.py, through ``simulate(game="ohhell")``)
against the core: the same deals and the same random choices give the same bids, tricks
and points, round by round."""

from __future__ import annotations

from typing import Any

import pytest

np = pytest.importorskip("numpy")

from xactika.core import Config, ConfigError, RoundScored  # noqa: E402
from xactika.core.batch import simulate  # noqa: E402
from xactika.core.batch.ohhell import reference_game  # noqa: E402

SETTINGS: list[dict[str, Any]] = [
    {"mode": "penalty", "players": 4, "rounds": 8, "options": {"top": 8, "hands": "fixed"}},
    {"mode": "exact", "players": 5, "rounds": 19},
    {"mode": "bonus", "players": 3, "rounds": 4, "dealer": 2,
     "options": {"top": 17, "hands": "downup", "hook": "none"}},
    {"mode": "exact", "players": 4, "rounds": 2, "options": {"top": 13, "hands": "fixed"}},
]


@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: f"{s['mode']}-{s['players']}")
def test_the_batch_plays_each_game_as_the_core_does(settings: dict[str, Any]) -> None:
    seeds = list(range(60))
    keys = [s * 7 + 1 for s in seeds]
    batch = simulate(seeds, game="ohhell", keys=keys, **settings)
    for g, (seed, key) in enumerate(zip(seeds, keys, strict=True)):
        state, events = reference_game(Config(game="ohhell", seed=seed, **settings), key)
        scored = [e for e in events if isinstance(e, RoundScored)]
        assert [e.bids for e in scored] == [tuple(b) for b in batch.bids[g].tolist()]
        assert [e.tricks for e in scored] == [tuple(t) for t in batch.taken[g].tolist()]
        assert [e.points for e in scored] == [tuple(p) for p in batch.points[g].tolist()]
        assert state.totals == tuple(batch.totals[g].tolist())


def test_bad_settings_are_refused_as_the_core_refuses_them() -> None:
    with pytest.raises(ConfigError, match="takes 3 to 7 players"):
        simulate([1], game="ohhell", players=8)
    with pytest.raises(ConfigError, match="top must be"):
        simulate([1], game="ohhell", options={"top": 14})
