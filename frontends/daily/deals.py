"""The daily deal's arithmetic: which day it is, the day's committed seed and its deals,
par, matchpoints and the share line (spec/WEB.md, "The daily deal"). No I/O here.

A day's seed is random and stored (frontends/daily/store.py); the page shows
``commitment(game, seed, nonce)`` from the first moment of the day (the records' own
commitment, protocol/trust/tamper.py) and reveals seed and nonce at the close. Deal ``k``
is the game seeded :func:`deal_seed` ``(seed, k)``, a one-way step, so a finished deal's
own revealed seed says nothing of the day's others.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Mapping, Sequence

import attrs

from xactika.core.engine.api import Config
from xactika.protocol.trust.tamper import commitment

EPOCH = dt.date(2026, 1, 1)  # daily #1
DEAL_DOMAIN = "xactika-daily/1"
MARKS = {1: "\N{LARGE GREEN SQUARE}", 0: "\N{LARGE YELLOW SQUARE}",
         -1: "\N{LARGE RED SQUARE}", None: "\N{WHITE LARGE SQUARE}"}
"""The share line's mark per deal: above, at or below par (the strong bot), or unplayed."""


@attrs.frozen
class DailySettings:
    """One setting for everyone: Xactika Play to Bid, 4 players, the person in seat 0 and
    the same three bots; tests shrink it (fewer deals, cheaper bots)."""

    game: str = "xactika"
    mode: str = "bid"
    players: int = 4
    rounds: int = 1  # a deal is one hand
    deals: int = 8  # a BBO daylong's boards
    bots: tuple[str, ...] = ("strong:3", "strong:3", "strong:3")  # deterministic: seeded
    par: tuple[str, str] = ("strong:5", "cheater")  # the strong and the all-seeing bot
    seat: int = 0

    def config(self, seed: int, deal: int) -> Config:
        """Deal ``deal``'s settings: its seed, and the dealer moving round the table so the
        person leads from every place in turn."""
        return Config(game=self.game, mode=self.mode, players=self.players,
                      rounds=self.rounds, dealer=deal % self.players,
                      seed=deal_seed(seed, deal))

    def agents(self) -> list[str]:
        """The bots by seat, the person's seat left empty."""
        names = list(self.bots)
        names.insert(self.seat, "")
        return names


def day_of(now: dt.datetime) -> dt.date:
    return now.astimezone(dt.UTC).date()


def number(day: dt.date) -> int:
    """The day's number in the share line (``Xactika daily #N``)."""
    return (day - EPOCH).days + 1


def closes(day: dt.date) -> dt.datetime:
    """The close: the next UTC midnight (a day's deals are played for 24 hours)."""
    return dt.datetime.combine(day + dt.timedelta(days=1), dt.time(), dt.UTC)


def parse_day(text: str) -> dt.date:
    """``YYYY-MM-DD``; ValueError with one line otherwise."""
    try:
        day = dt.date.fromisoformat(text)
    except (TypeError, ValueError):
        raise ValueError("a day is YYYY-MM-DD") from None
    if day < EPOCH:
        raise ValueError(f"the daily deal began on {EPOCH.isoformat()}")
    return day


def deal_seed(seed: int, deal: int) -> int:
    """Deal ``deal``'s game seed: SHA-256 of the day's seed and the deal's index, 62 bits."""
    text = f"{DEAL_DOMAIN}\n{seed}\n{deal}\n".encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "big") >> 2


def committed(game: str, seed: int, nonce: str, commit: str) -> bool:
    """The check anyone can make after the close: the revealed seed opens the commitment."""
    return commitment(game, seed, nonce) == commit


def matchpoints(score: float, field: Sequence[float]) -> float | None:
    """One score's share of the field it is compared with (itself left out): a win 1, a tie
    a half, as a bridge pair's matchpoints; None with nobody to compare with."""
    if not field:
        return None
    won = sum(1.0 if score > other else 0.5 if score == other else 0.0 for other in field)
    return won / len(field)


def against_par(score: float, par: float) -> int:
    return (score > par) - (score < par)


@attrs.frozen
class Scored:
    """One player's day: per deal their points, matchpoint share and par mark."""

    player: str
    points: tuple[float | None, ...]
    shares: tuple[float | None, ...]
    marks: tuple[int | None, ...]

    @property
    def percent(self) -> int:
        """The day's matchpoints as one percentage, an unplayed deal counting zero."""
        return round(100 * sum(s or 0.0 for s in self.shares) / max(len(self.shares), 1))


def score_day(plays: Mapping[str, Sequence[float | None]], field: Sequence[Sequence[float]],
              par: Sequence[Sequence[float]]) -> list[Scored]:
    """``plays``: each player's points per deal (None: unplayed); ``field``: per deal every
    score it is compared with (everyone's who played it, the par bots' too, so a lone
    player still gets a number); ``par``: per deal the par bots' scores, the strong bot's
    first. Best first."""
    out = []
    for player, points in plays.items():
        shares: list[float | None] = []
        marks: list[int | None] = []
        for deal, got in enumerate(points):
            if got is None:
                shares.append(None)
                marks.append(None)
                continue
            others = list(field[deal])
            others.remove(got)  # itself, once
            shares.append(matchpoints(got, others))
            marks.append(against_par(got, par[deal][0]) if par[deal] else None)
        out.append(Scored(player, tuple(points), tuple(shares), tuple(marks)))
    return sorted(out, key=lambda s: (-s.percent, s.player))


def share_line(day: dt.date, scored: Scored) -> str:
    """``Xactika daily #N 61%`` and a mark per deal: no card, no score, no spoiler."""
    marks = "".join(MARKS[m] for m in scored.marks)
    return f"Xactika daily #{number(day)} {scored.percent}% {marks}"


def bot_seed(seed: int, deal: int, seat: int) -> int:
    """A bot's own seed at deal ``deal``: the same for everyone, so the same bots meet
    the same play with the same moves."""
    return (deal_seed(seed, deal) + seat) % (1 << 62)
