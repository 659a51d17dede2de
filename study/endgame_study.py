"""Where the strong bot's exact endgames pay: a world solved against a world rolled out.

For decisions with 1 to 5 cards left in the deciding seat's hand (positions of heuristic
games, every mode), it draws the strong bot's own deals and values every candidate move
in each twice through the search's one-rollout function: rolled out on the heuristic's
policy and solved exactly (every line of play, :func:`.simulator.solve`). It prints the
CPU cost of each (microseconds a world and move, the compiled kernel when built) and how
often the two values rank the moves differently. The switch point (``endgame``) is the
most cards at which a solved world still costs little enough that the 100 ms clock keeps
most of its worlds; the duplicate match at the clock then decides (study/README.md).

    python study/endgame_study.py [--games 12] [--deals 30]
"""

from __future__ import annotations

import argparse
import statistics
import time

from xactika.core import Config, Legal, SeatView, State, legal_actions, new_game, step, view
from xactika.core.bots import simulator
from xactika.core.bots.heuristic import HeuristicAgent, knowledge
from xactika.core.bots.search import _MODES, StrongAgent
from xactika.core.games.xactika import DECK
from xactika.core.games.xactika.tables import CALL_INDEX, INDEX


def decision(mode: str, seed: int, left: int) -> tuple[State, SeatView, Legal]:
    """The first play decision of a heuristic game with ``left`` cards in hand."""
    state = new_game(Config(mode=mode, rounds=1, seed=seed))
    agent = HeuristicAgent()
    while True:
        legal = legal_actions(state)
        v = view(state, legal.seat or 0)
        if legal.kind != "bid" and len(v.hand) == left:
            return state, v, legal
        state, _ = step(state, agent.choose(v, legal))


def measure(mode: str, left: int, games: int, deals: int) -> dict[str, float]:
    cost = {False: 0.0, True: 0.0}
    worlds = 0
    differ = 0
    decisions = 0
    for seed in range(games):
        _, v, legal = decision(mode, seed, left)
        seat = legal.seat or 0
        bot = StrongAgent(seed)
        know = knowledge(v)
        moves = bot._candidates(v, legal, know.unseen)
        if len(moves) < 2:
            continue
        decisions += 1
        draw = bot._deals(v, seat)
        m = _MODES[mode]
        n = v.config.players
        bids = [b or 0 for b in v.bids] if mode == "bid" else [0] * n
        count = len(v.trick)
        call = CALL_INDEX[v.call] if count else -1
        best, win = -1, seat
        for s, card in v.trick:
            if card.shows(v.call) and card.value >= best:
                best, win = card.value, s
        played = 0
        for card in DECK:
            if card not in know.unseen and card not in v.hand:
                played |= 1 << INDEX[card]
        voids = [sum(1 << CALL_INDEX[k] for k in vs) for vs in know.voids]
        totals = {False: [0.0] * len(moves), True: [0.0] * len(moves)}
        for _ in range(deals):
            base = draw()
            for exact in (False, True):
                t = time.process_time()
                for j, (c, k) in enumerate(moves):
                    totals[exact][j] += simulator.move_value(
                        base, seat, c, k, v.taken, voids, count, call, best, win, played,
                        bids, m, exact)
                cost[exact] += time.process_time() - t
            worlds += len(moves)
        pick = {e: max(range(len(moves)), key=lambda j, e=e: totals[e][j]) for e in totals}
        differ += pick[False] != pick[True]
    return {"rollout_us": 1e6 * cost[False] / max(1, worlds),
            "exact_us": 1e6 * cost[True] / max(1, worlds),
            "decisions": decisions, "other_move": differ / max(1, decisions)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=12)
    p.add_argument("--deals", type=int, default=30)
    args = p.parse_args()
    print(f"kernel: {'compiled' if simulator.KERNEL is not None else 'pure Python'}")
    print(f"{'mode':<5} {'cards':>5} {'rollout us':>11} {'exact us':>10} {'ratio':>7} "
          f"{'decisions':>9} {'other move':>10}")
    ratios: dict[int, list[float]] = {}
    for left in (1, 2, 3, 4, 5):
        for mode in ("bid", "win", "lose"):
            r = measure(mode, left, args.games, args.deals)
            ratio = r["exact_us"] / max(1e-9, r["rollout_us"])
            ratios.setdefault(left, []).append(ratio)
            print(f"{mode:<5} {left:>5} {r['rollout_us']:>11.2f} {r['exact_us']:>10.2f} "
                  f"{ratio:>7.1f} {r['decisions']:>9} {r['other_move']:>10.0%}", flush=True)
    for left, rs in ratios.items():
        print(f"{left} cards: a solved world costs {statistics.fmean(rs):.1f}x a rollout")


if __name__ == "__main__":
    main()
