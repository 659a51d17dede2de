"""A search over one seat's own moves in a known deal, on the search's private simulator.

Shared by the cheater (core/bots/cheater.py: the one true deal, for the study's bound)
and the strong bot's planning option (core/bots/search.py: each *sampled* deal). The
other seats play the heuristic's policy on what they could see, which is deterministic,
so one line of their play answers each of the seat's own moves; the seat's own moves
are searched exhaustively once it holds at most ``exact`` cards and ``budget`` of them
deep before that (its later moves then the heuristic's). Leads are tried with the call
that the fewest and the most cards left in the other hands could beat, and with the
heuristic's own lead, so the heuristic's plan is always among those searched.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xactika.core.bots.search import MODE_BID, MODE_WIN, StrongAgent, policy, score
from xactika.core.games.xactika.tables import CALLS_OF, CMASK, GE, SHOW, VAL


class Round:
    """A round in progress over card indices: everything the search branches on."""

    __slots__ = (
        "best_v",
        "call",
        "count",
        "hands",
        "played",
        "taken",
        "to_act",
        "voids",
        "winner",
    )

    def __init__(self, hands: list[list[int]], to_act: int, call: int, best_v: int,
                 winner: int, count: int, taken: list[int], played: int,
                 voids: list[int]) -> None:
        self.hands, self.to_act, self.call, self.best_v = hands, to_act, call, best_v
        self.winner, self.count, self.taken = winner, count, taken
        self.played, self.voids = played, voids

    def copy(self) -> Round:
        return Round([list(h) for h in self.hands], self.to_act, self.call, self.best_v,
                     self.winner, self.count, list(self.taken), self.played,
                     list(self.voids))

    def play(self, c: int, k: int) -> None:
        """Seat ``to_act`` plays card ``c`` (calling ``k`` when it leads)."""
        p = self.to_act
        n = len(self.hands)
        if self.count == 0:
            self.call, self.best_v, self.winner = k, VAL[c], p
        elif SHOW[c] >> self.call & 1:
            if VAL[c] >= self.best_v:
                self.best_v, self.winner = VAL[c], p
        else:
            self.voids[p] |= 1 << self.call
        self.hands[p].remove(c)
        self.played |= 1 << c
        self.count += 1
        if self.count == n:
            self.taken[self.winner] += 1
            self.to_act, self.count = self.winner, 0
        else:
            self.to_act = (p + 1) % n


def options(r: Round, me: int, want: bool) -> list[tuple[int, int]]:
    """Every legal card for ``me``; a lead with two calls and with the heuristic's lead."""
    hand = r.hands[me]
    if r.count:
        follows = [x for x in hand if SHOW[x] >> r.call & 1]
        return [(x, -1) for x in follows or hand]
    mine = 0
    for x in hand:
        mine |= 1 << x
    n = len(r.hands)
    moves = [policy(me, hand, mine, r.played, r.voids, n, 0, -1, -1, want)]
    rest = 0
    for s, h in enumerate(r.hands):
        if s != me:
            for x in h:
                rest |= 1 << x
    for x in hand:
        beat = [((rest & GE[x] & CMASK[k]).bit_count(), k) for k in CALLS_OF[x]]
        for _, k in (min(beat), max(beat)):
            if (x, k) not in moves:
                moves.append((x, k))
    return moves


class Planner:
    """Values of a round for one seat that plans its own moves; counts the leaves."""

    def __init__(self, exact: int) -> None:
        self.exact = exact
        self.leaves = 0  # rounds played out, for cost figures

    def value(self, r: Round, me: int, bids: Sequence[int], mode: int, budget: int) -> int:
        """Points for ``me`` at the end of the round, its next ``budget`` moves searched
        (and every move once it holds ``exact`` cards or fewer). ``r`` is consumed."""
        n = len(r.hands)
        while True:
            p = r.to_act
            if r.count == 0 and not r.hands[p]:
                self.leaves += 1
                return score(mode, bids[me], r.taken[me])
            want = mode == MODE_WIN or (mode == MODE_BID and r.taken[p] < bids[p])
            if p == me and (budget > 0 or len(r.hands[me]) <= self.exact):
                moves = options(r, me, want)
                if len(moves) > 1:
                    best = None
                    for c, k in moves:
                        branch = r.copy()
                        branch.play(c, k)
                        v = self.value(branch, me, bids, mode, budget - 1)
                        if best is None or v > best:
                            best = v
                    assert best is not None
                    return best
                c, k = moves[0]
            else:
                hand = r.hands[p]
                mask = 0
                for x in hand:
                    mask |= 1 << x
                c, k = policy(p, hand, mask, r.played, r.voids, n, r.count, r.call,
                              r.best_v, want)
            r.play(c, k)


class PlanningAgent(StrongAgent):
    """The strong bot whose rollouts plan its own later moves in each sampled deal.

    Its rollouts assume the heuristic's play for the other seats, as the strong bot's
    do, but search the deciding seat's own later moves with :class:`Planner` (``exact``
    and ``depth`` as there) instead of assuming the heuristic's: "the cheater's search
    run in sampled worlds". Its own later moves are then chosen knowing the sampled
    hands (strategy fusion), which matters least in the end game.
    """

    def __init__(self, seed: int | None = None, think_ms: float = 100.0,
                 exact: int = 3, depth: int = 0, bid: int = 0, **kwargs: Any) -> None:
        super().__init__(seed, think_ms=think_ms, **kwargs)
        self.planner = Planner(exact)
        self.depth = depth
        self.plan_bid = bool(bid)  # value each candidate bid by its planned play too

    def _bid_value(self, seat: int, hands: list[list[int]], leader: int,
                   bids: list[int]) -> int:
        if not self.plan_bid:
            return super()._bid_value(seat, hands, leader, bids)
        n = len(hands)
        r = Round(hands, leader, -1, -1, leader, 0, [0] * n, 0, [0] * n)
        return self.planner.value(r, seat, bids, MODE_BID, self.depth)

    def _finish(self, seat: int, hands: list[list[int]], to_act: int, call: int,
                best_v: int, winner: int, count: int, taken: list[int], bids: Sequence[int],
                mode: int, played: int, voids: list[int]) -> int:
        r = Round(hands, to_act, call, best_v, winner, count, taken, played, voids)
        return self.planner.value(r, seat, bids, mode, self.depth)
