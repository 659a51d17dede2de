"""The match runner's statistics: intervals, ranks and the sequential test."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from xactika.frontends.match.stats import (
    HeadToHead,
    Sprt,
    mean_ci,
    mean_rank,
    paired_diff,
    plackett_luce,
    t_critical,
    wilson,
)


@pytest.mark.parametrize(
    ("df", "expected"),
    [(1, 12.706), (5, 2.571), (30, 2.042), (40, 2.021), (60, 2.000), (120, 1.980),
     (1000, 1.962)],
)
def test_t_critical_matches_published_tables(df: int, expected: float) -> None:
    assert t_critical(df) == pytest.approx(expected, abs=0.002)


def test_mean_ci_by_hand() -> None:
    xs = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]
    est = mean_ci(xs)
    # mean 5, sample sd sqrt(32/7), t(7) = 2.365 (published table)
    half = 2.365 * math.sqrt(32 / 7 / 8)
    assert est.mean == pytest.approx(5.0)
    assert est.lo == pytest.approx(5.0 - half, abs=1e-3)
    assert est.hi == pytest.approx(5.0 + half, abs=1e-3)
    assert est.n == 8


def test_clip_cuts_an_interval_to_the_possible_range() -> None:
    est = mean_ci([0.0, 1.0, 1.0])
    assert est.lo < 0 < 1 < est.hi
    cut = est.clip(0, 1)
    assert (cut.mean, cut.lo, cut.hi, cut.n) == (est.mean, 0, 1, 3)
    inside = mean_ci([0.4, 0.6] * 10)
    assert inside.clip(0, 1) == inside


def test_mean_ci_of_one_sample_has_no_interval() -> None:
    est = mean_ci([3.0])
    assert est.mean == 3.0 and math.isnan(est.lo) and not est.excludes(0)
    assert est.as_dict() == {"mean": 3.0, "lo": None, "hi": None, "n": 1}


def test_interval_covers_the_true_mean_about_95_percent() -> None:
    rng = random.Random(7)
    hits = 0
    trials = 2000
    for _ in range(trials):
        est = mean_ci([rng.gauss(1.0, 2.0) for _ in range(6)])
        hits += est.lo <= 1.0 <= est.hi
    assert 0.93 <= hits / trials <= 0.97


def test_paired_diff_removes_the_shared_deal_luck() -> None:
    rng = random.Random(1)
    luck = [rng.gauss(0, 10) for _ in range(40)]
    a = [x + 1.0 for x in luck]
    b = [x + rng.gauss(0, 0.1) for x in luck]
    d = paired_diff(a, b)
    assert d.excludes(0) and d.lo > 0.9 and d.hi < 1.1
    # unpaired, the same data would not settle anything
    assert not (mean_ci(a).lo > mean_ci(b).hi)
    with pytest.raises(ValueError, match="differ in length"):
        paired_diff([1.0], [1.0, 2.0])


def test_mean_rank_shares_ties_and_honours_low_wins() -> None:
    assert mean_rank([5, 9, 5, 1]) == [2.5, 1.0, 2.5, 4.0]
    assert mean_rank([5, 9, 5, 1], low_wins=True) == [2.5, 4.0, 2.5, 1.0]
    assert mean_rank([3, 3]) == [1.5, 1.5]


@given(st.lists(st.integers(-20, 20), min_size=1, max_size=10))
def test_ranks_sum_like_places(scores: list[int]) -> None:
    n = len(scores)
    ranks = mean_rank(scores)
    assert sum(ranks) == pytest.approx(n * (n + 1) / 2)
    for i in range(n):
        for j in range(n):
            if scores[i] > scores[j]:
                assert ranks[i] < ranks[j]


def _run_sprt(test: Sprt, shift: float, rng: random.Random, cap: int = 5000) -> str | None:
    xs: list[float] = []
    while len(xs) < cap:
        xs.append(rng.gauss(shift, 1.0))
        verdict = test.decide(xs)
        if verdict is not None:
            return verdict
    return None


def test_sprt_finds_a_real_difference_and_accepts_none() -> None:
    rng = random.Random(3)
    test = Sprt(0.0, 0.5)
    verdicts_h1 = [_run_sprt(test, 0.5, rng) for _ in range(100)]
    verdicts_h0 = [_run_sprt(test, 0.0, rng) for _ in range(100)]
    assert verdicts_h1.count("H1") >= 90
    assert verdicts_h0.count("H0") >= 90


def test_sprt_waits_for_enough_samples_and_checks_its_settings() -> None:
    test = Sprt(0.0, 1.0, min_samples=10)
    assert test.decide([5.0] * 9) is None
    assert test.decide([5.0] * 10) == "H1"
    assert test.decide([0.0] * 10) == "H0"
    assert test.lower < 0 < test.upper
    with pytest.raises(ValueError, match="must differ"):
        Sprt(0.2, 0.2)
    with pytest.raises(ValueError, match="alpha"):
        Sprt(0.0, 1.0, alpha=0.7)


def test_wilson_is_read_on_games_and_never_leaves_zero_to_one() -> None:
    # a bot that won all 20 of its games: 1.0, and an interval from 20 games, not a floor
    est = wilson(20, 20)
    assert est.mean == 1.0 and est.hi == 1.0
    assert est.lo == pytest.approx(0.8389, abs=1e-4)  # Wilson's published 20/20 bound
    half = wilson(10, 20)
    assert (half.lo, half.hi) == (pytest.approx(0.2993, abs=1e-4), pytest.approx(0.7007, abs=1e-4))
    assert math.isnan(wilson(1, 1).lo) and wilson(0, 0).n == 0
    assert wilson(2.5, 5).mean == 0.5  # a tie's share counts as part of a win


def test_head_to_head_is_cutechess_arithmetic() -> None:
    h = HeadToHead("a", "b", 6, 2, 2)
    assert h.games == 10 and h.score == pytest.approx(0.7)
    assert h.elo == pytest.approx(147.19, abs=0.01)  # -400 log10(1/0.7 - 1)
    assert h.los == pytest.approx(0.9214, abs=1e-4)  # 0.5 (1 + erf(4 / sqrt(16)))
    lines = h.lines()
    assert lines[0] == "Score of a vs b: 6 - 2 - 2  [0.700] 10"
    assert lines[1].startswith("Elo difference: 147.2 +/- ")
    assert lines[1].endswith(", LOS: 92.1 %, DrawRatio: 20.0 %")
    assert 100 < h.elo_margin() < 400
    even = HeadToHead("a", "b", 3, 3, 4)
    assert even.elo == 0 and even.los == 0.5
    sweep = HeadToHead("a", "b", 5, 0, 0)
    assert sweep.lines()[1] == "Elo difference: inf, LOS: 98.7 %, DrawRatio: 0.0 %"


def test_plackett_luce_orders_bots_by_their_finishing_places() -> None:
    # c always first, a always last, with a tie for first once: multi-player orders at once
    games = [[(0, 3.0), (1, 2.0), (2, 1.0)]] * 8 + [[(0, 3.0), (1, 1.5), (2, 1.5)]]
    a, b, c = plackett_luce(["a", "b", "c"], games)
    assert c.mu > b.mu > a.mu
    assert all(r.sigma < 25 / 3 for r in (a, b, c))  # the games taught it something
    assert (a.name, c.ordinal) == ("a", c.mu - 3 * c.sigma)
    untouched = plackett_luce(["x", "y"], [[(0, 1.0)]])  # one bot alone rates nothing
    assert untouched[0].mu == untouched[1].mu == pytest.approx(25.0)
