"""Rounds of the strong bot's own play, saved as training examples for the inference.

    nice -n 5 .venv/bin/python study/strong_data.py --rounds 200000 --procs 2 \
        --out /work/data-out/strong-200k.npz

Every seat is the strong bot drawing a fixed ``--deals`` deals a decision (no clock), so
the data depends on ``--seed`` alone, not on the machine or its load; players 2 to 4
(mostly 4; ``--players``, see ``PLAYERS``) and the modes mixed as ``train_locate.py``
mixes them. Round ``i`` takes all its choices (players, mode, dealer, the game's seed,
the bots' seeds, which decisions are kept) from ``--seed`` and ``i``, so the rounds are
the same whatever ``--procs`` and ``--first`` split them into, and files of
consecutive ranges add up to one run.

Each kept decision (odds ``--keep``) is one example: the acting seat's view as the
location network reads it (:func:`xactika.core.bots.infer.locate_input`, ``x``), the
seat (``seat``), the decision it took (``bid``, or ``card`` and ``call`` as indices),
and, as labels for training only, where every card that seat has not seen lies (``y``,
as ``train_locate.labels``).
``round`` numbers each example's round, so ``train_locate.py --data-in`` holds whole
rounds out. The file's ``meta`` holds the seed, commit, rounds, positions and times.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import sys
import time
from collections.abc import Iterator
from typing import Any

import numpy as np

from xactika.core import Config, legal_actions, new_game, step, view
from xactika.core.bots.infer import LOCATE_INPUT, NCARDS, locate_input
from xactika.core.bots.search import StrongAgent
from xactika.core.engine.api import Bid, Play
from xactika.core.games.xactika.tables import CALL_INDEX, INDEX

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_inference import MODES, git_commit
from train_locate import labels

PLAYERS = (2, 3, 4, 4, 4, 4, 4, 4)
"""train_locate's mix less its 5 and 6 players: the strong bot's 5- and 6-player Play to
Bid rounds cost 180 and 645 ms of CPU at 24 deals a decision (its sampler falls back to
the Markov chain there) against 14 ms with 4, which would put the mean round at 65 ms."""


COLUMNS = ("x", "y", "seat", "bid", "card", "call")


def round_setup(seed: int, i: int, players: tuple[int, ...] = PLAYERS
                ) -> tuple[random.Random, Config, int]:
    """Round ``i`` of ``seed``: the stream its other choices come from, its game, and the
    seed its bots' seeds start from (seat ``s`` gets ``base + s``)."""
    rng = random.Random(seed * 1_000_003 + i)
    n = rng.choice(players)
    mode = rng.choice(MODES)
    # game seeds from 3e9 up: clear of inference_ll.py's held-out positions (10,900,019 on)
    config = Config(mode=mode, players=n, rounds=1, seed=3_000_000_000 + seed * 1_000_003 + i,
                    dealer=rng.randrange(n))
    return rng, config, (seed * 1_000_003 + i) * 16


def play_round(seed: int, i: int, deals: int, keep: float,
               players: tuple[int, ...] = PLAYERS) -> dict[str, list[Any]]:
    """Round ``i`` of ``seed``: its kept examples, column by column."""
    rng, config, base = round_setup(seed, i, players)
    n = config.players
    agents = [StrongAgent(base + s, think_ms=1e9, max_deals=deals, min_deals=deals)
              for s in range(n)]
    state = new_game(config)
    out: dict[str, list[Any]] = {k: [] for k in COLUMNS}
    while True:
        legal = legal_actions(state)
        if legal.seat is None:
            return out
        seat = legal.seat
        v = view(state, seat)
        cmd = agents[seat].choose(v, legal)
        if rng.random() < keep:
            hands = [[INDEX[c] for c in h] for h in state.hands]
            seen = sum(1 << x for x in hands[seat])
            for t in v.tricks:
                for _, card in t.plays:
                    seen |= 1 << INDEX[card]
            for _, card in v.trick:
                seen |= 1 << INDEX[card]
            out["x"].append(locate_input(v))
            out["y"].append(labels(n, seat, hands, seen))
            out["seat"].append(seat)
            if isinstance(cmd, Bid):
                out["bid"].append(cmd.bid)
                out["card"].append(-1)
                out["call"].append(-1)
            else:
                assert isinstance(cmd, Play)
                out["bid"].append(-1)
                out["card"].append(INDEX[cmd.card])
                out["call"].append(-1 if cmd.call is None else CALL_INDEX[cmd.call])
        state, _ = step(state, cmd)


