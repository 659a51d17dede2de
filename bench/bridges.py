"""Cost per move of the AI bridges, against the core's own ``step`` and OpenSpiel's C++.

Every row plays whole games of Xactika, Play to Bid, 4 players, 8 rounds, with a uniform
random choice among the legal moves, and reports CPU microseconds per player move (the
deal, scoring and chance nodes are part of the cost, not counted as moves):

- ``core``: ``legal_actions`` then ``step``, the floor every bridge stands on;
- ``host agents``: ``self_play`` with in-process agents (a view built for each move);
- ``host processes``: ``xactika.protocol.player.host.play_game`` with four
  ``examples/random_bot.py`` processes over pipes; WALL time per move (the bots' own CPU
  is in other processes);
- ``openspiel``: ``python_xactika`` through pyspiel: ``legal_actions()``, ``apply_action``;
- ``openspiel+tensor``: the same, plus the mover's ``information_state_tensor`` (what a
  learning agent reads each move);
- ``pettingzoo``: the documentation's loop, ``last()`` (the observation tensor and action
  mask), then ``step``;
- ``oh_hell C++``: OpenSpiel's C++ ``oh_hell`` (4 players, 8 tricks) driven from Python the
  same way, the nearest peer game.

Run by hand (not a test): ``.venv/bin/python bench/bridges.py [--seconds 2]``; needs the
``[openspiel]`` and ``[pettingzoo]`` extras.

Measured 2026-11-23 on the shared 2-core box (load ~8, CPU time, ``--seconds 3``), in
us a move and as a multiple of the core's step / of oh_hell: core 7.4 (1.00 / 1.79);
host agents 11.6 (1.58 / 2.82); host processes 247 wall (34 / 60); OpenSpiel
python_xactika 19.8 (2.70 / 4.82), with the information-state tensor 47.2 (6.42 /
11.5); PettingZoo 54.4 (7.39 / 13.2); oh_hell 4.1. The bridges' own cost over ``step``
is the pyspiel trampoline and the id encoding (OpenSpiel), and building the view tensor
each move (OpenSpiel tensor, PettingZoo).
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from xactika.core import Config, RandomAgent, legal_actions, new_game, step
from xactika.core.bots.agents import self_play
from xactika.core.engine.api import Bid, Play

PLAYERS = 4
ROUNDS = 8
_clock = time.process_time  # CPU time: on a shared machine wall time measures neighbours

Row = Callable[[float, int], tuple[int, float]]


def core(budget: float, seed: int) -> tuple[int, float]:
    rand = random.Random(seed).random
    moves = 0
    t0 = _clock()
    while _clock() - t0 < budget:
        seed += 1
        state = new_game(Config(mode="bid", players=PLAYERS, rounds=ROUNDS, seed=seed))
        while True:
            legal = legal_actions(state)
            if legal.seat is None:
                break
            if legal.kind == "bid":
                command: Bid | Play = Bid(legal.seat, legal.bids[int(rand() * len(legal.bids))])
            else:
                card = legal.cards[int(rand() * len(legal.cards))]
                calls = legal.calls(card)
                command = Play(legal.seat, card, calls[int(rand() * len(calls))])
            state, _ = step(state, command)
            moves += 1
    return moves, _clock() - t0


def host_agents(budget: float, seed: int) -> tuple[int, float]:
    moves = 0
    t0 = _clock()
    while _clock() - t0 < budget:
        seed += 1
        config = Config(mode="bid", players=PLAYERS, rounds=ROUNDS, seed=seed)
        _, events = self_play(config, [RandomAgent(seed * 10 + s) for s in range(PLAYERS)])
        moves += sum(1 for e in events if type(e).__name__ in ("BidMade", "Led", "Played"))
    return moves, _clock() - t0


def host_processes(budget: float, seed: int) -> tuple[int, float]:
    import sys
    from pathlib import Path

    from xactika.protocol.player.host import Bot, play_game

    bot = [sys.executable, str(Path(__file__).resolve().parent.parent / "examples/random_bot.py")]
    bots = [Bot.popen(bot) for _ in range(PLAYERS)]
    moves = 0
    t0 = time.perf_counter()
    try:
        while time.perf_counter() - t0 < budget:
            seed += 1
            config = Config(mode="bid", players=PLAYERS, rounds=ROUNDS, seed=seed)
            record = play_game(config, bots)
            moves += sum(1 for e in record.events
                         if type(e).__name__ in ("BidMade", "Led", "Played"))
    finally:
        for b in bots:
            b.quit()
    return moves, time.perf_counter() - t0


def _spiel_loop(game: object, budget: float, seed: int, tensor: bool) -> tuple[int, float]:
    rand = random.Random(seed).random
    moves = 0
    t0 = _clock()
    while _clock() - t0 < budget:
        state = game.new_initial_state()  # type: ignore[attr-defined]
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[int(rand() * len(outcomes))][0])
                continue
            if tensor:
                state.information_state_tensor(state.current_player())
            actions = state.legal_actions()
            state.apply_action(actions[int(rand() * len(actions))])
            moves += 1
    return moves, _clock() - t0


def openspiel(budget: float, seed: int) -> tuple[int, float]:
    import pyspiel

    import xactika.frontends.bridges.openspiel  # noqa: F401  (registers python_xactika)

    game = pyspiel.load_game("python_xactika",
                             {"players": PLAYERS, "mode": "bid", "rounds": ROUNDS})
    return _spiel_loop(game, budget, seed, tensor=False)


def openspiel_tensor(budget: float, seed: int) -> tuple[int, float]:
    import pyspiel

    import xactika.frontends.bridges.openspiel  # noqa: F401

    game = pyspiel.load_game("python_xactika",
                             {"players": PLAYERS, "mode": "bid", "rounds": ROUNDS})
    return _spiel_loop(game, budget, seed, tensor=True)


def oh_hell(budget: float, seed: int) -> tuple[int, float]:
    """Uniform chance here (the deal's outcomes are equally likely in oh_hell)."""
    import pyspiel

    game = pyspiel.load_game("oh_hell", {"players": PLAYERS, "num_tricks_fixed": 8,
                                         "off_bid_penalty": True})
    return _spiel_loop(game, budget, seed, tensor=False)


def pettingzoo(budget: float, seed: int) -> tuple[int, float]:
    import numpy as np

    from xactika.frontends.bridges.pettingzoo import env as make_env

    rand = random.Random(seed).random
    env = make_env(players=PLAYERS, mode="bid", rounds=ROUNDS)
    moves = 0
    t0 = _clock()
    while _clock() - t0 < budget:
        seed += 1
        env.reset(seed=seed)
        for _agent in env.agent_iter():
            observation, _reward, termination, truncation, _info = env.last()
            if termination or truncation:
                env.step(None)
                continue
            legal = np.flatnonzero(observation["action_mask"])
            env.step(int(legal[int(rand() * len(legal))]))
            moves += 1
    return moves, _clock() - t0


ROWS: list[tuple[str, Row]] = [
    ("core step", core),
    ("host agents (self_play)", host_agents),
    ("host processes (wall)", host_processes),
    ("openspiel python_xactika", openspiel),
    ("openspiel + info tensor", openspiel_tensor),
    ("pettingzoo last+step", pettingzoo),
    ("oh_hell C++ from Python", oh_hell),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU seconds per row")
    args = parser.parse_args()
    results: dict[str, float] = {}
    for name, row in ROWS:
        try:
            moves, spent = row(args.seconds, 1)
        except ImportError as exc:
            print(f"{name:28} skipped: {exc}")
            continue
        results[name] = spent / moves * 1e6
    base = results.get("core step")
    peer = results.get("oh_hell C++ from Python")
    print(f"{'row':28} {'us/move':>9} {'x core':>8} {'x oh_hell':>10}")
    for name, us in results.items():
        vs_core = f"{us / base:8.2f}" if base else "       -"
        vs_peer = f"{us / peer:10.2f}" if peer else "         -"
        print(f"{name:28} {us:9.1f} {vs_core} {vs_peer}")


if __name__ == "__main__":
    main()
