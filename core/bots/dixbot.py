"""Dix's heuristic bot: a fair, fast opponent that knows what a ten-trick costs.

In Dix the second card of a trick decides both who takes it and whether it totals ten, so
every choice is scored by the swing it makes between the two seats (points for us minus
points for them):

=========================  ======
we take it, not ten          +1
they take it, not ten        -1
we take a ten-trick          -3
they take a ten-trick        +3
=========================  ======

less what the card would still be worth in hand (:func:`keep_value`: trumps and high cards
take tricks later; 9s guard against ace leads and 10s against courts and the joker).
Leads are scored against the best reply the other seat could hold, given the cards this
seat has not seen and the suits the other seat has shown it lacks. Once the stock is gone
(draw mode) the other hand is known exactly, and the last few tricks are solved outright.
Everything here reads a :class:`SeatView` only.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from functools import lru_cache
from math import comb

import attrs

from xactika.core.bots.agents import Hands
from xactika.core.engine.api import Command, Legal, Play, State
from xactika.core.engine.reason import Reason, counted
from xactika.core.engine.views import SeatView, view
from xactika.core.games.dix import DECK, DixCard, beats, suit_of, trump_suit

WIN, LOSE, WIN_TEN, LOSE_TEN = 1, -1, -3, 3  # swings, from the second player's side
SOLVE_AT = 7  # solve the endgame exactly once both hands are down to this many cards
MEMO_CAP = 50_000  # solved positions kept per trump card (about 10 MB), 4 trump cards at most
LEAD_KEEP = 1.0  # how much a lead's keep value counts against its expected swing
# keep values: the best trump, less a step per unseen trump above it; side cards scaled
TRUMP_TOP, TRUMP_STEP, SIDE_SCALE = 2.0, 0.25, 1.0
TEN_LEAD_GUARD = 0.3  # keep value per unseen card a guard could punish (capped; tuned)


def swing(card: DixCard, lead: DixCard, turned: DixCard | None) -> int:
    """What playing ``card`` second to ``lead`` is worth to its player (table above)."""
    wins = beats(card, lead, turned)
    ten = card.pips + lead.pips == 10
    if wins:
        return WIN_TEN if ten else WIN
    return LOSE_TEN if ten else LOSE


@attrs.frozen(slots=True)
class DixKnowledge:
    """What one seat knows about the cards it cannot see, this round."""

    unseen: tuple[DixCard, ...]  # not in our hand, not played, not the turned-up card
    other_hand: int  # how many cards the other seat holds now
    exact: bool  # the unseen cards are exactly the other hand (the stock is gone)
    # per suit (as cards follow): how many cards the other seat could hold in it, where it
    # has shown a void and drawn fewer cards than it holds since; absent: no such limit
    suit_slots: dict[str, int]


def knowledge(view: SeatView) -> DixKnowledge:
    """Unseen cards, the other hand's size, and the voids its discards have shown."""
    seen = set(view.hand)
    if view.turned is not None:
        seen.add(view.turned)
    for trick in view.tricks:
        seen.update(card for _, card in trick.plays)
    seen.update(card for _, card in view.trick)
    unseen = tuple(c for c in DECK if c not in seen)
    other = 1 - view.seat
    other_hand = len(view.hand) - (1 if any(s == other for s, _ in view.trick) else 0)
    draw = view.config.mode == "draw"
    stock = max(0, 26 - 2 * len(view.tricks)) if draw else -1
    exact = draw and stock == 0
    # Draws follow each of the first 13 tricks: a void shown at trick i is weakened by the
    # draws after it (13 - i of them at most, one per trick).
    slots: dict[str, int] = {}
    for i, trick in enumerate(view.tricks):
        (_, lead), (seat, card) = trick.plays[0], trick.plays[1]
        led = suit_of(lead, view.turned)
        if seat == other and suit_of(card, view.turned) != led:
            drawn = max(0, min(13, len(view.tricks)) - i) if draw else 0
            slots[led] = drawn
    return DixKnowledge(unseen, other_hand, exact, slots)


