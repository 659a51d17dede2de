"""Xactika on JAX (xactika.core.accel) against the numpy simulator and OpenSpiel's C++.

Fast path: :func:`xactika.core.accel.play_device`, whole Xactika Play to Bid games, 4
players, 8 rounds of 8 tricks, uniform random legal moves, dealt on the device, one
``jit`` a batch size: hands a second. Environment: ``lax.scan`` of ``vmap(Env.step)`` over
a whole game (288 decisions), a random legal move each step (``random_action``), with and
without the observation: decisions a second. Compile time is ``lower().compile()``.

Peers on the host CPU in the same run: ``xactika.core.batch.simulate`` (numpy, the core's
deals) and OpenSpiel's C++ ``oh_hell`` (4 players, 8 tricks, ``evaluate_bots`` with
uniform random bots; a hand is 36 decisions: 4 bids and 32 cards), as bench/batch.py
runs them. Rates are per CPU second (``process_time``: on a shared machine wall time
measures the neighbours; JAX on a CPU may use several threads, which CPU time counts) and
per wall second; ratios use CPU seconds on a CPU backend, wall seconds on an accelerator.

Run by hand (not a test): ``nice .venv/bin/python bench/accel.py [--sizes 1024,4096]``
(extras ``accel``; ``bench`` for OpenSpiel).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jax

from xactika.core import accel

sys.path.insert(0, str(Path(__file__).resolve().parent))
from batch import openspiel, ours  # bench/batch.py: the same peers, run alike

PLAYERS, ROUNDS, MODE = 4, 8, "bid"
DECISIONS = ROUNDS * PLAYERS * 9  # a hand: 4 bids and 32 cards
_cpu = time.process_time


def timed(fn: Callable[[], Any], repeat: int) -> tuple[float, float]:
    """The median wall and CPU seconds of ``fn`` (its result made ready)."""
    walls, cpus = [], []
    for _ in range(repeat):
        w, c = time.perf_counter(), _cpu()
        jax.block_until_ready(fn())
        walls.append(time.perf_counter() - w)
        cpus.append(_cpu() - c)
    return statistics.median(walls), statistics.median(cpus)


def fast_path(games: int, repeat: int) -> tuple[float, float, float]:
    """(compile s, hands/s wall, hands/s CPU)."""
    run = jax.jit(lambda key: accel.play_device(key, games, mode=MODE, players=PLAYERS,
                                                rounds=ROUNDS)["totals"])
    t0 = time.perf_counter()
    compiled = run.lower(jax.random.key(0)).compile()
    compile_s = time.perf_counter() - t0
    jax.block_until_ready(compiled(jax.random.key(1)))
    keys = iter(range(2, 2 + repeat))
    wall, cpu = timed(lambda: compiled(jax.random.key(next(keys))), repeat)
    hands = games * ROUNDS
    return compile_s, hands / wall, hands / cpu


def environment(games: int, repeat: int, observe: bool) -> tuple[float, float, float]:
    """(compile s, decisions/s wall, decisions/s CPU) of a scan of ``step``."""
    env = accel.Env(MODE, PLAYERS, ROUNDS, observe=observe)

    def one(state: accel.State, key: jax.Array) -> tuple[accel.State, None]:
        action = jax.vmap(accel.random_action)(jax.random.split(key, games),
                                               state.legal_action_mask)
        return jax.vmap(env.step)(state, action), None

    def run(key: jax.Array) -> jax.Array:
        deal, moves = jax.random.split(key)
        state = jax.vmap(env.init)(jax.random.split(deal, games))
        state, _ = jax.lax.scan(one, state, jax.random.split(moves, DECISIONS))
        return state.totals

    t0 = time.perf_counter()
    compiled = jax.jit(run).lower(jax.random.key(0)).compile()
    compile_s = time.perf_counter() - t0
    jax.block_until_ready(compiled(jax.random.key(1)))
    keys = iter(range(2, 2 + repeat))
    wall, cpu = timed(lambda: compiled(jax.random.key(next(keys))), repeat)
    return compile_s, games * DECISIONS / wall, games * DECISIONS / cpu


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1024,4096,16384,65536,262144",
                        help="the fast path's batch sizes, comma separated (default 1024 to "
                        "262144; 4194304 fits an H100)")
    parser.add_argument("--env-sizes", default="1024,4096,16384,65536",
                        help="the environment's batch sizes (default 1024 to 65536)")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs each (default 3)")
    parser.add_argument("--peer-games", type=int, default=8192,
                        help="games of the numpy simulator a run (default 8192)")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    env_sizes = [int(s) for s in args.env_sizes.split(",")]
    device = jax.devices()[0]
    on_cpu = jax.default_backend() == "cpu"
    pick = 2 if on_cpu else 1  # CPU seconds on a CPU, wall seconds on an accelerator
    print(f"backend {jax.default_backend()} ({device.device_kind}), jax {jax.__version__}, "
          f"Python {sys.version.split()[0]}; {MODE}, {PLAYERS} players, {ROUNDS} rounds; "
          f"rates per {'CPU' if on_cpu else 'wall'} second")

    numpy_rates, os_rates = [], []
    for run in range(args.repeat):
        hands, secs = ours(args.peer_games, run)
        numpy_rates.append(hands / secs)
        got = openspiel(args.peer_games, run)
        if got is not None:
            os_rates.append(got[0] / got[1])
    numpy_hands = statistics.median(numpy_rates)
    print(f"numpy simulate (host, 1 core)   {numpy_hands:12,.0f} hands/s")
    os_hands = statistics.median(os_rates) if os_rates else None
    if os_hands is None:
        print("OpenSpiel oh_hell: not installed (pip install '.[bench]'); no ratio")
    else:
        print(f"OpenSpiel C++ oh_hell (1 core)  {os_hands:12,.0f} hands/s  "
              f"{os_hands * PLAYERS * 9:12,.0f} decisions/s")

    print(f"\n{'games':>9} {'compile s':>9} {'hands/s':>13} {'x numpy':>8} {'x OpenSpiel':>11}"
          "   (fast path)")
    for games in sizes:
        fast = fast_path(games, args.repeat)
        rate = fast[pick]
        vs_os = f"{rate / os_hands:11.2f}" if os_hands else f"{'-':>11}"
        print(f"{games:9d} {fast[0]:9.1f} {rate:13,.0f} {rate / numpy_hands:8.2f} {vs_os}"
              f"   (wall {fast[1]:,.0f})")
    for observe in (True, False):
        label = "with" if observe else "without"
        print(f"\n{'games':>9} {'compile s':>9} {'decisions/s':>13} {'x OpenSpiel':>11}"
              f"   (environment, {label} the observation)")
        for games in env_sizes:
            got = environment(games, args.repeat, observe)
            rate = got[pick]
            vs_os = f"{rate / (os_hands * PLAYERS * 9):11.2f}" if os_hands else f"{'-':>11}"
            print(f"{games:9d} {got[0]:9.1f} {rate:13,.0f} {vs_os}   (wall {got[1]:,.0f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
