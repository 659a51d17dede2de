"""Do people's Glicko-2 ratings (frontends/accounts/glicko2.py) order people of known
strength, and do their intervals cover the truth as often as they say?

Simulated people each play as one built-in level (random, strong:1 ... strong:4: their
strength is known by construction), several people a level. Each table seats four people
drawn at random and plays a real game of Xactika (Play to Bid, one hand, its own seed)
with their levels' bots; the placements are rated as the web rates a rated table
(pairwise results against the ratings before the table, lichess's constants).

The truth is each level's Bradley-Terry strength on Glicko's scale (400/ln 10 a logistic
unit, the expected score Glicko uses at RD 0), fitted to every pairwise result of every
table, shifted so that the people's mean truth is their mean rating (a rating's zero is
arbitrary). Reported: the Spearman correlation of the final ratings with the truth,
whether each level's mean rating is in the levels' order, and how often rating ± 2 RD
covers the truth (Glicko states about 95%) after 10, 30 and all of each person's games.

    python study/glicko_study.py [--tables 1200] [--per-level 6] [--seed 1] [--out F.json]
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from pathlib import Path

from xactika.core.bots.agents import make_agent, self_play
from xactika.core.engine.api import game_rules
from xactika.frontends.accounts.glicko2 import Rating, rate_table
from xactika.frontends.accounts.ratings import places
from xactika.protocol.notation.text import config_from_pairs

LEVELS = ("random", "strong:1", "strong:2", "strong:3", "strong:4")
SEATS = 4
CHECKPOINTS = (10, 30)
ELO = 400 / math.log(10)


def play_table(levels: list[str], seed: int) -> tuple[int, ...]:
    config = config_from_pairs({"game": "xactika", "players": str(SEATS), "rounds": "1",
                                "seed": str(seed)}, defaults=True)
    agents = [make_agent(lv, seed=seed * 10 + i, game="xactika") for i, lv in enumerate(levels)]
    _, events = self_play(config, agents)
    totals = events[-1].totals  # type: ignore[attr-defined]
    return places(totals, game_rules(config.game).low_wins(config), ())


def bradley_terry(pairs: dict[tuple[int, int], list[float]], n: int) -> list[float]:
    """Each level's strength (Elo scale, mean 0) maximising the pairwise likelihood."""
    s = [0.0] * n
    for _ in range(2000):
        grad = [0.0] * n
        for (i, j), (score, games) in pairs.items():
            e = 1 / (1 + math.exp(-(s[i] - s[j]) / ELO))
            grad[i] += score - games * e
            grad[j] -= score - games * e
        step = max(abs(g) for g in grad)
        for k in range(n):
            s[k] += 4.0 * grad[k] / max(1.0, sum(v[1] for v in pairs.values()) / n)
        if step < 1e-6:
            break
    mean = sum(s) / n
    return [v - mean for v in s]


def coverage(rated: list[Rating], truth: list[float]) -> float:
    return sum(r.rating - 2 * r.rd <= t <= r.rating + 2 * r.rd
               for r, t in zip(rated, truth, strict=True)) / len(rated)


def spearman(a: list[float], b: list[float]) -> float:
    def ranks(v: list[float]) -> list[float]:
        order = sorted(range(len(v)), key=lambda i: v[i])
        out = [0.0] * len(v)
        for rank, i in enumerate(order):
            out[i] = float(rank)
        return out

    ra, rb = ranks(a), ranks(b)
    n = len(a)
    ma, mb = sum(ra) / n, sum(rb) / n
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb, strict=True))
    va = math.sqrt(sum((x - ma) ** 2 for x in ra) * sum((y - mb) ** 2 for y in rb))
    return cov / va if va else 0.0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", type=int, default=1200)
    p.add_argument("--per-level", type=int, default=6)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    began = time.process_time()
    rng = random.Random(args.seed)
    people = [lv for lv in range(len(LEVELS)) for _ in range(args.per_level)]
    rated = [Rating() for _ in people]
    played = [0] * len(people)
    snapshots: dict[int, dict[int, Rating]] = {c: {} for c in CHECKPOINTS}
    pairs: dict[tuple[int, int], list[float]] = {}
    for table in range(args.tables):
        seated = rng.sample(range(len(people)), SEATS)
        levels = [people[i] for i in seated]
        placed = play_table([LEVELS[lv] for lv in levels], args.seed * 100_000 + table)
        for a in range(SEATS):
            for b in range(a + 1, SEATS):
                i, j = levels[a], levels[b]
                if i == j:
                    continue
                score = 1.0 if placed[a] < placed[b] else 0.0 if placed[a] > placed[b] else 0.5
                key, s = ((i, j), score) if i < j else ((j, i), 1 - score)
                pairs.setdefault(key, [0.0, 0.0])
                pairs[key][0] += s
                pairs[key][1] += 1
        after = rate_table([rated[i] for i in seated], placed, [False] * SEATS)
        for k, i in enumerate(seated):
            rated[i] = after[k]
            played[i] += 1
            if played[i] in snapshots:
                snapshots[played[i]][i] = rated[i]
    strength = bradley_terry(pairs, len(LEVELS))
    shift = sum(r.rating for r in rated) / len(rated) - \
        sum(strength[lv] for lv in people) / len(people)
    truth = [strength[lv] + shift for lv in people]
    by_level = [sum(r.rating for r, lv in zip(rated, people, strict=True) if lv == k)
                / args.per_level for k in range(len(LEVELS))]
    cover = {str(c): coverage([snapshots[c][i] for i in sorted(snapshots[c])],
                              [truth[i] for i in sorted(snapshots[c])])
             for c in CHECKPOINTS if len(snapshots[c]) == len(people)}
    cover["final"] = coverage(rated, truth)
    report = {
        "tables": args.tables, "people": len(people), "per_level": args.per_level,
        "games_per_person": sum(played) / len(played), "seed": args.seed,
        "levels": list(LEVELS),
        "truth": {LEVELS[k]: round(strength[k] + shift, 1) for k in range(len(LEVELS))},
        "mean_rating": {LEVELS[k]: round(by_level[k], 1) for k in range(len(LEVELS))},
        "level_means_ordered": by_level == sorted(by_level),
        "spearman": round(spearman([r.rating for r in rated], truth), 3),
        "coverage_2rd": {k: round(v, 3) for k, v in cover.items()},
        "mean_rd_final": round(sum(r.rd for r in rated) / len(rated), 1),
        "mean_abs_error_final": round(sum(abs(r.rating - t) for r, t in
                                          zip(rated, truth, strict=True)) / len(rated), 1),
        "cpu_seconds": round(time.process_time() - began, 1),
    }
    text = json.dumps(report, indent=1)
    print(text)
    if args.out is not None:
        args.out.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
