"""Shuffled decks for the accelerator: the core's own, or a fast dealer's that are not.

A game's deals are its ``orders``, ``rounds x 81`` card indices, one shuffled deck a round
(spec/DEALS.md, section 5 says how a deck is dealt). :func:`core_orders` computes them on
the host exactly as the core deals seed ``s`` (SHAKE-256 per spec/DEALS.md, through
:func:`xactika.core.batch.deal_orders`), so such a game can be replayed, recorded and
audited with ``Config(seed=s)``. :func:`device_orders` shuffles on the device from a JAX
key (``jax.random.permutation``): fast, for training, and **not** the core's deals: no
seed of the core reproduces them (play them in the core as preset deals instead).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from numpy.typing import NDArray

from xactika.core.accel.rules import CARDS
from xactika.core.batch import _whole_numbers, deal_orders


def core_orders(seeds: Sequence[int] | NDArray[Any], rounds: int) -> NDArray[np.int8]:
    """``N x rounds x 81``: the decks the core deals each seed's rounds 1..``rounds``."""
    seeds_arr = _whole_numbers(seeds, "seeds").tolist()
    if rounds < 1:
        raise ValueError(f"rounds must be 1 or more, not {rounds}")
    return np.stack([deal_orders(seeds_arr, r) for r in range(1, rounds + 1)], axis=1)


def device_orders(key: jax.Array, rounds: int) -> jax.Array:
    """``rounds x 81``: one game's decks drawn on the device from ``key`` (vmap it for a
    batch). Uniform shuffles, but not the core's deals."""
    keys = jax.random.split(key, rounds)
    return jax.vmap(lambda k: jax.random.permutation(k, CARDS))(keys).astype(jnp.int8)
