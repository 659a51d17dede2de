"""The match runner's statistics: intervals, ranks and the sequential test."""

from __future__ import annotations

import math
import random
import statistics

import pytest
from hypothesis import given
from hypothesis import strategies as st

from xactika.frontends.match.stats import (
    HeadToHead,
    Sprt,
    elo,
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


def _deals(*points: float) -> list[tuple[int, float]]:
    """(deal, A's score) games from each deal's two game scores written as one number:
    2 = won both, 1.5 = a win and a draw, 1 = one each (or two draws), ..."""
    split = {2: (1, 1), 1.5: (1, 0.5), 1: (1, 0), 0.5: (0.5, 0), 0: (0, 0)}
    return [(d, g) for d, p in enumerate(points, 1) for g in split[p]]


def test_head_to_head_counts_games_like_cutechess_and_deals_like_fastchess() -> None:
    h = HeadToHead.from_games("a", "b", _deals(2, 1.5, 1, 1, 0.5, 2, 1, 2))
    assert (h.wins, h.losses, h.draws, h.games) == (10, 4, 2, 16)
    assert h.score == pytest.approx(11 / 16)
    assert h.elo == pytest.approx(-400 * math.log10(16 / 11 - 1))
    assert h.counts() == [0, 1, 3, 1, 3]  # Ptnml(0-2): LL, LD, WL+DD, WD, WW
    per_deal = [2 / 2, 1.5 / 2, 1 / 2, 1 / 2, 0.5 / 2, 2 / 2, 1 / 2, 2 / 2]
    m, sd = statistics.mean(per_deal), statistics.stdev(per_deal)
    half = 2.365 * sd / math.sqrt(8)  # Student t, 7 degrees of freedom
    lo, hi = h.elo_interval()
    assert (lo, hi) == (pytest.approx(elo(m - half)), pytest.approx(elo(m + half)))
    assert h.los == pytest.approx(statistics.NormalDist().cdf((m - 0.5) / (sd / math.sqrt(8))))
    lines = h.lines()
    assert lines[0] == "Score of a vs b: 10 - 4 - 2  [0.688] 16"
    assert lines[1] == "Ptnml(0-2): [0, 1, 3, 1, 3], 8 deals of 2 games"
    assert lines[2] == (f"Elo difference: {h.elo:.1f} +/- {(hi - lo) / 2:.1f}, "
                        f"LOS: {100 * h.los:.1f} %, DrawRatio: 12.5 %")


def test_paired_games_that_split_every_deal_are_an_exact_tie_not_a_wide_one() -> None:
    # each bot wins with the good cards: per game a coin toss, per deal always 1-1
    h = HeadToHead.from_games("a", "b", _deals(*[1] * 20))
    assert (h.wins, h.losses) == (20, 20)
    assert h.elo_interval() == (0.0, 0.0) and h.los == 0.5
    assert h.lines()[2].startswith("Elo difference: 0.0 +/- 0.0, LOS: 50.0 %")
    # the same 40 games as if independent would claim +/- 100 Elo and more
    coin = [1.0] * 20 + [0.0] * 20
    sd = statistics.stdev(coin)
    assert elo(0.5 + 1.96 * sd / math.sqrt(40)) > 100


def test_the_interval_is_wider_when_the_deal_decides_the_game() -> None:
    # every deal one-sided (2-0 or 0-2): games of a deal agree, so there are half as many
    # independent outcomes as games and the interval must widen by about sqrt(2)
    h = HeadToHead.from_games("a", "b", _deals(*[2] * 12 + [0] * 8))
    per_game = [1.0] * 24 + [0.0] * 16
    naive = 1.96 * statistics.stdev(per_game) / math.sqrt(40)
    est = h.deal_score()
    per_deal = [1.0] * 12 + [0.0] * 8
    assert est.half_width == pytest.approx(2.093 * statistics.stdev(per_deal) / math.sqrt(20))
    assert est.half_width / naive > 1.4  # sqrt(2) from pairing, a little more from t(19)
    lo, hi = h.elo_interval()
    assert hi - lo > elo(0.6 + naive) - elo(0.6 - naive)


def test_an_unbounded_end_shows_the_interval_not_plus_minus_inf() -> None:
    h = HeadToHead.from_games("a", "b", _deals(*[2] * 9, 1.5))  # 19 - 0 - 1
    assert (h.wins, h.losses, h.draws) == (19, 0, 1)
    lo, hi = h.elo_interval()
    assert hi == math.inf and math.isfinite(lo)
    line = h.lines()[2]
    assert "+/- inf" not in line
    assert line.startswith(f"Elo difference: {h.elo:.1f} [{lo:.1f}, inf], LOS: ")
    assert h.as_dict()["elo_hi"] is None and h.as_dict()["elo_lo"] == round(lo, 3)
    sweep = HeadToHead.from_games("a", "b", _deals(2, 2, 2))
    assert sweep.lines()[2] == "Elo difference: inf, LOS: 100.0 %, DrawRatio: 0.0 %"
    one = HeadToHead.from_games("a", "b", _deals(1.5))  # one deal: no interval, no LOS
    assert one.lines()[1:] == ["Ptnml(0-2): [0, 0, 0, 1, 0], 1 deal of 2 games",
                               f"Elo difference: {one.elo:.1f}, LOS: -, DrawRatio: 50.0 %"]


def test_per_deal_counts_must_agree_with_the_games() -> None:
    with pytest.raises(ValueError, match="disagree"):
        HeadToHead("a", "b", 3, 1, 0, deals=(2.0, 0.0), per_deal=2)  # 3 wins, 2 points
    with pytest.raises(ValueError, match="different numbers of games"):
        HeadToHead.from_games("a", "b", [(1, 1.0), (1, 0.0), (2, 1.0)])
    three = HeadToHead.from_games("a", "b", [(1, 1.0), (1, 0.5), (1, 0.0)])
    assert three.counts() == [0, 0, 0, 1, 0, 0, 0]
    assert three.lines()[1] == "Per deal (0-3): [0, 0, 0, 1, 0, 0, 0], 1 deal of 3 games"


def test_plackett_luce_orders_bots_by_their_finishing_places() -> None:
    # c always first, a always last, with a tie for first once: multi-player orders at once
    games = [[(0, 3.0), (1, 2.0), (2, 1.0)]] * 8 + [[(0, 3.0), (1, 1.5), (2, 1.5)]]
    a, b, c = plackett_luce(["a", "b", "c"], games)
    assert c.mu > b.mu > a.mu
    assert all(r.sigma < 25 / 3 for r in (a, b, c))  # the games taught it something
    assert (a.name, c.ordinal) == ("a", c.mu - 3 * c.sigma)
    untouched = plackett_luce(["x", "y"], [[(0, 1.0)]])  # one bot alone rates nothing
    assert untouched[0].mu == untouched[1].mu == pytest.approx(25.0)
