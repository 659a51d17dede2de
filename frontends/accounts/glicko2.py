"""Glicko-2 (Glickman, "Example of the Glicko-2 system", 2013) with lichess's constants.

Written here, not taken from PyPI: ``glicko2`` 2.1.0 (deepy/glicko2, a fork of a fork of
pyglicko2) keeps τ as a class attribute shared by every player, mutates players in place,
has no weighted results (we count a result against a bot at half weight, as lichess
counts bots' games for less) and its CI badge points at a Travis service long gone. The
algorithm is forty lines; tests/test_accounts_ratings.py checks it against the paper's
worked example (1500/200/0.06 against three opponents -> 1464.06, 151.52, 0.05999).

Each rated table is one rating period for each of its people: a placement is a win
against everyone placed below and a loss against everyone above (ties a draw), all
against the ratings before the table.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

SCALE = 173.7178
START = (1500.0, 500.0, 0.09)  # lichess: rating, deviation, volatility
TAU = 0.75
EPSILON = 0.000001
PROVISIONAL_RD = 110.0  # "?" after the rating while RD is at least this
LEADER_RD = 75.0  # on the leaderboard at most this RD ...
LEADER_GAMES = 30  # ... and at least this many rated games
BOT_WEIGHT = 0.5  # a result against a bot counts half


@dataclass(frozen=True)
class Rating:
    rating: float = START[0]
    rd: float = START[1]
    vol: float = START[2]

    @property
    def provisional(self) -> bool:
        return self.rd >= PROVISIONAL_RD

    def interval(self) -> tuple[float, float]:
        """The 95% interval: rating ± 2 RD."""
        return self.rating - 2 * self.rd, self.rating + 2 * self.rd

    def shown(self) -> str:
        return f"{self.rating:.0f}{'?' if self.provisional else ''}"


@dataclass(frozen=True)
class Result:
    """One pairing: the opponent's rating before the period, the score (1, 0.5, 0) and
    the weight it counts with."""

    opponent: Rating
    score: float
    weight: float = 1.0


def _g(phi: float) -> float:
    return 1 / math.sqrt(1 + 3 * phi * phi / math.pi ** 2)


def update(player: Rating, results: Sequence[Result], tau: float = TAU) -> Rating:
    """The player's rating after one period of ``results`` (step 6 alone when none)."""
    mu, phi, sigma = (player.rating - 1500) / SCALE, player.rd / SCALE, player.vol
    if not results:
        return Rating(player.rating, min(math.sqrt(phi ** 2 + sigma ** 2) * SCALE, START[1]),
                      sigma)
    inv_v = 0.0
    total = 0.0
    for r in results:
        mu_j, phi_j = (r.opponent.rating - 1500) / SCALE, r.opponent.rd / SCALE
        g = _g(phi_j)
        e = 1 / (1 + math.exp(-g * (mu - mu_j)))
        inv_v += r.weight * g * g * e * (1 - e)
        total += r.weight * g * (r.score - e)
    v = 1 / inv_v
    delta = v * total
    sigma = _volatility(phi, sigma, v, delta, tau)
    phi_star = math.sqrt(phi ** 2 + sigma ** 2)
    phi = 1 / math.sqrt(1 / phi_star ** 2 + 1 / v)
    mu = mu + phi ** 2 * total
    return Rating(mu * SCALE + 1500, min(phi * SCALE, START[1]), sigma)


def _volatility(phi: float, sigma: float, v: float, delta: float, tau: float) -> float:
    """Step 5: the Illinois algorithm for the new volatility."""
    a = math.log(sigma ** 2)

    def f(x: float) -> float:
        ex = math.exp(x)
        return (ex * (delta ** 2 - phi ** 2 - v - ex) / (2 * (phi ** 2 + v + ex) ** 2)
                - (x - a) / tau ** 2)

    big_a = a
    if delta ** 2 > phi ** 2 + v:
        big_b = math.log(delta ** 2 - phi ** 2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    fa, fb = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * fa / (fb - fa)
        fc = f(big_c)
        if fc * fb < 0:
            big_a, fa = big_b, fb
        else:
            fa /= 2
        big_b, fb = big_c, fc
    return math.exp(big_a / 2)


def pairwise(places: Sequence[int], seat: int) -> list[tuple[int, float]]:
    """A table's placements (1 the best; equal places tie) as seat's results against
    every other seat: (opponent seat, score)."""
    mine = places[seat]
    return [(other, 1.0 if mine < place else 0.0 if mine > place else 0.5)
            for other, place in enumerate(places) if other != seat]


def rate_table(before: Sequence[Rating], places: Sequence[int],
               bots: Sequence[bool]) -> list[Rating]:
    """Every seat's rating after one table (a bot's too: it is rated like anyone, and
    people's results against it count half)."""
    after = []
    for seat, rating in enumerate(before):
        results = [Result(before[other], score,
                          BOT_WEIGHT if bots[other] != bots[seat] else 1.0)
                   for other, score in pairwise(places, seat)]
        after.append(update(rating, results))
    return after
