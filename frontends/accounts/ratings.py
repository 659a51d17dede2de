"""People's ratings: rated tables' signed records applied to Glicko-2 (glicko2.py).

A rated table's record says ``rated: yes``; its ``seats`` are account names (an account's
name is its name at the table) and built-in bots' names (which no account may have).
Nothing else of an account is in a record, so the ratings are a function of the signed
records alone: :func:`recompute` rebuilds them from the records folder, :func:`catch_up`
applies any a kill left unapplied, and :func:`apply` does one table in one transaction, once (the
record's name is unique in ``rated_games``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from xactika.core.engine.api import GameOver, game_rules
from xactika.frontends.accounts.glicko2 import (
    LEADER_GAMES,
    LEADER_RD,
    Rating,
    rate_table,
)
from xactika.frontends.accounts.identity import is_bot
from xactika.frontends.accounts.store import accounts, rated_games, rating_history, ratings
from xactika.protocol.player.wire import name_key
from xactika.protocol.records.textform import RecordError, forfeited, read_record
from xactika.protocol.trust.audit import OK, VERIFIED
from xactika.protocol.trust.fastaudit import audit_path
from xactika.protocol.trust.signing import PublicKey


@dataclass(frozen=True)
class RatedGame:
    record: str  # the record's name in the records folder
    game: str
    mode: str
    names: tuple[str, ...]
    people: tuple[bool, ...]  # by seat: a person (an account) or a bot
    places: tuple[int, ...]  # by seat: 1 the best, ties equal, forfeits last
    totals: tuple[int, ...]
    finished: float


def places(totals: Sequence[int], low_wins: bool, out: Iterable[int]) -> tuple[int, ...]:
    """Finishing places: by total (low or high best), a forfeited seat below every other,
    equal totals an equal place (Board Game Arena's ranks, standard competition)."""
    gone = set(out)

    def key(seat: int) -> tuple[int, int]:
        return (1 if seat in gone else 0, totals[seat] if low_wins else -totals[seat])

    return tuple(1 + sum(1 for o in range(len(totals)) if key(o) < key(s))
                 for s in range(len(totals)))


def read_rated(path: Path, folder: Path, keys: Sequence[PublicKey]) -> RatedGame | None:
    """The rated game a record holds; None for a record that is not rated, is unfinished
    or does not verify under ``keys``."""
    try:
        record = read_record(path)
    except (OSError, RecordError):
        return None
    if record.header("rated") != "yes" or not record.events \
            or not isinstance(record.events[-1], GameOver):
        return None
    report = audit_path(str(path), strict=True, trusted=set(keys))
    if report.status != OK or report.signature != VERIFIED:
        return None
    over = record.events[-1]
    started = record.events[0]
    config = getattr(started, "config", None)
    if config is None:
        return None
    names = tuple((record.header("seats") or "").split(","))
    if len(names) != len(over.totals):
        return None
    low = game_rules(config.game).low_wins(config)
    return RatedGame(path.relative_to(folder).as_posix(), config.game, config.mode, names,
                     tuple(not is_bot(n) for n in names),
                     places(over.totals, low, forfeited(record.headers)),
                     tuple(over.totals), path.stat().st_mtime)


def _players(conn: Connection, game: RatedGame) -> list[str] | None:
    """Each seat's player: ``a:ID`` for an account, ``b:NAME`` for a bot; None when a
    person's name is no account (the table was not rated after all)."""
    out = []
    for name, person in zip(game.names, game.people, strict=True):
        if not person:
            out.append(f"b:{name}")
            continue
        row = conn.execute(sa.select(accounts.c.id).where(accounts.c.key == name_key(name))
                           ).first()
        if row is None:
            return None
        out.append(f"a:{row.id}")
    return out


def _current(conn: Connection, player: str, game: str, mode: str) -> tuple[Rating, int]:
    row = conn.execute(sa.select(ratings).where(
        ratings.c.player == player, ratings.c.game == game, ratings.c.mode == mode)).first()
    return (Rating(row.rating, row.rd, row.vol), row.games) if row else (Rating(), 0)


def apply(engine: Engine, game: RatedGame) -> bool:
    """Rate one table, once: False when it was rated already (or names no account)."""
    try:
        with engine.begin() as conn:
            players = _players(conn, game)
            number = conn.execute(sa.insert(rated_games).values(
                record=game.record, game=game.game, mode=game.mode,
                seats=json.dumps(players or list(game.names)),
                result=json.dumps({"places": game.places, "totals": game.totals}),
                finished=game.finished, applied=players is not None)).inserted_primary_key
            assert number is not None
            if players is None:
                return False
            before = [_current(conn, p, game.game, game.mode) for p in players]
            after = rate_table([b[0] for b in before], game.places,
                               [not p for p in game.people])
            now = time.time()
            for seat, player in enumerate(players):
                new, had = after[seat], before[seat][1]
                values = {"rating": new.rating, "rd": new.rd, "vol": new.vol,
                          "games": had + 1, "updated": now}
                where = (ratings.c.player == player, ratings.c.game == game.game,
                         ratings.c.mode == game.mode)
                if had:
                    conn.execute(sa.update(ratings).where(*where).values(**values))
                else:
                    conn.execute(sa.insert(ratings).values(player=player, game=game.game,
                                                           mode=game.mode, **values))
                conn.execute(sa.insert(rating_history).values(
                    player=player, rated_game_id=number[0], game=game.game, mode=game.mode,
                    rating=new.rating, rd=new.rd, vol=new.vol, place=game.places[seat]))
    except sa.exc.IntegrityError:
        return False  # rated already: another process, or before a kill
    return True


def rated_records(folder: Path, keys: Sequence[PublicKey]) -> list[RatedGame]:
    """Every rated game in a records folder, in the order they finished."""
    found = [g for path in sorted(folder.rglob("table-*.log"))
             if (g := read_rated(path, folder, keys)) is not None]
    return sorted(found, key=lambda g: (g.finished, g.record))


def catch_up(engine: Engine, folder: Path, keys: Sequence[PublicKey]) -> int:
    """Apply the rated records not yet applied (a kill between record and rating)."""
    with engine.connect() as conn:
        done = set(conn.execute(sa.select(rated_games.c.record)).scalars())
    return sum(apply(engine, g) for g in rated_records(folder, keys) if g.record not in done)


def recompute(engine: Engine, folder: Path, keys: Sequence[PublicKey]) -> int:
    """Every rating again from the signed records alone (the database is their cache)."""
    with engine.begin() as conn:
        for table in (rating_history, ratings, rated_games):
            conn.execute(sa.delete(table))
    return sum(apply(engine, g) for g in rated_records(folder, keys))


# -- what the pages show
def _shown(row: Any) -> dict[str, Any]:
    r = Rating(row.rating, row.rd, row.vol)
    low, high = r.interval()
    return {"game": row.game, "mode": row.mode, "rating": round(r.rating, 1),
            "rd": round(r.rd, 1), "shown": r.shown(), "provisional": r.provisional,
            "low": round(low, 1), "high": round(high, 1), "games": row.games}


def person(engine: Engine, account_id: int) -> dict[str, Any]:
    """An account's ratings (each with its history) and its rated games, newest first."""
    player = f"a:{account_id}"
    with engine.connect() as conn:
        rows = conn.execute(sa.select(ratings).where(ratings.c.player == player)
                            .order_by(ratings.c.game, ratings.c.mode)).all()
        hist = conn.execute(
            sa.select(rating_history, rated_games.c.record, rated_games.c.seats,
                      rated_games.c.result, rated_games.c.finished)
            .join(rated_games, rated_games.c.id == rating_history.c.rated_game_id)
            .where(rating_history.c.player == player)
            .order_by(rating_history.c.id)).all()
        names = _names(conn, {p for h in hist for p in json.loads(h.seats)})
    out = []
    for row in rows:
        shown = _shown(row)
        shown["history"] = [
            {"sets": n, "mu": h.rating, "low": h.rating - 2 * h.rd, "high": h.rating + 2 * h.rd}
            for n, h in enumerate((h for h in hist if (h.game, h.mode) == (row.game, row.mode)),
                                  1)]
        out.append(shown)
    games = []
    for h in reversed(hist):
        seats = json.loads(h.seats)
        result = json.loads(h.result)
        games.append({"id": h.rated_game_id, "record": h.record, "game": h.game,
                      "mode": h.mode, "place": h.place, "finished": h.finished,
                      "rating": round(h.rating),
                      "seats": [names.get(p, p[2:]) for p in seats],
                      "totals": result["totals"], "places": result["places"]})
    return {"ratings": out, "games": games}


def _names(conn: Connection, players: Iterable[str]) -> dict[str, str]:
    ids = [int(p[2:]) for p in players if p.startswith("a:") and p[2:].isdigit()]
    rows = conn.execute(sa.select(accounts.c.id, accounts.c.name)
                        .where(accounts.c.id.in_(ids))).all() if ids else []
    return {f"a:{r.id}": r.name for r in rows}


def leaderboard(engine: Engine, game: str, mode: str) -> list[dict[str, Any]]:
    """People (never bots) with RD at most 75 after at least 30 games, best first."""
    with engine.connect() as conn:
        rows = conn.execute(
            sa.select(ratings, accounts.c.name)
            .join(accounts, sa.literal("a:") + sa.cast(accounts.c.id, sa.String)
                  == ratings.c.player)
            .where(ratings.c.game == game, ratings.c.mode == mode,
                   ratings.c.rd <= LEADER_RD, ratings.c.games >= LEADER_GAMES,
                   accounts.c.disabled.is_(False))
            .order_by(ratings.c.rating.desc())).all()
    return [{"name": r.name, **_shown(r)} for r in rows]


def boards(engine: Engine) -> list[tuple[str, str]]:
    """The games and modes anyone is rated in."""
    with engine.connect() as conn:
        return [(r.game, r.mode) for r in conn.execute(
            sa.select(ratings.c.game, ratings.c.mode).distinct()
            .order_by(ratings.c.game, ratings.c.mode)).all()]
