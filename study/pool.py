"""Pool run_study.py results of one pair over disjoint ranges of deals (``--first``).

Each deal is independent, so the pooled interval is the normal one over every per-deal
difference, as run_study.py computes it for one run:

    python study/pool.py study/results/levels4/l4-l3-win.json \
        study/results/levels4/l4-l3-win-1000-1999.json
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys


def pool(paths: list[str]) -> dict[str, object]:
    """The pooled deals, mean difference and 95% interval; ValueError where the files
    are not one pair in one mode, or share a deal."""
    rows: dict[int, float] = {}
    pair: tuple[object, ...] | None = None
    for path in paths:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        s = data["summary"]
        this = (s["a"], s["b"], s["mode"], s["format"], s["players"], s["seed"])
        if pair is not None and this != pair:
            raise ValueError(f"{path}: {this} is not the pair of the first file, {pair}")
        pair = this
        for r in data["rows"]:
            if r["deal"] in rows:
                raise ValueError(f"{path}: deal {r['deal']} is in an earlier file too")
            rows[r["deal"]] = r["diff"]
    if pair is None or len(rows) < 2:
        raise ValueError("need at least two deals")
    diffs = list(rows.values())
    mean = statistics.fmean(diffs)
    half = 1.96 * statistics.stdev(diffs) / math.sqrt(len(diffs))
    return {"a": pair[0], "b": pair[1], "mode": pair[2], "deals": len(diffs),
            "diff": round(mean, 3), "ci95": [round(mean - half, 3), round(mean + half, 3)]}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("files", nargs="+", help="run_study.py --out files of one pair")
    args = p.parse_args(argv)
    try:
        print(json.dumps(pool(args.files)))
    except (OSError, ValueError, KeyError) as exc:
        p.exit(2, f"pool.py: {exc}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
