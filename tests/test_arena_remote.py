"""Issue 42: remote entrants. ``arena add --remote`` prints a token; ``arena run --listen``
seats the bot that ``xactika connect`` brings; one not connected is simply not scheduled;
the token is a seat and nothing else; a bot that connects and never answers forfeits on
time. On SQLite and on PostgreSQL, as the other arena tests."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from arenakit import arena_cli, db_rows, games, make_arena, records, run_cmd, standings_json

from xactika.frontends.arena import store
from xactika.protocol.records.textform import read_record

XACTIKA = Path(sys.executable).with_name("xactika")
BOT = [sys.executable, str(Path(__file__).resolve().parent.parent / "examples" / "random_bot.py")]

pytestmark = pytest.mark.skipif(not XACTIKA.exists(), reason="needs the installed command")


def add_remote(capsys: pytest.CaptureFixture[str], folder: Path, name: str, owner: str,
               into: Path) -> str:
    rc, out, err = arena_cli(capsys, "add", str(folder), name, "--owner", owner, "--remote")
    assert rc == 0, err
    lines = out.strip().splitlines()
    assert all(len(line) <= 80 for line in lines), lines  # a terminal's width
    token = lines[lines.index(next(ln for ln in lines if ln.startswith("its token"))) + 1]
    assert re.fullmatch(r"[A-Za-z0-9_-]{32}", token), out
    into.write_text(token + "\n")
    return token


def start_run(folder: Path, *args: str) -> tuple[subprocess.Popen[str], str]:
    """``arena run --listen 127.0.0.1:0``, and the address it says it listens at."""
    run = subprocess.Popen(run_cmd(folder, "--listen", "127.0.0.1:0", *args),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           start_new_session=True)
    assert run.stderr is not None
    for line in run.stderr:  # the sandbox's line, then the listener's
        found = re.search(r"xactika connect (127\.0\.0\.1:\d+) --token-file", line)
        if found:
            return run, found.group(1)
    run.wait()
    raise AssertionError(f"no listening line; exit {run.returncode}")


def stop(*procs: subprocess.Popen[str] | None) -> None:
    for proc in procs:
        if proc is not None and proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def remote_id(folder: Path, name: str) -> int:
    (row,) = [r for r in db_rows(folder, store.entrants) if r.name == name]
    assert json.loads(row.cmd).keys() == {"remote"}  # its hash, never the token itself
    return int(row.id)


def test_a_remote_entrant_plays_where_it_connects(
        tmp_path: Path, arena_db: str | None, capsys: pytest.CaptureFixture[str]) -> None:
    folder = make_arena(capsys, tmp_path / "a", arena_db, [])
    token = add_remote(capsys, folder, "far", "fiona", tmp_path / "far.token")
    assert token not in (folder / "arena.json").read_text()
    far = remote_id(folder, "far")
    run, where = start_run(folder, "--games", "6")
    relay = None
    try:  # far alone and the house: nothing is played until it connects
        relay = subprocess.run([str(XACTIKA), "connect", where, "--token-file",
                                str(tmp_path / "far.token"), "--", *BOT],
                               capture_output=True, text=True, timeout=120)
        out, err = run.communicate(timeout=120)
    finally:
        stop(run)
    assert run.returncode == 0, err
    assert "6 games" in out
    assert relay.returncode == 0, relay.stderr  # quit at the end of the run: the relay ends
    rows = games(folder)
    assert len(rows) == 6 and all(far in json.loads(r.seats) for r in rows)
    assert all(json.loads(r.result)["faults"] == [] for r in rows)
    # a remote bot keeps what it saw: each seating of its sets is dealt a deal of its own
    seeds = [read_record(p).header("seed") for p in records(folder)]
    assert len(set(seeds)) == 6, seeds
    assert standings_json(capsys, folder) == standings_json(capsys, folder, records=True)
    audit = subprocess.run([str(XACTIKA), "audit", "--strict", "--key",
                            str(folder / "arena.key.pub"), str(folder)],
                           capture_output=True, text=True)
    assert audit.returncode == 0 and "6 verified" in audit.stdout, audit.stdout


def test_a_remote_entrant_not_connected_is_not_scheduled(
        tmp_path: Path, arena_db: str | None, capsys: pytest.CaptureFixture[str]) -> None:
    folder = make_arena(capsys, tmp_path / "a", arena_db,
                        [("ann", "alice", "random"), ("bea", "bob", "random"),
                         ("cid", "carol", "heuristic")])
    add_remote(capsys, folder, "far", "fiona", tmp_path / "far.token")
    far = remote_id(folder, "far")
    run, _where = start_run(folder, "--games", "9")
    try:
        out, err = run.communicate(timeout=120)
    finally:
        stop(run)
    assert run.returncode == 0, err
    assert "9 games" in out
    sets = db_rows(folder, store.sets)
    assert sets and not any(far in json.loads(s.lineup) for s in sets)


def test_a_token_is_a_seat_and_a_silent_bot_forfeits_on_time(
        tmp_path: Path, arena_db: str | None, capsys: pytest.CaptureFixture[str]) -> None:
    """A wrong token is refused; the right one seats its bot, which shakes hands and then
    never answers a move: a time fault, and the game goes on without it."""
    folder = make_arena(capsys, tmp_path / "a", arena_db, [])
    token = add_remote(capsys, folder, "far", "fiona", tmp_path / "far.token")
    run, where = start_run(folder, "--games", "3")
    host, port = where.split(":")
    try:
        with socket.create_connection((host, int(port)), timeout=60) as wrong:
            wrong.sendall(b"seat " + token[::-1].encode() + b"\n")
            assert wrong.makefile("rb").readline().startswith(b"error unknown token")
        with socket.create_connection((host, int(port)), timeout=60) as sock:
            lines = sock.makefile("rb")
            sock.sendall(f"seat {token}\n".encode())
            assert lines.readline() == b"seated match bot=far\n"
            for line in lines:  # hands shaken, then silence whatever it is asked
                word = line.split(b" ", 1)[0].strip()
                if word == b"hello":
                    sock.sendall(b"hello 1 name=silent\n")
                elif word == b"isready":
                    sock.sendall(b"readyok\n")
                elif word == b"go":
                    break
            out, err = run.communicate(timeout=120)
    finally:
        stop(run)
    assert run.returncode == 0, err
    assert "3 games" in out
    first = min(games(folder), key=lambda r: r.rotation)
    faults = json.loads(first.result)["faults"]
    seat = json.loads(first.seats).index(remote_id(folder, "far"))
    assert [f[:2] for f in faults] == [[seat, "timeout"]], faults
    (row,) = [e for e in standings_json(capsys, folder)["ladders"][0]["entrants"]
              if e["name"] == "far"]
    assert row["faults"] == 3 and row["forfeits"] == 3  # the two games after: not connected


def test_bad_remote_entrants_are_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = make_arena(capsys, tmp_path / "a", None, [])
    for extra in (["--builtin", "random"], ["--dir", str(tmp_path)], ["--", "python3", "x"]):
        rc, out, err = arena_cli(capsys, "add", str(folder), "far", "--owner", "o", "--remote",
                                 *extra)
        assert rc == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    assert all(r.house for r in db_rows(folder, store.entrants))  # nothing was added
    rc, _, err = arena_cli(capsys, "run", str(folder), "--listen", "nowhere", "--games", "1")
    assert rc == 2 and "bad address" in err and len(err.strip().splitlines()) == 1
