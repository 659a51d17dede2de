"""The sampler draws only consistent deals, and draws them uniformly (checked by
enumerating every consistent deal of small positions), on the compiled programme
(core/bots/_sampler.pyx) and on the pure-Python one, which draw the same deals."""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable
from itertools import combinations
from typing import Any

import attrs
import pytest

from xactika.core import (
    Call,
    Card,
    Config,
    RandomAgent,
    State,
    legal_actions,
    new_game,
    step,
    view,
)
from xactika.core.bots import sampler as sampler_module
from xactika.core.bots.sampler import (
    BarredSampler,
    Deal,
    DealSampler,
    Hidden,
    _greedy,
    hidden_of,
)

PATHS = [pytest.param(True, id="compiled"), pytest.param(False, id="pure")]


def make(hidden: Hidden, rng: random.Random, compiled: bool, **kw: Any) -> DealSampler:
    """A sampler on the path asked for; the compiled one, which every install with a C
    compiler builds (setup.py), must really be in use."""
    sampler = DealSampler(hidden, rng, compiled=compiled, **kw)
    assert sampler.compiled == (compiled and sampler.exact)
    return sampler


def cards(text: str) -> tuple[Card, ...]:
    return tuple(Card.parse(t) for t in text.split())


def calls(text: str) -> frozenset[Call]:
    return frozenset(Call.parse(t) for t in text.split())


def enumerate_deals(hidden: Hidden) -> list[Deal]:
    """Every consistent deal, by brute force."""
    out: list[Deal] = []

    def rec(i: int, pool: tuple[Card, ...], acc: tuple[tuple[Card, ...], ...]) -> None:
        if i == len(hidden.seats):
            out.append(acc)
            return
        allowed = [c for c in pool if hidden.allows(i, c)]
        for hand in combinations(allowed, hidden.sizes[i]):
            rest = tuple(c for c in pool if c not in hand)
            rec(i + 1, rest, (*acc, hand))

    rec(0, hidden.cards, ())
    return out


def key(deal: Deal) -> tuple[frozenset[Card], ...]:
    return tuple(frozenset(h) for h in deal)


SMALL = [
    # two seats with a void each: four types of card, one of them only seat 3 may hold
    Hidden(cards("1112 2112 1212 1111 1123 1122 2221 3331"), (1, 2, 3), (2, 2, 1),
           (calls("2st"), calls("1ba"), frozenset())),
    # every seat void in something: 3331 can only be set aside
    Hidden(cards("1112 2112 1212 1111 1123 1122 2221 3331 2321"), (1, 2, 3), (2, 2, 2),
           (calls("2st 1cu"), calls("1ba"), calls("3ba"))),
    # a bigger one: 1,008 deals, five cards set aside
    Hidden(cards("1112 2112 1212 1111 1123 1122 2221 3331 2321 3113 2232"), (1, 2, 3),
           (2, 2, 2), (calls("2st"), calls("1ba 3co"), frozenset())),
    # two seats, one aside card, and a seat left only four cards it may hold
    Hidden(cards("1112 2112 1212 1111 1123 1122 2221 3331"), (1, 2), (3, 4),
           (calls("2st"), frozenset())),
]


@pytest.mark.parametrize("compiled", PATHS)
@pytest.mark.parametrize("hidden", SMALL)
def test_count_matches_enumeration(hidden: Hidden, compiled: bool) -> None:
    every = enumerate_deals(hidden)
    assert len(every) == len({key(d) for d in every})
    assert make(hidden, random.Random(0), compiled).count() == len(every)


@pytest.mark.parametrize("compiled", PATHS)
@pytest.mark.parametrize("hidden", SMALL)
def test_samples_are_uniform_over_consistent_deals(hidden: Hidden, compiled: bool) -> None:
    every = {key(d) for d in enumerate_deals(hidden)}
    sampler = make(hidden, random.Random(12345), compiled)
    assert sampler.exact
    per = 30
    draws = per * len(every)
    seen = Counter(key(sampler.sample()) for _ in range(draws))
    assert set(seen) <= every  # nothing inconsistent
    chi2 = sum((seen[d] - per) ** 2 / per for d in every)
    df = len(every) - 1
    # a generous bound: about 6 standard deviations above the chi-square mean
    assert chi2 < df + 6 * math.sqrt(2 * df), (chi2, df)
    assert max(abs(seen[d] - per) for d in every) < 6 * math.sqrt(per)


