"""Deterministic shuffles that every machine and language can reproduce.

Python's ``random`` is not promised to be stable across versions, so deals use a
documented algorithm instead (spec/DEALS.md): Fisher-Yates driven by a SHAKE-256
byte stream of the key, 8 bytes big-endian per draw, with rejection to stay unbiased.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

_TWO64 = 1 << 64


def deal_key(game: str, seed: int, round_no: int) -> bytes:
    """The key that names one round's shuffle."""
    return f"xactika-deal/v1/{game}/{seed}/{round_no}".encode("ascii")


def shuffled(items: Sequence[T], key: bytes) -> list[T]:
    """Return a new list, shuffled by the byte stream SHAKE-256(key)."""
    out = list(items)
    n = len(out)
    want = 8 * n
    stream = hashlib.shake_256(key).digest(want)
    pos = 0
    for i in range(n - 1, 0, -1):
        bound = i + 1
        limit = _TWO64 - (_TWO64 % bound)
        while True:
            if pos + 8 > len(stream):
                want *= 2
                stream = hashlib.shake_256(key).digest(want)
            r = int.from_bytes(stream[pos : pos + 8], "big")
            pos += 8
            if r < limit:
                break
        j = r % bound
        out[i], out[j] = out[j], out[i]
    return out