def _none_held(cards: int, pool: int, hand: int) -> float:
    """Chance that a random ``hand`` of ``pool`` cards holds none of ``cards`` given ones."""
    if cards <= 0:
        return 1.0
    if hand <= 0:
        return 1.0
    if pool - cards < hand:
        return 0.0
    return comb(pool - cards, hand) / comb(pool, hand)


# --------------------------------------------------------------------------- card values


def keep_value(card: DixCard, turned: DixCard | None, unseen: Sequence[DixCard]) -> float:
    """What a card is still worth in hand, in points of swing (rough, by design).

    A trump takes a trick later (the best ones surely: about one trick's swing, 2);
    a high side card often does; a 9 or 10 punishes an ace or a court led into it, a low
    card an 8, 7 or 6 (the other seat then takes a ten-trick, a swing of 4 over losing).
    """
    trump = trump_suit(turned)
    suit = suit_of(card, turned)
    higher = sum(1 for u in unseen if suit_of(u, turned) == suit and beats(u, card, turned))
    if trump is not None and suit == trump:
        value = TRUMP_TOP - TRUMP_STEP * min(higher, 4)
    else:
        value = SIDE_SCALE * {14: 0.9, 13: 0.55, 12: 0.4, 11: 0.3}.get(card.rank, 0.02 * card.rank)
        value *= 1.0 - 0.15 * min(higher, 4)
    threats = sum(1 for u in unseen if u.pips + card.pips == 10 and beats(u, card, turned))
    value += min(0.9, TEN_LEAD_GUARD * threats)
    return value


# --------------------------------------------------------------------------- leads


def lead_swing(lead: DixCard, turned: DixCard | None, know: DixKnowledge) -> float:
    """Our expected swing from leading ``lead``, the other seat answering as best it can
    with whatever it may hold (a random hand of the unseen cards, within its voids)."""
    led = suit_of(lead, turned)
    inside: list[list[DixCard]] = [[], [], [], []]  # their best first: LOSE_TEN, WIN, ...
    outside: list[list[DixCard]] = [[], [], [], []]
    order = {LOSE_TEN: 0, WIN: 1, LOSE: 2, WIN_TEN: 3}  # their preference
    for card in know.unseen:
        group = inside if suit_of(card, turned) == led else outside
        group[order[swing(card, lead, turned)]].append(card)
    pool, hand = len(know.unseen), know.other_hand
    theirs = (LOSE_TEN, WIN, LOSE, WIN_TEN)
    n_in = sum(len(g) for g in inside)
    slots = min(hand, know.suit_slots.get(led, hand))

    def cascade(groups: list[list[DixCard]], pool: int, hand: int) -> list[float]:
        probs, taken = [], 0
        for g in groups:
            before = _none_held(taken, pool, hand)
            taken += len(g)
            probs.append(before - _none_held(taken, pool, hand))
        return probs

    expected = 0.0
    for p, their in zip(cascade(inside, pool, slots), theirs, strict=True):
        expected -= p * their
    void = _none_held(n_in, pool, slots)
    if void > 0:
        rest = pool - n_in
        for p, their in zip(cascade(outside, rest, min(hand, rest)), theirs, strict=True):
            expected -= void * p * their
    return expected


# --------------------------------------------------------------------------- the endgame


class _SolverFacts:
    """One round's card facts as small ints for the solver: cards are bits of a hand."""

    def __init__(self, turned: DixCard | None) -> None:
        suits = [suit_of(c, turned) for c in DECK]
        by_suit = {s: sum(1 << i for i, x in enumerate(suits) if x == s) for s in suits}
        self.same = [by_suit[x] for x in suits]  # per card: the cards that follow it
        # swing[lead][reply]: the reply's swing, for the player of the second card
        self.swing = [[swing(r, lead, turned) for r in DECK] for lead in DECK]
        self.memo: dict[tuple[int, int, bool], int] = {}


