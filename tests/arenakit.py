"""Helpers of the arena's tests: make an arena, run its commands, read its database."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from xactika.frontends.arena import command, store
from xactika.frontends.arena.folder import Arena


def arena_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    rc = command.main(list(args))
    out, err = capsys.readouterr()
    return rc, out, err


def make_arena(capsys: pytest.CaptureFixture[str], folder: Path, db: str | None,
               entrants: Sequence[tuple[str, str, str]], players: int = 3,
               rounds: int = 1) -> Path:
    """An arena with one ladder and entrants (name, owner, built-in bot)."""
    args = ["init", str(folder), "--players", str(players), "--rounds", str(rounds)]
    rc, _, err = arena_cli(capsys, *args, *(["--db", db] if db else []))
    assert rc == 0, err
    for name, owner, bot in entrants:
        rc, _, err = arena_cli(capsys, "add", str(folder), name, "--owner", owner,
                               "--builtin", bot)
        assert rc == 0, err
    return folder


def run_cmd(folder: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "xactika.frontends.cli", "arena", "run", str(folder),
            "--sandbox", "none", *args]


def run_season(folder: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(run_cmd(folder, *args), capture_output=True, text=True,
                          timeout=timeout, env=dict(os.environ))


def standings_json(capsys: pytest.CaptureFixture[str], folder: Path,
                   records: bool = False) -> dict[str, Any]:
    args = ["ratings", str(folder), "--from-records"] if records else ["standings", str(folder)]
    rc, out, err = arena_cli(capsys, *args, "--json")
    assert rc == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


def db_rows(folder: Path, table: sa.Table) -> list[Any]:
    arena = Arena.open(folder)
    try:
        with arena.engine.connect() as conn:
            return list(conn.execute(sa.select(table)).all())
    finally:
        arena.close()


def games(folder: Path) -> list[Any]:
    return db_rows(folder, store.games)


def records(folder: Path) -> list[Path]:
    return sorted(folder.glob("ladders/*/games/*.log"))


def runner_cost(path: Path) -> dict[str, int]:
    """A record's ``runner.cost`` header: microseconds a decision, and the decisions."""
    from xactika.protocol.records.textform import read_record

    text = read_record(path).header("runner.cost") or ""
    return {k: int(v.removesuffix("us")) for k, _, v in (w.partition("=") for w in text.split())}
