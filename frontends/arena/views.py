"""What the arena's web pages and JSON API show: read-only queries over its database.

Only the games of finished sets are shown (their results, their records, their faults):
a set is one deal played in every seat rotation, and a seating's record or result,
seen while another seating of the same deal is still to be played, tells that deal's
cards to whoever plays it next (spec/ARENA.md, "The web pages"). Sets under way are
listed by line-up and progress only.

A rating's history is recomputed, not stored: the batch fit (ratings.fit, as
standings.ladder_table fits) over the sets finished by each of at most
:data:`HISTORY_POINTS` points, each prefix's fit kept in memory.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

import attrs
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from xactika.frontends.arena import live, store
from xactika.frontends.arena.ratings import PROVISIONAL, Comparisons, fit
from xactika.frontends.arena.standings import (
    Counted,
    LadderInfo,
    compare_set,
    complete,
    ladder_table,
)
from xactika.frontends.match.tournament import NON_FORFEIT, Fault

HISTORY_POINTS = 24  # fits a rating's plot is drawn through
RECENT = 20  # games listed as the most recent
REPLAY_PREFIX = "arena/"  # the replay viewer's names of the arena's records


@attrs.frozen
class Played:
    """One finished game: its database row as the pages need it."""

    id: int
    finished: float
    record: str  # the record's path in the arena folder
    counted: Counted


def watch_link(set_id: int) -> str:
    """The live page of a set under way (frontends/web/arenapages.py)."""
    return f"/arena/watch/{int(set_id)}"


def replay_link(record: str) -> str:
    """The replay viewer's address of a record of the arena (see ArenaViewer)."""
    return "/replay?file=" + quote(REPLAY_PREFIX + record, safe="")


