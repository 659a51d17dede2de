"""The strong bot: determinized search (PIMC) over deals drawn by the sampler.

For each decision it draws deals of the hidden cards consistent with what its seat has
seen (:mod:`.sampler`), plays every candidate move out to the end of the round in each
deal with a fast greedy policy for all seats, and picks the move with the best average
points. Bids come the same way: for each candidate bid, the round is simulated with the
others bidding by the rule of thumb, and the bid with the best expected points wins.

The rollouts run on a private simulator over card indices and plain lists, about fifty
times faster than ``step``; ``tests/test_search.py`` replays its games through the core
to prove it keeps the rules.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence

from .agents import register_agent
from .heuristic import HeuristicAgent, bid_estimate, nearest_bid
from .sampler import DealSampler, hidden_of
from .table import Bid, Command, Legal, Play
from .views import SeatView
from .xactika import CALLS, DECK, TRICKS_PER_ROUND, Call, Card, bid_points, card_sort_key

# --------------------------------------------------------------------------- tables
# Card indices follow (value, counts) order, so a smaller index never has a higher value:
# min() and max() of a list of indices are the lowest and highest cards.

CARDS: tuple[Card, ...] = tuple(sorted(DECK, key=card_sort_key))
INDEX: dict[Card, int] = {c: i for i, c in enumerate(CARDS)}
CALL_INDEX: dict[Call, int] = {c: (c.count - 1) * 4 + c.shape for c in CALLS}
CALL_OF: tuple[Call, ...] = tuple(sorted(CALLS, key=lambda c: CALL_INDEX[c]))
VAL: tuple[int, ...] = tuple(c.value for c in CARDS)
SHOW: tuple[int, ...] = tuple(sum(1 << CALL_INDEX[k] for k in c.calls) for c in CARDS)
CALLS_OF: tuple[tuple[int, ...], ...] = tuple(
    tuple(CALL_INDEX[k] for k in c.calls) for c in CARDS
)


def _beat(i: int, k: int) -> int:
    """Cards in the deck that beat card ``i`` led with call ``k``."""
    return sum(1 for j in range(len(CARDS)) if j != i and SHOW[j] >> k & 1 and VAL[j] >= VAL[i])


_BEAT = [{k: _beat(i, k) for k in CALLS_OF[i]} for i in range(len(CARDS))]
WIN_CALL: tuple[int, ...] = tuple(min(b, key=lambda k: (b[k], k)) for b in _BEAT)
WIN_B: tuple[int, ...] = tuple(b[WIN_CALL[i]] for i, b in enumerate(_BEAT))
LOSE_CALL: tuple[int, ...] = tuple(max(b, key=lambda k: (b[k], -k)) for b in _BEAT)
LOSE_B: tuple[int, ...] = tuple(b[LOSE_CALL[i]] for i, b in enumerate(_BEAT))
CMASK: tuple[int, ...] = tuple(
    sum(1 << i for i in range(len(CARDS)) if SHOW[i] >> k & 1) for k in range(len(CALLS))
)
GE: tuple[int, ...] = tuple(  # the cards other than i whose value is at least i's
    sum(1 << j for j in range(len(CARDS)) if j != i and VAL[j] >= VAL[i])
    for i in range(len(CARDS))
)
# lead preference keys: smaller is better
_WIN_KEY: tuple[tuple[int, int], ...] = tuple((WIN_B[i], -i) for i in range(len(CARDS)))
_LOSE_KEY: tuple[tuple[int, int], ...] = tuple((-LOSE_B[i], i) for i in range(len(CARDS)))

MODE_WIN, MODE_LOSE, MODE_BID = 0, 1, 2
_MODES = {"win": MODE_WIN, "lose": MODE_LOSE, "bid": MODE_BID}

# --------------------------------------------------------------------------- simulator


def playout(hands: list[list[int]], to_act: int, call: int, best_v: int, winner: int,
            count: int, taken: list[int], bids: Sequence[int], mode: int,
            log: list[tuple[int, int, int]] | None = None) -> list[int]:
    """Play the round to its end with the greedy policy; ``taken`` is updated and returned.

    ``count`` cards are in the current trick (0: ``to_act`` leads), whose best showing
    card has value ``best_v`` and belongs to ``winner``. ``hands`` are mutated. When
    ``log`` is given, every play is appended as (seat, card, call or -1).

    The policy is double-dummy greedy: in a sampled deal it sees every hand, so a seat
    that wants the trick leads the card fewest other cards can beat (a sure winner if it
    has one) and follows with the cheapest card nobody after it can top; a seat that
    does not want it leads the card most others can beat and ducks as high as it can.
    """
    n = len(hands)
    masks = [0] * n
    for p in range(n):
        m = 0
        for x in hands[p]:
            m |= 1 << x
        masks[p] = m
    while True:
        hand = hands[to_act]
        want = mode == MODE_WIN or (mode == MODE_BID and taken[to_act] < bids[to_act])
        if count == 0:
            if not hand:
                return taken
            om = 0
            for p in range(n):
                if p != to_act:
                    om |= masks[p]
            bk = None
            for x in hand:
                ge = om & GE[x]
                for k in CALLS_OF[x]:
                    b = (ge & CMASK[k]).bit_count()
                    if want:
                        key = (b, x if b == 0 else -x)
                    else:
                        key = (-b, x)
                    if bk is None or key < bk:
                        bk, c, call = key, x, k
            best_v = VAL[c]
            winner = to_act
            if log is not None:
                log.append((to_act, c, call))
        else:
            cm = CMASK[call]
            follows = [x for x in hand if SHOW[x] >> call & 1]
            if follows:
                if want:
                    lm = 0
                    for i in range(1, n - count):
                        p = (to_act + i) % n
                        if mode == MODE_WIN or (mode == MODE_BID and taken[p] < bids[p]):
                            lm |= masks[p]
                    top = (lm & cm).bit_length() - 1
                    floor = best_v if top < 0 else max(best_v, VAL[top] + 1)
                    win = [x for x in follows if VAL[x] >= floor]
                    c = min(win) if win else min(follows)
                else:
                    duck = [x for x in follows if VAL[x] < best_v]
                    if duck:
                        c = max(duck)
                    elif count == n - 1:
                        c = max(follows)
                    else:
                        c = min(follows)
                if VAL[c] >= best_v:
                    best_v = VAL[c]
                    winner = to_act
            elif want:
                c = max(hand, key=_WIN_KEY.__getitem__)  # slough the weakest
            else:
                c = min(hand, key=_WIN_KEY.__getitem__)  # slough the most dangerous
            if log is not None:
                log.append((to_act, c, -1))
        hand.remove(c)
        masks[to_act] ^= 1 << c
        count += 1
        if count == n:
            taken[winner] += 1
            to_act = winner
            count = 0
        else:
            to_act = (to_act + 1) % n


def score(mode: int, bid: int, taken: int) -> int:
    """Points for the seat, higher better in every mode (Play to Lose counts down)."""
    if mode == MODE_WIN:
        return taken
    if mode == MODE_LOSE:
        return -taken
    return bid_points(bid, taken)


def fast_bid(hand: Sequence[int], legal: Sequence[int]) -> int:
    """The heuristic's bid over card indices."""
    high = sum(1 for c in hand if VAL[c] >= 11)
    mid = sum(1 for c in hand if 9 <= VAL[c] <= 10)
    return nearest_bid(round(high + mid / 2 + 1e-9), legal)


