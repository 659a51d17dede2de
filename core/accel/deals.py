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

from xactika.core.accel.rules import CARDS, HAND_SIZE
from xactika.core.batch import whole_numbers
from xactika.core.batch.xactika import deal_orders


def core_orders(seeds: Sequence[int] | NDArray[Any], rounds: int) -> NDArray[np.int8]:
    """``N x rounds x 81``: the decks the core deals each seed's rounds 1..``rounds``."""
    seeds_arr = whole_numbers(seeds, "seeds").tolist()
    if rounds < 1:
        raise ValueError(f"rounds must be 1 or more, not {rounds}")
    return np.stack([deal_orders(seeds_arr, r) for r in range(1, rounds + 1)], axis=1)


_GOLDEN = 0x9E3779B9


def _mix(x: jax.Array) -> jax.Array:
    """A 32-bit finaliser (murmur3-style multiply-xorshift): a counter in, a word out."""
    x = (x ^ (x >> 16)) * jnp.uint32(0x7FEB352D)
    x = (x ^ (x >> 15)) * jnp.uint32(0x846CA68B)
    return x ^ (x >> 16)


def device_orders(key: jax.Array, rounds: int, players: int | None = None) -> jax.Array:
    """``rounds x 81``: one game's decks shuffled on the device from ``key`` (vmap it for
    a batch). Not the core's deals. Counter-based: two words from ``key``, then word
    ``(round, i)`` is a hash of the counter, so no generator state is carried. A forward
    Fisher-Yates shuffle (the card for place ``i`` drawn uniformly from places ``i..80``,
    modulo bias below 1e-7) stops after the ``8 players`` dealt places when ``players``
    is given: the hands are uniform, the set-aside cards a uniform set in no promised
    order, and a deal costs the cards dealt, not 80 swaps."""
    seed = jax.random.bits(key, (2,), dtype=jnp.uint32)
    dealt = CARDS - 1 if players is None else min(CARDS - 1, HAND_SIZE * players)
    places = jnp.arange(CARDS, dtype=jnp.int32)

    def deck(r: jax.Array) -> jax.Array:
        base = r.astype(jnp.uint32) * jnp.uint32(CARDS)

        def swap(i: jax.Array, a: jax.Array) -> jax.Array:
            word = _mix(_mix((base + i.astype(jnp.uint32)) ^ seed[0])
                        + seed[1] * jnp.uint32(_GOLDEN))
            j = i + (word % (CARDS - i).astype(jnp.uint32)).astype(jnp.int32)
            here, there = a[i], a[j]
            return jnp.where(places == j, here, a).at[i].set(there)

        return jax.lax.fori_loop(0, dealt, swap, places)

    return jax.vmap(deck)(jnp.arange(rounds)).astype(jnp.int8)
