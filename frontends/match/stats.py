"""Statistics for match results: intervals, paired differences, Elo, ratings, a GSPRT.

Pure functions on lists of numbers, no I/O, so the match runner's arithmetic can be
tested on its own. The unit of sampling is the *deal*: every bot's results are first
averaged over all the games played on one deal (all seat rotations), and deals are
independent draws, so Student-t intervals over deals are honest even though the games
within a deal are strongly correlated (that correlation is what duplicate play buys).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from statistics import NormalDist
from typing import Any

import attrs

# Two-sided 95% Student-t critical values for 1..30 degrees of freedom.
_T95 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip


def t_critical(df: int, level: float = 0.95) -> float:
    """The two-sided Student-t critical value; exact table to 30 df at 95%, else expansion."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be at least 1, not {df}")
    if level == 0.95 and df <= len(_T95):
        return _T95[df - 1]
    z = NormalDist().inv_cdf(0.5 + level / 2)
    # Cornish-Fisher expansion of the t quantile in powers of 1/df
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    return z + g1 / df + g2 / df**2 + g3 / df**3


@attrs.frozen(slots=True)
class Estimate:
    """A sample mean and its 95% interval; ``lo``/``hi`` are NaN with fewer than 2 samples."""

    mean: float
    lo: float
    hi: float
    n: int

    @property
    def half_width(self) -> float:
        return (self.hi - self.lo) / 2

    def excludes(self, value: float = 0.0) -> bool:
        """True when the interval lies wholly on one side of ``value``."""
        return self.n >= 2 and (self.lo > value or self.hi < value)

    def clip(self, low: float, high: float) -> Estimate:
        """The interval cut to where the measure can lie (a share to [0, 1], say).

        A Student-t interval on bounded data can poke past the bounds; the true mean
        cannot, so cutting loses nothing and reads better.
        """
        if self.n < 2:
            return self
        return Estimate(self.mean, max(self.lo, low), min(self.hi, high), self.n)

    def as_dict(self) -> dict[str, float | int | None]:
        def num(x: float) -> float | None:
            return None if math.isnan(x) else round(x, 6)

        return {"mean": num(self.mean), "lo": num(self.lo), "hi": num(self.hi), "n": self.n}


def mean(xs: Sequence[float]) -> float:
    return math.fsum(xs) / len(xs) if xs else math.nan


def variance(xs: Sequence[float]) -> float:
    """The unbiased sample variance (n - 1 in the denominator)."""
    n = len(xs)
    if n < 2:
        return math.nan
    m = mean(xs)
    return math.fsum((x - m) ** 2 for x in xs) / (n - 1)


def mean_ci(xs: Sequence[float], level: float = 0.95) -> Estimate:
    """The mean of independent samples with its Student-t interval."""
    n = len(xs)
    m = mean(xs)
    if n < 2:
        return Estimate(m, math.nan, math.nan, n)
    half = t_critical(n - 1, level) * math.sqrt(variance(xs) / n)
    return Estimate(m, m - half, m + half, n)


def paired_diff(a: Sequence[float], b: Sequence[float], level: float = 0.95) -> Estimate:
    """Mean of a[i] - b[i] over the same deals, with its interval."""
    if len(a) != len(b):
        raise ValueError(f"paired samples differ in length: {len(a)} and {len(b)}")
    return mean_ci([x - y for x, y in zip(a, b, strict=True)], level)


def mean_rank(scores: Sequence[float], *, low_wins: bool = False) -> list[float]:
    """1-based ranks, best first; tied scores share the mean of their places."""
    order = sorted(range(len(scores)), key=lambda i: scores[i], reverse=not low_wins)
    ranks = [0.0] * len(scores)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and scores[order[j + 1]] == scores[order[i]]:
            j += 1
        shared = (i + j) / 2 + 1
        for k in range(i, j + 1):
            ranks[order[k]] = shared
        i = j + 1
    return ranks


# --------------------------------------------------------------------------- sequential test


