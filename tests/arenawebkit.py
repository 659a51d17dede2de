"""Helpers of the arena's web tests: a played arena, and sets written straight into its
database (a hostile or hand-made database: names and faults no command would accept)."""

from __future__ import annotations

import contextlib
import io
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from arenakit import run_season

from xactika.frontends.arena import command, store
from xactika.frontends.arena.folder import Arena
from xactika.frontends.match.tournament import rotations

ENTRANTS = [("ann", "alice", "random"), ("bea", "bob", "heuristic"),
            ("cid", "carol", "strong:1")]


def cli(*args: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = command.main(list(args))
    assert rc == 0, err.getvalue()
    return out.getvalue()


def new_arena(folder: Path, db: str | None = None,
              entrants: Sequence[tuple[str, str, str]] = ENTRANTS) -> Path:
    cli("init", str(folder), "--players", "3", "--rounds", "1", *(["--db", db] if db else []))
    for name, owner, bot in entrants:
        cli("add", str(folder), name, "--owner", owner, "--builtin", bot)
    return folder


def played_arena(folder: Path, games: int = 24) -> Path:
    new_arena(folder)
    done = run_season(folder, "--games", str(games))
    assert done.returncode == 0, done.stderr
    return folder


def add_entrant(folder: Path, name: str, owner: str) -> int:
    """An entrant inserted as it is, past every check of ``arena add``."""
    arena = Arena.open(folder)
    try:
        with arena.engine.begin() as conn:
            return int(conn.execute(store.entrants.insert().values(
                name=name, skeleton=name, owner=owner, cmd=json.dumps(["true"]), dir=None,
                house=False, status="active", created=time.time()).returning(
                    store.entrants.c.id)).scalar_one())
    finally:
        arena.close()


def ids(folder: Path, *names: str) -> list[int]:
    arena = Arena.open(folder)
    try:
        with arena.engine.connect() as conn:
            found = dict(conn.execute(sa.select(store.entrants.c.name, store.entrants.c.id)).all())
    finally:
        arena.close()
    return [found[n] for n in names]


def add_set(folder: Path, lineup: Sequence[int], played: int | None = None,
            fault: str | None = None, record: str | None = None,
            claimed: bool = False, run: str = "someone", lease: float = 3600.0) -> int:
    """A set with its first ``played`` rotations (all by default) as games: the first
    seat wins each; ``fault``: seat 1 faults with this detail; ``record``: every game's
    record path; ``claimed``: held by the run ``run``, its lease ``lease`` s from now."""
    arena = Arena.open(folder)
    seatings = rotations(lineup)
    try:
        with arena.engine.begin() as conn:
            set_id = int(conn.execute(store.sets.insert().values(
                ladder_id=1, lineup=json.dumps(list(lineup)), qualifying=False,
                state="claimed" if claimed else "done",
                claimed_by=run if claimed else None,
                lease_until=time.time() + lease if claimed else None,
                created=time.time()).returning(store.sets.c.id)).scalar_one())
            for r, seats in enumerate(seatings[:len(seatings) if played is None else played]):
                result = {"totals": [30, 20, 10], "winners": [0], "hands": 1,
                          "low_wins": False,
                          "faults": [[1, "illegal", fault]] if fault else []}
                conn.execute(store.games.insert().values(
                    set_id=set_id, rotation=r, seats=json.dumps(list(seats)),
                    record=record or f"ladders/main/games/d{set_id}-t0-r{r}.log",
                    result=json.dumps(result), finished=time.time()))
        return set_id
    finally:
        arena.close()


def live_game(folder: Path, set_id: int, rotation: int = 0, run: str = "someone",
              upto: int | None = None, seed: int = 7) -> list[Any]:
    """A seating of 3 random stand-ins played through, its first ``upto`` events (all by
    default) written to the set's live file as the worker writes them; every event,
    hands and all."""
    from xactika.core.bots.agents import RandomAgent
    from xactika.core.engine.api import Config
    from xactika.core.engine.referee import Faulted, FaultPolicy, Referee
    from xactika.core.engine.referee import run as play
    from xactika.frontends.arena import live
    from xactika.protocol.trust.tamper import commit_config

    config = commit_config(Config(game="xactika", mode="bid", players=3, rounds=1, seed=seed))
    referee = Referee.new(config, policy=FaultPolicy.stand_in(lambda s: RandomAgent(s)))
    play(referee, lambda turn: Faulted("test", "a stand-in plays"))
    events = list(referee.events)
    shown = events[:upto]
    writer = live.LiveFile(live.live_path(folder, set_id), run, rotation, "xactika", False)
    writer(shown[:2], [None, None])  # as GamePlayer tells it: the opening, then each move
    for e in shown[2:]:
        writer([e], [None])
    writer.close()
    return events
