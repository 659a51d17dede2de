"""``xactika serve`` killed with SIGKILL at 50 random points and restarted with the same
``--out`` finishes every game as if it had never stopped (spec/SERVER.md section 10).

Scripted people (``kind=human``, thinking a few ms) and bots (answering at once) play
tables made at start and by the admin; their moves depend only on what they were shown
(seat and event count), so the same seed and the same moves give the same events, and
each game is checked against the same game played straight through in process. Every
event line a client ever received must be in the final record, unchanged.
"""

from __future__ import annotations

import hashlib
import os
import random
import re
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import attrs
import pytest

from xactika.core.engine.api import game_rules
from xactika.core.engine.check import command_of
from xactika.core.engine.events import GameOver
from xactika.core.engine.referee import FaultPolicy, Referee
from xactika.core.engine.views import visible
from xactika.protocol.notation.text import format_event
from xactika.protocol.player.wire import format_go, parse_answer
from xactika.protocol.records.assemble import read_think
from xactika.protocol.records.textform import read_record
from xactika.protocol.trust.signing import write_key

XACTIKA = str(Path(sys.executable).with_name("xactika"))
KILLS = 50
DEADLINE = 150.0  # seconds for the whole test: a hang fails instead of blocking CI


def answer(go: str, seat: int, seen: int) -> str:
    """The scripted move: an option chosen by a hash of the seat and the event count, so
    it is the same whenever the same ``go`` is asked (again after a restart, or in the
    straight game)."""
    words = go.split()
    options = dict(w.partition("=")[::2] for w in words[2:])["options"].split(",")
    pick = int.from_bytes(hashlib.sha256(f"{seat}/{seen}".encode()).digest()[:4], "big")
    option = options[pick % len(options)]
    return f"bid {option}" if words[1] == "bid" else "play " + option.replace(":", " ")


class Player(threading.Thread):
    """One seat's client: plays, and on any drop reconnects with ``resume=<last seq>``."""

    def __init__(self, port: int, token: str, human: bool, seed: int) -> None:
        super().__init__(daemon=True)
        self.port, self.token, self.human = port, token, human
        self.rng = random.Random(seed)
        self.seat = -1
        self.seen: dict[int, str] = {}  # every event line received, by seq
        self.problems: list[str] = []
        self.finished = False  # quit received
        self.gave_up = False  # refused: a problem, no use trying again
        self.connects = 0

    def run(self) -> None:
        deadline = time.monotonic() + DEADLINE
        while not (self.finished or self.gave_up) and time.monotonic() < deadline:
            try:
                self._session()
            except OSError:
                pass
            if not (self.finished or self.gave_up):
                time.sleep(0.02)  # the server is down or restarting

    def _session(self) -> None:
        with socket.create_connection(("127.0.0.1", self.port), timeout=DEADLINE) as sock:
            self.connects += 1
            last = max(self.seen, default=0)
            sock.sendall(f"seat {self.token}{f' resume={last}' if last else ''}\n".encode())
            stream = sock.makefile("rb")
            while raw := stream.readline():
                if not raw.endswith(b"\n"):
                    return  # cut mid-line by the kill: never seen whole
                self._line(sock, raw.decode().rstrip("\n"))
                if self.finished or self.gave_up:
                    return

    def _line(self, sock: socket.socket, line: str) -> None:
        words = line.split()
        if words[0] == "seated":
            self.seat = int(dict(w.partition("=")[::2] for w in words[1:])["seat"])
        elif words[0] == "hello":
            kind = " kind=human" if self.human else ""
            sock.sendall(f"hello 1 name={'ann' if self.human else 'bot'}{kind}\n".encode())
        elif words[0] == "isready":
            sock.sendall(b"readyok\n")
        elif words[0] == "event":
            seq = int(words[1])
            if self.seen.setdefault(seq, line) != line:
                self.problems.append(f"event {seq} changed: {self.seen[seq]!r} -> {line!r}")
        elif words[0] == "go":
            if self.human:
                time.sleep(self.rng.uniform(0.02, 0.1))
            sock.sendall((answer(line, self.seat, max(self.seen, default=0)) + "\n").encode())
        elif words[0] == "quit":
            self.finished = True
        elif words[0] == "error":
            self.problems.append(line)
            self.gave_up = True


def straight_game(events: tuple[object, ...]) -> list[str]:
    """The record's game played again in process with no server and no crash."""
    started, over = events[0], events[-1]
    assert isinstance(over, GameOver)
    config = attrs.evolve(started.config, seed=over.seed, nonce=over.nonce)  # type: ignore[attr-defined]
    rules = game_rules(config.game)
    referee = Referee.new(config, policy=FaultPolicy.abort())
    while (turn := referee.turn()) is not None:
        go = format_go(turn.legal, rules, 30000)
        referee.submit(parse_answer(answer(go, turn.seat, len(referee.events)), turn.legal,
                                    rules))
    return [format_event(e, rules) for e in referee.events]