@attrs.frozen(slots=True)
class Sprt:
    """A Gaussian sequential probability ratio test on a mean difference.

    H0: the mean difference is ``d0``; H1: it is ``d1``. Samples are assumed normal with
    the variance estimated from the data (the "GSPRT" that fishtest and fastchess use for
    pentanomial results). ``alpha`` and ``beta`` are the error rates the bounds aim at.
    """

    d0: float
    d1: float
    alpha: float = 0.05
    beta: float = 0.05
    min_samples: int = 10

    def __attrs_post_init__(self) -> None:
        if self.d0 == self.d1:
            raise ValueError("the two hypotheses must differ: d0 == d1")
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not 0 < value < 0.5:
                raise ValueError(f"{name} must be between 0 and 0.5, not {value}")

    @property
    def lower(self) -> float:
        """At or below this log-likelihood ratio H0 is accepted."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """At or above this log-likelihood ratio H1 is accepted."""
        return math.log((1 - self.beta) / self.alpha)

    def llr(self, xs: Sequence[float]) -> float:
        """Log-likelihood ratio of H1 over H0 for normal samples with estimated variance."""
        n = len(xs)
        if n < 2:
            return 0.0
        var = variance(xs)
        if var <= 0:
            # every sample equal: the data sit exactly on one side; make it decisive
            var = 1e-12
        m = mean(xs)
        return n * (self.d1 - self.d0) * (m - (self.d0 + self.d1) / 2) / var

    def decide(self, xs: Sequence[float]) -> str | None:
        """"H0", "H1", or None while the evidence is still short of either bound."""
        if len(xs) < self.min_samples:
            return None
        llr = self.llr(xs)
        if llr >= self.upper:
            return "H1"
        if llr <= self.lower:
            return "H0"
        return None


# --------------------------------------------------------------------------- per-game outcomes


def wilson(successes: float, n: int, level: float = 0.95) -> Estimate:
    """A share of ``n`` games with Wilson's score interval (a tie's share counts as part).

    Read on per-game outcomes, not on per-deal means: a bot that won every game shows
    [lo, 1] with lo from the number of games, not a floor put on a handful of deals.
    """
    if n < 1:
        return Estimate(math.nan, math.nan, math.nan, 0)
    p = min(1.0, max(0.0, successes / n))
    if n < 2:
        return Estimate(p, math.nan, math.nan, n)
    z = NormalDist().inv_cdf((1 + level) / 2)
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return Estimate(p, max(0.0, centre - half), min(1.0, centre + half), n)


def elo(score: float) -> float:
    """The Elo difference that expects ``score`` (0..1); infinite at 0 and 1."""
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1) + 0.0  # + 0.0: never print -0.0


def _erf_share(z: float) -> float:
    """The standard normal's distribution function at ``z``."""
    return 0.5 * (1 + math.erf(z / math.sqrt(2)))


