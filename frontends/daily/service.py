"""The daily deal over the site's database: days, plays, the close's reveal, the scores.

Everything that reads a day's seed, anyone's points or a record goes through here, and
each of those asks :meth:`Daily.closed` first: before the close only the commitment and
a person's own progress (which deals they have played, their own points) leave.
A day's row, with its random seed, is made by the day's first visitor (stored, not
derived from a server secret: a restored backup cannot recompute tomorrow's seeds), and
two processes making it at once keep the first (the day's primary key).
"""

from __future__ import annotations

import datetime as dt
import json
import secrets
import time
from collections.abc import Callable
from typing import Any

import attrs
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from xactika.core.engine.errors import XactikaError
from xactika.frontends.daily import deals
from xactika.frontends.daily.deals import DailySettings, Scored
from xactika.frontends.daily.par import par_scores
from xactika.frontends.daily.store import daily_days, daily_plays
from xactika.frontends.i18n import later
from xactika.protocol.trust.tamper import commitment, new_nonce

PLAYING, DONE, LOST = "playing", "done", "lost"


class DailyError(XactikaError):
    """A daily request that cannot be done; the message is the person's own business only
    (it never names another player's play, a deal's cards or the seed)."""


@attrs.frozen
class Day:
    day: dt.date
    seed: int
    nonce: str
    commit: str
    par: tuple[tuple[float, ...], ...] | None


@attrs.frozen
class Play:
    id: int
    day: dt.date
    deal: int
    player: str
    label: str
    rated: bool
    state: str
    points: float | None
    table_id: int | None


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


