"""Issue 42: ``arena run`` killed with SIGKILL at random points loses no finished game and
counts none twice; SIGTERM stops it cleanly; two runs on one database never play one
game twice. On SQLite and on PostgreSQL."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest
from arenakit import games, make_arena, records, run_cmd, run_season, standings_json

from xactika.frontends.arena import store
from xactika.frontends.arena.folder import Arena

ENTRANTS = [("ann", "alice", "random"), ("bea", "bob", "random"), ("cid", "carol", "random")]


def _count(folder: Path) -> int:
    arena = Arena.open(folder)
    try:
        with arena.engine.connect() as conn:
            return int(conn.execute(store.sa.select(store.sa.func.count())
                                    .select_from(store.games)).scalar_one())
    finally:
        arena.close()


def _wait_for_games(folder: Path, proc: subprocess.Popen[str], at_least: int) -> None:
    """Until the run has committed ``at_least`` games: polled on the database, which is
    the event itself (no sleep stands for it)."""
    done = threading.Event()
    while _count(folder) < at_least:
        assert proc.poll() is None, proc.communicate()
        done.wait(0.05)


def _check(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = games(folder)
    keys = [(g.set_id, g.rotation) for g in rows]
    assert len(keys) == len(set(keys))  # counted once
    assert sorted(g.record for g in rows) == sorted(
        p.relative_to(folder).as_posix() for p in records(folder))  # none lost, none extra
    assert standings_json(capsys, folder) == standings_json(capsys, folder, records=True)


@pytest.mark.slow
def test_kill_9_at_random_points_loses_nothing_and_counts_nothing_twice(
        tmp_path: Path, arena_db: str | None, capsys: pytest.CaptureFixture[str]) -> None:
    folder = make_arena(capsys, tmp_path / "a", arena_db, ENTRANTS)
    rng = random.Random(42)
    for _ in range(4):
        proc = subprocess.Popen(run_cmd(folder, "--games", "100000", "--concurrency", "2"),
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                env=dict(os.environ))
        _wait_for_games(folder, proc, _count(folder) + rng.randint(1, 6))
        proc.kill()  # SIGKILL: no handler runs
        proc.wait()
    # a clean run finishes the sets the kills cut and adopts records never committed
    done = run_season(folder, "--games", "6")
    assert done.returncode == 0, done.stderr
    _check(folder, capsys)


def test_sigterm_stops_cleanly_and_the_next_run_resumes(
        tmp_path: Path, arena_db: str | None, capsys: pytest.CaptureFixture[str]) -> None:
    folder = make_arena(capsys, tmp_path / "a", arena_db, ENTRANTS)
    proc = subprocess.Popen(run_cmd(folder, "--games", "100000"), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=dict(os.environ))
    _wait_for_games(folder, proc, 2)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert "stopped by SIGTERM" in err
    sets = Arena.open(folder)
    try:
        with sets.engine.connect() as conn:
            claimed = conn.execute(store.sa.select(store.sets.c.id).where(
                store.sets.c.state == "claimed")).all()
    finally:
        sets.close()
    assert claimed == []  # released for whoever runs next
    before = _count(folder)
    assert run_season(folder, "--games", "3").returncode == 0
    assert _count(folder) == before + 3
    _check(folder, capsys)


def test_two_runs_on_one_database_never_play_one_game_twice(
        tmp_path: Path, arena_db: str | None, capsys: pytest.CaptureFixture[str]) -> None:
    folder = make_arena(capsys, tmp_path / "a", arena_db,
                        [*ENTRANTS, ("dan", "dave", "random")])
    procs = [subprocess.Popen(run_cmd(folder, "--games", "15"), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=dict(os.environ))
             for _ in range(2)]
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        assert "15 games" in out
    assert _count(folder) == 30
    _check(folder, capsys)


def test_a_database_that_goes_away_mid_run_is_one_line_and_loses_nothing(
        tmp_path: Path, pg_cluster: Any, capsys: pytest.CaptureFixture[str]) -> None:
    url = pg_cluster.database()
    name = url.split("@/", 1)[1].split("?")[0]
    folder = make_arena(capsys, tmp_path / "a", url, ENTRANTS)
    proc = subprocess.Popen(run_cmd(folder, "--games", "100000"), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=dict(os.environ))
    _wait_for_games(folder, proc, 2)
    pg_cluster.sql(f"ALTER DATABASE {name} ALLOW_CONNECTIONS false")
    pg_cluster.sql(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                   f"WHERE datname = '{name}'")
    _, err = proc.communicate(timeout=300)
    pg_cluster.sql(f"ALTER DATABASE {name} ALLOW_CONNECTIONS true")
    assert proc.returncode == 1, err
    lines = [line for line in err.splitlines() if "arena run:" in line and "sandbox" not in
             line and "WARNING" not in line]
    assert len(lines) == 1 and "database" in lines[0] and "run again to resume" in lines[0]
    assert "Traceback" not in err
    # the next run adopts what was recorded but not committed, and finishes the sets
    assert run_season(folder, "--games", "6").returncode == 0
    _check(folder, capsys)