@attrs.frozen(slots=True)
class HeadToHead:
    """Two bots' games: A's wins, losses and draws against B, and A's score on each deal.

    A game is A's win when A's share of the win is larger than B's (a bot in several seats
    adds up its seats), a loss when it is smaller, and a draw when they are equal. The
    games of one deal are paired (the same cards, the seats swapped), so the interval and
    LOS are read on the deals, not the games: fastchess's pentanomial statistics.
    ``deals`` holds A's points on each counted deal (1 a win, 1/2 a draw), summed over the
    deal's ``per_deal`` games.
    """

    a: str
    b: str
    wins: int
    losses: int
    draws: int
    deals: tuple[float, ...] = ()
    per_deal: int = 0

    def __attrs_post_init__(self) -> None:
        # fishtest's check: the per-deal counts must add up to the per-game ones
        if self.deals and (len(self.deals) * self.per_deal != self.games
                           or not math.isclose(math.fsum(self.deals),
                                               self.wins + self.draws / 2)):
            raise ValueError(
                f"per-deal scores ({len(self.deals)} deals of {self.per_deal} games, "
                f"{math.fsum(self.deals):g} points) disagree with the games "
                f"({self.wins} - {self.losses} - {self.draws})")

    @classmethod
    def from_games(cls, a: str, b: str, games: Sequence[tuple[int, float]]) -> HeadToHead:
        """From (deal, A's score in the game) pairs, every deal with as many games."""
        by_deal: dict[int, list[float]] = {}
        for deal, score in games:
            by_deal.setdefault(deal, []).append(score)
        sizes = {len(v) for v in by_deal.values()}
        if len(sizes) > 1:
            raise ValueError(f"deals with different numbers of games: {sorted(sizes)}")
        scores = [s for _, s in games]
        return cls(a, b, scores.count(1.0), scores.count(0.0), scores.count(0.5),
                   tuple(math.fsum(v) for _, v in sorted(by_deal.items())),
                   sizes.pop() if sizes else 0)

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.draws

    @property
    def score(self) -> float:
        return (self.wins + self.draws / 2) / self.games if self.games else math.nan

    @property
    def elo(self) -> float:
        return elo(self.score)

    def counts(self) -> list[int]:
        """How many deals A scored 0, 1/2, 1, ... ``per_deal`` points on (pentanomial for 2)."""
        out = [0] * (2 * self.per_deal + 1)
        for points in self.deals:
            out[round(2 * points)] += 1
        return out

    def deal_score(self) -> Estimate:
        """A's mean score per game, with its Student-t interval over the deals."""
        if not self.per_deal:
            return Estimate(math.nan, math.nan, math.nan, 0)
        return mean_ci([d / self.per_deal for d in self.deals])

    def elo_interval(self) -> tuple[float, float]:
        """The 95% Elo interval: the per-deal score's interval mapped through :func:`elo`."""
        est = self.deal_score()
        if est.n < 2:
            return math.nan, math.nan
        return elo(max(0.0, est.lo)), elo(min(1.0, est.hi))

    def elo_margin(self) -> float:
        """Half the width of the Elo interval; inf when one end is unbounded."""
        lo, hi = self.elo_interval()
        if math.isnan(lo) or self.score in (0.0, 1.0):
            return math.nan  # no spread to measure, or the difference itself is unbounded
        return (hi - lo) / 2

    @property
    def los(self) -> float:
        """Likelihood of superiority: the chance that A is the stronger, from the deals."""
        est = self.deal_score()
        if est.n < 2:
            return math.nan
        se = math.sqrt(variance([d / self.per_deal for d in self.deals]) / est.n)
        if se == 0:
            return 1.0 if est.mean > 0.5 else 0.0 if est.mean < 0.5 else 0.5
        return _erf_share((est.mean - 0.5) / se)

    def lines(self) -> list[str]:
        def num(x: float) -> str:
            return "inf" if x == math.inf else "-inf" if x == -math.inf else f"{x:.1f}"

        draw = 100 * self.draws / self.games if self.games else 0.0
        margin = self.elo_margin()
        lo, hi = self.elo_interval()
        if math.isnan(margin):
            spread = ""
        elif math.isinf(margin):  # one end unbounded: +/- would say nothing
            spread = f" [{num(lo)}, {num(hi)}]"
        else:
            spread = f" +/- {num(margin)}"
        los = "-" if math.isnan(self.los) else f"{100 * self.los:.1f} %"
        k = self.per_deal
        label = "Ptnml(0-2)" if k == 2 else f"Per deal (0-{k})"
        deals = len(self.deals)
        return [
            f"Score of {self.a} vs {self.b}: {self.wins} - {self.losses} - {self.draws}  "
            f"[{self.score:.3f}] {self.games}",
            f"{label}: {self.counts()}, {deals} deal{'' if deals == 1 else 's'} "
            f"of {k} game{'' if k == 1 else 's'}",
            f"Elo difference: {num(self.elo)}{spread}, "
            f"LOS: {los}, DrawRatio: {draw:.1f} %",
        ]

    def as_dict(self) -> dict[str, Any]:
        def num(x: float) -> float | None:
            return None if math.isnan(x) or math.isinf(x) else round(x, 3)

        lo, hi = self.elo_interval()
        return {"a": self.a, "b": self.b, "wins": self.wins, "losses": self.losses,
                "draws": self.draws, "score": num(self.score), "elo": num(self.elo),
                "elo_margin": num(self.elo_margin()), "elo_lo": num(lo), "elo_hi": num(hi),
                "los": num(self.los), "deals": len(self.deals), "games_per_deal": self.per_deal,
                "per_deal_counts": self.counts()}


@attrs.frozen(slots=True)
class Rating:
    """A Plackett-Luce rating (openskill): ``mu`` with its uncertainty ``sigma``."""

    name: str
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """mu - 3 sigma: the rating the bot is very likely above; leaderboards sort on it."""
        return self.mu - 3 * self.sigma

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "mu": round(self.mu, 3), "sigma": round(self.sigma, 3),
                "ordinal": round(self.ordinal, 3)}


def plackett_luce(names: Sequence[str], games: Iterable[Sequence[tuple[int, float]]]
                  ) -> list[Rating]:
    """Ratings from finishing orders: each game is (bot, place) pairs, 1 the best, ties equal.

    openskill's Plackett-Luce model takes a whole finishing order at once, so a game of
    four bots is one update, not six pairwise ones; games are taken in schedule order.
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = [model.rating(name=name) for name in names]
    for game in games:
        if len(game) < 2:
            continue
        teams = [[ratings[bot]] for bot, _ in game]
        new = model.rate(teams, ranks=[place for _, place in game])
        for (bot, _), team in zip(game, new, strict=True):
            ratings[bot] = team[0]
    return [Rating(name, r.mu, r.sigma) for name, r in zip(names, ratings, strict=True)]