class ArenaView:
    """The arena's database as the pages read it; one per web server."""

    def __init__(self, engine: Engine, folder: Path | None = None) -> None:
        self.engine = engine
        self.folder = folder  # where the live files are (live.py); None: none shown
        self._lock = threading.Lock()
        self._fits: dict[tuple[str, int, int], dict[str, dict[str, float]]] = {}

    # -- reading
    def ladders(self) -> list[LadderInfo]:
        lad = store.ladders
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(lad).order_by(lad.c.name)).all()
        return [LadderInfo(r.name, r.game, r.mode, r.players, r.rounds) for r in rows]

    def people(self) -> dict[str, Any]:
        """Every entrant's row by name."""
        e = store.entrants
        with self.engine.connect() as conn:
            return {r.name: r for r in conn.execute(sa.select(
                e.c.id, e.c.name, e.c.owner, e.c.house, e.c.status, e.c.created))}

    def played(self) -> list[Played]:
        """Every game of a finished set, oldest first."""
        g, s, lad, e = store.games, store.sets, store.ladders, store.entrants
        with self.engine.connect() as conn:
            names = {r.id: (r.name, r.house) for r in conn.execute(
                sa.select(e.c.id, e.c.name, e.c.house))}
            players = dict(conn.execute(sa.select(lad.c.name, lad.c.players)).all())
            rows = conn.execute(
                sa.select(g.c.id, g.c.set_id, g.c.rotation, g.c.seats, g.c.result,
                          g.c.record, g.c.finished, s.c.qualifying,
                          lad.c.name.label("ladder"))
                .join(s, s.c.id == g.c.set_id).join(lad, lad.c.id == s.c.ladder_id)
                .order_by(g.c.finished, g.c.id)).all()
        out: dict[tuple[int, int], Played] = {}
        for r in rows:
            ids = json.loads(r.seats)
            res = json.loads(r.result)
            counted = Counted(
                r.ladder, r.set_id, r.rotation, tuple(names[i][0] for i in ids),
                bool(r.qualifying), frozenset(names[i][0] for i in ids if names[i][1]),
                tuple(res["totals"]), tuple(res["winners"]), int(res["hands"]),
                tuple(Fault(int(f[0]), f[1], f[2]) for f in res["faults"]),
                bool(res["low_wins"]))
            out[(r.set_id, r.rotation)] = Played(r.id, r.finished, r.record, counted)
        done: set[int] = set()
        for name, n in players.items():
            done |= {c.set for c in complete((p.counted for p in out.values()
                                              if p.counted.ladder == name), n)}
        return [p for p in out.values() if p.counted.set in done]

    def under_way(self, now: float | None = None) -> list[dict[str, Any]]:
        """The sets being played now (claimed, the lease alive): line-up and progress."""
        now = time.time() if now is None else now
        out = []
        for r in self._sets(now=now):
            seating, why = self.on_show(r)
            out.append({"ladder": r["ladder"], "set": r["set"], "entrants": r["entrants"],
                        "rotation": (r["rotation"] if seating is None
                                     else seating.rotation) + 1,
                        "rotations": r["rotations"],
                        "watch": None if seating is None else watch_link(r["set"]),
                        "watch_closed": why})
        return out

    def _sets(self, set_id: int | None = None, now: float | None = None
              ) -> list[dict[str, Any]]:
        """Sets with their line-up's names and commands and their progress: one set, or
        those under way at ``now`` (claimed, the lease alive)."""
        s, g, lad, e = store.sets, store.games, store.ladders, store.entrants
        query = (sa.select(s.c.id, s.c.lineup, s.c.state, s.c.claimed_by, s.c.lease_until,
                           lad.c.name.label("ladder"), lad.c.players,
                           sa.select(sa.func.count()).where(g.c.set_id == s.c.id)
                           .scalar_subquery().label("done"))
                 .join(lad, lad.c.id == s.c.ladder_id).order_by(s.c.id))
        if set_id is not None:
            query = query.where(s.c.id == set_id)
        if now is not None:
            query = query.where(s.c.state == "claimed", s.c.lease_until > now)
        with self.engine.connect() as conn:
            people = {r.id: (r.name, r.cmd) for r in conn.execute(
                sa.select(e.c.id, e.c.name, e.c.cmd))}
            rows = conn.execute(query).all()
        out = []
        for r in rows:
            lineup = [people.get(i, ("?", "null")) for i in json.loads(r.lineup)]
            out.append({"set": r.id, "ladder": r.ladder, "state": r.state,
                        "run": r.claimed_by, "lease": r.lease_until,
                        "entrants": [name for name, _ in lineup],
                        "cmds": [json.loads(cmd) for _, cmd in lineup],
                        "done": r.done, "rotation": min(r.done, r.players - 1),
                        "rotations": r.players})
        return out

    def on_show(self, row: dict[str, Any]) -> tuple[live.Seating | None, str | None]:
        """A set under way's live seating, or why none is shown (live.closed, WAITING).

        Only a file written by the run that holds the set's lease counts, so a killed
        run's is never shown; the rule is checked here again, from the database's
        entrants, whatever the file says."""
        seating = None
        if self.folder is not None:
            seating = live.read_live(live.live_path(self.folder, row["set"]))
        # the run's file of the seating under way: the games committed (one behind at
        # most, the commit trails the next game) or the one after them
        if seating is not None and (seating.run != row["run"] or not row["done"]
                                    <= seating.rotation <= min(row["done"] + 1,
                                                               row["rotations"] - 1)):
            seating = None
        rotation = row["rotation"] if seating is None else seating.rotation
        why = live.closed(row["cmds"], rotation, row["rotations"],
                          None if seating is None else seating.sandboxed)
        if why is None and seating is None:
            why = live.WAITING
        return (seating, None) if why is None else (None, why)

    def live(self, set_id: int, now: float | None = None) -> dict[str, Any] | None:
        """``/api/arena/live/SET``'s facts: the set, its state, its seating on show or
        why none is; None where there is no such set."""
        found = self._sets(set_id)
        if not found:
            return None
        row = found[0]
        now = time.time() if now is None else now
        under_way = row["state"] == "claimed" and (row["lease"] or 0.0) > now
        seating, why = self.on_show(row) if under_way else (None, None)
        if seating is not None:
            row["rotation"] = seating.rotation
        row["under_way"], row["seating"], row["why"] = under_way, seating, why
        if row["state"] == "done":
            row["replay"] = sorted((p.counted.rotation, replay_link(p.record))
                                   for p in self.played() if p.counted.set == set_id)
        return row

    # -- what the pages show
    def history(self, info: LadderInfo, games: Sequence[Played]) -> list[dict[str, Any]]:
        """The ladder's ratings after prefixes of its finished sets, in the order they
        finished: ``{"sets", "at", "entrants"}`` at every ``step`` sets (a power of two,
        so that at most HISTORY_POINTS points are drawn) and after the last set.

        A prefix's fit never changes once its sets are the same, so each is kept; a new
        game costs a fit only when the count of sets reaches a multiple of ``step``.
        """
        mine = [p for p in games if p.counted.ladder == info.name]
        ends: dict[int, float] = {}
        for p in mine:
            ends[p.counted.set] = max(ends.get(p.counted.set, 0.0), p.finished)
        order = sorted(ends, key=lambda number: (ends[number], number))
        step = 1
        while len(order) > step * (HISTORY_POINTS - 1):
            step *= 2
        cuts = [*range(step, len(order), step), len(order)] if order else []
        keys = {cut: (info.name, cut, hash(tuple(order[:cut]))) for cut in cuts}
        with self._lock:
            known = {k: self._fits[k] for k in keys.values() if k in self._fits}
        if len(known) < len(cuts):
            known |= self._fit_prefixes(order, mine, {c: k for c, k in keys.items()
                                                      if k not in known})
            with self._lock:
                self._fits = {k: v for k, v in self._fits.items() if k[0] != info.name}
                self._fits |= known
        return [{"sets": cut, "at": ends[order[cut - 1]], "entrants": known[keys[cut]]}
                for cut in cuts]

    @staticmethod
    def _fit_prefixes(order: Sequence[int], games: Sequence[Played],
                      wanted: dict[int, Any]) -> dict[Any, dict[str, dict[str, float]]]:
        """The batch fit (ratings.fit, as ladder_table fits) after each wanted prefix."""
        by_set: dict[int, list[Counted]] = {}
        for p in games:
            by_set.setdefault(p.counted.set, []).append(p.counted)
        tables: list[Comparisons] = []
        played: set[str] = set()
        house: set[str] = set()
        out = {}
        for done, number in enumerate(order, 1):
            tables.append({})
            compare_set(by_set[number], tables[-1])
            for g in by_set[number]:
                played |= set(g.seats)
                house |= g.house
            if done in wanted:
                out[wanted[done]] = {
                    f.name: {"mu": f.mu, "sigma": f.sigma, "low": round(f.mu - 2 * f.sigma, 1),
                             "high": round(f.mu + 2 * f.sigma, 1)}
                    for f in fit(played, tables, house)}
        return out

    def overview(self) -> dict[str, Any]:
        """``/api/arena``: each ladder's standings, the sets under way, the latest games."""
        people = self.people()
        games = self.played()
        ladders = []
        for info in self.ladders():
            table = ladder_table(info, (p.counted for p in games))
            for row in table["entrants"]:
                _entry(row, people.get(row["name"]))
            ladders.append(table)
        return {"ladders": ladders, "playing": self.under_way(),
                "recent": [_game(p) for p in reversed(games[-RECENT:])]}

    def entrant(self, name: str) -> dict[str, Any] | None:
        """``/api/arena/NAME``: an entrant's ratings, history, opponents, faults, games."""
        person = self.people().get(name)
        if person is None:
            return None
        games = self.played()
        ladders = []
        for info in self.ladders():
            table = ladder_table(info, (p.counted for p in games))
            row = next((r for r in table["entrants"] if r["name"] == name), None)
            if row is None:
                continue
            _entry(row, person)
            history = [{"sets": h["sets"], "at": h["at"], **h["entrants"][name]}
                       for h in self.history(info, games) if name in h["entrants"]]
            mine = [p for p in games if p.counted.ladder == info.name
                    and name in p.counted.seats]
            ladders.append({"ladder": info.name, "game": info.game, "mode": info.mode,
                            "players": info.players, "rating": row, "history": history,
                            "opponents": _opponents(name, mine),
                            "faults": _faults(name, mine)})
        recent = [p for p in games if name in p.counted.seats][-RECENT:]
        return {"name": person.name, "owner": person.owner, "house": bool(person.house),
                "entry": person.status, "entered": person.created, "ladders": ladders,
                "recent": [_game(p, name) for p in reversed(recent)]}

    def record_of(self, record: str) -> bool:
        """Whether ``record`` is the path of a game of a finished set (the viewer's test)."""
        g = store.games
        with self.engine.connect() as conn:
            found = conn.execute(sa.select(g.c.id).where(g.c.record == record)).first()
        return found is not None and any(p.record == record for p in self.played())


