"""The strong bot: determinized search (PIMC) over deals drawn by the sampler.

For each decision it draws deals of the hidden cards consistent with what its seat has
seen (:mod:`.sampler`; in Play to Bid weighted by how well they explain the bids made),
plays every candidate move out to the end of the round in each deal with every seat on
the heuristic bot's policy, and picks the move with the best average points: a rollout
improvement of the heuristic. Options that fall clearly behind are dropped as deals
accumulate, so the budget goes to the close calls. Bids come the same way: for each
candidate bid the round is simulated, the seats still to bid bidding by the rule of
thumb, and the bid with the best expected points wins.

The rollouts run on a private simulator over card indices, bitmasks and plain lists
(:mod:`.simulator`: pure Python, and compiled by the optional kernel about 30 times
faster still, bench/bot_speed.py); ``tests/test_search.py`` replays its games through
the core to prove it keeps the rules and checks its policy against
:class:`HeuristicAgent` move for move, tests/test_kernel.py the kernel against the pure
path. With ``endgame`` set, the last cards of each sampled deal are solved exactly
instead of rolled out (off by default: it did not win its match, study/README.md).
"""

from __future__ import annotations

import math
import random
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache
from operator import attrgetter

import attrs

from xactika.core.bots.heuristic import (
    HeuristicAgent,
    bid_estimate,
    knowledge,
    nearest_bid,
)
from xactika.core.bots.sampler import BarredSampler, Deal, DealSampler, Hidden, hidden_of
from xactika.core.bots.simulator import (
    _MODES,
    HALF,
    HALF_BY_VALUE,
    MODE_BID,
    MODE_WIN,
    MoveValue,
    Playout,
    move_value,
    move_value_py,
    playout,
    playout_py,
    policy,
    score,
)
from xactika.core.engine.api import Bid, Command, Legal, Play, game_rules
from xactika.core.engine.reason import Reason, counted
from xactika.core.engine.views import SeatView
from xactika.core.games.xactika import TRICKS_PER_ROUND, XACTIKA, Card, bid_points
from xactika.core.games.xactika.tables import (
    CALL_INDEX,
    CALL_OF,
    CALLS_OF,
    CARDS,
    CMASK,
    GE,
    INDEX,
    SHOW,
    VAL,
)