def test_biased_sampler_is_caught() -> None:
    """The uniformity check has teeth: the greedy fill (the last-resort fallback) fails it,
    and its bias stays within the bound the module documents."""
    hidden = SMALL[0]
    every = {key(d) for d in enumerate_deals(hidden)}
    rng = random.Random(7)
    per = 30
    seen: Counter[tuple[frozenset[Card], ...]] = Counter()
    while sum(seen.values()) < per * len(every):
        got = _greedy(hidden, rng)
        if got is not None:
            assert hidden.consistent(got)
            seen[key(got)] += 1
    chi2 = sum((seen[d] - per) ** 2 / per for d in every)
    df = len(every) - 1
    assert chi2 > df + 6 * math.sqrt(2 * df)
    total = sum(seen.values())
    tv = 0.5 * sum(abs(seen[d] / total - 1 / len(every)) for d in every)
    assert tv < 0.5


@pytest.mark.parametrize("hidden", SMALL)
def test_fallback_chain_is_close_to_uniform(hidden: Hidden) -> None:
    """The swap chain (used when exact counting is too costly) passes the same test."""
    every = {key(d) for d in enumerate_deals(hidden)}
    sampler = DealSampler(hidden, random.Random(99), max_work=0)
    assert not sampler.exact
    per = 30 if len(every) < 200 else 8  # the chain is slower: fewer draws on the big one
    seen = Counter(key(sampler.sample()) for _ in range(per * len(every)))
    assert set(seen) <= every
    chi2 = sum((seen[d] - per) ** 2 / per for d in every)
    df = len(every) - 1
    assert chi2 < df + 6 * math.sqrt(2 * df), (chi2, df)


def test_fallback_stays_consistent() -> None:
    hidden = SMALL[1]
    sampler = DealSampler(hidden, random.Random(3), max_work=0)
    assert not sampler.exact
    for _ in range(200):
        assert hidden.consistent(sampler.sample())


@pytest.mark.parametrize("compiled", PATHS)
def test_no_consistent_deal_is_an_error(compiled: bool) -> None:
    hidden = Hidden(cards("1112 2112"), (1,), (2,), (calls("2st"),))
    with pytest.raises(ValueError, match="no deal"):
        DealSampler(hidden, compiled=compiled)


@pytest.mark.parametrize("compiled", PATHS)
@pytest.mark.parametrize("players", [2, 4, 6])
def test_real_positions_sample_consistently(players: int, compiled: bool) -> None:
    """In played games the true deal is always consistent with the seat's knowledge (no
    constraint is wrong) and every sample is consistent (no constraint is missed)."""
    rng = random.Random(players)
    for seed in range(4 if players < 6 else 1):
        state = new_game(Config(mode="win", players=players, seed=seed, rounds=1))
        agents = [RandomAgent(seed * 10 + s) for s in range(players)]
        while True:
            legal = legal_actions(state)
            if legal.seat is None:
                break
            seat = legal.seat
            v = view(state, seat)
            hidden = hidden_of(v)
            truth = tuple(state.hands[s] for s in hidden.seats)
            assert hidden.consistent(truth)
            assert set(hidden.cards).isdisjoint(v.hand)
            sampler = DealSampler(hidden, rng, compiled=compiled)
            for _ in range(3):
                assert hidden.consistent(sampler.sample())
            state, _ = step(state, agents[seat].choose(v, legal))


def test_voids_are_exact_shape_counts() -> None:
    """A seat that did not follow "2 stars" may still hold 1 or 3 stars."""
    hidden = Hidden(cards("1112 1111 1113"), (1,), (1,), (calls("2st"),))
    every = enumerate_deals(hidden)
    assert {d[0] for d in every} == {cards("1111"), cards("1113")}