def _entry(row: dict[str, Any], person: Any) -> None:
    """A standings row with what the pages add: owner, entry status, fault rate."""
    row["owner"] = person.owner if person is not None else ""
    row["entry"] = person.status if person is not None else ""
    row["provisional"] = row["status"] != "house" and 2 * row["sigma"] >= PROVISIONAL
    row["fault_rate"] = round(row["faults"] / row["games"], 4) if row["games"] else 0.0


def _game(p: Played, name: str | None = None) -> dict[str, Any]:
    c = p.counted
    ranks = c.ranks()
    out: dict[str, Any] = {
        "ladder": c.ladder, "set": c.set, "rotation": c.rotation, "finished": p.finished,
        "seats": list(c.seats), "totals": list(c.totals), "places": ranks,
        "faults": [{"seat": f.seat, "reason": f.reason} for f in c.faults],
        "record": p.record, "replay": replay_link(p.record)}
    if name is not None:
        seat = c.seats.index(name)
        out["seat"] = seat
        out["place"] = ranks[seat]
    return out


def _opponents(name: str, games: Sequence[Played]) -> list[dict[str, Any]]:
    """Against each other entrant: games together, and who finished ahead."""
    tally: dict[str, list[int]] = {}
    for p in games:
        ranks = p.counted.ranks()
        seat = p.counted.seats.index(name)
        for other, who in enumerate(p.counted.seats):
            if who == name:
                continue
            t = tally.setdefault(who, [0, 0, 0])
            t[0 if ranks[seat] < ranks[other] else 1 if ranks[seat] > ranks[other] else 2] += 1
    return [{"name": who, "games": sum(t), "ahead": t[0], "behind": t[1], "level": t[2]}
            for who, t in sorted(tally.items())]


def _faults(name: str, games: Sequence[Played]) -> list[dict[str, Any]]:
    """The entrant's faults, newest first, as the match runner counts them."""
    out = []
    for p in reversed(games):
        seat = p.counted.seats.index(name)
        for f in p.counted.faults:
            if f.seat == seat:
                out.append({"set": p.counted.set, "rotation": p.counted.rotation,
                            "reason": f.reason, "detail": f.detail[:200],
                            "forfeit": f.reason not in NON_FORFEIT,
                            "replay": replay_link(p.record)})
    return out[:RECENT]