class Daily:
    """One site's daily deal; ``now`` is the clock (tests move it past a close)."""

    def __init__(self, engine: Engine, settings: DailySettings | None = None,
                 now: Callable[[], dt.datetime] = _now) -> None:
        self.engine = engine
        self.settings = settings or DailySettings()
        self.now = now

    # -- days
    def today(self) -> dt.date:
        return deals.day_of(self.now())

    def closed(self, day: dt.date) -> bool:
        return self.now() >= deals.closes(day)

    def day(self, day: dt.date | None = None) -> Day:
        """Today's row (made now if nobody has come yet), or a past day's; a day nobody
        opened, or one to come, is a DailyError (its seed was never committed)."""
        today = self.today()
        day = day or today
        if day > today:
            raise DailyError(later("the daily deal of {day} is not open yet", day=day.isoformat()))
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(daily_days).where(
                daily_days.c.day == day.isoformat())).first()
        if row is None and day == today:
            seed, nonce = secrets.randbits(62), new_nonce()
            try:
                with self.engine.begin() as conn:
                    conn.execute(daily_days.insert().values(
                        day=day.isoformat(), seed=str(seed), nonce=nonce,
                        commit=commitment(self.settings.game, seed, nonce),
                        created=time.time(), par=None))
            except sa.exc.IntegrityError:
                pass  # another process made it first: theirs is the day's
            with self.engine.connect() as conn:
                row = conn.execute(sa.select(daily_days).where(
                    daily_days.c.day == day.isoformat())).first()
        if row is None:
            raise DailyError(later("nobody opened the daily deal of {day}: it has no committed "
                                  "seed", day=day.isoformat()))
        par = tuple(tuple(p) for p in json.loads(row.par)) if row.par else None
        return Day(day, int(row.seed), row.nonce, row.commit, par)

    # -- plays
    def plays_of(self, day: dt.date, player: str) -> list[Play]:
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(daily_plays).where(
                daily_plays.c.day == day.isoformat(), daily_plays.c.player == player)
                .order_by(daily_plays.c.deal)).all()
        return [_play(r) for r in rows]

    def begin(self, day: dt.date, deal: int, player: str, label: str) -> tuple[Play, bool]:
        """The player's play of ``deal``: (the play, True when it is new). One deal at a
        time; a deal once (the first attempt counts): a finished one is refused."""
        found = self.day(day)
        if not 0 <= deal < self.settings.deals:
            raise DailyError(later("a day has deals 1 to {n}", n=self.settings.deals))
        mine = self.plays_of(found.day, player)
        for play in mine:
            if play.deal == deal:
                if play.state != PLAYING:
                    raise DailyError(later("you have played deal {n} already: the first "
                                           "attempt counts", n=deal + 1))
                return play, False
        busy = [p for p in mine if p.state == PLAYING]
        if busy:
            raise DailyError(later("finish deal {n} first", n=busy[0].deal + 1))
        rated = not self.closed(found.day)
        try:
            with self.engine.begin() as conn:
                new = conn.execute(daily_plays.insert().values(
                    day=found.day.isoformat(), deal=deal, player=player, label=label[:40],
                    rated=rated, state=PLAYING, points=None, started=time.time()))
                primary = new.inserted_primary_key
                assert primary is not None  # an insert of one row
                key = primary[0]
        except sa.exc.IntegrityError:
            raise DailyError(later("deal {n} is being started already", n=deal + 1)) from None
        return self._get(int(key)), True

    def seated(self, play: Play, table_id: int) -> None:
        with self.engine.begin() as conn:
            conn.execute(daily_plays.update().where(daily_plays.c.id == play.id)
                         .values(table_id=table_id))

    def finish(self, play: Play, points: float | None, record: str | None) -> None:
        """The play's end: its points and its record (None for both: lost, as a table gone
        with a restart; it still counts as played). A play finished after the close is
        unrated, whenever it began: the seed was public by then."""
        with self.engine.begin() as conn:
            conn.execute(daily_plays.update().where(
                daily_plays.c.id == play.id, daily_plays.c.state == PLAYING).values(
                state=DONE if points is not None else LOST, points=points, record=record,
                finished=time.time(), rated=play.rated and not self.closed(play.day)))

    def play(self, key: int) -> Play | None:
        """A play by its number (a resumed table's), or None."""
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(daily_plays).where(daily_plays.c.id == key)).first()
        return None if row is None else _play(row)

    def _get(self, key: int) -> Play:
        with self.engine.connect() as conn:
            return _play(conn.execute(sa.select(daily_plays).where(
                daily_plays.c.id == key)).one())

    # -- after the close
    def reveal(self, day: dt.date) -> Day:
        found = self.day(day)
        if not self.closed(day):
            raise DailyError(later("the seed is revealed at the close"))
        return found

    def par(self, day: dt.date) -> tuple[tuple[float, ...], ...]:
        """Par per deal, computed once (the first asker after the close; slowish)."""
        found = self.reveal(day)
        if found.par is not None:
            return found.par
        par = tuple(par_scores(self.settings, found.seed, k) for k in range(self.settings.deals))
        with self.engine.begin() as conn:
            conn.execute(daily_days.update().where(
                daily_days.c.day == day.isoformat(), daily_days.c.par.is_(None))
                .values(par=json.dumps(par)))
        return self.day(day).par or par

    def scores(self, day: dt.date) -> tuple[list[Scored], dict[str, Scored]]:
        """(the leaderboard: the plays begun before the close, compared among themselves
        and par; everyone's scores, the late and unrated too, each against everyone who
        played the deal and par)."""
        par = self.par(day)
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(daily_plays).where(
                daily_plays.c.day == day.isoformat(), daily_plays.c.state == DONE)).all()

        def scored(kept: list[Any]) -> list[Scored]:
            field: list[list[float]] = [list(p) for p in par]
            points: dict[str, list[float | None]] = {}
            for r in kept:
                field[r.deal].append(float(r.points))
                points.setdefault(r.player, [None] * self.settings.deals)[r.deal] = \
                    float(r.points)
            return deals.score_day(points, field, par)

        board = scored([r for r in rows if r.rated])
        return board, {s.player: s for s in scored(list(rows))}

    def labels(self, day: dt.date) -> dict[str, str]:
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(daily_plays.c.player, daily_plays.c.label).where(
                daily_plays.c.day == day.isoformat())).all()
        return {r.player: r.label for r in rows}

    def record(self, day: dt.date, deal: int, label: str) -> str:
        """A finished play's signed record, by the leaderboard's name: after the close only."""
        self.reveal(day)
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(daily_plays.c.record).where(
                daily_plays.c.day == day.isoformat(), daily_plays.c.deal == deal,
                daily_plays.c.label == label, daily_plays.c.state == DONE)).all()
        if not rows or rows[0].record is None:
            raise DailyError(later("no such finished play"))
        return str(rows[0].record)


def _play(row: Any) -> Play:
    return Play(int(row.id), dt.date.fromisoformat(row.day), int(row.deal), row.player,
                row.label, bool(row.rated), row.state,
                None if row.points is None else float(row.points),
                None if row.table_id is None else int(row.table_id))
