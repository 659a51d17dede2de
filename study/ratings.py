"""Every bot and level of the study on one scale: Plackett-Luce ratings from duplicate deals.

Reads ``run_study.py --out`` files (any pairings, one mode at a time) and rates each deal
as one game between its two bots: the bot with more points a hand over the deal's
seatings places first, equal points tie (Play to Lose: fewer points place first). The
ratings are the match runner's own (``frontends/match/stats.py``, openskill), so the
study and ``xactika match`` use one model. The deals of all files are interleaved, one
from each pairing in turn, because the model updates in order. The 95% interval is
mu ± 1.96 sigma; mu's zero is arbitrary (openskill starts every bot at 25), so the table
also gives each rating minus the heuristic's.

    python study/ratings.py study/results/*-bid.json [--markdown]
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path

from xactika.frontends.match.stats import Rating, plackett_luce


def deal_games(path: Path, mode: str) -> tuple[str, str, list[list[tuple[str, int]]]]:
    """One game a deal from one result file: (bot, place) pairs, 1 the better."""
    data = json.loads(path.read_text(encoding="utf-8"))
    summary = data["summary"]
    if summary["mode"] != mode:
        raise ValueError(f"{path}: mode {summary['mode']}, not {mode}")
    a, b = summary["a"], summary["b"]
    games = []
    for row in data["rows"]:
        diff = row["diff"]  # already signed: positive is A better, in every mode
        place_a, place_b = (1, 2) if diff > 0 else (2, 1) if diff < 0 else (1, 1)
        games.append([(a, place_a), (b, place_b)])
    return a, b, games


def rate(paths: list[Path], mode: str) -> tuple[list[Rating], dict[str, int]]:
    names: list[str] = []
    per_file = []
    for path in paths:
        a, b, games = deal_games(path, mode)
        names += [n for n in (a, b) if n not in names]
        per_file.append(games)
    index = {n: i for i, n in enumerate(names)}
    order = [g for batch in itertools.zip_longest(*per_file) for g in batch if g is not None]
    counts = dict.fromkeys(names, 0)
    for game in order:
        for name, _ in game:
            counts[name] += 1
    ratings = plackett_luce(names, ([(index[n], p) for n, p in game] for game in order))
    return ratings, counts


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("files", nargs="+", type=Path, help="run_study.py --out files")
    p.add_argument("--mode", default="bid", choices=("win", "lose", "bid"))
    p.add_argument("--markdown", action="store_true", help="a table for study/README.md")
    args = p.parse_args(argv)
    try:
        ratings, counts = rate(args.files, args.mode)
    except (OSError, ValueError, KeyError) as exc:
        print(f"ratings: {exc}", file=sys.stderr)
        return 2
    base = next((r.mu for r in ratings if r.name == "heuristic"), 0.0)
    ranked = sorted(ratings, key=lambda r: -r.mu)
    if args.markdown:
        print("| bot | deals | mu | 95% interval | mu − heuristic |")
        print("|---|---:|---:|---|---:|")
    for r in ranked:
        lo, hi = r.mu - 1.96 * r.sigma, r.mu + 1.96 * r.sigma
        if args.markdown:
            print(f"| {r.name} | {counts[r.name]} | {r.mu:.2f} | [{lo:.2f}, {hi:.2f}] | "
                  f"{r.mu - base:+.2f} |")
        else:
            print(f"{r.name:14} deals {counts[r.name]:5}  mu {r.mu:6.2f}  "
                  f"[{lo:6.2f}, {hi:6.2f}]  vs heuristic {r.mu - base:+.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