def fast_bid(hand: Sequence[int], legal: Sequence[int]) -> int:
    """The heuristic's bid over card indices: round(high + mid / 2), halves rounded up."""
    return nearest_bid((sum(HALF[c] for c in hand) + 1) // 2, legal)


def legal_bids(bids: Sequence[int | None], seat: int, dealer: int) -> tuple[int, ...]:
    """The bids open to ``seat``: the dealer may not make the total exactly 8."""
    every = tuple(range(TRICKS_PER_ROUND + 1))
    if seat != dealer:
        return every
    others = sum(b for s, b in enumerate(bids) if s != seat and b is not None)
    if others > TRICKS_PER_ROUND:
        return every
    return tuple(b for b in every if others + b != TRICKS_PER_ROUND)


@lru_cache(maxsize=1024)
def _bid_odds(legal: tuple[int, ...], bid: int, miss1: float) -> tuple[float, ...]:
    """The odds of ``bid`` from a seat whose hand has each half-point total, when the
    bid model misses the rule of thumb by one with odds ``miss1`` (``_bid_aware``).

    fast_bid depends on a hand only through its half-points (HALF: 2 per card of 11 or
    more, 1 per 9 or 10), so a seat's acceptance odds are a table over them; the same
    few tables come back decision after decision, hence the cache."""
    odds = (1.0, miss1, miss1 * 2 / 15, miss1 / 50)
    return tuple(odds[min(abs(nearest_bid((w + 1) // 2, legal) - bid), 3)]
                 for w in range(2 * TRICKS_PER_ROUND + 1))


Observed = tuple[int, int, int, int, int, int, int, tuple[int, ...], bool]
"""Another seat's play as its policy saw it: (seat, card, call or -1, cards already in
the trick, the trick's call, its best value, the round's played mask, voids, want)."""


Step = tuple[int, int, int, int, int, int, int, int, int, list[int], list[int]]
"""A play of the round as :func:`walk_plays` gives it: (trick, place in the trick, seat,
card, the call it leads or -1, the trick's call (-1 when leading), its best value, the
round's played mask, the trick's mask, voids, tricks taken)."""


def walk_plays(view: SeatView) -> Iterator[Step]:
    """Every play of the round so far, in order, with the public state it was made in.

    One walk for the search bot's and the inference model's reading of a round. The
    voids (``voids[s]``: bit k when seat s failed to follow call k) and tricks taken
    are the walk's own lists, updated after each step: copy them to keep them.
    """
    n = view.config.players
    tricks = [(t.call, t.plays) for t in view.tricks]
    if view.trick:
        tricks.append((view.call, view.trick))
    taken = [0] * n
    voids = [0] * n
    played = 0
    for t, (tcall, plays) in enumerate(tricks):
        call = best = -1
        trick = 0
        for i, (s, card) in enumerate(plays):
            c = INDEX[card]
            k = CALL_INDEX[tcall] if i == 0 else -1
            yield t, i, s, c, k, call, best, played, trick, voids, taken
            played |= 1 << c
            trick |= 1 << c
            if i == 0:
                call, best = k, VAL[c]
            elif SHOW[c] >> call & 1:
                best = max(best, VAL[c])
            else:
                voids[s] |= 1 << call
        if t < len(view.tricks):
            taken[view.tricks[t].winner] += 1


def observed_plays(view: SeatView) -> list[Observed]:
    """The other seats' plays this round, each with the public state it was made in."""
    mode = _MODES[view.config.mode]
    bids = [b if b is not None else 0 for b in view.bids]
    obs: list[Observed] = []
    for _, i, s, c, k, call, best, played, _, voids, taken in walk_plays(view):
        if s != view.seat:
            want = mode == MODE_WIN or (mode == MODE_BID and taken[s] < bids[s])
            obs.append((s, c, k, i, call, best, played, tuple(voids), want))
    return obs


def seat_misses(view: SeatView, seats: Sequence[int]
                ) -> list[Callable[[list[int], int], int] | None]:
    """For each hidden seat (``seats`` order), how many of its plays this round a hand
    (its current cards, as indices) fails to explain, counted up to a cap; None for a
    seat that has not played. See :func:`play_misses`."""
    n = view.config.players
    return [_seat_misses(n, checks) if checks else None
            for checks in _per_seat(observed_plays(view), seats)]


def _per_seat(obs: list[Observed], seats: Sequence[int]
              ) -> list[list[tuple[Observed, list[int]]]]:
    """Each seat's observed plays (``seats`` order), each with the cards the seat played
    from that play on: what it is known to have held when it made it."""
    pos = {s: i for i, s in enumerate(seats)}
    per_seat: list[list[tuple[Observed, list[int]]]] = [[] for _ in seats]
    for j, o in enumerate(obs):
        per_seat[pos[o[0]]].append((o, [x[1] for x in obs[j:] if x[0] == o[0]]))
    return per_seat


def _seat_misses(n: int, checks: list[tuple[Observed, list[int]]]
                 ) -> Callable[[list[int], int], int]:
    def misses(now: list[int], cap: int) -> int:
        m = 0
        for (s, c, k, count, call, best, before, vo, want), rest in checks:
            hand = sorted(now + rest)
            hmask = 0
            for x in hand:
                hmask |= 1 << x
            got = policy(s, hand, hmask, before, vo, n, count, call, best, want)
            if got[0] != c or got[1] != k:
                m += 1
                if m > cap:
                    break
        return m

    return misses


def play_bars(view: SeatView, seats: Sequence[int]) -> list[int]:
    """For each hidden seat (``seats`` order), the unseen cards (a mask of indices) whose
    presence in its hand would have changed one of its plays this round under the
    heuristic: the seat's known cards at that play (the card played and those it played
    later) plus that one card, shown to the heuristic, give another move.

    The heuristic picks the best of its hand by a key, so a card that would have been
    picked over the card played was not held. A seat whose known cards alone do not
    give its plays is not playing the heuristic: nothing is barred for it.
    """
    n = view.config.players
    cand = sorted(INDEX[c] for c in knowledge(view).unseen)
    out = []
    for checks in _per_seat(observed_plays(view), seats):
        bar = 0
        for (s, c, k, count, call, best, before, vo, want), known in checks:
            kmask = 0
            for x in known:
                kmask |= 1 << x
            hand = sorted(known)
            if policy(s, hand, kmask, before, vo, n, count, call, best, want) != (c, k):
                bar = 0
                break
            for x in cand:
                if bar >> x & 1:
                    continue
                h2 = sorted([*known, x])
                if policy(s, h2, kmask | 1 << x, before, vo, n, count, call, best,
                          want) != (c, k):
                    bar |= 1 << x
        out.append(bar)
    return out


def play_misses(view: SeatView, seats: Sequence[int]
                ) -> Callable[[Deal, int], int] | None:
    """How many of the other seats' plays this round a deal's hands fail to explain.

    The model is the heuristic: a seat holding the deal's hand (plus what it has played
    since) would have made the play it made. The returned function stops counting once
    the misses exceed its ``cap``. None: there is no play to explain.
    """
    each = seat_misses(view, seats)
    if all(f is None for f in each):
        return None

    def misses(deal: Deal, cap: int) -> int:
        m = 0
        for f, hand in zip(each, deal, strict=True):
            if f is not None:
                m += f([INDEX[c] for c in hand], cap - m)
                if m > cap:
                    break
        return m

    return misses


# --------------------------------------------------------------------------- the bot


class StrongAgent:
    """PIMC over consistent deals with heuristic rollouts, within a think-time budget.

    ``think_ms`` is the budget per decision (the protocol's ``time=`` sets it): the
    search stops drawing deals at 60% of it so that, with the set-up and a loaded
    machine, the 95th percentile stays under it. ``max_deals`` caps the deals per
    decision (reproducible tests); ``prune_z`` is how many standard errors behind an
    option must fall to be dropped; ``tries`` bounds the rejections per deal when
    conditioning on the bids (0 turns that off); ``bid_miss`` is the modelled odds that
    a seat's bid misses the rule of thumb by one (:meth:`_bid_aware`); ``bid_span`` how
    far from the rule of thumb the candidate bids reach; ``bid_z`` how clearly another
    bid must beat the rule of thumb's to be chosen (:meth:`_race`); ``plays`` (0: off)
    the weight a deal loses for each play of another seat this round it fails to explain
    (:meth:`_play_aware`), over at most ``play_tries`` draws a deal; ``bars`` (0: off)
    rules out, for each other seat, the cards :func:`play_bars` says its plays deny, and
    draws the deals from :class:`.sampler.BarredSampler`. The last two are study options,
    off by default: at the clock neither measured better (study/README.md). ``infer``
    (0: off) resamples the deals by the learned networks' likelihood of the other seats'
    bids and plays, raised to that power (:meth:`_inferred`); ``infer_what`` says which
    (1 bids, in place of the bid rule; 2 plays; 3 both). ``locate`` (0: off) draws the
    deals from the card-location network's odds raised to that power
    (:meth:`_located`), with the bid rule on top when ``locate_bids`` is set.
    ``endgame`` (0: off): once the seat holds at most that many cards, each deal is
    solved exactly (:func:`.simulator.solve`: every line of play, each seat maximising its
    own points) instead of rolled out. ``kernel=0`` runs the pure-Python rollouts and deal
    draws even when the kernel and the sampler are built: the same moves, slower, the
    bot as it was before either was compiled (for the study, at equal time).
    """

    name = "strong"

    def __init__(self, seed: int | None = None, think_ms: float = 100.0,
                 max_deals: int | None = None, min_deals: int = 2,
                 prune_z: float = 2.0, tries: int = 60, bid_miss: float = 0.25,
                 bid_span: float = 2.5, bid_z: float = 0.0, plays: float = 0.0,
                 play_tries: int = 20, bars: int = 0, infer: float = 0.0,
                 infer_what: int = 3, locate: float = 0.0, locate_bids: int = 0,
                 endgame: int = 0, kernel: int = 1) -> None:
        self.rng = random.Random(seed)
        self.endgame = endgame
        self.kernel = kernel
        self.playout: Playout = playout if kernel else playout_py
        self.move_value: MoveValue = move_value if kernel else move_value_py
        self.locate = locate
        self.locate_bids = locate_bids
        self.infer = infer
        self.infer_what = infer_what
        self.bars = bars
        self.plays = plays
        self.play_tries = play_tries
        self.tries = tries
        self.bid_miss = bid_miss
        self.bid_span = bid_span
        self.bid_z = bid_z
        self.prune_z = prune_z
        self.think_ms = think_ms
        self.max_deals = max_deals
        self.min_deals = min_deals
        self.fallback = HeuristicAgent(seed)
        self.last_deals = 0
        self.times: deque[float] = deque(maxlen=100_000)  # seconds per decision

    def choose(self, view: SeatView, legal: Legal) -> Command:
        return self.explain(view, legal)[0]

    def explain(self, view: SeatView, legal: Legal) -> tuple[Command, str]:
        """The move and a one-line reason, for the REPL's ``hint``."""
        t0 = time.perf_counter()
        try:
            if legal.seat is None:
                raise ValueError("nobody may act")
            if game_rules(view.config.game) is not XACTIKA:
                return self.fallback.explain(view, legal)
            deadline = t0 + self.think_ms * 0.6 / 1000.0
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
    def _candidates(self, view: SeatView, legal: Legal, unseen: Sequence[Card]
                    ) -> list[tuple[int, int]]:
        """Every card; a lead is tried with its best call to win and its best to lose."""
        if legal.kind == "play":
            return [(INDEX[c], -1) for c in legal.cards]
        # heuristic.best_call over masks: a call's beaters are the unseen cards of at
        # least the card's value that show it; the fewest (to win) or most (to lose),
        # ties to the lower count, then the lower shape to win and the higher to lose
        umask = 0
        for c in unseen:
            umask |= 1 << INDEX[c]
        moves: list[tuple[int, int]] = []
        for c in legal.cards:
            i = INDEX[c]
            g = umask & GE[i]
            scored = [((g & CMASK[k]).bit_count(), k // 4, k % 4, k) for k in CALLS_OF[i]]
            win = min(scored)[3]
            lose = max(scored, key=lambda s: (s[0], s[1], -s[2]))[3]
            for move in ((i, win), (i, lose)):
                if move not in moves:
                    moves.append(move)
        return moves

    def _play(self, view: SeatView, legal: Legal, deadline: float) -> tuple[Command, str]:
        seat = legal.seat or 0
        know = knowledge(view)
        moves = self._candidates(view, legal, know.unseen)
        if len(moves) == 1:
            return self._command(seat, moves[0]), Reason("the only move")
        base_cmd = self.fallback.choose(view, legal)
        assert isinstance(base_cmd, Play)
        base_move = (INDEX[base_cmd.card],
                     CALL_INDEX[base_cmd.call] if base_cmd.call is not None else -1)
        if base_move not in moves:
            moves.append(base_move)
        mode = _MODES[view.config.mode]
        n = view.config.players
        bids = [b if b is not None else 0 for b in view.bids] if mode == MODE_BID else [0] * n
        deal = self._deals(view, seat)
        count = len(view.trick)
        call0 = CALL_INDEX[view.call] if count else -1
        best0, win0 = -1, seat
        if count:
            for s, card in view.trick:
                if card.shows(view.call) and card.value >= best0:
                    best0, win0 = card.value, s
        played0 = 0  # every card played this round (the deck less unseen and hand)
        for trick in view.tricks:
            for _, card in trick.plays:
                played0 |= 1 << INDEX[card]
        for _, card in view.trick:
            played0 |= 1 << INDEX[card]
        voids0 = [sum(1 << CALL_INDEX[k] for k in v) for v in know.voids]

        exact = len(view.hand) <= self.endgame
        evaluate: Callable[[list[list[int]], int], int]
        if type(self)._finish is StrongAgent._finish:  # one call a rollout: the kernel's
            value, taken0 = self.move_value, view.taken

            def one(base: list[list[int]], j: int) -> int:
                c, k = moves[j]
                return value(base, seat, c, k, taken0, voids0, count, call0, best0, win0,
                             played0, bids, mode, exact)

            evaluate = one
        else:
            evaluate = self._evaluator(moves, seat, view.taken, voids0, count, call0, best0,
                                       win0, played0, bids, mode)

        # ties go to the heuristic's own move: the search then never does worse by noise
        j, means, deals = self._race(len(moves), deal, evaluate, deadline,
                                     moves.index(base_move))
        cmd = self._command(seat, moves[j])
        rest = sorted((m for i, m in enumerate(means) if i != j), reverse=True)
        if rest:
            return cmd, counted(
                "best of {moves} moves over {n} sampled deal: {mean:+.2f} expected points "
                "(next best {next:+.2f})",
                "best of {moves} moves over {n} sampled deals: {mean:+.2f} expected points "
                "(next best {next:+.2f})", moves=len(moves), n=deals, mean=means[j],
                next=rest[0])
        return cmd, counted(
            "best of {moves} moves over {n} sampled deal: {mean:+.2f} expected points",
            "best of {moves} moves over {n} sampled deals: {mean:+.2f} expected points",
            moves=len(moves), n=deals, mean=means[j])

    def _evaluator(self, moves: list[tuple[int, int]], seat: int, taken0: Sequence[int],
                   voids0: list[int], count: int, call0: int, best0: int, win0: int,
                   played0: int, bids: list[int], mode: int
                   ) -> Callable[[list[list[int]], int], int]:
        """A move's points in a deal through :meth:`_finish`, for the subclasses that
        value the rest of the round their own way (core/bots/plan.py)."""
        n = len(voids0)

        def evaluate(base: list[list[int]], j: int) -> int:
            c, k = moves[j]
            hands = [list(h) for h in base]
            hands[seat].remove(c)
            taken = list(taken0)
            voids = list(voids0)
            if count == 0:
                call, best, win = k, VAL[c], seat
            else:
                call, best, win = call0, best0, win0
                if not SHOW[c] >> call & 1:
                    voids[seat] |= 1 << call
                elif VAL[c] >= best:
                    best, win = VAL[c], seat
            played = played0 | 1 << c
            if count + 1 == n:
                taken[win] += 1
                return self._finish(seat, hands, win, -1, -1, win, 0, taken, bids, mode,
                                    played, voids)
            return self._finish(seat, hands, (seat + 1) % n, call, best, win, count + 1,
                                taken, bids, mode, played, voids)

        return evaluate

    def _finish(self, seat: int, hands: list[list[int]], to_act: int, call: int,
                best_v: int, winner: int, count: int, taken: list[int], bids: Sequence[int],
                mode: int, played: int, voids: list[int]) -> int:
        """``seat``'s points when the round in one sampled deal is played out after its
        move (the arguments as :func:`playout`'s): every seat on the heuristic's policy.
        A subclass that overrides it is asked for every rollout (:meth:`_evaluator`)."""
        self.playout(hands, to_act, call, best_v, winner, count, taken, bids, mode, played,
                     voids)
        return score(mode, bids[seat], taken[seat])

    def _bid_value(self, seat: int, hands: list[list[int]], leader: int,
                   bids: list[int]) -> int:
        """``seat``'s points for a whole round of one sampled deal, every bid made."""
        n = len(hands)
        taken = self.playout(hands, leader, -1, -1, leader, 0, [0] * n, bids, MODE_BID, 0,
                             [0] * n)
        return bid_points(bids[seat], taken[seat])

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
        cands = [b for b in legal.bids if est - self.bid_span <= b <= est + self.bid_span]
        if not cands:
            cands = [nearest_bid(est, legal.bids)]
        if len(cands) == 1:
            return Bid(seat, cands[0]), Reason("the only sensible bid")
        deal = self._deals(view, seat)
        order = [(dealer + 1 + i) % n for i in range(n)]
        after = order[order.index(seat) + 1:]
        leader = (dealer + 1) % n

        def evaluate(base: list[list[int]], j: int) -> int:
            bids: list[int | None] = list(view.bids)
            bids[seat] = cands[j]
            for s in after:
                bids[s] = fast_bid(base[s], legal_bids(bids, s, dealer))
            full = [x if x is not None else 0 for x in bids]
            return self._bid_value(seat, [list(h) for h in base], leader, full)

        prefer = cands.index(nearest_bid(round(est + 1e-9), cands))
        j, means, deals = self._race(len(cands), deal, evaluate, deadline, prefer,
                                     self.bid_z)
        return Bid(seat, cands[j]), counted(
            "bid {bid}: {mean:+.2f} expected points over {n} simulated round "
            "(rule of thumb says {est:g})",
            "bid {bid}: {mean:+.2f} expected points over {n} simulated rounds "
            "(rule of thumb says {est:g})", bid=cands[j], mean=means[j], n=deals, est=est)

    def _deals(self, view: SeatView, seat: int) -> Callable[[], list[list[int]]]:
        """Draws whole deals consistent with the view, every hand as sorted card indices."""
        hidden = self._hidden(view)
        sampler: DealSampler | BarredSampler | None = None
        if self.bars:
            bars = play_bars(view, hidden.seats)
            if any(bars):
                barred = tuple(frozenset(CARDS[x] for x in range(len(CARDS)) if b >> x & 1)
                               for b in bars)
                try:
                    sampler = BarredSampler(attrs.evolve(hidden, barred=barred), self.rng)
                except ValueError:  # the model rules out every deal: it is wrong here
                    sampler = None
        if sampler is None:
            sampler = DealSampler(hidden, self.rng, compiled=bool(self.kernel))
        others = sampler.hidden.seats
        hands: Callable[[], list[list[int]]]
        if (isinstance(sampler, DealSampler) and self.locate <= 0 and self.infer <= 0
                and self.plays <= 0):
            # the bid model of _bid_aware, drawn by the sampler itself (compiled when
            # built) and in its form: card indices, no Card objects
            hands = sampler.fitting(HALF, self._bid_checks(view, sampler), self.tries)
        else:
            if self.locate > 0:
                draw = self._located(view, sampler)
            elif self.infer > 0:  # the learned bids replace the bid rule when asked
                base = (sampler.sample if self.infer_what & 1
                        else self._bid_aware(view, sampler))
                draw = self._inferred(view, sampler, base)
            else:
                draw = self._bid_aware(view, sampler)
            if self.plays > 0:
                draw = self._play_aware(view, sampler, draw)

            def hands() -> list[list[int]]:
                return [sorted(INDEX[c] for c in hand) for hand in draw()]

        mine = sorted(INDEX[c] for c in view.hand)
        n = view.config.players

        def deal() -> list[list[int]]:
            base: list[list[int]] = [[] for _ in range(n)]
            base[seat] = mine
            for s, hand in zip(others, hands(), strict=True):
                base[s] = hand
            return base

        return deal

    def _inferred(self, view: SeatView, sampler: DealSampler | BarredSampler,
                  draw: Callable[[], Deal]) -> Callable[[], Deal]:
        """``draw``'s deals resampled by the learned policies' likelihood of the other
        seats' bids (``infer_what`` bit 1) and plays (bit 2) this round (:mod:`.infer`);
        ``draw`` itself without numpy (an extra) or anything seen to explain."""
        try:
            from xactika.core.bots import infer
        except ImportError:
            return draw
        evidence = infer.Evidence(view, sampler.hidden.seats, infer.load(),
                                  bids=bool(self.infer_what & 1),
                                  plays=bool(self.infer_what & 2))
        if not evidence:
            return draw
        return infer.SeatMix(draw, evidence, self.rng, power=self.infer)

    def _located(self, view: SeatView, sampler: DealSampler | BarredSampler
                 ) -> Callable[[], Deal]:
        """Deals drawn card by card from the card-location network's odds (tempered by
        ``locate``), through the bid rule too when ``locate_bids`` is set; the uniform
        sampler without numpy (an extra)."""
        try:
            from xactika.core.bots import infer
        except ImportError:
            return self._bid_aware(view, sampler)
        draw = infer.Locator(view, sampler.hidden, infer.load_locate(), self.rng,
                             power=self.locate, fallback=sampler.sample)
        return self._bid_aware(view, sampler, draw) if self.locate_bids else draw

    def _hidden(self, view: SeatView) -> Hidden:
        """What the deals must be consistent with (levels for people may forget some)."""
        return hidden_of(view)

    def _bid_aware(self, view: SeatView, sampler: DealSampler | BarredSampler,
                   source: Callable[[], Deal] | None = None) -> Callable[[], Deal]:
        """Draws deals weighted by how well they explain the bids already made.

        Bids are public and say much about a hand. A seat's bid is modelled as the rule of
        thumb on its hand as dealt (its current hand plus what it has played), missed by
        one with odds ``bid_miss`` (by default 1 in 4), by two 1 in 30, by more 1 in 200
        (those two scaled with it); the sampler's uniform deals are accepted with that
        probability (rejection sampling, so the accepted deals follow the posterior under
        this model). After ``tries`` rejections a deal is taken as it comes, which bounds
        the cost when the model fits a seat badly. With the plain DealSampler and no other
        model on top, :meth:`_deals` runs this same rejection inside the sampler
        (``DealSampler.fitting``, compiled when built), its odds from the sampler's stream.
        """
        sample = source or sampler.sample  # another proposal than the uniform one
        checks = self._bid_checks(view, sampler)
        if not checks:
            return sample
        rng = self.rng
        half = HALF_BY_VALUE.__getitem__  # by the card's value: no hashing of cards
        value = attrgetter("value")

        def draw() -> Deal:
            deal = sample()
            for _ in range(self.tries):
                p = 1.0
                for i, w, accept in checks:
                    p *= accept[w + sum(map(half, map(value, deal[i])))]
                if rng.random() < p:
                    return deal
                deal = sample()
            return deal

        return draw

    def _bid_checks(self, view: SeatView, sampler: DealSampler | BarredSampler
                    ) -> list[tuple[int, int, tuple[float, ...]]]:
        """For each hidden seat that has bid: (its number in ``sampler.hidden.seats``, the
        half-points of the cards it has shown, the odds of its bid by the half-points of
        its current hand); empty outside Play to Bid. See :meth:`_bid_aware`."""
        if view.config.mode != "bid" or all(
            b is None for s, b in enumerate(view.bids) if s != view.seat
        ):
            return []
        n = view.config.players
        dealer = view.dealer
        seats = sampler.hidden.seats
        shown: list[list[int]] = [[] for _ in range(n)]
        for trick in view.tricks:
            for s, card in trick.plays:
                shown[s].append(INDEX[card])
        for s, card in view.trick:
            shown[s].append(INDEX[card])
        checks: list[tuple[int, int, tuple[float, ...]]] = []
        for i, s in enumerate(seats):
            bid = view.bids[s]
            if bid is not None:
                before = [view.bids[x] if x != s else None for x in range(n)]
                legal = legal_bids(before, s, dealer)
                checks.append((i, sum(HALF[x] for x in shown[s]),
                               _bid_odds(legal, bid, self.bid_miss)))
        return checks

    def _play_aware(self, view: SeatView, sampler: DealSampler | BarredSampler,
                    draw: Callable[[], Deal]) -> Callable[[], Deal]:
        """Draws deals weighted by how well they explain the other seats' plays this round.

        Each play another seat made that the heuristic, holding that deal's hand, would not
        have made multiplies the deal's weight by ``plays`` (rejection sampling over the
        deals ``draw`` gives). After ``play_tries`` draws the best-fitting one is taken.
        """
        misses = play_misses(view, sampler.hidden.seats)
        if misses is None or self.plays >= 1:  # a weight of 1 or more rejects nothing
            return draw
        rng = self.rng
        log_w = math.log(self.plays)

        def draw_plays() -> Deal:
            best_deal = deal = draw()
            fewest = 1 << 30
            for _ in range(self.play_tries):
                # accepted with odds plays ** misses: when misses <= log(u) / log(plays)
                u = rng.random()
                ok = int(math.log(u) / log_w) if u > 0 else 1 << 30
                m = misses(deal, max(ok, fewest - 1))
                if m <= ok:
                    return deal
                if m < fewest:
                    fewest, best_deal = m, deal
                deal = draw()
            return best_deal

        return draw_plays

    def _race(self, k: int, deal: Callable[[], list[list[int]]],
              evaluate: Callable[[list[list[int]], int], int], deadline: float,
              prefer: int, switch_z: float = 0.0) -> tuple[int, list[float], int]:
        """Score ``k`` options on shared sampled deals until the budget is spent.

        Every few deals, an option whose paired difference from the leader is clearly
        negative (two standard errors) is dropped, so the rollouts go to the contenders.
        Returns the best option (ties to ``prefer``), every option's mean, the deals.
        With ``switch_z`` the best must beat ``prefer`` by that many standard errors of
        their paired difference, or ``prefer`` is kept: the maximum of noisy means is
        biased up (the winner's curse), most for the options with the widest spread.
        """
        scores: list[list[int]] = [[] for _ in range(k)]
        active = list(range(k))
        deals = 0
        while not self._enough(deals, deadline) and (len(active) > 1 or deals < 1):
            base = deal()
            for j in active:
                scores[j].append(evaluate(base, j))
            deals += 1
            if deals >= 8 and deals % 4 == 0 and len(active) > 1:
                lead = max(active, key=lambda j: (sum(scores[j]), j == prefer))
                top = scores[lead]
                keep = []
                for j in active:
                    if j != lead:
                        mine = scores[j]
                        d = [a - b for a, b in zip(top[-deals:], mine[-deals:], strict=True)]
                        mean = sum(d) / deals
                        var = sum((x - mean) ** 2 for x in d) / (deals - 1)
                        if mean > 0 and mean * mean * deals > self.prune_z ** 2 * var:
                            continue
                    keep.append(j)
                active = keep
        self.last_deals = deals
        means = [sum(sc) / len(sc) if sc else float("-inf") for sc in scores]
        best = max(active, key=lambda j: (sum(scores[j]) / max(1, len(scores[j])),
                                          j == prefer))
        if switch_z > 0 and best != prefer and prefer in active:
            d = [a - b for a, b in zip(scores[best], scores[prefer], strict=True)]
            mean = sum(d) / len(d)
            var = sum((x - mean) ** 2 for x in d) / max(1, len(d) - 1)
            if mean * mean * len(d) <= switch_z ** 2 * var:
                best = prefer
        return best, means, deals
