"""Deals of the hidden cards consistent with all one seat has seen, drawn uniformly.

A seat knows its own hand, every card played this round, each other seat's hand size,
and the exact shape-counts each seat failed to follow (a seat that sloughed on "2 stars"
holds no card with exactly 2 stars). The unseen cards lie in the other hands or among the
set-aside cards, which nobody sees and which have no constraint.

Exact uniform sampling: the unseen cards fall into *types* by which seats may hold them.
A consistent deal is fixed by how many cards of each type go to each seat (then which
ones, uniformly), so the deals are counted by a dynamic programme over types with the
seats' remaining room as its state, and a deal is drawn by walking the programme with
weights equal to those exact counts. Without voids there is a single type and this is a
plain shuffle.

When the programme would be too large (many seats, many voids: it is bounded by
``max_work``; never seen in 4-player games), the sampler falls back to a Markov chain of
random swaps started from a greedy fill: always consistent, uniform in the limit, and
near-uniform after ``swaps`` steps; tests/test_sampler.py bounds its distance from
uniform on small positions.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from math import factorial

import attrs

from xactika.core.bots.agents import Hands
from xactika.core.bots.heuristic import knowledge
from xactika.core.bots.simulator import sample
from xactika.core.engine.api import State
from xactika.core.engine.views import SeatView, view
from xactika.core.games.xactika import Call, Card

Deal = tuple[tuple[Card, ...], ...]  # hands of the hidden seats, in ``Hidden.seats`` order


@attrs.frozen(slots=True)
class Hidden:
    """The hidden part of a round from one seat: what a deal must be consistent with."""

    cards: tuple[Card, ...]  # every card the seat has not seen
    seats: tuple[int, ...]  # the other seats, whose hands are hidden
    sizes: tuple[int, ...]  # how many cards each of them holds
    voids: tuple[frozenset[Call], ...]  # the calls each of them cannot show
    barred: tuple[frozenset[Card], ...] = ()  # per seat: cards ruled out besides voids

    @property
    def aside(self) -> int:
        """How many unseen cards are set aside (in nobody's hand)."""
        return len(self.cards) - sum(self.sizes)

    def allows(self, i: int, card: Card) -> bool:
        """Whether hidden seat number ``i`` may hold ``card``."""
        if self.barred and card in self.barred[i]:
            return False
        return not any(card.shows(call) for call in self.voids[i])

    def consistent(self, deal: Deal) -> bool:
        """Whether a deal fits: right sizes, distinct unseen cards, no void broken."""
        if len(deal) != len(self.seats):
            return False
        pool = set(self.cards)
        used: set[Card] = set()
        for i, hand in enumerate(deal):
            if len(hand) != self.sizes[i]:
                return False
            for card in hand:
                if card not in pool or card in used or not self.allows(i, card):
                    return False
                used.add(card)
        return True


def hidden_of(view: SeatView) -> Hidden:
    """The hidden part of the round as ``view``'s seat sees it."""
    know = knowledge(view)
    seats = tuple(s for s in range(view.config.players) if s != view.seat)
    return Hidden(
        cards=know.unseen,
        seats=seats,
        sizes=tuple(view.hand_sizes[s] for s in seats),
        voids=tuple(know.voids[s] for s in seats),
    )


class TooMuchWork(Exception):
    """The exact programme outgrew its budget; the sampler falls back."""


_FACT = [factorial(i) for i in range(128)]

# One allocation of a type: (cumulative weight, cards per seat, the room left after it).
_Alloc = tuple[int, tuple[int, ...], tuple[int, ...]]


class DealSampler:
    """Draws consistent deals of ``hidden``. ``exact`` says whether they are uniform."""

    def __init__(self, hidden: Hidden, rng: random.Random | None = None,
                 max_work: int = 5_000, swaps: int | None = None) -> None:
        self.hidden = hidden
        self.rng = rng or random.Random()
        self.swaps = 4 * len(hidden.cards) if swaps is None else swaps
        self._chain: list[list[Card]] | None = None
        m = len(hidden.seats)
        if hidden.aside < 0:
            raise ValueError("the hidden hands hold more cards than are unseen")
        groups: dict[int, list[Card]] = {}
        for card in hidden.cards:
            mask = sum(1 << i for i in range(m) if hidden.allows(i, card))
            groups.setdefault(mask, []).append(card)
        full = (1 << m) - 1
        # the unconstrained type goes last: it is counted in closed form
        order = sorted(groups, key=lambda mk: (mk == full, mk))
        self._masks = order
        self._types = [groups[mk] for mk in order]
        self._seats_of = [tuple(i for i in range(m) if mk >> i & 1) for mk in order]
        self._rest = [0] * (len(order) + 1)
        for t in range(len(order) - 1, -1, -1):
            self._rest[t] = self._rest[t + 1] + len(self._types[t])
        self._full = full
        self._memo: dict[tuple[int, tuple[int, ...]], int] = {}
        self._allocs: dict[tuple[int, tuple[int, ...]], tuple[int, list[_Alloc]]] = {}
        self._work = 0
        self._max_work = max_work
        self.exact = True
        try:
            self._total = self._count(0, hidden.sizes)
        except TooMuchWork:
            self.exact = False
            self._total = -1
            self._memo.clear()
            self._allocs.clear()
        if self.exact and self._total == 0:
            raise ValueError("no deal is consistent with what this seat has seen")

    # -- counting
    def count(self) -> int:
        """How many consistent deals there are (hands only; -1 when not counted)."""
        return self._total

    def _count(self, t: int, caps: tuple[int, ...]) -> int:
        key = (t, caps)
        hit = self._memo.get(key)
        if hit is not None:
            return hit
        aside = self._rest[t] - sum(caps)
        if aside < 0:
            value = 0
        elif t == len(self._types):
            value = 1
        elif t == len(self._types) - 1 and self._masks[t] == self._full:
            value = _FACT[self._rest[t]] // _FACT[aside]
            for c in caps:
                value //= _FACT[c]
        else:
            value = self._expand(t, caps)[0]
        self._memo[key] = value
        return value

    def _expand(self, t: int, caps: tuple[int, ...]) -> tuple[int, list[_Alloc]]:
        key = (t, caps)
        hit = self._allocs.get(key)
        if hit is not None:
            return hit
        n = len(self._types[t])
        seats = self._seats_of[t]
        out: list[_Alloc] = []
        total = 0
        for split in _splits(n, [caps[i] for i in seats]):
            self._work += 1
            if self._work > self._max_work:
                raise TooMuchWork
            new = list(caps)
            for i, k in zip(seats, split, strict=True):
                new[i] -= k
            rest = n - sum(split)
            ways = _FACT[n] // _FACT[rest]
            for k in split:
                ways //= _FACT[k]
            after = tuple(new)
            w = ways * self._count(t + 1, after)
            if w:
                total += w
                out.append((total, split, after))
        self._allocs[key] = (total, out)
        return total, out

    # -- drawing
    def sample(self) -> Deal:
        return self._sample_exact() if self.exact else self._sample_fallback()

    def _sample_exact(self) -> Deal:
        rng = self.rng
        m = len(self.hidden.seats)
        hands: list[list[Card]] = [[] for _ in range(m)]
        caps = self.hidden.sizes
        for t, cards in enumerate(self._types):
            seats = self._seats_of[t]
            if t == len(self._types) - 1 and self._masks[t] == self._full:
                split: tuple[int, ...] = caps
                after = (0,) * m
            else:
                total, allocs = self._expand(t, caps)
                r = rng.randrange(total)
                lo, hi = 0, len(allocs) - 1
                while lo < hi:  # the first allocation whose cumulative weight exceeds r
                    mid = (lo + hi) // 2
                    if allocs[mid][0] > r:
                        hi = mid
                    else:
                        lo = mid + 1
                _, split, after = allocs[lo]
            if any(split):
                pool = sample(rng, cards, sum(split))  # rng.sample (the kernel's when built)
                pos = 0
                for i, k in zip(seats, split, strict=True):
                    hands[i].extend(pool[pos:pos + k])
                    pos += k
            caps = after
        return tuple(tuple(h) for h in hands)

    def _sample_fallback(self) -> Deal:
        """A random-swap Markov chain over consistent deals, started from a greedy fill.

        Swapping two cards between holders (a hand or the aside) when the result is
        still consistent is a symmetric proposal, so the chain's stationary law is the
        uniform one; ``swaps`` steps separate two draws. The tests bound its distance
        from uniform on small positions."""
        hidden = self.hidden
        rng = self.rng
        if self._chain is None:
            for _ in range(1000):
                start = _greedy(hidden, rng)
                if start is not None:
                    break
            else:
                raise ValueError("could not draw a consistent deal")
            aside = set(hidden.cards) - {c for h in start for c in h}
            self._chain = [list(h) for h in start] + [list(aside)]
        holders = self._chain
        m = len(hidden.seats)
        sizes = [len(h) for h in holders]
        total = sum(sizes)
        for _ in range(self.swaps):
            a = rng.randrange(total)
            b = rng.randrange(total)
            ha = _holder(sizes, a)
            hb = _holder(sizes, b)
            if ha == hb:
                continue
            ia = a - sum(sizes[:ha])
            ib = b - sum(sizes[:hb])
            ca, cb = holders[ha][ia], holders[hb][ib]
            if (hb < m and not hidden.allows(hb, ca)) or (ha < m and not hidden.allows(ha, cb)):
                continue
            holders[ha][ia], holders[hb][ib] = cb, ca
        return tuple(tuple(h) for h in holders[:m])


class BarredSampler:
    """Draws deals of a ``hidden`` whose seats have cards ``barred`` besides their voids,
    seat by seat: the most constrained seat first, each hand uniform over the cards it
    may hold that are still free.

    Not exactly uniform over the consistent deals (a hand is drawn without weighing how
    many ways the later seats could still be filled), but close while many cards are set
    aside (49 of the 81 with 4 players); the exact programme above pays several times
    the cost of a draw here once bars split the cards into many types. With few cards
    aside a draw can run into a dead end: after 100 of them it returns the last deal it
    completed, so a search never stops for want of a deal.
    """

    def __init__(self, hidden: Hidden, rng: random.Random | None = None) -> None:
        self.hidden = hidden
        self.rng = rng or random.Random()
        m = len(hidden.seats)
        self._allowed = [[c for c in hidden.cards if hidden.allows(i, c)] for i in range(m)]
        self._order = sorted(range(m), key=lambda i: len(self._allowed[i]) - hidden.sizes[i])
        if any(len(self._allowed[i]) < hidden.sizes[i] for i in range(m)):
            raise ValueError("no deal is consistent with what this seat has seen")
        self._last: Deal | None = None
        self._last = self.sample()

    def sample(self) -> Deal:
        hidden, rng = self.hidden, self.rng
        for _ in range(100):
            hands: list[tuple[Card, ...]] = [()] * len(hidden.seats)
            used: set[Card] = set()
            for i in self._order:
                pool = [c for c in self._allowed[i] if c not in used] if used else \
                    self._allowed[i]
                if len(pool) < hidden.sizes[i]:
                    break
                hands[i] = tuple(rng.sample(pool, hidden.sizes[i]))
                used.update(hands[i])
            else:
                self._last = tuple(hands)
                return self._last
        if self._last is None:
            raise ValueError("could not draw a consistent deal")
        return self._last


def _holder(sizes: list[int], pos: int) -> int:
    for i, size in enumerate(sizes):
        if pos < size:
            return i
        pos -= size
    raise IndexError(pos)


def _greedy(hidden: Hidden, rng: random.Random) -> Deal | None:
    """Fill the most constrained seats first, each with random cards it may hold."""
    m = len(hidden.seats)
    free = list(hidden.cards)
    rng.shuffle(free)
    hands: list[tuple[Card, ...]] = [()] * m
    for i in sorted(range(m), key=lambda i: (-len(hidden.voids[i]), rng.random())):
        ok = [c for c in free if hidden.allows(i, c)]
        if len(ok) < hidden.sizes[i]:
            return None
        pick = ok[: hidden.sizes[i]]
        hands[i] = tuple(pick)
        taken = set(pick)
        free = [c for c in free if c not in taken]
    return tuple(hands)


def _splits(n: int, caps: Sequence[int]) -> Iterator[tuple[int, ...]]:
    """Every way to give k_i <= caps[i] cards to each seat with sum k_i <= n."""
    if not caps:
        yield ()
        return
    first, rest = caps[0], caps[1:]
    for k in range(min(first, n) + 1):
        for tail in _splits(n - k, rest):
            yield (k, *tail)


def redeal(state: State, seat: int, rng: random.Random) -> tuple[Hands, tuple[Card, ...]]:
    """Every hand (``seat``'s own kept) and the undealt cards, the hidden ones drawn
    uniformly over the deals consistent with ``seat``'s view, voids included."""
    hidden = hidden_of(view(state, seat))
    drawn = DealSampler(hidden, rng).sample()
    hands = list(state.hands)
    sort = state.rules.sort_key
    for s, hand in zip(hidden.seats, drawn, strict=True):
        hands[s] = tuple(sorted(hand, key=sort))
    dealt = {card for hand in drawn for card in hand}
    return tuple(hands), tuple(c for c in hidden.cards if c not in dealt)
