"""Deterministic shuffles that every machine and language can reproduce.

Python's ``random`` is not promised to be stable across versions, so deals use a
documented algorithm instead (spec/DEALS.md): Fisher-Yates driven by a SHAKE-256
byte stream of the key, 8 bytes big-endian per draw, with rejection to stay unbiased.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from operator import lt, mod
from typing import TypeVar

T = TypeVar("T")

_TWO64 = 1 << 64


SEED_BITS = 128


def fresh_seed() -> int:
    """A secret seed for one game: too many bits for a seat to search from its own hand."""
    import secrets  # here, not at the top: a process that never draws a seed starts faster

    return secrets.randbits(SEED_BITS)


def deal_key(game: str, seed: int, round_no: int) -> bytes:
    """The key that names one round's shuffle."""
    return f"xactika-deal/v1/{game}/{seed}/{round_no}".encode("ascii")


def _limit(bound: int) -> int:
    """The largest multiple of ``bound`` that fits in 64 bits: draws at or above it are
    rejected so that ``draw % bound`` is exactly uniform."""
    return _TWO64 - (_TWO64 % bound)


_LIMITS = tuple(_limit(b) if b else 0 for b in range(128))
_DESCENDING_LIMITS = _LIMITS[:1:-1]  # the limits for bounds 127, 126, ..., 2
_DESCENDING_BOUNDS = tuple(range(127, 1, -1))
_BELOW_EVERY_LIMIT = _TWO64 - 128


def _draws(key: bytes, count: int) -> tuple[int, ...]:
    """The first ``count`` 64-bit big-endian words of SHAKE-256(key)."""
    import hashlib  # here, not at the top: loading OpenSSL waits for the first deal

    return struct.unpack(f">{count}Q", hashlib.shake_256(key).digest(8 * count))


def shuffled(items: Sequence[T], key: bytes) -> list[T]:
    """Return a new list, shuffled by the byte stream SHAKE-256(key).

    For i from n-1 down to 1: take the next 64-bit word r, skipping any r at or above
    the largest multiple of i+1 below 2**64; swap items i and r % (i+1).
    """
    out = list(items)
    n = len(out)
    # One word per swap and one spare; SHAKE-256 is an extendable output, so a longer
    # digest starts with the shorter one and a rare rejection just reads further.
    words = _draws(key, n)
    first = len(_DESCENDING_LIMITS) - (n - 1)
    if first >= 0 and (
        max(words, default=0) < _BELOW_EVERY_LIMIT
        or all(map(lt, words, _DESCENDING_LIMITS[first:]))
    ):
        # No word is rejected (all but certain for a deck: about 1 in 2**57 per word),
        # so word k is the draw for i = n-1-k, and its swap partner r % (i+1) is worked
        # out for all words at once in C. (Every limit is above 2**64 - 128, so the
        # largest word below that answers for all at half the cost of the full test.)
        partners = map(mod, words, _DESCENDING_BOUNDS[first:])  # stops at n-1 words
        for i, j in zip(range(n - 1, 0, -1), partners, strict=True):
            out[i], out[j] = out[j], out[i]
        return out
    pos = 0
    limits = _LIMITS
    for i in range(n - 1, 0, -1):
        bound = i + 1
        limit = limits[bound] if bound < 128 else _limit(bound)
        while True:
            if pos == len(words):
                words = _draws(key, 2 * len(words))
            r = words[pos]
            pos += 1
            if r < limit:
                break
        j = r % bound
        out[i], out[j] = out[j], out[i]
    return out