Job = tuple[int, int, int, int, float, tuple[int, ...]]


def play_chunk(job: Job) -> dict[str, Any]:
    """Rounds ``first`` to ``first + count - 1``, as arrays, with the CPU time spent."""
    seed, first, count, deals, keep, players = job
    c0 = time.process_time()
    cols: dict[str, list[Any]] = {k: [] for k in COLUMNS}
    rounds: list[int] = []
    for i in range(first, first + count):
        r = play_round(seed, i, deals, keep, players)
        for k, v in r.items():
            cols[k].extend(v)
        rounds.extend([i] * len(r["x"]))
    m = len(rounds)
    return {"x": np.array(cols["x"], dtype=np.uint8).reshape(m, LOCATE_INPUT),
            "y": np.array(cols["y"], dtype=np.int8).reshape(m, NCARDS),
            "seat": np.array(cols["seat"], dtype=np.int8),
            "bid": np.array(cols["bid"], dtype=np.int8),
            "card": np.array(cols["card"], dtype=np.int8),
            "call": np.array(cols["call"], dtype=np.int8),
            "round": np.array(rounds, dtype=np.int32),
            "cpu_s": time.process_time() - c0}


def chunks(seed: int, first: int, rounds: int, size: int, deals: int, keep: float,
           players: tuple[int, ...]) -> Iterator[Job]:
    for a in range(first, first + rounds, size):
        yield seed, a, min(size, first + rounds - a), deals, keep, players


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=200_000)
    p.add_argument("--first", type=int, default=0, help="the first round's number")
    p.add_argument("--seed", type=int, default=43)
    p.add_argument("--deals", type=int, default=24, help="deals a decision, every seat")
    p.add_argument("--keep", type=float, default=0.25, help="odds a decision is kept")
    p.add_argument("--players", default=",".join(map(str, PLAYERS)),
                   help="the player counts a round draws from, repeats weighing them")
    p.add_argument("--procs", type=int, default=2)
    p.add_argument("--chunk", type=int, default=250, help="rounds a worker's task")
    p.add_argument("--out", required=True, help="the .npz to write")
    args = p.parse_args(argv)
    if args.rounds < 1 or args.procs < 1 or args.deals < 1 or not 0 < args.keep <= 1:
        p.error("--rounds, --procs and --deals must be positive, --keep in (0, 1]")
    try:
        players = tuple(int(x) for x in args.players.split(","))
    except ValueError:
        p.error(f"--players {args.players!r}: player counts separated by commas")
    if not all(2 <= x <= 10 for x in players):
        p.error(f"--players {args.players!r}: each count from 2 to 10")
    commit = git_commit()
    print(f"strong_data: seed {args.seed}, commit {commit}, rounds {args.first}.."
          f"{args.first + args.rounds - 1}, {args.deals} deals a decision, keep "
          f"{args.keep}, players {args.players}, {args.procs} procs", flush=True)
    t0 = time.time()
    parts: list[dict[str, Any]] = []
    done = 0
    cpu = 0.0
    jobs = list(chunks(args.seed, args.first, args.rounds, args.chunk, args.deals,
                       args.keep, players))
    with multiprocessing.get_context("fork").Pool(args.procs) as pool:
        for part in pool.imap(play_chunk, jobs):  # in round order, whatever the procs
            parts.append(part)
            cpu += part.pop("cpu_s")
            done += 1
            if done % max(1, len(jobs) // 20) == 0 or done == len(jobs):
                r = sum(j[2] for j in jobs[:done])
                wall = time.time() - t0
                print(f"  {r} rounds, {wall:.0f} s wall, {cpu:.0f} s CPU "
                      f"({1000 * cpu / r:.1f} ms CPU a round), load "
                      f"{os.getloadavg()[0]:.1f}", flush=True)
    wall = time.time() - t0
    arrays = {k: np.concatenate([q[k] for q in parts]) for k in parts[0]}
    n = len(arrays["x"])
    meta = {"seed": args.seed, "commit": commit, "first": args.first,
            "rounds": args.rounds, "positions": n, "deals": args.deals,
            "keep": args.keep, "players": list(players), "procs": args.procs,
            "wall_s": round(wall, 1),
            "cpu_s": round(cpu, 1), "load_end": round(os.getloadavg()[0], 2)}
    payload: dict[str, Any] = {"meta": np.array(json.dumps(meta)), **arrays}
    np.savez_compressed(args.out, **payload)
    meta["bytes"] = os.path.getsize(args.out)
    print(json.dumps(meta), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
