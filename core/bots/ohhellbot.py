"""Oh Hell's bots: a heuristic that bids its sure tricks and then plays to make the bid
exactly, and a determinized search ("strong") that plays each card out on deals drawn
anew for the hidden hands, respecting the suits a seat has shown it lacks.

Everything reads a :class:`SeatView` (or, for :func:`redeal`, the view of a state).
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence

from xactika.core.bots.agents import Hands
from xactika.core.engine.api import Bid, Command, Legal, Play, State
from xactika.core.engine.reason import Reason, counted
from xactika.core.engine.views import SeatView, view
from xactika.core.games.dix import DixCard
from xactika.core.games.ohhell import DECK, OHHELL, beats, points, trump_suit

Plays = Sequence[tuple[int, DixCard]]


# --------------------------------------------------------------------------- knowledge


def voids(view_: SeatView) -> dict[int, set[str]]:
    """The suits each seat has shown it lacks this round: it did not follow them."""
    found: dict[int, set[str]] = {s: set() for s in range(view_.config.players)}
    tricks = [t.plays for t in view_.tricks]
    if view_.trick:
        tricks.append(view_.trick)
    for plays in tricks:
        led = plays[0][1].suit
        for seat, card in plays[1:]:
            if card.suit != led:
                found[seat].add(led)
    return found


def unseen(view_: SeatView) -> list[DixCard]:
    """The cards this seat has not seen: not its own, not played, not turned up."""
    seen = set(view_.hand)
    seen.update(c for t in view_.tricks for _, c in t.plays)
    seen.update(c for _, c in view_.trick)
    if view_.turned is not None:
        seen.add(view_.turned)
    return [c for c in DECK if c not in seen]


def redeal(state: State, seat: int, rng: random.Random) -> tuple[Hands, tuple[DixCard, ...]]:
    """Every other hand and the undealt cards drawn anew for ``seat``: the unseen cards,
    each hand its size, and no card of a suit its seat has shown it lacks."""
    return deal_for(view(state, seat), rng)


def deal_for(seen: SeatView, rng: random.Random) -> tuple[Hands, tuple[DixCard, ...]]:
    """:func:`redeal` from the seat's view itself (the search has only that)."""
    seat = seen.seat
    void = voids(seen)
    cards = unseen(seen)
    n = seen.config.players
    sizes = [0 if s == seat else seen.hand_sizes[s] for s in range(n)]
    for _ in range(200):
        rng.shuffle(cards)
        room = list(sizes)
        rest_room = len(cards) - sum(sizes)
        hands: list[list[DixCard]] = [[] for _ in range(n)]
        rest: list[DixCard] = []
        # the most constrained suits first: cards some seats may not hold
        order = sorted(cards, key=lambda c: -sum(c.suit in void[s] for s in range(n)))
        ok = True
        for card in order:
            takers = [s for s in range(n) if room[s] and card.suit not in void[s]]
            weights = [room[s] for s in takers]
            if rest_room:
                takers.append(-1)
                weights.append(rest_room)
            if not takers:
                ok = False
                break
            who = rng.choices(takers, weights)[0]
            if who < 0:
                rest.append(card)
                rest_room -= 1
            else:
                hands[who].append(card)
                room[who] -= 1
        if ok:
            hands[seat] = list(seen.hand)
            return (tuple(tuple(sorted(h, key=OHHELL.sort_key)) for h in hands),
                    tuple(rest))
    raise ValueError("no hidden hands fit what this seat saw")


# --------------------------------------------------------------------------- heuristic


def trick_value(card: DixCard, trump: str | None, hand: Sequence[DixCard], players: int) -> float:
    """How likely ``card`` is to take a trick by itself: high trumps and aces, less the
    more players there are to beat it or trump it."""
    length = sum(c.suit == card.suit for c in hand)
    if card.suit == trump:
        return min(1.0, max(0.0, (card.rank - 8) / 6 + 0.15 * (length - 1)))
    top = card.rank - 14 + length  # an ace is 0; a king with a guard is 0 too
    base = {0: 0.9, -1: 0.55, -2: 0.25}.get(min(top, 0), 0.0) if card.rank >= 12 else 0.0
    return base * (0.95 ** max(0, players - 3))


def choose_bid(hand: Sequence[DixCard], trump: str | None, players: int,
               legal: Sequence[int]) -> int:
    """The legal bid nearest the expected tricks."""
    expected = sum(trick_value(c, trump, hand, players) for c in hand)
    return min(legal, key=lambda b: (abs(b - expected), b))


def winning(plays: Plays, trump: str | None) -> tuple[int, DixCard]:
    best_seat, best = plays[0]
    for seat, card in plays[1:]:
        if beats(card, best, trump):
            best_seat, best = seat, card
    return best_seat, best


def choose_card(legal: Sequence[DixCard], trick: Plays, trump: str | None, want: bool,
                last: bool) -> DixCard:
    """Play to take a trick when ``want``, else to lose one; ``last`` when no one plays
    after this seat (a winner then is certain)."""
    def strength(card: DixCard) -> tuple[int, int]:
        return (card.suit == trump, card.rank)

    if not trick:  # leading
        if want:
            return max(legal, key=strength)
        return min(legal, key=strength)
    _, best = winning(trick, trump)
    winners = [c for c in legal if beats(c, best, trump)]
    losers = [c for c in legal if c not in winners]
    if want:
        if winners:
            # last: the cheapest winner; else a strong one that others may not beat
            return min(winners, key=strength) if last else max(winners, key=strength)
        return min(legal, key=strength)
    if losers:
        return max(losers, key=strength)  # shed the highest card that still loses
    return max(legal, key=strength)  # forced to win: win with the card least useful later


