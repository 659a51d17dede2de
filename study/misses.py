"""Where a bot's Play to Bid points go: how often it makes its bid, over- or under-takes.

A diagnostic for the strong bot's gap to the cheater's bound: each bot named plays every
seat in turn against three heuristic seats (``1v3``) on the same deals, and the table
shows, for the bot's seat, how often it made its bid exactly, took more or fewer tricks
than it bid, its mean bid, tricks and points a hand. Rows of the bots share their deals.

    python study/misses.py --deals 100 heuristic strong cheater
"""

from __future__ import annotations

import argparse
import statistics
import sys
from typing import Any

from xactika.core import Config
from xactika.core.bots.cheater import play_with_cheaters
from xactika.frontends.parallel import map_ordered

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from run_study import build  # the study's own bot names and variants


def hands(args: tuple[str, int, int, float]) -> list[tuple[int, int, int]]:
    """(bid, tricks, points) of the bot's seat, for each seat it takes in the deal."""
    name, seed, deal, think_ms = args
    out = []
    for seat in range(4):
        config = Config(mode="bid", players=4, rounds=1, dealer=deal % 4,
                        seed=seed * 1_000_003 + deal)
        agents = [build(name if s == seat else "heuristic", (deal * 16 + seat) * 16 + s,
                        think_ms) for s in range(4)]
        state, _ = play_with_cheaters(config, agents)
        bid = state.bids[seat]
        assert bid is not None
        out.append((bid, state.taken[seat], state.totals[seat]))
    return out


def table(name: str, rows: list[tuple[int, int, int]]) -> dict[str, Any]:
    n = len(rows)
    return {
        "bot": name, "hands": n,
        "made": sum(b == t for b, t, _ in rows) / n,
        "over": sum(t > b for b, t, _ in rows) / n,
        "under": sum(t < b for b, t, _ in rows) / n,
        "bid": statistics.fmean(b for b, _, _ in rows),
        "tricks": statistics.fmean(t for _, t, _ in rows),
        "points": statistics.fmean(p for _, _, p in rows),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("bots", nargs="+")
    p.add_argument("--deals", type=int, default=100)
    p.add_argument("--first", type=int, default=0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--procs", type=int, default=1)
    p.add_argument("--think-ms", type=float, default=100.0)
    args = p.parse_args(argv)
    print("| bot | hands | made | took more | took fewer | bid | tricks | points |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name in args.bots:
        jobs = [(name, args.seed, d, args.think_ms)
                for d in range(args.first, args.first + args.deals)]
        rows = [h for deal in map_ordered(hands, jobs, procs=args.procs) for h in deal]
        t = table(name, rows)
        print(f"| {name} | {t['hands']} | {t['made']:.2f} | {t['over']:.2f} | "
              f"{t['under']:.2f} | {t['bid']:.2f} | {t['tricks']:.2f} | "
              f"{t['points']:+.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
