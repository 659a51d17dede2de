"""Who plays the next set: the arena's central choice of a line-up (spec/ARENA.md).

A new entrant first plays qualifying sets against the house bots. Otherwise the least
certain entrant (the widest interval where it overlaps another's, for the sets it is in)
takes the first seat, and each next seat goes to whoever has sat least often with those
already seated (bridge's movements keep co-seatings even in the same way), the
co-seatings of an entrant still overlapping a rival counting up to half, so one told
apart from all sits out more; never two entrants of one owner at a table.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import attrs

# an entrant that overlaps a rival may sit with the others up to 1 + this times as often
# as one clear of everyone: the sets go where the standings are still unsure
OVERLAP_WEIGHT = 1.0

@attrs.frozen
class Candidate:
    id: int
    name: str
    owner: str
    house: bool
    sigma: float  # the current interval's half-width / 2 (Elo); wide for the unrated
    sets: int  # sets it is in, finished or not: the fit lags the schedule
    qualifying_sets: int  # qualifying sets played or under way
    # how much its interval overlaps another entrant's (1: as much as can be; 0: clear of
    # every other): the sets that tell most are those of entrants not yet told apart
    overlap: float = 1.0


@attrs.frozen
class Choice:
    lineup: tuple[int, ...]  # entrant ids
    qualifying: bool


def choose(candidates: Sequence[Candidate], players: int, qualify_sets: int,
           together: Mapping[tuple[int, int], int]) -> Choice | None:
    """The next set's line-up, or None when no table can be filled."""
    house = sorted((c for c in candidates if c.house), key=lambda c: c.id)
    entrants = [c for c in candidates if not c.house]
    new = sorted((c for c in entrants if c.qualifying_sets < qualify_sets),
                 key=lambda c: (c.qualifying_sets, c.id))
    if new and len(house) >= players - 1:
        return Choice((new[0].id, *(h.id for h in house[:players - 1])), True)
    rated = [c for c in entrants if c.qualifying_sets >= qualify_sets]
    if not rated:
        return None
    pool = rated if len({c.owner for c in rated}) >= players else rated + house
    first = min(pool, key=lambda c: (-need(c), c.sets, c.id))
    seated = [first]
    while len(seated) < players:
        owners = {c.owner for c in seated}
        free = [c for c in pool if c.owner not in owners and c not in seated]
        if not free:
            return None
        seated.append(min(free, key=lambda c: (
            sum(together.get(pair(c.id, s.id), 0) for s in seated)
            / (1 + OVERLAP_WEIGHT * c.overlap),
            c.house, -need(c), c.sets, c.id)))
    return Choice(tuple(c.id for c in seated), False)


def need(c: Candidate) -> float:
    """How much the next set would tell of ``c``: its uncertainty where it overlaps
    another's, less for each set of it already under way or not yet in the fit (one fit
    guides many sets)."""
    return c.sigma * c.overlap / math.sqrt(1 + c.sets)


def overlaps(rows: Sequence[tuple[str, float, float]]) -> dict[str, float]:
    """Each entrant's overlap with its nearest rival, from (name, mu, sigma) rows: the
    normal density of their difference at zero, relative to its peak (1 for equal
    ratings, near 0 for intervals far apart)."""
    out = {}
    for name, mu, sigma in rows:
        out[name] = max((math.exp(-(mu - m) ** 2 / (2 * (sigma ** 2 + s ** 2 + 1e-9)))
                         for n, m, s in rows if n != name), default=1.0)
    return out


def pair(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)