def legal_bids(bids: Sequence[int | None], seat: int, dealer: int) -> tuple[int, ...]:
    """The bids open to ``seat``: the dealer may not make the total exactly 8."""
    every = tuple(range(TRICKS_PER_ROUND + 1))
    if seat != dealer:
        return every
    others = sum(b for s, b in enumerate(bids) if s != seat and b is not None)
    if others > TRICKS_PER_ROUND:
        return every
    return tuple(b for b in every if others + b != TRICKS_PER_ROUND)


# --------------------------------------------------------------------------- the bot


class StrongAgent:
    """PIMC over consistent deals with greedy rollouts, within a think-time budget.

    ``think_ms`` is the budget per decision: the search stops drawing deals at about
    half of it so that, with the set-up and a loaded machine, the 95th percentile stays
    under it. ``max_deals`` caps the deals per decision (for reproducible tests).
    """

    name = "strong"

    def __init__(self, seed: int | None = None, think_ms: float = 100.0,
                 max_deals: int | None = None, min_deals: int = 2) -> None:
        self.rng = random.Random(seed)
        self.think_ms = think_ms
        self.max_deals = max_deals
        self.min_deals = min_deals
        self.fallback = HeuristicAgent(seed)
        self.last_deals = 0
        self.times: list[float] = []

    def choose(self, view: SeatView, legal: Legal) -> Command:
        return self.explain(view, legal)[0]

    def explain(self, view: SeatView, legal: Legal) -> tuple[Command, str]:
        """The move and a one-line reason, for the REPL's ``hint``."""
        t0 = time.perf_counter()
        try:
            if legal.seat is None:
                raise ValueError("nobody may act")
            if view.config.game != "xactika":
                return self.fallback.explain(view, legal)
            deadline = t0 + self.think_ms * 0.5 / 1000.0
            if legal.kind == "bid":
                return self._bid(view, legal, deadline)
            return self._play(view, legal, deadline)
        finally:
            self.times.append(time.perf_counter() - t0)

    def _enough(self, deals: int, deadline: float) -> bool:
        if self.max_deals is not None and deals >= self.max_deals:
            return True
        return deals >= self.min_deals and time.perf_counter() >= deadline

    # -- play
    def _candidates(self, legal: Legal) -> list[tuple[int, int]]:
        if legal.kind == "play":
            return [(INDEX[c], -1) for c in legal.cards]
        moves: list[tuple[int, int]] = []
        for c in legal.cards:
            i = INDEX[c]
            moves.append((i, WIN_CALL[i]))
            if LOSE_CALL[i] != WIN_CALL[i]:
                moves.append((i, LOSE_CALL[i]))
        return moves

    def _play(self, view: SeatView, legal: Legal, deadline: float) -> tuple[Command, str]:
        seat = legal.seat or 0
        moves = self._candidates(legal)
        if len(moves) == 1:
            return self._command(seat, moves[0]), "the only move"
        mode = _MODES[view.config.mode]
        n = view.config.players
        bids = [b if b is not None else 0 for b in view.bids] if mode == MODE_BID else [0] * n
        sampler = DealSampler(hidden_of(view), self.rng)
        others = sampler.hidden.seats
        mine = sorted(INDEX[c] for c in view.hand)
        count = len(view.trick)
        call0 = CALL_INDEX[view.call] if count else -1
        best0, win0 = -1, seat
        if count:
            for s, card in view.trick:
                if card.shows(view.call) and card.value >= best0:
                    best0, win0 = card.value, s
        totals = [0] * len(moves)
        deals = 0
        while not self._enough(deals, deadline):
            deal = sampler.sample()
            base: list[list[int]] = [[] for _ in range(n)]
            base[seat] = mine
            for s, hand in zip(others, deal, strict=True):
                base[s] = sorted(INDEX[c] for c in hand)
            for j, (c, k) in enumerate(moves):
                hands = [list(h) for h in base]
                hands[seat].remove(c)
                taken = list(view.taken)
                if count == 0:
                    call, best, win = k, VAL[c], seat
                else:
                    call, best, win = call0, best0, win0
                    if SHOW[c] >> call & 1 and VAL[c] >= best:
                        best, win = VAL[c], seat
                if count + 1 == n:
                    taken[win] += 1
                    playout(hands, win, -1, -1, win, 0, taken, bids, mode)
                else:
                    playout(hands, (seat + 1) % n, call, best, win, count + 1, taken, bids,
                            mode)
                totals[j] += score(mode, bids[seat], taken[seat])
            deals += 1
        self.last_deals = deals
        order = sorted(range(len(moves)), key=lambda j: -totals[j])
        j = order[0]
        cmd = self._command(seat, moves[j])
        why = f"best of {len(moves)} moves over {deals} sampled deals: " \
              f"{totals[j] / deals:+.2f} expected points"
        if len(order) > 1:
            why += f" (next best {totals[order[1]] / deals:+.2f})"
        return cmd, why

    @staticmethod
    def _command(seat: int, move: tuple[int, int]) -> Play:
        c, k = move
        return Play(seat, CARDS[c], CALL_OF[k] if k >= 0 else None)

    # -- bidding
    def _bid(self, view: SeatView, legal: Legal, deadline: float) -> tuple[Command, str]:
        seat = legal.seat or 0
        n = view.config.players
        dealer = view.dealer
        est = bid_estimate(view.hand)
        cands = [b for b in legal.bids if est - 2.5 <= b <= est + 2.5]
        if not cands:
            cands = [nearest_bid(est, legal.bids)]
        if len(cands) == 1:
            return Bid(seat, cands[0]), "the only sensible bid"
        sampler = DealSampler(hidden_of(view), self.rng)
        others = sampler.hidden.seats
        mine = sorted(INDEX[c] for c in view.hand)
        order = [(dealer + 1 + i) % n for i in range(n)]
        after = order[order.index(seat) + 1:]
        leader = (dealer + 1) % n
        totals = [0] * len(cands)
        deals = 0
        while not self._enough(deals, deadline):
            deal = sampler.sample()
            base: list[list[int]] = [[] for _ in range(n)]
            base[seat] = mine
            for s, hand in zip(others, deal, strict=True):
                base[s] = sorted(INDEX[c] for c in hand)
            for j, b in enumerate(cands):
                bids: list[int | None] = list(view.bids)
                bids[seat] = b
                for s in after:
                    bids[s] = fast_bid(base[s], legal_bids(bids, s, dealer))
                full = [x if x is not None else 0 for x in bids]
                taken = playout([list(h) for h in base], leader, -1, -1, leader, 0,
                                [0] * n, full, MODE_BID)
                totals[j] += bid_points(b, taken[seat])
            deals += 1
        self.last_deals = deals
        j = max(range(len(cands)), key=lambda j: (totals[j], -abs(cands[j] - est)))
        return Bid(seat, cands[j]), (
            f"bid {cands[j]}: {totals[j] / deals:+.2f} expected points over {deals} "
            f"simulated rounds (rule of thumb says {est:g})"
        )


register_agent("strong", StrongAgent)
