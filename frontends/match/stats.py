"""Statistics for match results: means with 95% intervals, paired differences, a GSPRT.

Pure functions on lists of numbers, no I/O, so the match runner's arithmetic can be
tested on its own. The unit of sampling is the *deal*: every bot's results are first
averaged over all the games played on one deal (all seat rotations), and deals are
independent draws, so Student-t intervals over deals are honest even though the games
within a deal are strongly correlated (that correlation is what duplicate play buys).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

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


def bounded_ci(xs: Sequence[float], low: float, high: float,
               level: float = 0.95) -> Estimate:
    """The mean of values that lie in [low, high], its interval never narrower than
    Wilson's score interval for the mean read as a share of the range.

    A few deals that happen to agree (sd 0) would otherwise give a zero-width interval
    and claim a certainty two deals cannot give; with many deals the Student-t
    interval is the wider one and is kept.
    """
    est = mean_ci(xs, level)
    n = est.n
    if n < 2:
        return est
    span = high - low
    p = min(1.0, max(0.0, (est.mean - low) / span))
    z = NormalDist().inv_cdf((1 + level) / 2)
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = low + span * (centre - half)
    hi = low + span * (centre + half)
    return Estimate(est.mean, min(est.lo, lo), max(est.hi, hi), n).clip(low, high)


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