def _barred_position() -> Hidden:
    """A real 4-player position two tricks in, with cards barred for the hidden seats."""
    hidden = hidden_of(view(_two_tricks_in(), 0))
    barred = []
    for i in range(len(hidden.seats)):
        ok = [c for c in hidden.cards if hidden.allows(i, c)]
        barred.append(frozenset(ok[i::4]))  # a quarter of each seat's cards, a different one
    return attrs.evolve(hidden, barred=tuple(barred))


def _two_tricks_in() -> State:
    state = new_game(Config(mode="bid", players=4, seed=11, rounds=1))
    agent = RandomAgent(5)
    while len(state.tricks) < 2:
        legal = legal_actions(state)
        state, _ = step(state, agent.choose(view(state, legal.seat or 0), legal))
    return state


def _marginals(sample: Callable[[], Deal], draws: int) -> Counter[tuple[int, Card]]:
    seen: Counter[tuple[int, Card]] = Counter()
    for _ in range(draws):
        for i, hand in enumerate(sample()):
            for c in hand:
                seen[i, c] += 1
    return seen


def test_barred_sampler_keeps_bars_and_is_close_to_uniform() -> None:
    """Seat-by-seat draws respect every bar and void, and where many cards are set aside
    (any real round) each card lands in each seat about as often as under the exact,
    uniform programme; the plain sampler, which ignores the bars, is far off."""
    hidden = _barred_position()
    assert any(hidden.barred)
    fast = BarredSampler(hidden, random.Random(1))
    for _ in range(200):
        assert hidden.consistent(fast.sample())
    draws = 3000
    exact = _marginals(DealSampler(hidden, random.Random(2)).sample, draws)
    got = _marginals(fast.sample, draws)
    keys = set(exact) | set(got)
    assert max(abs(got[k] - exact[k]) for k in keys) / draws < 0.04
    plain = _marginals(DealSampler(attrs.evolve(hidden, barred=()), random.Random(3)).sample,
                       draws)
    assert max(abs(plain[k] - exact[k]) for k in set(plain) | keys) / draws > 0.04


def test_barred_sampler_without_a_deal_is_an_error() -> None:
    hidden = Hidden(cards("1112 2112 1111"), (1,), (2,), (frozenset(),),
                    barred=(frozenset(cards("1112 2112")),))
    with pytest.raises(ValueError, match="no deal"):
        BarredSampler(hidden)


def test_barred_sampler_falls_back_on_its_last_deal_at_a_dead_end() -> None:
    """Seat-by-seat draws can corner a later seat; after 100 dead ends in a row the last
    completed deal comes back instead of an error, so a search never stops short."""
    a, b, c = cards("1111 1112 1113")
    hidden = Hidden((a, b, c), (1, 2), (2, 1), (frozenset(), frozenset()),
                    barred=(frozenset(), frozenset({c})))
    sampler = BarredSampler(hidden, random.Random(4))
    first = sampler.sample()
    assert hidden.consistent(first)

    class Cornering(random.Random):
        def sample(self, population: Any, k: int, *, counts: Any = None) -> list[Any]:
            return sorted(population, key=str)[:k]  # seat 1 takes 1111 and 1112: a dead end

    sampler.rng = Cornering()
    assert sampler.sample() == first


def _positions(players: int, seed: int) -> list[Hidden]:
    """What each seat to act could not see, through a round of random play."""
    state = new_game(Config(mode="bid", players=players, seed=seed, rounds=1))
    agent = RandomAgent(seed)
    out = []
    while (legal := legal_actions(state)).seat is not None:
        v = view(state, legal.seat)
        out.append(hidden_of(v))
        state, _ = step(state, agent.choose(v, legal))
    return out


