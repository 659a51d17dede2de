"""Arena ratings: one maximum-likelihood Bradley-Terry fit over every comparison at once.

A program does not learn between games, so no game should count more for coming late:
every counted set's entrants are compared pairwise (the match runner's counting rule,
faults forfeiting), the comparisons summed exactly (fractions) and fitted in one go.
The order of games cannot change a digit. The pairs of one set share its cards and its
seats, so they are not independent: the intervals come from the sets as clusters (the
sandwich covariance of a composite likelihood), never narrower than the independent
pairs' own. spec/ARENA.md, "Ratings".
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction

import attrs

ELO = 400 / math.log(10)  # natural log-strength to the Elo scale
BASE = 1500.0
PRIOR_SD = 2.0  # a weak prior on log-strength: a bot that never lost stays finite
PROVISIONAL = 110.0  # ±2σ wider than this (Elo points) is provisional (lichess: RD 110)


@attrs.frozen
class Fit:
    name: str
    mu: float  # Elo scale
    sigma: float

    @property
    def provisional(self) -> bool:
        return 2 * self.sigma >= PROVISIONAL


Comparisons = dict[tuple[str, str], Fraction]  # (winner, loser) -> weight


def compare_table(names: Sequence[str], ranks: Sequence[float], into: Comparisons) -> None:
    """Add one table's pairwise results: lower rank beats higher, a tie is half each.

    Every pair counts fully (the maximum of the pairwise likelihood is a consistent
    estimate); how much the pairs of one table tell together is left to ``fit``, which
    takes each table's comparisons as one cluster.
    """
    n = len(names)
    if n < 2:
        return
    weight = Fraction(1)
    for i in range(n):
        for j in range(i + 1, n):
            a, b = names[i], names[j]
            if a == b:
                continue
            if ranks[i] < ranks[j]:
                into[(a, b)] = into.get((a, b), Fraction(0)) + weight
            elif ranks[i] > ranks[j]:
                into[(b, a)] = into.get((b, a), Fraction(0)) + weight
            else:
                into[(a, b)] = into.get((a, b), Fraction(0)) + weight / 2
                into[(b, a)] = into.get((b, a), Fraction(0)) + weight / 2


def fit(names: Iterable[str], tables: Sequence[Mapping[tuple[str, str], Fraction]],
        house: Iterable[str] = ()) -> list[Fit]:
    """The MAP Bradley-Terry strengths (Newton's method) and their standard errors.

    ``tables`` are the comparisons of each set (``compare_table``), in a fixed order.
    Sorted by name in, so the result is a function of the comparisons alone. The level
    is the mean of the entrants that are not ``house`` bots: a house bot plays only
    qualifying sets, so its wide interval would otherwise widen everyone's.
    """
    wins: dict[tuple[str, str], Fraction] = {}
    for table in tables:
        for pair, x in table.items():
            wins[pair] = wins.get(pair, Fraction(0)) + x
    order = sorted(set(names) | {n for pair in wins for n in pair})
    k = len(order)
    if k == 0:
        return []
    at = {name: i for i, name in enumerate(order)}
    w = [[0.0] * k for _ in range(k)]
    for (a, b), x in sorted(wins.items()):
        w[at[a]][at[b]] = float(x)
    theta = [0.0] * k
    hess: list[list[float]] = []
    for _ in range(100):
        grad, hess = _derivatives(theta, w)
        step = _solve([row[:] for row in hess], grad)
        theta = [t - s for t, s in zip(theta, step, strict=True)]
        if max(abs(s) for s in step) < 1e-10:
            break
    _, hess = _derivatives(theta, w)
    model = _inverse([[-h for h in row] for row in hess])
    sandwich = _sandwich(model, _clusters(theta, at, tables))
    houses = set(house)
    field = [i for i, name in enumerate(order) if name not in houses] or list(range(k))
    one, many = _centred(model, field), _centred(sandwich, field)
    mean = sum(theta[i] for i in field) / len(field)
    # strengths say nothing of their common level (only the weak prior does): each is
    # shown against the field's mean, with the variance of that difference; the sets'
    # own scatter where it is wider than the independent pairs' (a few sets can look
    # steadier than they are, never steadier than that)
    return [Fit(name, round(BASE + ELO * (theta[i] - mean), 1),
                round(ELO * math.sqrt(max(one[i][i], many[i][i], 0.0)), 1))
            for i, name in enumerate(order)]


def _clusters(theta: Sequence[float], at: Mapping[str, int],
              tables: Sequence[Mapping[tuple[str, str], Fraction]]) -> list[list[float]]:
    """J = Σ s·sᵀ over the tables, s a table's score (the pairwise log-likelihood's
    gradient) at ``theta``, times G/(G-1) for G tables (the usual small-sample factor)."""
    k = len(theta)
    j = [[0.0] * k for _ in range(k)]
    for table in tables:
        s = [0.0] * k
        for (a, b), x in sorted(table.items()):
            ia, ib = at[a], at[b]
            lose = float(x) / (1 + math.exp(theta[ia] - theta[ib]))  # x·(1 - P(a beats b))
            s[ia] += lose
            s[ib] -= lose
        nz = [i for i in range(k) if s[i]]
        for r in nz:
            for c in nz:
                j[r][c] += s[r] * s[c]
    g = len(tables)
    factor = g / (g - 1) if g > 1 else 1.0
    return [[x * factor for x in row] for row in j]


def _sandwich(inv: Sequence[Sequence[float]], j: Sequence[Sequence[float]]
              ) -> list[list[float]]:
    """inv·J·inv (inv symmetric): the covariance when the tables, not the pairs, are
    the independent draws."""
    k = len(inv)
    ij = [[sum(inv[r][m] * j[m][c] for m in range(k)) for c in range(k)] for r in range(k)]
    return [[sum(ij[r][m] * inv[m][c] for m in range(k)) for c in range(k)]
            for r in range(k)]


def _centred(cov: Sequence[Sequence[float]], field: Sequence[int]) -> list[list[float]]:
    """The covariance of θ - mean(θ over ``field``): P·C·Pᵀ, P = I less 1/m in field's columns."""
    k, m = len(cov), len(field)
    row_mean = [sum(row[c] for c in field) / m for row in cov]
    col_mean = [sum(cov[r][c] for r in field) / m for c in range(k)]
    total = sum(row_mean[r] for r in field) / m
    return [[cov[r][c] - row_mean[r] - col_mean[c] + total for c in range(k)]
            for r in range(k)]


