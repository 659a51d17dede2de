"""How much likelier the learned inference makes the true hidden hands than the uniform
(void-aware) sampler does, on held-out positions.

    nice -n 10 .venv/bin/python study/inference_ll.py --positions 1000

A position: a 4-player round (seed ``--seed`` + i, mode by ``--modes``) played through
the core by heuristic bots (``--eps``: odds a seat plays a random legal move instead,
as a less predictable opponent) up to a random decision; the seat to act looks at the
others' hidden hands. The uniform sampler gives the true deal probability 1/N over the N
consistent deals. The policy-weighted sampler draws it with probability
L(true) / (N · E_uniform[L]), L the likelihood of the seen bids and plays under the
model, so the gain in log-likelihood is log L(true) - log mean L(uniform deals),
estimated with ``--samples`` uniform deals. A positive mean: the model puts more weight
on the truth. The training data came from other seeds (``train_inference.py``).

``--locate`` measures the card-location sampler (``infer.Locator``) instead, on the same
positions: it draws a deal with a probability it can compute, Q(true), so its gain is
log Q(true) - log(1/N) = log Q(true) + log N, exact (no sampling) and comparable with the
policy-weighted one: both are log(sampler's odds of the truth / the uniform sampler's).
Q is one pass's probability, ignoring restarts at dead ends, so the gain is a lower bound.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time

import numpy as np

from xactika.core import Config, legal_actions, new_game, step, view
from xactika.core.bots.heuristic import HeuristicAgent
from xactika.core.bots.infer import Evidence, Locator, load, load_locate
from xactika.core.bots.sampler import Deal, DealSampler, hidden_of
from xactika.core.bots.search import StrongAgent
from xactika.core.engine.api import Bid, Command, Play, State


def position(seed: int, mode: str, eps: float, players: int = 4, strong: int = 0
             ) -> tuple[State, int] | None:
    """A random decision of a heuristic game (``strong`` > 0: of strong bots drawing
    that many deals a decision): the state and the seat to act."""
    rng = random.Random(seed)
    config = Config(mode=mode, players=players, rounds=1, seed=10_000_019 + seed,
                    dealer=seed % players)
    state = new_game(config)
    agent: HeuristicAgent | StrongAgent = HeuristicAgent(seed)
    if strong:
        agent = StrongAgent(seed, think_ms=1e9, max_deals=strong, min_deals=strong)
    stop = rng.randrange(players, players * 9)  # after the bids: some plays seen
    for _ in range(stop):
        legal = legal_actions(state)
        if legal.seat is None:
            return None
        v = view(state, legal.seat)
        cmd: Command
        if rng.random() >= eps:
            cmd = agent.choose(v, legal)
        elif legal.kind == "bid":
            cmd = Bid(legal.seat, rng.choice(legal.bids))
        else:
            card = rng.choice(list(legal.cards))
            cmd = Play(legal.seat, card, rng.choice(card.calls) if legal.kind == "lead" else None)
        state, _ = step(state, cmd)
    legal = legal_actions(state)
    return (state, legal.seat) if legal.seat is not None else None


def gain(state: State, seat: int, samples: int, model_path: str | None,
         rng: random.Random) -> float | None:
    """log L(true) - log mean L(uniform deals); None when nothing was seen to explain."""
    v = view(state, seat)
    hidden = hidden_of(v)
    ev = Evidence(v, hidden.seats, load(model_path))
    if not ev:
        return None
    truth: Deal = tuple(tuple(state.hands[s]) for s in hidden.seats)
    assert hidden.consistent(truth)
    sampler = DealSampler(hidden, rng)
    deals = [sampler.sample() for _ in range(samples)]
    ll = ev.log_likelihood([truth, *deals])
    rest = ll[1:]
    top = float(rest.max())
    log_mean = top + math.log(float(np.exp(rest - top).mean()))
    return float(ll[0]) - log_mean


def locate_gain(state: State, seat: int, model_path: str | None, power: float,
                rng: random.Random) -> float | None:
    """log Q(true) + log N under the card-location sampler; None when N is not counted."""
    v = view(state, seat)
    hidden = hidden_of(v)
    count = DealSampler(hidden, rng).count()
    if count <= 0 or not Evidence(v, hidden.seats, load()):
        return None  # the policy measure's positions: something seen to explain
    truth: Deal = tuple(tuple(state.hands[s]) for s in hidden.seats)
    loc = Locator(v, hidden, load_locate(model_path), rng, power=power)
    return loc.log_prob(truth) + math.log(count)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--positions", type=int, default=1000)
    p.add_argument("--samples", type=int, default=1000)
    p.add_argument("--seed", type=int, default=900_000)
    p.add_argument("--modes", default="bid,win,lose")
    p.add_argument("--eps", type=float, default=0.0)
    p.add_argument("--model", help="an .npz other than the shipped one")
    p.add_argument("--locate", action="store_true",
                   help="measure the card-location sampler (--model: its .npz)")
    p.add_argument("--power", type=float, default=1.0, help="the location odds' power")
    p.add_argument("--strong", type=int, default=0,
                   help="positions from strong-bot games, this many deals a decision")
    p.add_argument("--out")
    args = p.parse_args(argv)
    modes = args.modes.split(",")
    rng = random.Random(args.seed)
    t0 = time.time()
    rows = []
    i = 0
    while len(rows) < args.positions:
        mode = modes[i % len(modes)]
        pos = position(args.seed + i, mode, args.eps, strong=args.strong)
        i += 1
        if pos is None:
            continue
        g = (locate_gain(*pos, args.model, args.power, rng) if args.locate
             else gain(*pos, args.samples, args.model, rng))
        if g is not None:
            rows.append({"mode": mode, "gain": g})
    out: dict[str, object] = {"sampler": "locate" if args.locate else "policy",
                              "power": args.power, "positions": len(rows),
                              "samples": args.samples, "strong": args.strong,
                              "eps": args.eps, "wall_s": round(time.time() - t0, 1)}
    for mode in [*modes, "all"]:
        g = [r["gain"] for r in rows if mode in ("all", r["mode"])]
        if len(g) > 1:
            m = statistics.fmean(g)
            h = 1.96 * statistics.stdev(g) / math.sqrt(len(g))
            out[mode] = {"n": len(g), "mean_gain_nats": round(m, 3),
                         "ci95": [round(m - h, 3), round(m + h, 3)],
                         "share_positive": round(sum(x > 0 for x in g) / len(g), 3)}
    print(json.dumps(out, indent=1))
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump({"summary": out, "rows": rows}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
