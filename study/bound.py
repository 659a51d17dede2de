"""What fraction of the cheater's bound a bot reaches, on the same deals, with an interval.

Reads two ``run_study.py --out`` files against the same opponent on the same deals (for
example ``--a strong --b heuristic --format 1v3`` and ``--a cheater --b heuristic
--format 1v3``) and prints (bot − opponent) / (cheater − opponent) with a 95% percentile
bootstrap interval over the deals (resampled in pairs, so the two share their luck).

    python study/bound.py strong-h.json cheater-h.json
    python study/bound.py --difference variant-h.json strong-h.json   # paired A/B
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
from pathlib import Path


def paired(bot: Path, bound: Path) -> list[tuple[float, float]]:
    """(bot's diff, cheater's diff) per deal present in both files."""
    rows = [json.loads(p.read_text(encoding="utf-8")) for p in (bot, bound)]
    for key in ("b", "mode", "format", "players", "seed"):
        if rows[0]["summary"][key] != rows[1]["summary"][key]:
            raise ValueError(f"the files differ in {key}: not the same deals and opponent")
    theirs = {r["deal"]: r["diff"] for r in rows[1]["rows"]}
    pairs = [(r["diff"], theirs[r["deal"]]) for r in rows[0]["rows"] if r["deal"] in theirs]
    if len(pairs) < 2:
        raise ValueError("fewer than two deals in common")
    return pairs


def fraction(pairs: list[tuple[float, float]]) -> float:
    return statistics.fmean(a for a, _ in pairs) / statistics.fmean(b for _, b in pairs)


def difference(pairs: list[tuple[float, float]]) -> tuple[float, float, float]:
    """The mean per-deal difference (first file's bot − second's) and its 95% interval."""
    d = [a - b for a, b in pairs]
    mean = statistics.fmean(d)
    half = 1.96 * statistics.stdev(d) / math.sqrt(len(d))
    return mean, mean - half, mean + half


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("bot", type=Path)
    p.add_argument("bound", type=Path, help="the cheater's file (or, with --difference, "
                   "another bot's on the same deals)")
    p.add_argument("--resamples", type=int, default=4000)
    p.add_argument("--difference", action="store_true",
                   help="print the paired difference of the two bots' figures instead: "
                   "a variant against the bot it would replace, run side by side")
    args = p.parse_args(argv)
    try:
        pairs = paired(args.bot, args.bound)
    except (OSError, ValueError, KeyError) as exc:
        print(f"bound: {exc}", file=sys.stderr)
        return 2
    if args.difference:
        mean, lo, hi = difference(pairs)
        print(f"deals {len(pairs)}  first {statistics.fmean(a for a, _ in pairs):+.3f}  "
              f"second {statistics.fmean(b for _, b in pairs):+.3f}  "
              f"paired difference {mean:+.3f} [{lo:+.3f}, {hi:+.3f}]")
        return 0
    rng = random.Random(17)
    boot = sorted(fraction(rng.choices(pairs, k=len(pairs))) for _ in range(args.resamples))
    lo, hi = boot[int(0.025 * len(boot))], boot[int(0.975 * len(boot)) - 1]
    print(f"deals {len(pairs)}  bot {statistics.fmean(a for a, _ in pairs):+.2f}  "
          f"bound {statistics.fmean(b for _, b in pairs):+.2f}  "
          f"fraction {fraction(pairs):.2f} [{lo:.2f}, {hi:.2f}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