class Server:
    """``xactika serve`` as a process that the test kills and starts again."""

    def __init__(self, port: int, out: Path, key: Path) -> None:
        self.args = [XACTIKA, "serve", "--port", str(port), "--tables", "3", "--players", "4",
                     "--rounds", "8", "--seed", "40", "--move-timeout", "60", "--grace", "20",
                     "--out", str(out), "--key", str(key), "--exit-when-done"]
        self.proc: subprocess.Popen[str] | None = None
        self.lines: list[str] = []

    def start(self) -> list[str]:
        """Start it; the lines it prints up to its tables (tokens or ``resumed``)."""
        self.proc = subprocess.Popen(self.args, stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        head = []
        while line := self.proc.stdout.readline():
            head.append(line.strip())
            if line.startswith(("resumed", "clocks:")):  # after the tables' token lines
                break
        self.lines += head
        return head

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)


def admin_table(port: int, token: str, pairs: str) -> str:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        stream = sock.makefile()
        sock.sendall(f"admin {token}\n".encode())
        assert stream.readline() == "admin ok\n"
        sock.sendall(f"table {pairs}\n".encode())
        lines = []
        while line := stream.readline().strip():  # a line a token, the observer's last
            lines.append(line)
            if " observer token " in line:
                break
        return "\n".join(lines)


def seat_tokens(head: list[str]) -> list[list[str]]:
    """Each table's seat tokens, from ``table N seat S token T`` lines (serve, admin)."""
    tables: dict[int, dict[int, str]] = {}
    for line in head:
        words = line.split()
        if len(words) == 6 and (words[0], words[2], words[4]) == ("table", "seat", "token"):
            tables.setdefault(int(words[1]), {})[int(words[3])] = words[5]
    return [[seats[s] for s in sorted(seats)] for _, seats in sorted(tables.items())]


@pytest.mark.slow
def test_sigkill_at_50_points_loses_nothing(tmp_path: Path) -> None:
    key, out = tmp_path / "key.pem", tmp_path / "out"
    write_key(key)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    rng = random.Random(2026)
    server = Server(port, out, key)
    try:
        head = server.start()
        admin = next(h for h in head if h.startswith("admin")).split("=")[1]
        made = [admin_table(port, admin, "game=xactika players=2 rounds=8 seed=9"),
                admin_table(port, admin, "game=dix players=2 rounds=4 seed=12")]
        tables = seat_tokens(head + "\n".join(made).split("\n"))
        assert [len(t) for t in tables] == [4, 4, 4, 2, 2]
        players = [Player(port, token, human=(n + k) % 2 == 0, seed=rng.random().hex())
                   for n, seats in enumerate(tables) for k, token in enumerate(seats)]
        # the journal is as secret as the key: 0600 in a 0700 folder
        assert stat.S_IMODE(os.stat(out).st_mode) == 0o700
        assert stat.S_IMODE(os.stat(out / "journal.sqlite").st_mode) == 0o600
        for n, player in enumerate(players):
            if n % 4 != 3:
                player.start()  # a quarter join later: some kills find tables still waiting
        kills, mid_game = 0, 0
        for kill in range(KILLS):
            if kill == 3:
                for player in players[3::4]:
                    player.start()
            time.sleep(rng.uniform(0.03, 0.3))
            mid_game += not all(p.finished for p in players)
            server.kill()
            kills += 1
            head = server.start()
            assert any(h.startswith("resumed") for h in head), head
        for player in players:
            player.join(DEADLINE)
        problems = [f"{p.token[:6]}: {why}" for p in players for why in p.problems]
        assert not problems, problems
        assert all(p.finished for p in players)
        assert server.proc is not None
        assert server.proc.wait(30) == 0, server.lines[-5:]
        assert kills == KILLS
        assert mid_game >= KILLS - 5, f"only {mid_game} kills found a game going"
        assert sum(p.connects for p in players) > 2 * len(players)  # they did come back
    finally:  # nothing left running when a check fails
        if server.proc is not None and server.proc.poll() is None:
            server.proc.kill()

    records = sorted(out.glob("table-*.log"))
    assert len(records) == len(tables)
    by_table = {int(re.search(r"table-(\d+)", str(r)).group(1)): r for r in records}  # type: ignore[union-attr]
    for number, seats in enumerate(tables, 1):
        check_record(by_table[number], [(p.seat, p.seen) for p in players if p.token in seats],
                     straight=True)
    check_audit(out, key)


def check_record(path: Path, seats: list[tuple[int, dict[int, str]]], *,
                 straight: bool) -> None:
    """The record ended normally; every event line each seat saw (seq -> line) is its
    view of the record's event, and it saw them all; with ``straight``, the record is
    the game played through with no server (every seat scripted by ``answer``)."""
    record = read_record(path)
    rules = game_rules(record.events[0].config.game)  # type: ignore[attr-defined]
    if straight:
        full = [format_event(e, rules) for e in record.events]
        assert full == straight_game(record.events), f"{path.name} differs"
    assert ("termination", "normal") in record.headers
    # every seat answered every move itself, and each answer's time survived the kills
    decisions = [e.seq for e in record.events if command_of(e) is not None]
    assert sorted(read_think(record.headers, record.events)) == decisions, path.name
    for seat, lines in seats:
        for seq, seen in lines.items():
            assert seen == format_event(visible(record.events[seq - 1], seat), rules), \
                f"{path.name} event {seq}"
        assert len(lines) == len(record.events)


def check_audit(out: Path, key: Path) -> None:
    """Every record in ``out`` passes ``audit --strict`` with the server's public key."""
    audit = subprocess.run([XACTIKA, "audit", "--strict", "--key", f"{key}.pub", str(out)],
                           capture_output=True, text=True, timeout=60)
    assert audit.returncode == 0, audit.stdout + audit.stderr
