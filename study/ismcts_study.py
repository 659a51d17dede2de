"""The strong bot against OpenSpiel's Python ISMCTS at equal think time, duplicate deals.

Each deal (one round of 4-player Xactika) is played twice through the OpenSpiel game
``python_xactika`` (``xactika.frontends.bridges.openspiel``), seats A B A B then B A B A, so each
side holds every hand. A is the strong bot (``StrongAgent`` with ``--think-ms``, as a
``pyspiel.Bot``); B is ``open_spiel.python.algorithms.ismcts.ISMCTSBot`` with a random
rollout evaluator, its worlds drawn by ``resample`` (uniform over the deals consistent
with what the seat saw), searching until the same ``--think-ms`` has passed at each
decision. The figure and the 95% interval are those of ``run_study.py``: A's mean points
per hand minus B's, per deal, mean ± 1.96 sd / sqrt(deals); positive means A did better
(in Play to Lose, ``--mode lose``, the game's returns are minus the tricks taken).

    python study/ismcts_study.py --deals 400 --think-ms 100 --procs 2   # the full row
    python study/ismcts_study.py --deals 12 --think-ms 30               # a quick check

Needs the ``[openspiel]`` extra.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts
from run_study import arrangements, summarize

from xactika.core.bots.search import StrongAgent
from xactika.frontends.bridges.openspiel import AgentBot, play_bots, resample, seed_actions
from xactika.frontends.parallel import map_ordered


class TimedISMCTS(ismcts.ISMCTSBot):  # type: ignore[misc]
    """ISMCTS that searches until a time budget is spent instead of a fixed count."""

    def __init__(self, game: Any, think_s: float, seed: int) -> None:
        rng = np.random.RandomState(seed)
        super().__init__(game, mcts.RandomRolloutEvaluator(1, rng), 2.0, 10**9,
                         random_state=rng)
        self.think_s = think_s
        self.times: list[float] = []
        self.sims: list[int] = []  # simulations per searched decision
        deals = random.Random(seed)
        self.set_resampler(lambda state, seat: resample(state, seat, deals))

    def run_search(self, state: Any) -> Any:
        """OpenSpiel's loop, bounded by the clock (the rest is ISMCTSBot's own)."""
        start = time.perf_counter()
        self.reset()
        legal = state.legal_actions()
        if len(legal) == 1:
            self.times.append(time.perf_counter() - start)
            return [(legal[0], 1.0)]
        self._root_node = self.create_new_node(state)
        deadline = start + self.think_s
        sims = 0
        while sims < 2 or time.perf_counter() < deadline:  # the 1st only expands the root
            self.run_simulation(self.sample_root_state(state))
            sims += 1
        self.times.append(time.perf_counter() - start)
        self.sims.append(sims)
        return self.get_final_policy(state, self._root_node)


def play_deal(args: tuple[int, int, float, str, float]) -> dict[str, Any]:
    seed, deal, think_ms, mode, ismcts_x = args
    game = pyspiel.load_game("python_xactika", {"players": 4, "mode": mode, "rounds": 1})
    points: dict[str, list[float]] = {"A": [], "B": []}
    times: list[float] = []
    ismcts_times: list[float] = []
    sims: list[int] = []
    for g, seats in enumerate(arrangements("2v2", 4)):
        state = game.new_initial_state()
        for action in seed_actions(seed * 1_000_003 + deal):
            state.apply_action(action)
        bots: list[Any] = []
        for s, side in enumerate(seats):
            bot_seed = (deal * 16 + g) * 16 + s
            if side == "A":
                agent = StrongAgent(bot_seed, think_ms=think_ms)
                bots.append(AgentBot("strong", s, agent=agent))
            else:
                bots.append(TimedISMCTS(game, ismcts_x * think_ms / 1000, bot_seed))
        play_bots(state, bots, random.Random(deal))
        for s, side in enumerate(seats):
            points[side].append(state.returns()[s])  # Play to Lose: minus the tricks
            if side == "A":
                times.extend(getattr(bots[s].agent, "times", []))
            else:
                ismcts_times.extend(bots[s].times)
                sims.extend(bots[s].sims)
    ma = statistics.fmean(points["A"])
    mb = statistics.fmean(points["B"])
    return {"deal": deal, "a": ma, "b": mb, "diff": ma - mb, "times": times,
            "ismcts_times": ismcts_times, "sims": sims}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--deals", type=int, default=12)
    p.add_argument("--first", type=int, default=0, help="first deal number")
    p.add_argument("--seed", type=int, default=1, help="names the set of deals")
    p.add_argument("--join", nargs="*", default=[], metavar="FILE",
                   help="earlier --out files of other deals to count in the summary "
                        "(decision times are this run's only)")
    p.add_argument("--think-ms", type=float, default=100.0, help="per decision, both sides")
    p.add_argument("--ismcts-x", type=float, default=1.0, metavar="X",
                   help="ISMCTS thinks X times --think-ms (the issue's 10x row: 10)")
    p.add_argument("--mode", choices=("bid", "win", "lose"), default="bid")
    p.add_argument("--procs", type=int, default=1)
    p.add_argument("--out", help="write the summary and per-deal rows here (JSON)")
    args = p.parse_args(argv)
    jobs = [(args.seed, d, args.think_ms, args.mode, args.ismcts_x)
            for d in range(args.first, args.first + args.deals)]
    earlier: list[dict[str, Any]] = []
    for name in args.join:
        try:
            with open(name, encoding="utf-8") as f:
                data = json.load(f)
            mode = data["summary"].get("mode", "bid")
            rows_before = [{**r, "times": []} for r in data["rows"]]
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            p.error(f"--join: cannot read {name}: {exc}")
        if mode != args.mode:
            p.error(f"--join: {name} was played in another mode")
        if data["summary"].get("ismcts_x", 1.0) != args.ismcts_x:
            p.error(f"--join: {name} gave ISMCTS another multiple of the time")
        earlier.extend(rows_before)
    if {r["deal"] for r in earlier} & {job[1] for job in jobs}:
        p.error("--join: a deal is in both the earlier files and this run")
    t0 = time.time()
    rows = list(map_ordered(play_deal, jobs, procs=args.procs))
    summary = summarize(rows + earlier)
    theirs = sorted(t for r in rows for t in r["ismcts_times"])
    if theirs:
        summary["ismcts_decision_ms"] = {
            "count": len(theirs), "p50": 1000 * theirs[len(theirs) // 2],
            "p95": 1000 * theirs[min(len(theirs) - 1, int(0.95 * len(theirs)))],
        }
    sims = sorted(n for r in rows for n in r["sims"])
    if sims:
        summary["ismcts_simulations_p50"] = sims[len(sims) // 2]
    summary.update(a="strong", b="openspiel-ismcts", mode=args.mode, players=4,
                   seed=args.seed, think_ms=args.think_ms, ismcts_x=args.ismcts_x,
                   wall_s=round(time.time() - t0, 1), parts=1 + len(args.join))
    print(json.dumps(summary, indent=1))
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump({"summary": summary, "rows": [
                {k: v for k, v in r.items() if not k.endswith("times") and k != "sims"}
                for r in sorted(rows + earlier, key=lambda r: r["deal"])]}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
