"""Issue 42: the arena on SQLite and on PostgreSQL: its schema migrated on start, a season
played by the scheduler, standings that the signed records alone reproduce, the whole
arena audited, the scheduling rules, and bad input in one line."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import sqlalchemy as sa
from arenakit import (
    arena_cli,
    db_rows,
    games,
    make_arena,
    records,
    run_season,
    runner_cost,
    standings_json,
)

from xactika.core.engine.check import command_of
from xactika.frontends.arena import store
from xactika.frontends.arena.folder import HOUSE_PREFIX, Arena
from xactika.frontends.arena.standings import QUALIFY_SETS
from xactika.protocol.records.assemble import read_think
from xactika.protocol.records.textform import read_record

ENTRANTS = [("ann", "alice", "random"), ("bea", "bob", "random"),
            ("cid", "carol", "heuristic"), ("dan", "dave", "random")]


def test_schema_is_migrated_on_start_and_again_is_a_no_op(
        tmp_path: Path, arena_db: str | None, capsys: pytest.CaptureFixture[str]) -> None:
    folder = make_arena(capsys, tmp_path / "a", arena_db, [])
    arena = Arena.open(folder)
    try:
        assert store.schema_version(arena.engine) == store.SCHEMA_HEAD
        names = set(sa.inspect(arena.engine).get_table_names())
        assert {t.name for t in store.METADATA.sorted_tables} <= names
        store.migrate(arena.engine)  # a second start changes nothing
        assert store.schema_version(arena.engine) == store.SCHEMA_HEAD
        if arena_db is None:
            with arena.engine.connect() as conn:
                assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
    finally:
        arena.close()
    assert (folder / "arena.db").exists() == (arena_db is None)


def test_a_season_standings_equal_the_records_and_the_arena_audits(
        tmp_path: Path, arena_db: str | None, capsys: pytest.CaptureFixture[str]) -> None:
    folder = make_arena(capsys, tmp_path / "a", arena_db,
                        [*ENTRANTS, ("eve", "alice", "random")])
    done = run_season(folder, "--games", "36", "--concurrency", "2")
    assert done.returncode == 0, done.stderr
    assert "36 games" in done.stdout
    rows = games(folder)
    assert len(rows) == 36 == len(records(folder))
    assert sorted(r.record for r in rows) == sorted(
        p.relative_to(folder).as_posix() for p in records(folder))
    db = standings_json(capsys, folder)
    assert db == standings_json(capsys, folder, records=True)
    rc, text, _ = arena_cli(capsys, "standings", str(folder))
    rc2, text2, _ = arena_cli(capsys, "ratings", str(folder), "--from-records")
    assert rc == rc2 == 0 and text == text2 and "ann" in text
    (ladder,) = db["ladders"]
    assert ladder["games"] == 3 * ladder["sets"] and ladder["games"] > 0
    assert isinstance(ladder["repeats"], int)
    for path in records(folder):  # the runner's own cost per decision, in every record
        cost = runner_cost(path)
        assert cost["decisions"] > 0 and cost["latency"] >= 0 and cost["cpu"] > 0
    audit = subprocess.run([sys.executable, "-m", "xactika.frontends.cli", "audit", "--strict",
                            "--key", str(folder / "arena.key.pub"), str(folder)],
                           capture_output=True, text=True)
    assert audit.returncode == 0, audit.stdout
    assert "1 manifest" in audit.stdout and "36 verified" in audit.stdout
    # the runner timed every answer: each record says how long each move took
    for path in records(folder)[:3]:
        record = read_record(path)
        timed = read_think(record.headers, record.events)
        assert timed and set(timed) <= {e.seq for e in record.events
                                        if command_of(e) is not None}
    victim = records(folder)[0]
    victim.unlink()
    audit = subprocess.run([sys.executable, "-m", "xactika.frontends.cli", "audit", "--strict",
                            "--key", str(folder / "arena.key.pub"), str(folder)],
                           capture_output=True, text=True)
    assert audit.returncode != 0 and "a game was deleted" in audit.stdout


def test_scheduling_qualifies_first_and_never_seats_one_owner_twice(
        tmp_path: Path, arena_db: str | None, capsys: pytest.CaptureFixture[str]) -> None:
    folder = make_arena(capsys, tmp_path / "a", arena_db,
                        [*ENTRANTS, ("eve", "alice", "random"), ("fay", "bob", "random")])
    done = run_season(folder, "--games", "60")
    assert done.returncode == 0, done.stderr
    people = {r.id: r for r in db_rows(folder, store.entrants)}
    sets = sorted(db_rows(folder, store.sets), key=lambda r: r.id)
    first_rated: dict[int, int] = {}
    qualifying: dict[int, int] = {}
    for s in sets:
        lineup = json.loads(s.lineup)
        owners = [people[i].owner for i in lineup]
        assert len(set(owners)) == len(owners), owners
        if s.qualifying:
            assert not people[lineup[0]].house
            assert all(people[i].house for i in lineup[1:])
            qualifying[lineup[0]] = qualifying.get(lineup[0], 0) + 1
        else:
            for i in lineup:
                first_rated.setdefault(i, s.id)
    entrants = [i for i, p in people.items() if not p.house]
    assert set(qualifying) == set(entrants)
    for i in entrants:  # every entrant qualified before its first rated set
        quals = [s.id for s in sets if s.qualifying and json.loads(s.lineup)[0] == i]
        assert len(quals) == QUALIFY_SETS
        assert i not in first_rated or max(quals) < first_rated[i]
    assert not any(people[i].name.startswith(HOUSE_PREFIX) for i in entrants)


def test_kill_between_record_and_commit_adopts_the_record(
        tmp_path: Path, arena_db: str | None, capsys: pytest.CaptureFixture[str]) -> None:
    """The record is written, the commit never happens (the run died): the next run finds
    the record under the game's name, counts it once and plays nothing in its place."""
    folder = make_arena(capsys, tmp_path / "a", arena_db, ENTRANTS[:1])
    assert run_season(folder, "--games", "2").returncode == 0
    (last,) = [g for g in games(folder) if g.rotation == 1]
    arena = Arena.open(folder)
    try:
        with arena.engine.begin() as conn:
            conn.execute(store.games.delete().where(store.games.c.id == last.id))
            conn.execute(store.runs.insert().values(
                id="ghost", host=socket.gethostname(), pid=_dead_pid(),
                started=0.0))
            conn.execute(store.sets.update().where(store.sets.c.id == last.set_id).values(
                state="claimed", claimed_by="ghost", lease_until=1e12))
    finally:
        arena.close()
    path = folder / last.record
    before = (path.read_bytes(), path.stat().st_ino)
    done = run_season(folder, "--games", "1")
    assert done.returncode == 0, done.stderr
    after = games(folder)
    assert len(after) == 2 and {g.record for g in after} >= {last.record}
    assert (path.read_bytes(), path.stat().st_ino) == before  # adopted, not replayed
    assert standings_json(capsys, folder) == standings_json(capsys, folder, records=True)


