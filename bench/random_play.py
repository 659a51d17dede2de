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

``--game ohhell`` plays our Oh Hell on OpenSpiel's settings instead (the same game on
both sides: 4 players, 8 cards every hand, ``penalty`` scoring for ``off_bid_penalty``;
spec/OHHELL.md), so the ratio compares engines rather than games.

Run by hand (not a test): ``.venv/bin/python bench/random_play.py [--seconds 3] [--repeat 3]
[--game ohhell]``.
OpenSpiel is optional: ``pip install -e '.[bench]'`` (package ``open_spiel``).

Counting instructions: this machine is shared, so CPU seconds wander by 20% from one
run to the next; callgrind's count of machine instructions does not. ``--games N``
plays exactly N games (ours only) and exits, and the instructions a hand are
``(Ir(--games N+1) - Ir(--games 1)) / (8 N)``, start-up cancelling out, with ``Ir`` the
"Collected" of ``valgrind --tool=callgrind --callgrind-out-file=/dev/null``.

Where the time goes (2026-11-23, per hand of 36 commands, callgrind instructions; the
OpenSpiel loop below takes 1.14M instructions a hand under callgrind, start-up subtracted):

- a whole hand, the loop included: 1.77M before, 1.47M now
- ``legal_actions`` for a bid, a lead, a follow: 6.1k, 6.6k, 10.4k; now 5.3k, 5.1k, 7.6k
- building ``Play(...)``, ``Bid(...)``: 5.1k, 4.2k; now 3.1k, 3.0k
- ``step`` for a bid, a lead, a plain card: 16.9k, 24.4k, 22.1k; now 14.2k, 21.6k, 19.6k
- ``step`` for a trick's last card: 40.7k, now 35.9k; a round's last card: 306k, now 264k

CPU time in the same runs: 0.70x OpenSpiel (about 4.4k vs 6.2k hands/s), from 0.57x.
What changed: ``fast_constructor`` is a function (calling a class with 17 arguments
made CPython copy them all), the commands are built by ``fast_new`` (attrs' frozen
``__init__`` stores each field through ``object.__setattr__``), tuples are replaced at
an index through a list (two allocations, not five), the follow filter is a loop (a
comprehension is a function call in 3.11), a deal sorts by an int rank, and
``shuffled`` tests for rejections with one ``max``.

A hand now: 16 plain cards 313k (21%), the round's last card 264k (18%; the shuffle
alone 144k: SHAKE-256 29k, unpacking 81 words 22k, the rejection test 14k, 80 mods
34k, 80 swaps 45k), 7 trick ends 251k (17%), 24 follow ``legal_actions`` 183k (12%),
8 leads 173k (12%), the 36 commands 112k (8%), bids, ``Legal.calls`` and the loop
the rest. The floor of this design is per object: every event and every state is a
blank twin (about 750 instructions), its field stores and a class change that
freezes it (about 500), so an event and its 17-field state cost about 5k before any
rule is applied, 46 times a hand. 1.0x needs about 1.0M instructions a hand, 0.45M
fewer than now, and nothing left in pure Python is that large: a compact state
(a few per-move fields and one shared part for the round) saves about 1k an event
(45k a hand) but breaks ``attrs.evolve(state, aside=...)`` in callers; folding a
command's events into one state saves more but makes ``step`` a second definition
of state beside the fold (refused). What would reach it is compiling the hot loop
with the state, events and commands as native classes (mypyc native classes or
Cython ``cdef`` classes, which the attrs classes are not: why mypyc on the attrs
modules gave nothing) plus the shuffle in C; that changes the public attrs types.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial

from xactika.core import Config, RandomAgent, legal_actions, new_game, step
from xactika.core.engine.api import Bid, Play

PLAYERS = 4
TRICKS = 8
ROUNDS = 8
# our side of the comparison, per game: the settings of OpenSpiel's oh_hell below
SETTINGS: dict[str, dict[str, object]] = {
    "xactika": {"mode": "bid"},
    "ohhell": {"mode": "penalty", "options": {"top": TRICKS, "hands": "fixed"}},
}


def config(seed: int, game: str) -> Config:
    """A game of ours as this benchmark plays it (``--game`` picks which)."""
    return Config(game=game, players=PLAYERS, rounds=ROUNDS, seed=seed,
                  **SETTINGS[game])  # type: ignore[arg-type]

# CPU time of this process: on a shared machine, wall time mostly measures the neighbours.
_clock = time.process_time


def ours_hands(budget: float, seed: int = 0, games: int | None = None,
               game: str = "xactika") -> tuple[int, float]:
    """Play whole games until ``budget`` seconds pass, or ``games`` games when given;
    (hands played, seconds)."""
    rand = random.Random(seed).random
    hands = 0
    game_seed = seed
    t0 = _clock()
    while _clock() - t0 < budget if games is None else game_seed - seed < games:
        game_seed += 1
        state = new_game(config(game_seed, game))
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


def ours_agent_hands(budget: float, seed: int = 0, game: str = "xactika") -> tuple[int, float]:
    """The same through the agent path (views built each move), for reference."""
    from xactika.core.bots.agents import self_play

    hands = 0
    game_seed = seed
    t0 = _clock()
    while _clock() - t0 < budget:
        game_seed += 1
        state, _ = self_play(config(game_seed, game),
                             [RandomAgent(game_seed * 10 + s) for s in range(PLAYERS)])
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
    parser.add_argument("--games", type=int, default=None,
                        help="play exactly N games of ours and exit (for instruction counts)")
    parser.add_argument("--game", choices=sorted(SETTINGS), default="xactika",
                        help="our game in the comparison (default xactika)")
    args = parser.parse_args(argv)
    game = args.game
    if args.games is not None:
        hands, _ = ours_hands(float("inf"), 0, games=args.games, game=game)
        print(f"{hands} hands")
        return 0

    print(f"random legal play: ours {game}, {PLAYERS} players, {TRICKS} tricks a hand, Python "
          f"{sys.version.split()[0]}, CPU seconds")
    runners: dict[str, Runner] = {"ours": partial(ours_hands, game=game),
                                  "openspiel": openspiel_hands}
    if args.agents:
        runners["agents"] = partial(ours_agent_hands, game=game)
    rates = measure(runners, args.seconds, args.repeat)
    ours = rates["ours"]
    print(f"{game} (step, full validation) {fmt(ours)}")
    if "agents" in rates:
        print(f"{game} (self_play + views)     {fmt(rates['agents'])}")
    theirs = rates.get("openspiel")
    if theirs is None:
        print("OpenSpiel oh_hell: not installed (pip install open_spiel); no ratio")
        return 0
    print(f"OpenSpiel oh_hell (Python loop) {fmt(theirs)}")
    ratio = statistics.median(ours) / statistics.median(theirs)
    verdict = "meets" if ratio >= 1.0 else "below"
    print(f"ratio {game} / OpenSpiel: {ratio:.2f}x ({verdict} the 1.0x target)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