def test_both_paths_draw_the_same_deals() -> None:
    """For the same seed the compiled and the pure programme count the same, draw the
    same deals and, through ``fitting``, accept the same ones, on real positions of 2 to
    7 players: counts past 64 bits included, and past 128 (where the compiled path hands
    over to the Python programme) and the Markov chain too."""
    score = [x % 3 for x in range(81)]
    odds = [1 / (1 + w) for w in range(40)]
    wide = beyond = chain = n = 0
    for players in (2, 3, 4, 5, 7):
        for hidden in _positions(players, seed=players):
            a = DealSampler(hidden, random.Random(n))
            b = DealSampler(hidden, random.Random(n), compiled=False)
            n += 1
            assert (a.exact, a.count()) == (b.exact, b.count())
            assert not b.compiled
            wide += a.count().bit_length() > 64
            beyond += a.exact and not a.compiled
            chain += not a.exact
            assert [a.draw() for _ in range(4)] == [b.draw() for _ in range(4)]
            checks = [(i, 1, odds) for i in range(min(2, len(hidden.seats)))]
            fit_a, fit_b = a.fitting(score, checks, 5), b.fitting(score, checks, 5)
            assert [fit_a() for _ in range(4)] == [fit_b() for _ in range(4)]
            assert a.rng.getstate() == b.rng.getstate()
    assert wide > 20 and beyond > 5 and chain > 0


@pytest.mark.parametrize("compiled", PATHS)
def test_fitting_draws_from_the_posterior(compiled: bool) -> None:
    """``fitting`` is a rejection sampler: with odds 0 for the hands of seat 0 without
    card 1111 and 1 for those with it, every deal has it there, uniformly over those."""
    hidden = SMALL[2]
    target = cards("1111")[0]
    every = {key(d) for d in enumerate_deals(hidden) if target in d[0]}
    sampler = make(hidden, random.Random(5), compiled)
    score = [int(c == target) for c in sampler_module.CARDS]
    fit = sampler.fitting(score, [(0, 0, (0.0, 1.0))], 400)
    per = 30
    seen = Counter(key(tuple(tuple(sampler_module.CARDS[x] for x in h) for h in fit()))
                   for _ in range(per * len(every)))
    assert set(seen) <= every
    chi2 = sum((seen[d] - per) ** 2 / per for d in every)
    df = len(every) - 1
    assert chi2 < df + 6 * math.sqrt(2 * df), (chi2, df)


def test_the_stream_is_splitmix64_and_below_is_uniform() -> None:
    """The published splitmix64 outputs (seed 1234567), and ``below`` in range and flat,
    under 2**64 (Lemire) and over it (whole words)."""
    stream = sampler_module.Stream(1234567)
    assert [stream.next() for _ in range(3)] == [
        6457827717110365317, 3203168211198807973, 9817491932198370423]
    for n in (2, 3, 7, 600, 3 << 70):
        draws = [stream.below(n) for _ in range(3000)]
        assert all(0 <= r < n for r in draws)
        bins = Counter(draws) if n < 10 else Counter(r * 6 // n for r in draws)
        k = n if n < 10 else 6
        assert len(bins) == k
        assert max(abs(c - 3000 / k) for c in bins.values()) < 6 * math.sqrt(3000 / k)
    assert stream.below(1) == 0 and 0 <= stream.random() < 1


def test_the_compiled_programme_refuses_bad_input() -> None:
    """Card indices outside the deck or given twice, and masks naming other seats, are
    ValueErrors, not stray reads."""
    native = sampler_module.NATIVE
    assert native is not None  # built by every install with a C compiler
    for types, masks in (([[0, 81]], [1]), ([[3], [3]], [1, 3]), ([[-1]], [1]),
                         ([[0]], [4])):
        with pytest.raises(ValueError):
            native.Plan(types, masks, (1, 1), 3, 0, 100)
    plan = native.Plan([[0, 1, 2]], [3], (1, 1), 3, 0, 100)
    assert plan.count() == 6
    with pytest.raises(ValueError):
        native.Fit(plan, [0] * 80, [], 3)
    with pytest.raises(ValueError):
        native.Fit(plan, [0] * 81, [(2, 0, (1.0,))], 3)