def _dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def test_bad_input_is_one_line_and_changes_nothing(
        tmp_path: Path, arena_db: str | None, capsys: pytest.CaptureFixture[str]) -> None:
    folder = make_arena(capsys, tmp_path / "a", arena_db, ENTRANTS[:1])
    before = len(db_rows(folder, store.entrants))
    cases = [
        (["add", str(folder), "AnN", "--owner", "x", "--builtin", "random"], "looks like"),
        (["add", str(folder), "ann", "--owner", "x", "--builtin", "random"], "exists"),
        (["add", str(folder), "a-nn", "--owner", "x", "--builtin", "random"], "looks like"),
        (["add", str(folder), "house-x", "--owner", "x", "--builtin", "random"], "house"),
        (["add", str(folder), "bad name", "--owner", "x", "--builtin", "random"], "bad entrant"),
        (["add", str(folder), "zed", "--owner", "x", "--builtin", "nosuch"], "no built-in"),
        (["add", str(folder), "zed", "--owner", "x"], "-- CMD ARGS"),
        (["add", str(folder), "zed", "--owner", "x", "--", "no-such-program-here"],
         "no such executable"),
        (["retire", str(folder), "nobody"], "no entrant"),
        (["retire", str(folder), "house-random"], "house bot"),
        (["standings", str(folder), "--ladder", "nope"], "no ladder"),
        (["ladder", "add", str(folder), "main", "--players", "3"], "exists"),
        (["ladder", "add", str(folder), "big", "--players", "11"], "players"),
        (["init", str(folder)], "already holds an arena"),
        (["standings", str(tmp_path / "nowhere")], "not an arena"),
        (["run", str(folder), "--concurrency", "0"], "--concurrency"),
    ]
    if arena_db is not None:  # a second arena on the first one's database
        cases.append((["init", str(tmp_path / "b"), "--db", arena_db], "already holds"))
    for args, said in cases:
        rc, out, err = arena_cli(capsys, *args)
        assert rc == 2, (args, out, err)
        assert said in err and err.count("\n") == 1, (args, err)
    for n in range(8):  # an owner with a hundred entrants: stopped at the cap
        rc, _, err = arena_cli(capsys, "add", str(folder), f"flood{n}x", "--owner", "spam",
                               "--builtin", "random")
        assert rc == 0, err
    rc, _, err = arena_cli(capsys, "add", str(folder), "flood99x", "--owner", "spam",
                           "--builtin", "random")
    assert rc == 2 and "the most one owner may have" in err and err.count("\n") == 1
    assert len(db_rows(folder, store.entrants)) == before + 8


