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

The programme and its draws also run compiled (``_sampler.pyx``, built with the search
kernel; ``XACTIKA_PURE=1`` keeps them here), from a random stream of the sampler's own
(:class:`Stream`) so that the two paths draw the same deals for the same seed.
"""

from __future__ import annotations

import os
import random
from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from math import factorial
from types import ModuleType
from typing import TYPE_CHECKING

import attrs

from xactika.core.bots.agents import Hands
from xactika.core.bots.heuristic import knowledge
from xactika.core.engine.api import State
from xactika.core.engine.views import SeatView, view
from xactika.core.games.xactika import Call, Card
from xactika.core.games.xactika.tables import CALL_INDEX, CARDS, CMASK, INDEX

if TYPE_CHECKING:
    from xactika.core.bots._sampler import Plan as _Plan

Deal = tuple[tuple[Card, ...], ...]  # hands of the hidden seats, in ``Hidden.seats`` order
_Node = tuple[int, list[int], list[tuple[int, ...]], list[tuple[int, ...]]]
"""A type's allocations from one room: total weight, cumulative weights, cards per seat
and the room each leaves (the weights as counts of the deals that follow)."""


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
_M64 = (1 << 64) - 1
_GAMMA, _MIX1, _MIX2 = 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB
_BY_RANK: dict[int, int] = {c.rank: i for i, c in enumerate(CARDS)}
"""A card's index by its ``rank`` (one int per card): no hashing of Card objects."""


