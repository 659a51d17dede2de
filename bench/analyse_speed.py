"""``xactika analyse`` on a whole game: 8 rounds, 4 players, every seat, in each mode.

The game is played by the heuristic bot on a seeded deal (the same game every run); the
analysis is timed as ``xactika analyse`` makes it (the record read, each seat's view
folded, every decision weighed), CPU and wall, with the decisions weighed and the marks.

Measured 2026-12-01 on the 2-core machine shared with other work (load average 8), the
Python search (no compiled kernel), 100 deals a decision, seed 11:

| mode | decisions | with a choice | CPU | wall | marks (inaccuracy/mistake/blunder) |
|---|---:|---:|---:|---:|---|
| bid | 288 | 221 | 10.7 s | 37.9 s | 32 / 13 / 1 |
| win | 256 | 182 | 6.6 s | 16.3 s | 5 / 1 / 0 |
| lose | 256 | 190 | 6.3 s | 13.3 s | 5 / 0 / 0 |

(Play to Bid earlier on a quieter machine, through ``xactika analyse``: 17.6 s wall.) The
cost is the rollouts: each option of each decision played out in every deal.

Run by hand: ``.venv/bin/python bench/analyse_speed.py [--deals 100] [--modes bid,win,lose]``.
"""

from __future__ import annotations

import argparse
import time

from xactika.core.bots.agents import self_play
from xactika.core.bots.analysis import DEFAULT_DEALS
from xactika.core.bots.heuristic import HeuristicAgent
from xactika.core.engine.api import Config
from xactika.frontends.records.analyse import analyse, summary
from xactika.frontends.records.replay import Game
from xactika.protocol.records.textform import Record


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=DEFAULT_DEALS)
    ap.add_argument("--modes", default="bid,win,lose")
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args()
    for mode in args.modes.split(","):
        config = Config(game="xactika", mode=mode, players=4, rounds=8, seed=args.seed)
        events = self_play(config, [HeuristicAgent(s) for s in range(4)])[1]
        g = Game.from_record(Record((), tuple(events)))
        wall, cpu = time.perf_counter(), time.process_time()
        found = analyse(g, range(4), args.deals)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        weighed = sum(1 for d in found if not d.forced)
        marks = {k: sum(r[k] for r in summary(found, range(4)))
                 for k in ("inaccuracy", "mistake", "blunder")}
        print(f"{mode}: {len(found)} decisions, {weighed} with a choice, {args.deals} deals: "
              f"{wall:.1f} s wall, {cpu:.1f} s CPU ({1000 * cpu / max(1, weighed):.0f} ms CPU "
              f"a decision with a choice); marks {marks}")


if __name__ == "__main__":
    main()