def test_an_unreachable_database_is_one_line(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    url = "postgresql://nobody@127.0.0.1:1/none?connect_timeout=2"
    rc, _, err = arena_cli(capsys, "init", str(tmp_path / "a"), "--db", url)
    assert rc == 2 and "database postgresql+psycopg://nobody@127.0.0.1:1/none" in err
    assert err.count("\n") == 1 and not (tmp_path / "a").exists()
    rc, _, err = arena_cli(capsys, "init", str(tmp_path / "b"), "--db", "mysql://x/y")
    assert rc == 2 and "unsupported database" in err


def test_pause_and_retire_take_an_entrant_off_the_schedule(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = make_arena(capsys, tmp_path / "a", None, ENTRANTS[:2])
    assert arena_cli(capsys, "pause", str(folder), "ann")[0] == 0
    assert arena_cli(capsys, "retire", str(folder), "bea")[0] == 0
    done = run_season(folder, "--games", "3")
    assert done.returncode == 1 and "nothing to play" in done.stderr
    assert games(folder) == []
    assert arena_cli(capsys, "pause", str(folder), "ann", "--resume")[0] == 0
    assert run_season(folder, "--games", "3").returncode == 0
    people = {r.id: r.name for r in db_rows(folder, store.entrants)}
    seated = {people[i] for g in games(folder) for i in json.loads(g.seats)}
    assert "ann" in seated and "bea" not in seated
    rc, _, err = arena_cli(capsys, "pause", str(folder), "bea")
    assert rc == 2 and "stays retired" in err


def test_the_sandbox_hides_the_arena_folder(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    from xactika.frontends.match.sandbox import bwrap_works

    if bwrap_works() is not None:
        pytest.skip(f"bubblewrap does not work here: {bwrap_works()}")
    folder = make_arena(capsys, tmp_path / "a", None, [])
    root = Path(__file__).resolve().parent.parent
    spy = tmp_path / "bot" / "spy.sh"
    spy.parent.mkdir()
    # plays as the example bot, and crashes at start-up if it can see the arena
    spy.write_text(f"#!/bin/sh\nfor f in {folder}/arena.key {folder}/arena.db "
                   f"{folder}/ladders; do [ -e \"$f\" ] && exit 3; done\n"
                   f"exec sh {spy.parent}/random_bot.sh\n")
    (spy.parent / "random_bot.sh").write_bytes((root / "examples/random_bot.sh").read_bytes())
    assert arena_cli(capsys, "add", str(folder), "spy", "--owner", "s", "--",
                     "sh", str(spy))[0] == 0
    done = subprocess.run([sys.executable, "-m", "xactika.frontends.cli", "arena", "run",
                           str(folder), "--games", "3", "--sandbox", "bwrap"],
                          capture_output=True, text=True, env=dict(os.environ), timeout=300)
    assert done.returncode == 0, done.stderr
    people = {r.id: r.name for r in db_rows(folder, store.entrants)}
    spy_id = next(i for i, n in people.items() if n == "spy")
    for g in games(folder):
        seat = json.loads(g.seats).index(spy_id)
        faults = json.loads(g.result)["faults"]
        assert not [f for f in faults if f[0] == seat], faults
