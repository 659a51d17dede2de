"""Seconds the arena's web pages spend on a rating's history (frontends/arena/views.py).

A made-up ladder (4 seats, 30 entrants, SETS sets of random results, every set in its
4 rotations): the first history (every prefix fitted), the same again (kept in memory),
after one more finished set (the whole ladder refitted once), and the standings alone
(one batch fit, as ``arena standings`` makes it) for scale. Run by hand:

    .venv/bin/python bench/arena_history.py [SETS]
"""

from __future__ import annotations

import random
import sys
import time

from xactika.frontends.arena.standings import Counted, LadderInfo, ladder_table
from xactika.frontends.arena.views import ArenaView, Played

INFO = LadderInfo("main", "xactika", "bid", 4, 1)
NAMES = [f"e{i}" for i in range(30)]


def season(sets: int, seed: int = 1) -> list[Played]:
    rng = random.Random(seed)
    games: list[Played] = []
    for s in range(1, sets + 1):
        lineup = rng.sample(NAMES, 4)
        for r in range(4):
            totals = tuple(rng.randint(-5, 10) for _ in range(4))
            winners = tuple(i for i, t in enumerate(totals) if t == max(totals))
            games.append(Played(len(games) + 1, float(s), "", Counted(
                "main", s, r, tuple(lineup[r:] + lineup[:r]), False, frozenset(), totals,
                winners, 1, (), False)))
    return games


def timed(what: str, call: object) -> None:
    began = time.perf_counter()
    assert callable(call)
    call()
    print(f"{what:<28} {time.perf_counter() - began:8.3f} s")


def main() -> None:
    sets = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    games = season(sets + 1)
    first = [p for p in games if p.counted.set <= sets]
    view = ArenaView(None)  # type: ignore[arg-type]  # the games are given: no database
    print(f"{sets} sets, {len(first)} games, {len(NAMES)} entrants")
    timed("first history", lambda: view.history(INFO, first))
    timed("again (kept)", lambda: view.history(INFO, first))
    timed("after one more set", lambda: view.history(INFO, games))
    timed("standings alone", lambda: ladder_table(INFO, [p.counted for p in first]))


if __name__ == "__main__":
    main()