def _derivatives(theta: Sequence[float], w: Sequence[Sequence[float]]
                 ) -> tuple[list[float], list[list[float]]]:
    """The log-posterior's gradient and Hessian at ``theta``."""
    k = len(theta)
    grad = [-t / PRIOR_SD**2 for t in theta]
    hess = [[-1 / PRIOR_SD**2 if i == j else 0.0 for j in range(k)] for i in range(k)]
    for i in range(k):
        for j in range(i + 1, k):
            n = w[i][j] + w[j][i]
            if n == 0:
                continue
            p = 1 / (1 + math.exp(theta[j] - theta[i]))
            grad[i] += w[i][j] - n * p
            grad[j] += w[j][i] - n * (1 - p)
            h = n * p * (1 - p)
            hess[i][i] -= h
            hess[j][j] -= h
            hess[i][j] += h
            hess[j][i] += h
    return grad, hess


def _solve(a: list[list[float]], b: Sequence[float]) -> list[float]:
    """x with a·x = b (Gaussian elimination with pivoting; ``a`` is overwritten)."""
    k = len(b)
    x = list(b)
    for c in range(k):
        p = max(range(c, k), key=lambda r: abs(a[r][c]))
        a[c], a[p] = a[p], a[c]
        x[c], x[p] = x[p], x[c]
        for r in range(c + 1, k):
            f = a[r][c] / a[c][c]
            if f:
                for cc in range(c, k):
                    a[r][cc] -= f * a[c][cc]
                x[r] -= f * x[c]
    for c in range(k - 1, -1, -1):
        x[c] = (x[c] - sum(a[c][cc] * x[cc] for cc in range(c + 1, k))) / a[c][c]
    return x


def _inverse(a: Sequence[Sequence[float]]) -> list[list[float]]:
    k = len(a)
    cols = [_solve([list(row) for row in a], [1.0 if r == c else 0.0 for r in range(k)])
            for c in range(k)]
    return [[cols[c][r] for c in range(k)] for r in range(k)]
