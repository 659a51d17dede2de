"""Many games at once, in lockstep on numpy arrays: rollouts, training, statistics.

:func:`simulate` is the one entry point, for every game that has a batch part: the
module ``xactika.core.batch.<game>`` (Xactika's and Oh Hell's; Dix has none), found by the
game's name as its bots and presentation are. Every game of a batch has the same
settings, so all are at the same decision at each step; settings left out are the
game's defaults (Xactika: Play to Bid, 4 players, 8 rounds), as everywhere else.

What the parts share is here: the counter-based generator behind the random policy
(:func:`draw`, :func:`draw_one`), the core's shuffle for many seeds at once
(:func:`shuffle_orders`, spec/DEALS.md) and the check of the seeds. numpy is the
``batch`` extra; the rest of the core does not import this package.
"""

from __future__ import annotations

import hashlib
import inspect
import operator
import sys
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from xactika.core.engine.api import Config, game_rules
from xactika.core.engine.rng import deal_key, shuffled
from xactika.core.engine.rules import import_named


def simulate(seeds: Sequence[int] | NDArray[Any], *, game: str | None = None,
             **settings: Any) -> Any:
    """Play one ``game`` (default: Xactika) per seed, all in lockstep, by the game's batch
    part (``xactika.core.batch.<game>``'s ``simulate``, which says what it returns and
    which settings it takes: ``mode``, ``players``, ``rounds``, ``dealer``, ``options``,
    ``policy``, ``keys``, ``record``). A setting left out (or None) is the game's default.
    A game without a batch part, or a setting its part does not take: one ValueError."""
    name = game if game is not None else Config().game
    rules = game_rules(name)  # an unknown game: the core's one-line error
    package = __name__
    import_named(package, name)
    part = sys.modules.get(f"{package}.{name}")
    if part is None:
        raise ValueError(f"{rules.name} has no batch simulator ({package}.{name}); play "
                         "its games one by one through xactika.core.step or a bridge")
    takes = inspect.signature(part.simulate).parameters
    given = {key: value for key, value in settings.items() if value is not None}
    for key in given:
        if key not in takes:
            raise ValueError(f"{rules.name}'s batch simulator takes no {key}: it takes "
                             f"{', '.join(k for k in takes if k != 'seeds')}")
    return part.simulate(seeds, **given)


def batch_config(game: str, mode: str | None, players: int | None, rounds: int | None,
                 dealer: int, options: Mapping[str, Any] | None = None) -> Config:
    """A part's settings: those left out (None) the game's defaults, all checked as the
    core checks them (the same one-line errors)."""
    given: dict[str, Any] = {k: v for k, v in (("mode", mode), ("players", players),
                                               ("rounds", rounds)) if v is not None}
    config = Config(game=game, dealer=dealer, seed=0, options=dict(options or {}), **given)
    game_rules(game).validate(config)
    return config


# --------------------------------------------------------------------------- the generator

_M64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
_MIX1 = 0xBF58476D1CE4E5B9
_MIX2 = 0x94D049BB133111EB


def draw_one(key: int, index: int) -> int:
    """The 64-bit word for decision ``index`` of the game keyed ``key``: SplitMix64's
    finaliser of ``key * golden + (index + 1) * mix1`` (mod 2**64)."""
    z = (key * _GOLDEN + (index + 1) * _MIX1) & _M64
    z = ((z ^ (z >> 30)) * _MIX1) & _M64
    z = ((z ^ (z >> 27)) * _MIX2) & _M64
    return z ^ (z >> 31)


def draw(keys: NDArray[np.uint64], index: int) -> NDArray[np.uint64]:
    """:func:`draw_one` for every key at once (numpy's uint64 arithmetic wraps)."""
    z = keys * np.uint64(_GOLDEN) + np.uint64(((index + 1) * _MIX1) & _M64)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(_MIX1)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(_MIX2)
    return z ^ (z >> np.uint64(31))


# --------------------------------------------------------------------------- dealing

def _limits(cards: int) -> tuple[NDArray[np.uint64], NDArray[np.uint64]]:
    """The Fisher-Yates bounds ``i + 1`` for ``i = cards - 1 .. 1``, and the words above
    which each rejects (spec/DEALS.md): the largest multiple of the bound that fits in 64
    bits, less one (2**64 itself does not fit)."""
    bounds = np.arange(cards, 1, -1, dtype=np.uint64)
    tops = np.array([(1 << 64) - (1 << 64) % int(b) - 1 for b in bounds], dtype=np.uint64)
    return bounds, tops


def shuffle_orders(game: str, deck: Sequence[Any], seeds: Sequence[int],
                   round_no: int) -> NDArray[np.int8]:
    """The shuffled deck (card indices into ``deck``) of each seed's round ``round_no`` of
    ``game``, as :func:`xactika.core.engine.rng.shuffled` makes it: the SHAKE-256 words are
    read per game, the Fisher-Yates swaps are done for all games at once."""
    n, cards = len(seeds), len(deck)
    bounds, tops = _limits(cards)
    digests = b"".join(
        hashlib.shake_256(deal_key(game, int(s), round_no)).digest(8 * cards) for s in seeds
    )
    words = np.frombuffer(digests, dtype=">u8").reshape(n, cards)[:, : cards - 1].astype(np.uint64)
    # The deck of game g is column g of a card x game array, so each step's swap reads and
    # writes one contiguous row; ``into[k]`` is where step k's partner lies in it.
    order = np.tile(np.arange(cards, dtype=np.int8)[:, None], (1, n))
    flat = order.reshape(-1)
    into = ((words % bounds).astype(np.intp) * n + np.arange(n)[:, None]).T.copy()
    for k, i in enumerate(range(cards - 1, 0, -1)):
        partner = into[k]
        held = order[i].copy()
        order[i] = np.take(flat, partner)
        flat[partner] = held
    order = np.ascontiguousarray(order.T)
    # A rejected word (about 1 in 2**57) shifts every later draw: deal those the slow way.
    index = {card: i for i, card in enumerate(deck)}
    for g in np.flatnonzero((words > tops).any(axis=1)):
        shuffled_deck = shuffled(deck, deal_key(game, int(seeds[int(g)]), round_no))
        order[g] = [index[c] for c in shuffled_deck]
    return order



def whole_numbers(values: Sequence[int] | NDArray[Any], what: str) -> NDArray[np.int64]:
    """``values`` as int64, or one clear error: not floats silently cut, nor wrapped."""
    try:
        numbers = [operator.index(v) for v in values]
    except TypeError:
        raise ValueError(f"{what} must be whole numbers") from None
    if not numbers:
        raise ValueError(f"{what} must be a non-empty list")
    if min(numbers) < 0 or max(numbers) >= 1 << 63:
        raise ValueError(f"{what} must be from 0 to 2**63 - 1")
    return np.array(numbers, dtype=np.int64)