@lru_cache(maxsize=4)
def _solver_facts(turned: DixCard | None) -> _SolverFacts:
    return _SolverFacts(turned)


_INDEX = {c: i for i, c in enumerate(DECK)}


def _mask(cards: Iterable[DixCard]) -> int:
    return sum(1 << _INDEX[c] for c in cards)


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def solve(mine: Iterable[DixCard], theirs: Iterable[DixCard], we_lead: bool,
          turned: DixCard | None) -> int:
    """Best swing for us over the rest of the round, both hands known (minimax)."""
    table = _solver_facts(turned)
    if len(table.memo) > MEMO_CAP:
        table.memo.clear()
    return _solve(table, _mask(mine), _mask(theirs), we_lead)


def _solve(t: _SolverFacts, mine: int, theirs: int, we_lead: bool) -> int:
    """Our best swing; the value is exact (cut-offs stay inside one node), so it is kept."""
    if not mine:
        return 0
    key = (mine, theirs, we_lead)
    found = t.memo.get(key)
    if found is not None:
        return found
    leader, follower = (mine, theirs) if we_lead else (theirs, mine)
    best_lead = -99
    for lead in _bits(leader):
        row = t.swing[lead]
        follow = follower & t.same[lead] or follower
        rest_l = leader & ~(1 << lead)
        worst = 99  # the follower picks the leader's worst
        for card in _bits(follow):
            s = row[card]  # the follower's swing
            won = s == WIN or s == WIN_TEN
            rest_f = follower & ~(1 << card)
            if we_lead:  # the rest, from the leader's side; the trick's winner leads next
                total = -s + _solve(t, rest_l, rest_f, not won)
            else:
                total = -s - _solve(t, rest_f, rest_l, won)
            if total < worst:
                worst = total
                if worst <= best_lead:
                    break
        if worst > best_lead:
            best_lead = worst
    value = best_lead if we_lead else -best_lead
    t.memo[key] = value
    return value


def _endgame(view: SeatView, legal: Legal, know: DixKnowledge) -> tuple[DixCard, int] | None:
    """The card that does best with both hands known, and its swing, when small enough."""
    if not know.exact or len(view.hand) > SOLVE_AT:
        return None
    turned = view.turned
    t = _solver_facts(turned)
    if len(t.memo) > MEMO_CAP:
        t.memo.clear()
    mine, theirs = _mask(view.hand), _mask(know.unseen)
    best: tuple[DixCard, int] | None = None
    for card in legal.cards:
        i = _INDEX[card]
        if view.trick:  # we follow: the trick ends with our card
            s = swing(card, view.trick[0][1], turned)
            value = s + _solve(t, mine & ~(1 << i), theirs, s in (WIN, WIN_TEN))
        else:
            value = 99
            for reply in _bits(theirs & t.same[i] or theirs):
                s = t.swing[i][reply]
                value = min(value, -s + _solve(t, mine & ~(1 << i), theirs & ~(1 << reply),
                                               s not in (WIN, WIN_TEN)))
        if best is None or value > best[1]:
            best = (card, value)
    return best


# --------------------------------------------------------------------------- the bot


