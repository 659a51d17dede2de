"""Duplicate matches between two built-in bots, in process, with a 95% interval.

Every deal is played more than once with the seats rotated, so each bot holds every
hand: ``2v2`` plays A B A B and B A B A; ``1v3`` puts A in each seat in turn against
three Bs. A deal's figure is A's mean points per hand minus B's, and the deals are
independent, so the interval is the usual normal one over the per-deal differences.
In Play to Lose fewer points are better, so the sign is turned: a positive difference
always means A did better.

    python study/run_study.py --a heuristic --b random --mode bid --deals 2000
    python study/run_study.py ... --cluster ray   # each deal a Ray task (docs/SCALE.md)
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from typing import Any

from xactika.core import Config, RandomAgent
from xactika.core.bots import infer
from xactika.core.bots.agents import Agent, make_agent
from xactika.core.bots.cheater import CheaterAgent, OracleSearch, play_with_cheaters
from xactika.core.bots.levels import FlawedAgent, Flaws
from xactika.core.bots.plan import PlanningAgent
from xactika.core.bots.search import StrongAgent
from xactika.frontends.parallel import ClusterError, map_ordered

LOCATE_ENV = "XACTIKA_STUDY_LOCATE"
"""A location model's .npz for ``locate=`` bots in place of the shipped one (set by
``--locate-weights``; read in each worker, so study runs only: the bot has no such
option)."""


_read: list[str] = []  # the path read into this process


def _study_locate() -> None:
    path = os.environ.get(LOCATE_ENV)
    if path and path not in _read:
        infer._LOADED[infer.LOCATE_WEIGHTS] = infer.load_locate(path)
        _read.append(path)


def build(name: str, seed: int, think_ms: float) -> Agent | CheaterAgent | OracleSearch:
    _study_locate()
    if name == "cheater":  # study only: it sees every hand (core/bots/cheater.py)
        return CheaterAgent()
    base, *opts = name.split(",")  # variants for experiments: plan,exact=2,depth=1
    at = ""
    if base.startswith("oracle-"):  # oracle-play: the true deal at the plays only
        base, _, at = base.partition("-")
    kwargs: dict[str, float] = {}
    for o in opts:
        key, eq, value = o.partition("=")
        try:
            kwargs[key] = float(value) if "." in value else int(value)
        except ValueError:
            eq = ""
        if not eq or not key.isidentifier():
            raise ValueError(f"{o!r}: a variant's options are name=number, as in plan,exact=2")
    if base == "strong":
        return StrongAgent(seed, think_ms=think_ms, **kwargs)
    if base == "oracle":  # study only, like the cheater
        return OracleSearch(seed, at=at or "both", think_ms=think_ms, **kwargs)
    if base == "plan":
        return PlanningAgent(seed, think_ms=think_ms, **kwargs)
    if base == "flawed":  # a candidate level: flawed,deals=8,temperature=0.3,forget=0.2
        flaws = {"deals": 8, "temperature": 0.3, "forget": 0.0, "naive_bid": 0} | kwargs
        return FlawedAgent(seed, Flaws(deals=int(flaws.pop("deals")),
                                       temperature=float(flaws.pop("temperature")),
                                       forget=float(flaws.pop("forget")),
                                       naive_bid=bool(flaws.pop("naive_bid")), **flaws),
                           name=name)
    if name == "random":
        return RandomAgent(seed)
    return make_agent(name, seed, game="xactika")  # the bot itself, so its times are read


def arrangements(fmt: str, players: int) -> list[list[str]]:
    if fmt == "2v2":
        ab = ["A" if s % 2 == 0 else "B" for s in range(players)]
        return [ab, ["B" if x == "A" else "A" for x in ab]]
    return [["A" if s == i else "B" for s in range(players)] for i in range(players)]


def play_deal(args: tuple[str, str, str, str, int, int, int, float]) -> dict[str, Any]:
    a, b, mode, fmt, players, seed, deal, think_ms = args
    sign = -1 if mode == "lose" else 1
    points: dict[str, list[int]] = {"A": [], "B": []}
    times: list[float] = []
    for g, seats in enumerate(arrangements(fmt, players)):
        config = Config(mode=mode, players=players, rounds=1, dealer=deal % players,
                        seed=seed * 1_000_003 + deal)
        agents = [build(a if x == "A" else b, (deal * 16 + g) * 16 + s, think_ms)
                  for s, x in enumerate(seats)]
        state, _ = play_with_cheaters(config, agents)
        for s, x in enumerate(seats):
            points[x].append(state.totals[s])
            times.extend(getattr(agents[s], "times", []))
    ma = statistics.fmean(points["A"])
    mb = statistics.fmean(points["B"])
    return {"deal": deal, "a": ma, "b": mb, "diff": sign * (ma - mb), "times": times}


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    diffs = [r["diff"] for r in rows]
    n = len(diffs)
    mean = statistics.fmean(diffs)
    half = 1.96 * statistics.stdev(diffs) / math.sqrt(n) if n > 1 else float("inf")
    times = sorted(t for r in rows for t in r["times"])
    out: dict[str, Any] = {
        "deals": n,
        "a_points_per_hand": statistics.fmean(r["a"] for r in rows),
        "b_points_per_hand": statistics.fmean(r["b"] for r in rows),
        "diff": mean,
        "ci95": [mean - half, mean + half],
    }
    if times:
        def pct(p: float) -> float:
            return 1000 * times[min(len(times) - 1, int(p * len(times)))]
        out["decision_ms"] = {"count": len(times), "p50": pct(0.5), "p90": pct(0.9),
                              "p95": pct(0.95), "p99": pct(0.99), "max": 1000 * times[-1]}
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--a", default="heuristic",
                   help="bot A (random, heuristic, strong, strong:1..5, or cheater: it sees "
                   "every hand, for the bound; use it with --format 1v3); variants: "
                   "strong,max_deals=20 or flawed,deals=8,temperature=0.3,forget=0.2")
    p.add_argument("--b", default="random", help="bot B")
    p.add_argument("--mode", default="bid", choices=("win", "lose", "bid"))
    p.add_argument("--format", default="2v2", choices=("2v2", "1v3"))
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--deals", type=int, default=200)
    p.add_argument("--first", type=int, default=0, help="first deal number")
    p.add_argument("--seed", type=int, default=1, help="names the set of deals")
    p.add_argument("--procs", type=int, default=2)
    p.add_argument("--think-ms", type=float, default=100.0, help="strong bot's budget")
    p.add_argument("--out", help="write the summary and per-deal rows here (JSON)")
    p.add_argument("--cluster", metavar="ray[=ADDRESS]",
                   help="play each deal as a task on a Ray cluster instead of --procs "
                   "processes (pip install '.[ray]'); the rows come back in deal order")
    p.add_argument("--locate-weights", metavar="NPZ",
                   help="the location model locate= bots use, in place of the shipped one")
    args = p.parse_args(argv)
    if args.locate_weights:
        if not os.path.isfile(args.locate_weights):
            p.error(f"--locate-weights {args.locate_weights!r}: no such file")
        os.environ[LOCATE_ENV] = os.path.abspath(args.locate_weights)
    if args.format == "2v2" and args.players % 2:
        p.error("--format 2v2 needs an even number of players")
    for name in (args.a, args.b):
        try:  # a misspelt bot or variant option is one line here, not a worker's traceback
            build(name, 0, args.think_ms)
        except (ValueError, TypeError) as exc:
            p.error(f"bad bot {name!r}: {exc}")
    jobs = [(args.a, args.b, args.mode, args.format, args.players, args.seed, d,
             args.think_ms) for d in range(args.first, args.first + args.deals)]
    t0 = time.time()
    try:  # in --procs processes or on the cluster, rows in deal order either way
        rows = list(map_ordered(play_deal, jobs, procs=args.procs, cluster=args.cluster))
    except ClusterError as exc:
        p.exit(2, f"run_study.py: {exc}\n")
    summary = summarize(rows)
    summary.update(a=args.a, b=args.b, mode=args.mode, format=args.format,
                   players=args.players, seed=args.seed, first=args.first,
                   think_ms=args.think_ms, wall_s=round(time.time() - t0, 1),
                   locate_weights=args.locate_weights)
    text = json.dumps(summary, indent=1)
    print(text)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump({"summary": summary,
                       "rows": [{k: v for k, v in r.items() if k != "times"} for r in rows]},
                      f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
