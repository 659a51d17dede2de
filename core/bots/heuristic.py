"""The rule sheets' tips as a bot: a fair, fast opponent and the search bot's yardstick.

Everything here reads a :class:`SeatView` only. What a seat may infer from it (the cards
it has not seen, who is void in which shape-count) is worked out by :func:`knowledge`,
which the search bot's sampler shares.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import attrs

from xactika.core.engine.api import Bid, Command, Legal, Play, game_rules
from xactika.core.engine.reason import Reason, counted
from xactika.core.engine.views import SeatView
from xactika.core.games.xactika import DECK, XACTIKA, Call, Card


@attrs.frozen(slots=True)
class Knowledge:
    """What one seat knows about the cards it cannot see, this round."""

    seat: int
    unseen: tuple[Card, ...]  # DECK minus own hand minus every card played this round
    voids: tuple[frozenset[Call], ...]  # per seat: calls it failed to follow this round


def knowledge(view: SeatView) -> Knowledge:
    """Unseen cards and exact shape-count voids from the round's public tricks."""
    n = view.config.players
    seen = set(view.hand)
    voids: list[set[Call]] = [set() for _ in range(n)]
    tricks = [(t.call, t.plays) for t in view.tricks]
    if view.trick:
        tricks.append((view.call, view.trick))
    for call, plays in tricks:
        for i, (seat, card) in enumerate(plays):
            seen.add(card)
            if i > 0 and call is not None and not card.shows(call):
                voids[seat].add(call)
    unseen = tuple(c for c in DECK if c not in seen)
    return Knowledge(view.seat, unseen, tuple(frozenset(v) for v in voids))


# --------------------------------------------------------------------------- bidding


def bid_estimate(hand: Sequence[Card]) -> float:
    """The encyclopedia's rule of thumb: one per 11 or 12, one per two 9s or 10s.

    The rule sheet's cruder tip (one per card of 9 or more) bids about 3 a hand in a
    4-player game, 12 in all for 8 tricks; the encyclopedia's refinement bids about 2.
    """
    high = sum(1 for c in hand if c.value >= 11)
    mid = sum(1 for c in hand if 9 <= c.value <= 10)
    return high + mid / 2


def nearest_bid(estimate: float, legal: Sequence[int]) -> int:
    """The legal bid closest to the estimate (the dealer's hook may forbid the rounded one);
    ties go to the lower bid, since tricks are easier to shed than to take."""
    return min(legal, key=lambda b: (abs(b - estimate), b))


def heuristic_bid(hand: Sequence[Card], legal: Sequence[int]) -> int:
    return nearest_bid(round(bid_estimate(hand) + 1e-9), legal)


# --------------------------------------------------------------------------- card strength


def beaters(card: Card, call: Call, unseen: Sequence[Card]) -> int:
    """Unseen cards that would beat ``card`` led with ``call`` (ties go to the later card)."""
    v = card.value
    return sum(1 for u in unseen if u.value >= v and u.shows(call))


def best_call(card: Card, unseen: Sequence[Card], to_win: bool) -> tuple[Call, int]:
    """The call with the fewest (to win) or most (to lose) unseen beaters."""
    scored = [(beaters(card, call, unseen), call) for call in card.calls]
    if to_win:
        b, call = min(scored, key=lambda x: (x[0], x[1].count, x[1].shape))
    else:
        b, call = max(scored, key=lambda x: (x[0], x[1].count, -x[1].shape))
    return call, b


def wants_tricks(view: SeatView) -> bool:
    """Whether the seat wants to take the trick in play: mode, and in bid mode its bid."""
    mode = view.config.mode
    if mode == "win":
        return True
    if mode == "lose":
        return False
    bid = view.bids[view.seat] if view.bids else None
    if bid is None:
        return True
    return view.taken[view.seat] < bid


# --------------------------------------------------------------------------- the bot


def _trick_best(trick: Sequence[tuple[int, Card]], call: Call) -> int:
    """The value to beat: the highest card in the trick that shows the call."""
    return max(card.value for _, card in trick if card.shows(call))