class DixHeuristicAgent:
    """Avoids ten-tricks, keeps 9s and 10s as guards, trumps when it pays. Seeded (ties)."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: SeatView, legal: Legal) -> Command:
        return self.explain(view, legal)[0]

    def explain(self, view: SeatView, legal: Legal) -> tuple[Command, str]:
        """The move and a one-line reason (the REPL's ``hint``)."""
        if legal.seat is None or not legal.cards:
            raise ValueError("nobody may play a card")
        seat = legal.seat
        know = knowledge(view)
        solved = _endgame(view, legal, know)
        if solved is not None:
            card, value = solved
            net = counted("{n:+d} point net", "{n:+d} points net", n=value)
            return Play(seat, card), counted(
                "both hands are known: {card} does best over the last trick ({net})",
                "both hands are known: {card} does best over the last {n} tricks ({net})",
                card=card, n=len(view.hand), net=net)
        turned = view.turned
        if view.trick:
            return self._follow(seat, view, legal, know)
        scored = []
        for card in legal.cards:
            ev = lead_swing(card, turned, know)
            scored.append((ev - LEAD_KEEP * keep_value(card, turned, know.unseen), ev, card))
        top = max(s for s, _, _ in scored)
        _, ev, card = self.rng.choice([x for x in scored if x[0] >= top - 1e-9])
        if ev >= 0.5:
            why = Reason("lead {card}: likely takes the trick (expected {ev:+.1f} this trick)",
                         card=card, ev=ev)
        elif ev <= -0.5:
            why = Reason("lead {card}: a cheap trick to lose, keeping the cards worth more "
                         "later (expected {ev:+.1f} this trick)", card=card, ev=ev)
        else:
            why = Reason("lead {card}: the best balance of this trick against the cards kept "
                         "(expected {ev:+.1f} this trick)", card=card, ev=ev)
        return Play(seat, card), why

    def _follow(self, seat: int, view: SeatView, legal: Legal,
                know: DixKnowledge) -> tuple[Command, str]:
        turned = view.turned
        lead = view.trick[0][1]
        scored = []
        for card in legal.cards:
            s = swing(card, lead, turned)
            scored.append((s - keep_value(card, turned, know.unseen), s, card))
        top = max(x[0] for x in scored)
        _, s, card = self.rng.choice([x for x in scored if x[0] >= top - 1e-9])
        led = suit_of(lead, turned)
        if s == LOSE_TEN:
            why = Reason("{card} under {lead} totals ten and loses: they take a ten-trick (-3)",
                         card=card, lead=lead)
        elif s == WIN and suit_of(card, turned) != led:
            why = Reason("trump {card}: the trick (+1) is worth more than keeping the trump",
                         card=card)
        elif s == WIN:
            why = Reason("{card}: the cheapest card that takes the trick without making it "
                         "ten (+1)", card=card)
        elif s == WIN_TEN:
            why = Reason("{card}: every other card costs more, even taking a ten-trick",
                         card=card)
        elif suit_of(card, turned) != led:
            why = Reason("discard {card}: the least useful card, and no ten-trick for us",
                         card=card)
        else:
            why = Reason("{card}: the cheapest card to lose with, and no ten-trick for us",
                         card=card)
        return Play(seat, card), why


def redeal(state: State, seat: int, rng: random.Random) -> tuple[Hands, tuple[DixCard, ...]]:
    """The other hand and the stock drawn anew for ``seat``: uniform over the hands that
    respect :func:`knowledge` (the unseen cards, the hand's size, and at most as many
    cards of a suit shown void as drawn since), by rejection; the stock in a random order."""
    seen = view(state, seat)
    know = knowledge(seen)
    hands = list(state.hands)
    other = 1 - seat
    size = seen.hand_sizes[other]
    cards = list(know.unseen)

    def fits(hand: Sequence[DixCard]) -> bool:
        counts: dict[str, int] = {}
        for card in hand:
            suit = suit_of(card, seen.turned)
            counts[suit] = counts.get(suit, 0) + 1
        return all(counts.get(suit, 0) <= cap for suit, cap in know.suit_slots.items())

    for _ in range(1000):
        rng.shuffle(cards)
        if fits(cards[:size]):
            break
    else:  # never seen: the caps are loose bounds, so a fitting hand is common
        raise ValueError("no hidden hand fits what this seat saw")
    hands[other] = tuple(sorted(cards[:size], key=state.rules.sort_key))
    return tuple(hands), tuple(cards[size:])
