"""Hands per second of the batched simulator against OpenSpiel's C++ ``oh_hell``.

Ours: :func:`xactika.core.batch.simulate`, Xactika Play to Bid, 4 players, 8 tricks a
hand, 8 hands a game, the random policy, every game dealt by the core's own seeded
shuffle (spec/DEALS.md, the SHAKE-256 words read per game). One run is one call on
``--games`` games.

OpenSpiel: ``oh_hell(players=4, num_tricks_fixed=8, off_bid_penalty=true)``, whole hands
played in C++ by ``pyspiel.evaluate_bots`` with four uniform random bots (chance sampled
in C++ too), one Python call a hand.

``--game ohhell`` runs our Oh Hell instead (:func:`xactika.core.batch.simulate` with
``game="ohhell"``, random policy) on OpenSpiel's settings: 4 players, 8 cards every hand,
``penalty`` scoring for ``off_bid_penalty`` (spec/OHHELL.md), so both sides play the same game.

Run by hand (not a test): ``.venv/bin/python bench/batch.py [--games 8192] [--repeat 3]
[--game ohhell]``.
Needs the ``batch`` extra (numpy); OpenSpiel is the ``bench`` extra.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable

from xactika.core.batch import simulate

PLAYERS = 4
TRICKS = 8
ROUNDS = 8
_clock = time.process_time  # CPU time: on a shared machine wall time measures the neighbours


def ours(games: int, run: int, policy: str = "random") -> tuple[int, float]:
    seeds = range(run * games, (run + 1) * games)
    t0 = _clock()
    result = simulate(seeds, mode="bid", players=PLAYERS, rounds=ROUNDS, policy=policy)
    elapsed = _clock() - t0
    assert result.taken.sum() == games * ROUNDS * TRICKS
    return games * ROUNDS, elapsed


def ours_ohhell(games: int, run: int) -> tuple[int, float]:
    seeds = range(run * games, (run + 1) * games)
    t0 = _clock()
    result = simulate(seeds, game="ohhell", mode="penalty", players=PLAYERS, rounds=ROUNDS,
                      options={"top": TRICKS, "hands": "fixed"})
    elapsed = _clock() - t0
    assert result.taken.sum() == games * ROUNDS * TRICKS
    return games * ROUNDS, elapsed


def openspiel(games: int, run: int) -> tuple[int, float] | None:
    try:
        import pyspiel  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return None
    game = pyspiel.load_game(
        "oh_hell", {"players": PLAYERS, "num_tricks_fixed": TRICKS, "off_bid_penalty": True}
    )
    bots = [pyspiel.make_uniform_random_bot(p, 1000 * run + p) for p in range(PLAYERS)]
    hands = games * ROUNDS // 4  # a quarter as many hands: enough for a steady rate
    t0 = _clock()
    for i in range(hands):
        pyspiel.evaluate_bots(game.new_initial_state(), bots, run * hands + i)
    return hands, _clock() - t0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=8192, help="games a batch (default 8192)")
    parser.add_argument("--repeat", type=int, default=3, help="runs each (default 3)")
    parser.add_argument("--game", choices=("xactika", "ohhell"), default="xactika",
                        help="our game in the comparison (default xactika)")
    args = parser.parse_args(argv)
    runners: dict[str, Callable[[int, int], tuple[int, float] | None]] = (
        {"batch random": ours, "batch greedy": lambda games, run: ours(games, run, "greedy")}
        if args.game == "xactika" else {"batch random": ours_ohhell})
    runners["openspiel"] = openspiel
    rates: dict[str, list[float]] = {name: [] for name in runners}
    for run in range(args.repeat):  # interleaved: a slow spell lands on every side
        for name, fn in runners.items():
            got = fn(args.games, run)
            if got is not None:
                rates[name].append(got[0] / got[1])
    print(f"random play, ours {args.game}, {PLAYERS} players, {TRICKS} tricks a hand, Python "
          f"{sys.version.split()[0]}, CPU seconds, {args.games} games a batch")
    for name, rs in rates.items():
        if rs:
            print(f"{name:28s} median {statistics.median(rs):9.0f} hands/s  "
                  f"(runs: {', '.join(f'{r:.0f}' for r in rs)})")
    if not rates["openspiel"]:
        print("OpenSpiel oh_hell: not installed (pip install open_spiel); no ratio")
        return 0
    ratio = statistics.median(rates["batch random"]) / statistics.median(rates["openspiel"])
    verdict = "meets" if ratio >= 2.0 else "below"
    print(f"ratio {args.game} batch (random) / OpenSpiel C++ evaluate_bots: {ratio:.2f}x "
          f"({verdict} the 2.0x target)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