class OhHellHeuristicAgent:
    """Bids the tricks its high cards and trumps should take, then plays to make the
    bid: takes tricks while it needs them, sheds high cards under the winner after."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, view_: SeatView, legal: Legal) -> Command:
        return self.explain(view_, legal)[0]

    def explain(self, view_: SeatView, legal: Legal) -> tuple[Command, str]:
        seat = view_.seat
        trump = trump_suit(view_.turned)
        players = view_.config.players
        if legal.kind == "bid":
            bid = choose_bid(view_.hand, trump, players, legal.bids)
            return Bid(seat, bid), Reason(
                "bid {bid}: the tricks my high cards and trumps should take", bid=bid)
        bid = view_.bids[seat] or 0
        want = view_.taken[seat] < bid
        last = len(view_.trick) == players - 1
        card = choose_card(legal.cards, view_.trick, trump, want, last)
        why = (Reason("{card}: I still need tricks for my bid", card=card) if want else
               Reason("{card}: I have my tricks: this one should go to someone else",
                      card=card))
        return Play(seat, card), why


# --------------------------------------------------------------------------- search


def playout(hands: list[list[DixCard]], trick: list[tuple[int, DixCard]], leader: int,
            trump: str | None, bids: Sequence[int], taken: list[int]) -> list[int]:
    """The rest of the round with every seat playing the heuristic: the tricks taken."""
    n = len(hands)
    to_act = (trick[-1][0] + 1) % n if trick else leader
    while any(hands):
        while len(trick) < n:
            hand = hands[to_act]
            led = trick[0][1].suit if trick else None
            legal = ([c for c in hand if c.suit == led] or hand) if led else hand
            want = taken[to_act] < bids[to_act]
            card = choose_card(legal, trick, trump, want, len(trick) == n - 1)
            hand.remove(card)
            trick.append((to_act, card))
            to_act = (to_act + 1) % n
        winner = winning(trick, trump)[0]
        taken[winner] += 1
        trick = []
        to_act = winner
    return taken


class OhHellSearchAgent:
    """Bids as the heuristic; plays each legal card out on deals drawn by :func:`redeal`
    (every seat then playing the heuristic) and keeps the card that scores best for its
    own seat on average, within ``think_ms``."""

    name = "strong"

    def __init__(self, seed: int | None = None, think_ms: float = 100.0,
                 max_deals: int = 40) -> None:
        self.rng = random.Random(seed)
        self.think_ms = think_ms
        self.max_deals = max_deals
        self.heuristic = OhHellHeuristicAgent(seed)

    def choose(self, view_: SeatView, legal: Legal) -> Command:
        return self.explain(view_, legal)[0]

    def explain(self, view_: SeatView, legal: Legal) -> tuple[Command, str]:
        if legal.kind == "bid":
            return self._bid(view_, legal)
        if len(legal.cards) == 1:
            return self.heuristic.explain(view_, legal)
        seat = view_.seat
        trump = trump_suit(view_.turned)
        bids = [b or 0 for b in view_.bids]
        totals = dict.fromkeys(legal.cards, 0.0)
        deadline = time.perf_counter() + self.think_ms / 1000
        deals = 0
        while deals < self.max_deals and (deals < 4 or time.perf_counter() < deadline):
            hands, _ = deal_for(view_, self.rng)
            deals += 1
            for card in legal.cards:
                mine = [list(h) for h in hands]
                mine[seat].remove(card)
                trick = [*view_.trick, (seat, card)]
                taken = playout(mine, trick, view_.leader, trump, bids, list(view_.taken))
                totals[card] += points(view_.config.mode, bids[seat], taken[seat])
        best = max(legal.cards, key=lambda c: (totals[c], -OHHELL.sort_key(c)[1]))
        return Play(seat, best), counted(
            "{card}: {mean:+.1f} points on average over {n} deal drawn for the hidden hands",
            "{card}: {mean:+.1f} points on average over {n} deals drawn for the hidden hands",
            card=best, mean=totals[best] / deals, n=deals)


    def _bid(self, view_: SeatView, legal: Legal) -> tuple[Command, str]:
        """Each bid near the heuristic's, played out on drawn deals (the seats still to
        bid bidding as the heuristic would on their drawn hands): the best on average."""
        seat, n = view_.seat, view_.config.players
        trump = trump_suit(view_.turned)
        guess = choose_bid(view_.hand, trump, n, legal.bids)
        candidates = [b for b in legal.bids if abs(b - guess) <= 2]
        totals = dict.fromkeys(candidates, 0.0)
        deadline = time.perf_counter() + self.think_ms / 1000
        later = [(seat + k) % n for k in range(1, n) if view_.bids[(seat + k) % n] is None]
        deals = 0
        while deals < self.max_deals and (deals < 4 or time.perf_counter() < deadline):
            hands, _ = deal_for(view_, self.rng)
            deals += 1
            for bid in candidates:
                bids = [b or 0 for b in view_.bids]
                bids[seat] = bid
                for other in later:
                    size = len(hands[other])
                    options = list(range(size + 1))
                    if other == view_.dealer and view_.config.option("hook") != "none":
                        made = sum(bids) - bids[other]
                        options = [b for b in options if made + b != size] or options
                    bids[other] = choose_bid(hands[other], trump, n, options)
                taken = playout([list(h) for h in hands], [], view_.leader, trump, bids,
                                [0] * n)
                totals[bid] += points(view_.config.mode, bid, taken[seat])
        best = max(candidates, key=lambda b: (totals[b], -abs(b - guess)))
        return Bid(seat, best), counted(
            "bid {bid}: {mean:+.1f} points on average over {n} deal drawn for the hidden hands",
            "bid {bid}: {mean:+.1f} points on average over {n} deals drawn for the hidden "
            "hands", bid=best, mean=totals[best] / deals, n=deals)