class HeuristicAgent:
    """Bids by the encyclopedia's rule; leads and follows by the rule sheets' tips.

    Deterministic in Xactika; the seed only drives the random fallback in other games.
    """

    name = "heuristic"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: SeatView, legal: Legal) -> Command:
        return self.explain(view, legal)[0]

    def explain(self, view: SeatView, legal: Legal) -> tuple[Command, str]:
        """The move and a one-line reason, for the REPL's ``hint``."""
        if legal.seat is None:
            raise ValueError("nobody may act")
        if game_rules(view.config.game) is not XACTIKA:
            return _fallback(self.rng, legal), Reason(
                "no heuristic for this game: a random legal move")
        if legal.kind == "bid":
            return self._bid(view, legal)
        if legal.kind == "lead":
            return self._lead(view, legal)
        return self._follow(view, legal)

    # -- bidding
    def _bid(self, view: SeatView, legal: Legal) -> tuple[Command, str]:
        est = bid_estimate(view.hand)
        rounded = round(est + 1e-9)
        bid = nearest_bid(rounded, legal.bids)
        high = sum(1 for c in view.hand if c.value >= 11)
        mid = sum(1 for c in view.hand if 9 <= c.value <= 10)
        cards = counted("{n} card", "{n} cards", n=high)
        tricks = counted("{n:g} trick", "{n:g} tricks", n=est)
        if bid != rounded:
            why = Reason("bid {bid}: {cards} of 11-12 and {mid} of 9-10 make {tricks}; "
                         "{rounded} would total 8, so {bid}", bid=bid, cards=cards, mid=mid,
                         tricks=tricks, rounded=rounded)
        else:
            why = Reason("bid {bid}: {cards} of 11-12 and {mid} of 9-10 make {tricks}",
                         bid=bid, cards=cards, mid=mid, tricks=tricks)
        return Bid(legal.seat or 0, bid), why

    # -- leading
    def _lead(self, view: SeatView, legal: Legal) -> tuple[Command, str]:
        seat = legal.seat or 0
        know = knowledge(view)
        others = [s for s in range(view.config.players) if s != seat]
        to_win = wants_tricks(view)
        options = []
        for card in legal.cards:
            call, b = best_call(card, know.unseen, to_win)
            if all(call in know.voids[s] for s in others):
                b = 0  # nobody left can show it: the lead wins for sure
            options.append((b, card, call))
        if to_win:
            b, card, call = min(options, key=lambda o: (o[0], -o[1].value))
            why = counted("lead to win: {card} calling {call.words}, {n} unseen card could "
                          "beat it", "lead to win: {card} calling {call.words}, {n} unseen "
                          "cards could beat it", card=card, call=call, n=b)
        else:
            b, card, call = max(options, key=lambda o: (o[0], -o[1].value))
            why = counted("lead to lose: {card} calling {call.words}, {n} unseen card could "
                          "beat it", "lead to lose: {card} calling {call.words}, {n} unseen "
                          "cards could beat it", card=card, call=call, n=b)
        return Play(seat, card, call), why

    # -- following
    def _follow(self, view: SeatView, legal: Legal) -> tuple[Command, str]:
        seat = legal.seat or 0
        call: Call = view.call
        know = knowledge(view)
        best = _trick_best(view.trick, call)
        last = len(view.trick) == view.config.players - 1
        later = [(seat + i) % view.config.players
                 for i in range(1, view.config.players - len(view.trick))]
        to_win = wants_tricks(view)
        cards = list(legal.cards)
        follows = [c for c in cards if c.shows(call)]
        if not follows:
            return self._slough(seat, cards, know, to_win, call)
        winners = sorted((c for c in follows if c.value >= best), key=lambda c: c.value)
        losers = sorted((c for c in follows if c.value < best), key=lambda c: c.value)
        if to_win:
            if winners:
                safe = [c for c in winners
                        if last or all(call in know.voids[s] for s in later)
                        or beaters(c, call, know.unseen) == 0]
                card = safe[0] if safe else (winners[0] if last else winners[-1])
                why = (Reason("win cheaply: {card} beats the {best} in the trick",
                              card=card, best=best) if safe else
                       Reason("win with the best chance: {card} beats the {best} in the trick",
                              card=card, best=best))
                return Play(seat, card), why
            card = losers[0]
            return Play(seat, card), Reason("cannot beat the {best}: follow low with {card}",
                                            best=best, card=card)
        if losers:
            card = losers[-1]
            why = (Reason("duck: {card} ({value}) stays under the winning {best}; of the cards "
                          "that do, it is the highest: the lower ones stay for later",
                          card=card, value=card.value, best=best) if len(losers) > 1 else
                   Reason("duck: {card} ({value}) is the only card under the winning {best}",
                          card=card, value=card.value, best=best))
            return Play(seat, card), why
        card = winners[-1] if last else winners[0]
        why = (Reason("every follow beats the {best}: last to play and must take it: shed the "
                      "highest, {card}", best=best, card=card) if last else
               Reason("every follow beats the {best}: hope to be beaten, {card}",
                      best=best, card=card))
        return Play(seat, card), why

    def _slough(self, seat: int, cards: list[Card], know: Knowledge, to_win: bool,
                call: Call) -> tuple[Command, str]:
        strength = {c: best_call(c, know.unseen, True)[1] for c in cards}
        if to_win:
            card = max(cards, key=lambda c: (strength[c], -c.value))
            return Play(seat, card), Reason(
                "cannot follow {call.words}: slough the weakest, {card}", call=call, card=card)
        card = min(cards, key=lambda c: (strength[c], -c.value))
        return Play(seat, card), Reason(
            "cannot follow {call.words}: slough the most dangerous, {card}", call=call, card=card)


def _fallback(rng: random.Random, legal: Legal) -> Command:
    if legal.kind == "bid":
        return Bid(legal.seat or 0, rng.choice(legal.bids))
    card = rng.choice(legal.cards)
    return Play(legal.seat or 0, card, rng.choice(legal.calls(card)))
