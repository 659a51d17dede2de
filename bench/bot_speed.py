"""Decision times of the built-in bots, and the strong bot's simulator against the core.

Run by hand (it takes about a minute):

    .venv/bin/python bench/bot_speed.py [--deals 20] [--think-ms 100]

It plays Play to Bid rounds (4 players: strong, heuristic, random, heuristic), times
every decision of each bot (then of levels 1, 2 and 4 among heuristics) and prints
percentiles; the strong bot's p95 is the figure its budget promises (default 100 ms).
Then it plays whole rounds with the heuristic on every seat twice: through the core
(``step`` and ``view``) and through the strong bot's private simulator, and prints the
ratio: the simulator is what makes search affordable. Last, in CPU time (so a loaded
machine moves it little): one rollout of the search (a move valued in a sampled deal,
``move_value``) on the pure-Python path and through the compiled kernel, the deal
sampler (a decision's set-up, one world drawn through the bid model) and a whole
strong-bot round (four strong seats at 24 deals a decision) on each path. ``--quick``
runs those only.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time

from xactika.core import (
    Command,
    Config,
    Legal,
    RandomAgent,
    SeatView,
    legal_actions,
    new_game,
    step,
    view,
)
from xactika.core.bots import sampler, simulator
from xactika.core.bots.agents import Agent, self_play
from xactika.core.bots.heuristic import HeuristicAgent
from xactika.core.bots.levels import make_level
from xactika.core.bots.search import MODE_BID, StrongAgent, fast_bid, legal_bids, playout
from xactika.core.bots.simulator import move_value_py
from xactika.core.games.xactika.tables import CALLS_OF, CARDS


class Timed:
    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.times: list[float] = []

    def choose(self, v: SeatView, legal: Legal) -> Command:
        t = time.perf_counter()
        cmd = self.agent.choose(v, legal)
        self.times.append(time.perf_counter() - t)
        return cmd


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return 1000 * xs[min(len(xs) - 1, int(p * len(xs)))]


def fresh_deal(rng: random.Random) -> tuple[list[list[int]], list[int]]:
    """Four hands of card indices and the rule of thumb's bids (dealer 0)."""
    idx = list(range(len(CARDS)))
    rng.shuffle(idx)
    hands = [sorted(idx[8 * i: 8 * i + 8]) for i in range(4)]
    bids: list[int | None] = [None] * 4
    for s in (1, 2, 3, 0):
        bids[s] = fast_bid(hands[s], legal_bids(bids, s, 0))
    return hands, [b or 0 for b in bids]


def rollout_us(value: simulator.MoveValue, reps: int) -> float:
    """CPU microseconds a rollout: a seat's lead valued in a fresh Play to Bid deal."""
    rng = random.Random(0)
    jobs = []
    for _ in range(reps):
        hands, bids = fresh_deal(rng)
        c = hands[1][rng.randrange(8)]
        jobs.append((hands, c, CALLS_OF[c][0], bids))
    t0 = time.process_time()
    for hands, c, k, bids in jobs:
        value(hands, 1, c, k, (0,) * 4, (0,) * 4, 0, -1, -1, 1, 0, bids, MODE_BID, False)
    return 1e6 * (time.process_time() - t0) / reps


def strong_round_ms(kernel: int, rounds: int, deals: int = 24) -> float:
    """CPU milliseconds a Play to Bid round of four strong seats at ``deals`` a decision."""
    t0 = time.process_time()
    for seed in range(rounds):
        seats = [StrongAgent(seed * 4 + s, think_ms=1e9, max_deals=deals, kernel=kernel)
                 for s in range(4)]
        self_play(Config(mode="bid", rounds=1, seed=seed, dealer=seed % 4), seats)
    return 1e3 * (time.process_time() - t0) / rounds


def sampler_us(rounds: int, worlds: int = 24) -> tuple[float, float]:
    """CPU microseconds of the strong bot's deal sampler over the play decisions of
    ``rounds`` heuristic Play to Bid rounds: the set-up a decision (the hidden cards,
    the programme, the bid model) and one world drawn (the bid model's rejections in)."""
    positions: list[tuple[SeatView, int]] = []

    class Watch(HeuristicAgent):
        def choose(self, v: SeatView, legal: Legal) -> Command:
            if legal.kind != "bid":
                positions.append((v, v.seat))
            return super().choose(v, legal)

    for seed in range(rounds):
        self_play(Config(mode="bid", rounds=1, seed=seed, dealer=seed % 4),
                  [Watch() for _ in range(4)])
    agent = StrongAgent(0, think_ms=1e9)
    t0 = time.process_time()
    draws = [agent._deals(v, seat) for v, seat in positions]
    t1 = time.process_time()
    for draw in draws:
        for _ in range(worlds):
            draw()
    t2 = time.process_time()
    return 1e6 * (t1 - t0) / len(draws), 1e6 * (t2 - t1) / (len(draws) * worlds)