class Stream:
    """The exact sampler's random numbers: splitmix64 (the generator of Java's
    SplittableRandom), seeded once per sampler from the caller's ``random.Random``.

    Its own generator, not ``random.Random``, so that the compiled sampler
    (``_sampler.pyx``) runs the same arithmetic in C without a call into Python for each
    number, and both paths draw the same deals from the same seed. :meth:`below` is
    Lemire's multiply-and-reject under 2**64 and whole-word rejection above.
    """

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        self.state = seed & _M64

    def next(self) -> int:
        """The next 64-bit number."""
        s = self.state = (self.state + _GAMMA) & _M64
        z = ((s ^ (s >> 30)) * _MIX1) & _M64
        z = ((z ^ (z >> 27)) * _MIX2) & _M64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """Uniform over ``range(n)``, ``n >= 1`` (nothing drawn when ``n == 1``)."""
        if n <= 1:
            return 0
        if n <= _M64:
            m = self.next() * n
            if m & _M64 < n:
                least = ((1 << 64) - n) % n
                while m & _M64 < least:
                    m = self.next() * n
            return m >> 64
        width = (n - 1).bit_length()
        words = -(-width // 64)
        shift = 64 * words - width
        while True:
            r = 0
            for _ in range(words):
                r = r << 64 | self.next()
            r >>= shift
            if r < n:
                return r

    def random(self) -> float:
        """Uniform over [0, 1) in steps of 2**-53, as ``random.random``."""
        return (self.next() >> 11) * (1.0 / 9007199254740992.0)


def _load_native() -> ModuleType | None:
    """The compiled sampler, or None: not built, or ``XACTIKA_PURE=1`` (as the kernel)."""
    if os.environ.get("XACTIKA_PURE") == "1":
        return None
    try:
        from xactika.core.bots import _sampler
    except ImportError:
        return None
    return _sampler


NATIVE = _load_native()
"""The compiled sampler in use, or None (the pure-Python programme below)."""

Check = tuple[int, int, Sequence[float]]
"""For :meth:`DealSampler.fitting`: (a hidden seat's number, the score it starts from,
the odds of accepting a deal by that seat's total score)."""


class DealSampler:
    """Draws consistent deals of ``hidden``. ``exact`` says whether they are uniform.

    The programme runs compiled (``_sampler.pyx``) when that is built, ``XACTIKA_PURE``
    is not ``1`` and ``compiled`` is left on, else in Python here: both draw from a
    :class:`Stream` seeded by one ``rng.getrandbits(64)`` and give the same deals for the
    same seed (tests/test_sampler.py). Counts past 128 bits (more than 5 players) take
    the Python programme on either path; the Markov-chain fallback draws from ``rng``.
    """

    def __init__(self, hidden: Hidden, rng: random.Random | None = None,
                 max_work: int = 5_000, swaps: int | None = None,
                 compiled: bool = True) -> None:
        self.hidden = hidden
        self.rng = rng or random.Random()
        self.swaps = 4 * len(hidden.cards) if swaps is None else swaps
        self._chain: list[list[Card]] | None = None
        m = len(hidden.seats)
        if hidden.aside < 0:
            raise ValueError("the hidden hands hold more cards than are unseen")
        seed = self.rng.getrandbits(64)
        self._stream = Stream(seed)
        groups = self._groups()
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
        self._allocs: dict[tuple[int, tuple[int, ...]], _Node] = {}
        self._work = 0
        self._max_work = max_work
        self.exact = True
        self._total = -1
        self._plan: _Plan | None = None
        native = NATIVE if compiled else None
        if native is not None:
            plan = native.Plan(self._types, order, hidden.sizes, full, seed, max_work)
            if plan.status == native.EXACT:
                self._plan = plan
                self._total = plan.count()
            elif plan.status == native.TOO_MUCH_WORK:
                self.exact = False
        if self._plan is None and self.exact:  # the Python programme
            try:
                self._total = self._count(0, hidden.sizes)
            except TooMuchWork:
                self.exact = False
                self._memo.clear()
                self._allocs.clear()
        if not self.exact:
            self._total = -1
        elif self._total == 0:
            raise ValueError("no deal is consistent with what this seat has seen")

    @property
    def compiled(self) -> bool:
        """Whether the deals come from the compiled programme."""
        return self._plan is not None

    def _groups(self) -> dict[int, list[int]]:
        """The unseen cards, as indices in ``hidden.cards`` order, by the mask of the
        hidden seats that may hold them (bit i: seat number i)."""
        hidden = self.hidden
        forbid = []
        for i, voids in enumerate(hidden.voids):
            f = 0
            for call in voids:
                f |= CMASK[CALL_INDEX[call]]
            if hidden.barred:
                for card in hidden.barred[i]:
                    f |= 1 << INDEX[card]
            forbid.append(f)
        groups: dict[int, list[int]] = {}
        for card in hidden.cards:
            x = _BY_RANK[card.rank]
            mk = bit = 0
            for f in forbid:
                if not f >> x & 1:
                    mk |= 1 << bit
                bit += 1
            groups.setdefault(mk, []).append(x)
        return groups

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

    def _expand(self, t: int, caps: tuple[int, ...]) -> _Node:
        """The allocations of type ``t`` open with room ``caps``: their total weight,
        cumulative weights, cards per seat and the room each leaves."""
        key = (t, caps)
        hit = self._allocs.get(key)
        if hit is not None:
            return hit
        n = len(self._types[t])
        seats = self._seats_of[t]
        cums: list[int] = []
        splits: list[tuple[int, ...]] = []
        afters: list[tuple[int, ...]] = []
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
                cums.append(total)
                splits.append(split)
                afters.append(after)
        node = self._allocs[key] = (total, cums, splits, afters)
        return node

    # -- drawing
    def sample(self) -> Deal:
        """A deal, as Card objects."""
        if not self.exact:
            return self._sample_fallback()
        return tuple(tuple(CARDS[x] for x in hand) for hand in self.draw())

    def draw(self) -> list[list[int]]:
        """A deal as each hidden seat's hand of card indices, sorted: the search's form."""
        if self._plan is not None:
            return self._plan.draw()
        if not self.exact:
            return [sorted(INDEX[c] for c in hand) for hand in self._sample_fallback()]
        return self._draw_exact()

    def fitting(self, score: Sequence[int], checks: Sequence[Check], tries: int
                ) -> Callable[[], list[list[int]]]:
        """:meth:`draw` through a rejection sampler: a deal is accepted with the product,
        over ``checks`` ``(i, w, odds)``, of ``odds[w + the score of hidden seat i's
        hand]`` (``score`` by card index), else drawn again; after ``tries`` rejections
        the next deal is taken as it comes. The strong bot's bid model
        (search.py's ``_bid_aware``); the odds are drawn from the same stream."""
        if not checks:
            return self.draw
        if self._plan is not None and NATIVE is not None:
            return NATIVE.Fit(self._plan, score, checks, tries)
        draw, rand = self.draw, self._stream.random

        def fit() -> list[list[int]]:
            deal = draw()
            for _ in range(tries):
                p = 1.0
                for i, w, odds in checks:
                    p *= odds[w + sum([score[x] for x in deal[i]])]
                if rand() < p:
                    return deal
                deal = draw()
            return deal

        return fit

    def _draw_exact(self) -> list[list[int]]:
        """The programme walked by its exact counts, then each type's cards shuffled out
        (a partial Fisher-Yates): the compiled ``Plan.draw`` does the same, number for
        number."""
        below = self._stream.below
        hands: list[list[int]] = [[] for _ in self.hidden.seats]
        caps = self.hidden.sizes
        last = len(self._types) - 1
        for t, cards in enumerate(self._types):
            if t == last and self._masks[t] == self._full:
                split = caps
            else:
                total, cums, splits, afters = self._expand(t, caps)
                a = bisect_right(cums, below(total))
                split, caps = splits[a], afters[a]
            k = sum(split)
            if k:
                pool = list(cards)
                n = len(pool)
                for i in range(k):
                    j = i + below(n - i)
                    pool[i], pool[j] = pool[j], pool[i]
                pos = 0
                for i, got in zip(self._seats_of[t], split, strict=True):
                    hands[i] += pool[pos:pos + got]
                    pos += got
        for hand in hands:
            hand.sort()
        return hands

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
