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
    return -400 * math.log10(1 / score - 1)


@attrs.frozen(slots=True)
class HeadToHead:
    """Two bots' games as cutechess-cli counts them: A's wins, losses and draws against B.

    A game is A's win when A's share of the win is larger than B's (a bot in several seats
    adds up its seats), a loss when it is smaller, and a draw when they are equal.
    """

    a: str
    b: str
    wins: int
    losses: int
    draws: int

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.draws

    @property
    def score(self) -> float:
        return (self.wins + self.draws / 2) / self.games if self.games else math.nan

    @property
    def elo(self) -> float:
        return elo(self.score)

    def elo_margin(self, level: float = 0.95) -> float:
        """Half the width of the Elo interval, from the per-game scores' spread."""
        n = self.games
        p = self.score
        if n < 2 or p in (0.0, 1.0):  # no spread to measure; the difference is unbounded
            return math.nan
        var = (self.wins * (1 - p) ** 2 + self.draws * (0.5 - p) ** 2
               + self.losses * p**2) / n
        half = NormalDist().inv_cdf((1 + level) / 2) * math.sqrt(var / n)
        return (elo(min(1.0, p + half)) - elo(max(0.0, p - half))) / 2

    @property
    def los(self) -> float:
        """Likelihood of superiority: the chance that A is the stronger, draws aside."""
        decisive = self.wins + self.losses
        if not decisive:
            return 0.5
        return 0.5 * (1 + math.erf((self.wins - self.losses) / math.sqrt(2 * decisive)))

    def lines(self) -> list[str]:
        def num(x: float) -> str:
            return "inf" if x == math.inf else "-inf" if x == -math.inf else f"{x:.1f}"

        draw = 100 * self.draws / self.games if self.games else 0.0
        margin = self.elo_margin()
        spread = "" if math.isnan(margin) else f" +/- {num(margin)}"
        return [
            f"Score of {self.a} vs {self.b}: {self.wins} - {self.losses} - {self.draws}  "
            f"[{self.score:.3f}] {self.games}",
            f"Elo difference: {num(self.elo)}{spread}, "
            f"LOS: {100 * self.los:.1f} %, DrawRatio: {draw:.1f} %",
        ]

    def as_dict(self) -> dict[str, Any]:
        def num(x: float) -> float | None:
            return None if math.isnan(x) or math.isinf(x) else round(x, 3)

        return {"a": self.a, "b": self.b, "wins": self.wins, "losses": self.losses,
                "draws": self.draws, "score": num(self.score), "elo": num(self.elo),
                "elo_margin": num(self.elo_margin()), "los": num(self.los)}


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