def kernel_figures() -> None:
    """The rollout, the sampler and the strong-bot round on this path; the pure path's
    again in a process of its own (XACTIKA_PURE=1: its deal draws are pure Python too)."""
    if simulator.KERNEL is None:
        setup, world = sampler_us(4)
        print(f"a rollout (CPU), pure Python: {rollout_us(move_value_py, 2_000):.1f} us")
        print(f"the sampler (CPU), pure Python: {setup:.0f} us a decision's set-up, "
              f"{world:.1f} us a world")
        print(f"a strong-bot round, 4 seats at 24 deals a decision (CPU), pure Python: "
              f"{strong_round_ms(0, 5):.0f} ms")
        return
    pure = rollout_us(move_value_py, 2_000)
    fast = rollout_us(simulator.KERNEL.move_value, 20_000)
    print(f"\na rollout (CPU): pure Python {pure:.1f} us, kernel {fast:.2f} us, "
          f"speed ratio {pure / fast:.0f}x")
    setup, world = sampler_us(20)
    print(f"the sampler (CPU), {'compiled' if sampler.NATIVE else 'Python'}: {setup:.0f} us "
          f"a decision's set-up, {world:.1f} us a world")
    print(f"a strong-bot round, 4 seats at 24 deals a decision (CPU), kernel: "
          f"{strong_round_ms(1, 20):.0f} ms")
    subprocess.run([sys.executable, __file__, "--quick"], check=True,
                   env={**os.environ, "XACTIKA_PURE": "1"})


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--deals", type=int, default=20)
    ap.add_argument("--think-ms", type=float, default=100.0)
    ap.add_argument("--quick", action="store_true", help="the kernel's figures only")
    args = ap.parse_args()
    if args.quick:
        kernel_figures()
        return
    bots = {
        "strong": Timed(StrongAgent(1, think_ms=args.think_ms)),
        "heuristic": Timed(HeuristicAgent()),
        "random": Timed(RandomAgent(1)),
    }
    for deal in range(args.deals):
        seats = [bots["strong"], bots["heuristic"], bots["random"], Timed(HeuristicAgent())]
        k = deal % 4
        seats = seats[k:] + seats[:k]
        self_play(Config(mode="bid", rounds=1, seed=deal, dealer=deal % 4), seats)
    print(f"decision time, ms ({args.deals} Play to Bid rounds, budget {args.think_ms:g} ms)")
    print(f"{'bot':<12} {'n':>5} {'p50':>8} {'p90':>8} {'p95':>8} {'p99':>8} {'max':>8}")
    among: dict[str, Agent] = {f"strong:{level}": make_level(level, 1, "bid")
                              for level in (1, 2, 4)}
    # the levels for people (core/bots/levels.py) and the strong bot with the learned
    # inferences (core/bots/infer.py: numpy; the first decision loads the weights)
    among["strong+infer"] = StrongAgent(1, think_ms=args.think_ms, infer=1.0)
    among["strong+locate"] = StrongAgent(1, think_ms=args.think_ms, locate=1.0)
    for name, agent in among.items():
        timed = bots[name] = Timed(agent)
        for deal in range(args.deals):
            seats: list[Agent] = [timed, HeuristicAgent(), HeuristicAgent(), HeuristicAgent()]
            k = deal % 4
            self_play(Config(mode="bid", rounds=1, seed=deal, dealer=deal % 4),
                      seats[k:] + seats[:k])
    for name, bot in bots.items():
        t = bot.times
        print(f"{name:<12} {len(t):>5} {pct(t, .5):8.2f} {pct(t, .9):8.2f} {pct(t, .95):8.2f} "
              f"{pct(t, .99):8.2f} {1000 * max(t):8.2f}")

    rounds = 200
    t0 = time.perf_counter()
    for seed in range(rounds):
        state = new_game(Config(mode="bid", rounds=1, seed=seed))
        agent = HeuristicAgent()
        while (legal := legal_actions(state)).seat is not None:
            state, _ = step(state, agent.choose(view(state, legal.seat or 0), legal))
    core = (time.perf_counter() - t0) / rounds
    rng = random.Random(0)
    t0 = time.perf_counter()
    reps = 20 * rounds
    for _ in range(reps):
        hands, bids = fresh_deal(rng)
        playout(hands, 1, -1, -1, 1, 0, [0] * 4, bids, MODE_BID, 0, [0] * 4)
    fast = (time.perf_counter() - t0) / reps
    print(f"\na heuristic round: core {1e3 * core:.2f} ms, simulator {1e6 * fast:.0f} us, "
          f"simulator/core speed ratio {core / fast:.0f}x")
    kernel_figures()


if __name__ == "__main__":
    main()
