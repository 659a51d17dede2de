"""Full hands per second of random legal play, ours against OpenSpiel's ``oh_hell``.

Ours: Xactika, Play to Bid, 4 players, 8 tricks a hand, every move asked of
``legal_actions`` and then put through ``step`` (``decide`` + ``evolve``), so every
command is fully validated and every event folded. A hand is one deal, its bids, its
8 tricks and its scoring; a game of 8 hands is started by ``new_game`` (validated
settings, seeded deal) and each later hand is dealt by the engine itself.

OpenSpiel: ``oh_hell(players=4, num_tricks_fixed=8, off_bid_penalty=true)`` driven from
a Python loop: chance nodes sampled with the outcomes' probabilities, player nodes by a
uniform choice among the legal actions. One OpenSpiel game is one hand. Both loops pick
with the same cheap ``random()`` arithmetic, so the harness costs the same on each side.

Run by hand (not a test): ``.venv/bin/python bench/random_play.py [--seconds 3] [--repeat 3]``.
OpenSpiel is optional: ``pip install -e '.[bench]'`` (package ``open_spiel``).

Where our time goes (2026-11-23, after the fast constructors; per hand of 36 commands,
CPU time on a loaded 2-core machine, OpenSpiel ~167 us a hand in the same run):
``legal_actions`` ~55 us (1.5 us a call: a ``Legal`` and the follow filter), building
the 36 ``Play``/``Bid`` commands ~35 us (attrs' frozen ``__init__``, the bench's own
code), ``step`` ~183 us: a plain card 3.7 us, a lead 4.1 us, a trick's last card 7.3 us,
a round's last card 35 us (its shuffle alone ~10 us). The loop and the commands, with
``legal_actions``, already take ~125 us of OpenSpiel's 167, so 1.0x would need ``step``
at about 1.2 us a command with the deals included; the two objects every step must
build (the event and the 17-field ``State``) cost ~0.8 us of that on their own. That is
out of reach of CPython without compiling the hot loop (mypyc on ``core/table.py`` and
``core/games/xactika.py`` is the candidate); OpenSpiel does its state changes in C++.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable

from xactika.core import Config, RandomAgent, legal_actions, new_game, step
from xactika.core.table import Bid, Play

PLAYERS = 4
TRICKS = 8
ROUNDS = 8

# CPU time of this process: on a shared machine, wall time mostly measures the neighbours.
_clock = time.process_time


def ours_hands(budget: float, seed: int = 0) -> tuple[int, float]:
    """Play whole games until ``budget`` seconds pass; (hands played, seconds)."""
    rand = random.Random(seed).random
    hands = 0
    game_seed = seed
    t0 = _clock()
    while _clock() - t0 < budget:
        game_seed += 1
        state = new_game(Config(mode="bid", players=PLAYERS, rounds=ROUNDS, seed=game_seed))
        while True:
            legal = legal_actions(state)
            seat = legal.seat
            if seat is None:
                break
            if legal.kind == "bid":
                bids = legal.bids
                command: Bid | Play = Bid(seat, bids[int(rand() * len(bids))])
            else:
                cards = legal.cards
                card = cards[int(rand() * len(cards))]
                calls = legal.calls(card)
                command = Play(seat, card, calls[int(rand() * len(calls))])
            state, _ = step(state, command)
        assert state.over and state.round == ROUNDS
        hands += ROUNDS
    return hands, _clock() - t0


def ours_agent_hands(budget: float, seed: int = 0) -> tuple[int, float]:
    """The same through the agent path (views built each move), for reference."""
    from xactika.core.bots.agents import self_play

    hands = 0
    game_seed = seed
    t0 = _clock()
    while _clock() - t0 < budget:
        game_seed += 1
        config = Config(mode="bid", players=PLAYERS, rounds=ROUNDS, seed=game_seed)
        state, _ = self_play(config, [RandomAgent(game_seed * 10 + s) for s in range(PLAYERS)])
        assert state.over
        hands += ROUNDS
    return hands, _clock() - t0


def openspiel_hands(budget: float, seed: int = 0) -> tuple[int, float] | None:
    try:
        import pyspiel  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return None
    game = pyspiel.load_game(
        "oh_hell", {"players": PLAYERS, "num_tricks_fixed": TRICKS, "off_bid_penalty": True}
    )
    rand = random.Random(seed).random
    hands = 0
    t0 = _clock()
    while _clock() - t0 < budget:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                # Inverse CDF over the outcomes' probabilities: exact, and the cheapest
                # way found from Python (random.choices is ten times slower here).
                outcomes = state.chance_outcomes()
                r = rand()
                action = outcomes[-1][0]
                for a, p in outcomes:
                    r -= p
                    if r < 0.0:
                        action = a
                        break
                state.apply_action(action)
            else:
                actions = state.legal_actions()
                state.apply_action(actions[int(rand() * len(actions))])
        hands += 1
    return hands, _clock() - t0


Runner = Callable[[float, int], tuple[int, float] | None]


def measure(runners: dict[str, Runner], seconds: float, repeat: int) -> dict[str, list[float]]:
    """Hands per second for each runner, the runs interleaved so that a slow spell on a
    shared machine lands on both sides rather than on one."""
    rates: dict[str, list[float]] = {name: [] for name in runners}
    for i in range(repeat):
        for name, fn in runners.items():
            result = fn(seconds, i)
            if result is None:
                rates.pop(name, None)
                continue
            hands, elapsed = result
            rates[name].append(hands / elapsed)
    return {name: r for name, r in rates.items() if r}


def fmt(rates: list[float]) -> str:
    return (
        f"median {statistics.median(rates):8.0f} hands/s  "
        f"(runs: {', '.join(f'{r:.0f}' for r in rates)})"
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per run (default 3)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per engine (default 3)")
    parser.add_argument("--agents", action="store_true", help="also time the agent path")
    args = parser.parse_args(argv)

    print(f"random legal play: {PLAYERS} players, {TRICKS} tricks a hand, Python "
          f"{sys.version.split()[0]}, CPU seconds")
    runners: dict[str, Runner] = {"ours": ours_hands, "openspiel": openspiel_hands}
    if args.agents:
        runners["agents"] = ours_agent_hands
    rates = measure(runners, args.seconds, args.repeat)
    ours = rates["ours"]
    print(f"xactika (step, full validation) {fmt(ours)}")
    if "agents" in rates:
        print(f"xactika (self_play + views)     {fmt(rates['agents'])}")
    theirs = rates.get("openspiel")
    if theirs is None:
        print("OpenSpiel oh_hell: not installed (pip install open_spiel); no ratio")
        return 0
    print(f"OpenSpiel oh_hell (Python loop) {fmt(theirs)}")
    ratio = statistics.median(ours) / statistics.median(theirs)
    verdict = "meets" if ratio >= 1.0 else "below"
    print(f"ratio xactika / OpenSpiel: {ratio:.2f}x ({verdict} the 1.0x target)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
