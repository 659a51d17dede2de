"""The table server's journal: every table's settings, seats and events in SQLite, so a
server killed with SIGKILL resumes every unfinished game on restart (spec/SERVER.md
section 9).

One file, ``journal.sqlite`` in the server's ``--out`` folder, in WAL mode. Rows are
written as things happen; before a line goes to a client (``Link.barrier``) what was
written until it was queued is committed and the WAL file fsynced, so an event that
anyone has seen was on disk first and survives the power going, not only the process.
That is ``synchronous=FULL``'s guarantee, obtained differently: SQLite commits with
``synchronous=NORMAL`` (no fsync in the commit, which would stop the server's loop), and
the fsync runs in a worker thread while the loop goes on; the lines wait for it. Commits
and fsyncs are grouped: everything written by the time one starts rides along.

The journal holds every hand and the deal seeds before they are revealed, and token
hashes: it is as secret as the signing key, so the folder is made 0700 and the file
0600. Raw tokens are never written; a restored seat is found by its token's hash.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sqlite3
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import attrs

from xactika.protocol.net.clock import parse_clock

FILE = "journal.sqlite"
COUNT = "-count"  # beside the journal: commits known on disk and the last table number
log = logging.getLogger(__name__)

_SCHEMA = """
create table if not exists tables (
    id integer primary key,
    settings text not null,      -- JSON: TableSettings' fields, config as key=value text
    observer blob not null,      -- sha256 of the observer token
    started text,                -- ISO date the game began (the record's date header)
    over integer not null default 0,
    record text
);
create table if not exists seats (
    table_id integer not null,
    seat integer not null,
    token blob not null,         -- sha256 of the seat token
    fields text not null,        -- JSON: name, kind, clock_ms... (what Seat has)
    primary key (table_id, seat)
) without rowid;
create table if not exists events (
    table_id integer not null,
    seq integer not null,        -- 1, 2, ... as in 'event <seq>'
    line text not null,          -- the omniscient text form (protocol/notation/text.py)
    primary key (table_id, seq)
) without rowid;
create table if not exists moves (
    table_id integer not null,
    seq integer not null,        -- the event a seat's answer made
    fields text not null,        -- JSON: the per-move facts (records/assemble.py's MOVE_HEADERS)
    primary key (table_id, seq)
) without rowid;
create table if not exists faults (
    table_id integer not null,
    n integer not null,
    seat integer not null,
    reason text not null,
    detail text not null,
    at integer not null,         -- events before the fault
    primary key (table_id, n)
) without rowid;
create table if not exists meta (
    key text primary key,
    value integer not null       -- 'commits': transactions committed, ever
);
insert or ignore into meta values ('commits', 0);
create table if not exists aside (
    table_id integer primary key,
    reason text not null         -- why a damaged table was not resumed (its rows kept)
);
create table if not exists hosts (
    table_id integer primary key,
    data text not null           -- JSON: what the lobby or the web keeps of the table
);
create table if not exists chat (
    table_id integer not null,
    n integer not null,          -- the table's messages counted from 1
    line text not null,          -- 'chat NAME TEXT', as every seat and spectator got it
    primary key (table_id, n)
) without rowid;
"""

# TableSettings fields whose values are not plain JSON: name -> (to JSON, from JSON).
# A new setting of another kind (a clock, a level) adds its one line here.
SETTING_CODECS: dict[str, tuple[Callable[[Any], Any], Callable[[Any], Any]]] = {
    # a person's time bank: ``60+5`` as --clock writes it, or null
    "clock": (lambda c: None if c is None else c.text(),
              lambda t: None if t is None else parse_clock(t)),
}

# Seat fields kept per seat when the Seat class has them (others are not ours to keep).
SEAT_FIELDS = ("name", "kind", "clock_ms", "replaced")


class JournalError(Exception):
    """The journal cannot be opened or read (a one-line reason)."""


@attrs.frozen
class SavedSeat:
    key: bytes
    fields: dict[str, Any]


@attrs.frozen
class SavedTable:
    """An unfinished table as the journal holds it."""

    id: int
    settings: dict[str, Any]
    observer: bytes
    started: str | None
    seats: tuple[SavedSeat, ...]
    events: tuple[str, ...]
    faults: tuple[tuple[int, str, str, int], ...]  # seat, reason, detail, at
    moves: dict[int, dict[str, int]] = attrs.field(factory=dict)  # by seq: name -> value


def encode_settings(fields: dict[str, Any]) -> str:
    out = {}
    for key, value in fields.items():
        codec = SETTING_CODECS.get(key)
        out[key] = codec[0](value) if codec is not None else value
    return json.dumps(out, sort_keys=True)


def decode_settings(text: str) -> dict[str, Any]:
    raw = json.loads(text)
    return {key: SETTING_CODECS[key][1](value) if key in SETTING_CODECS else value
            for key, value in raw.items()}


def private_folder(folder: Path) -> None:
    """Make ``folder`` (and its parents) and restrict it to its owner."""
    folder.mkdir(parents=True, exist_ok=True)
    os.chmod(folder, 0o700)


class Journal:
    """The open journal of one server; not thread-safe (the server's loop owns it)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        private_folder(path.parent)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)  # before sqlite makes it 0644
        os.close(fd)
        os.chmod(path, 0o600)  # the -wal and -shm files copy the file's mode
        try:
            self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False,
                                       timeout=0.5)
            # one server a journal: a second one on the same --out stops at its start
            self._db.execute("pragma locking_mode=exclusive")
            self._db.execute("pragma journal_mode=wal")
            self._db.execute("pragma synchronous=normal")  # the WAL's fsync is ours
            self._db.executescript(_SCHEMA)
        except sqlite3.Error as exc:
            why = " (another server uses this folder?)" if "locked" in str(exc) else ""
            raise JournalError(f"{path}: {exc}{why}") from None
        self._wal = os.open(f"{path}-wal", os.O_RDONLY)  # made by WAL mode; fsynced here
        self.damage: list[str] = []  # one line each: what was lost or set aside
        self.serial = self._meta("commits")
        self.top = self.last_id()  # the highest table number ever given
        self._count = os.open(f"{path}{COUNT}", os.O_RDWR | os.O_CREAT, 0o600)
        self._check_count()
        self._open = False  # a transaction holds rows not yet committed
        self.mark = 0  # rows written so far
        self._committed = 0  # rows committed (in the WAL file, maybe not on disk)
        self.durable = 0  # rows on disk
        self._syncing = False
        # the loop's fsyncs run here, not in the loop's shared executor, so that close()
        # can wait for one in flight before it closes the files it writes to
        self._fsyncer = ThreadPoolExecutor(1, thread_name_prefix="journal-fsync")
        self._closed = False
        self._waiters: list[tuple[int, Callable[[], None]]] = []
        self.commits = 0
        self.fsyncs = 0

    @classmethod
    def open(cls, folder: Path) -> Journal:
        return cls(folder / FILE)

    # -- writing
    def _write(self, sql: str, rows: Iterable[tuple[Any, ...]]) -> None:
        if not self._open:
            self._db.execute("begin")
            self._open = True
        self._db.executemany(sql, rows)
        self.mark += 1

    def _commit(self) -> None:
        if self._open:
            self._open = False
            self.serial += 1  # counted in the same transaction: a lost one shows
            self._db.execute("update meta set value = ? where key = 'commits'",
                             (self.serial,))
            self._db.execute("commit")
            self.commits += 1
        self._committed = self.mark

    # -- noticing damage: the count file says how far the journal reached
    def _meta(self, key: str) -> int:
        row = self._db.execute("select value from meta where key = ?", (key,)).fetchone()
        return int(row[0]) if row else 0

    def _check_count(self) -> None:
        """Compare the journal with its count file (``journal.sqlite-count``: commits on
        disk, highest table number), written after each fsync: a journal that holds
        fewer commits lost its ends (its ``-wal`` file deleted or cut short)."""
        text = os.pread(self._count, 64, 0).decode("ascii", "replace").split()
        if len(text) != 2 or not all(w.isdigit() for w in text):
            return  # a new journal (or a count file lost: nothing to compare)
        reached, top = int(text[0]), int(text[1])
        self.top = max(self.top, top)
        if reached > self.serial:
            lost = f"tables {self.last_id() + 1} to {top} whole, " if top > self.last_id() \
                else ""
            self.damage.append(
                f"journal damaged: it holds {self.serial} of the {reached} commits that "
                f"were on disk (its -wal file deleted or cut short?): {lost}the last moves "
                "of any game then in progress are lost; a seat that saw more is told so")

    def _counted(self, serial: int) -> None:
        """Note in the count file that commits up to ``serial`` are on disk (no fsync of
        its own: after a power cut it may lag, which only hides damage, never invents it)."""
        os.pwrite(self._count, f"{serial:020d} {self.top:012d}\n".encode(), 0)

    def sync(self) -> None:
        """Every row written so far on disk before this returns (blocks the loop: for
        what is rare, a new table, a closing connection, the end)."""
        self._commit()
        if self.durable < self._committed:
            os.fsync(self._wal)
            self.fsyncs += 1
            self.durable = self._committed
            self._counted(self.serial)
            self._release()

    def wait(self, mark: int, again: Callable[[], None]) -> bool:
        """True when rows up to ``mark`` are on disk; else False, and ``again()`` is
        called (in the loop) once they are: a link's lines wait for what they carry."""
        if mark <= self.durable:
            return True
        if mark > self._committed:
            self._commit()
        self._waiters.append((mark, again))
        self._fsync_soon()
        return False

    def _fsync_soon(self) -> None:
        if self._closed or self._syncing or self.durable >= self._committed:
            return
        self._syncing = True
        target, serial = self._committed, self.serial
        loop = asyncio.get_running_loop()
        done = loop.run_in_executor(self._fsyncer, os.fsync, self._wal)
        done.add_done_callback(lambda future: self._synced(future, target, serial))

    def _synced(self, future: asyncio.Future[None], target: int, serial: int) -> None:
        self._syncing = False
        if self._closed:  # close() made every row durable and counted them; its files
            return  # are closed (their numbers may be another file's by now)
        if future.exception() is not None:  # nothing can be promised: say so, go on
            log.error("journal fsync failed: %s", future.exception())
        else:
            self._counted(serial)
        self.fsyncs += 1
        self.durable = max(self.durable, target)
        self._release()
        self._fsync_soon()  # what was committed meanwhile

    def _release(self) -> None:
        ready = [again for mark, again in self._waiters if mark <= self.durable]
        self._waiters = [(m, a) for m, a in self._waiters if m > self.durable]
        for again in ready:
            again()

    def table(self, table_id: int, settings: dict[str, Any], observer: bytes,
              seats: Iterable[tuple[bytes, dict[str, Any]]]) -> None:
        """A new table; committed at once (its tokens are printed right after)."""
        self._write("insert into tables (id, settings, observer) values (?, ?, ?)",
                    [(table_id, encode_settings(settings), observer)])
        self.top = max(self.top, table_id)
        self._write("insert into seats values (?, ?, ?, ?)",
                    [(table_id, n, key, json.dumps(fields)) for n, (key, fields)
                     in enumerate(seats)])
        self.sync()

    def seat(self, table_id: int, seat: int, fields: dict[str, Any]) -> None:
        self._write("update seats set fields = ? where table_id = ? and seat = ?",
                    [(json.dumps(fields), table_id, seat)])

    def seat_token(self, table_id: int, seat: int, key: bytes) -> None:
        """A seat's new token (the lobby's ``leave``); committed at once, as it is given
        out right after."""
        self._write("update seats set token = ? where table_id = ? and seat = ?",
                    [(key, table_id, seat)])
        self.sync()

    def started(self, table_id: int, date: str) -> None:
        self._write("update tables set started = ? where id = ?", [(date, table_id)])

    def events(self, table_id: int, first: int, lines: Iterable[str]) -> None:
        """Events ``first``, ``first + 1``... of the table, as text."""
        self._write("insert into events values (?, ?, ?)",
                    [(table_id, first + n, line) for n, line in enumerate(lines)])

    def moves(self, table_id: int, rows: Iterable[tuple[int, dict[str, int]]]) -> None:
        """Per-move facts of the events just journalled (the ms an answer took...), by
        their seq: written with the events, committed with them, so that a restored
        table's record has them."""
        kept = [(table_id, seq, json.dumps(fields, sort_keys=True)) for seq, fields in rows]
        if kept:
            self._write("insert or replace into moves values (?, ?, ?)", kept)

    def fault(self, table_id: int, n: int, seat: int, reason: str, detail: str,
              at: int) -> None:
        self._write("insert or replace into faults values (?, ?, ?, ?, ?, ?)",
                    [(table_id, n, seat, reason, detail, at)])

    def host(self, table_id: int, data: dict[str, Any], *, sync: bool = True) -> None:
        """What the table's host (a lobby) needs to take it up again after a restart: its
        bots, who was given which seat. ``sync``: on disk at once (a page is told right
        after, by HTTP); else with the next flush, which a lobby session's answer waits
        for on its link anyway, so that join and leave never hold the loop for a flush."""
        self._write("insert or replace into hosts values (?, ?)",
                    [(table_id, json.dumps(data, sort_keys=True))])
        if sync:
            self.sync()

    def chat(self, table_id: int, n: int, line: str, keep: int) -> None:
        """A table's chat message ``n``, the last ``keep`` kept (the journal stays bounded
        however much is said); committed with the next commit, never on its own."""
        self._write("insert or replace into chat values (?, ?, ?)", [(table_id, n, line)])
        self._write("delete from chat where table_id = ? and n <= ?", [(table_id, n - keep)])

    def chat_lines(self, table_id: int) -> list[tuple[int, str]]:
        """An unfinished table's kept chat, oldest first: (n, line)."""
        try:
            return [(int(n), str(line)) for n, line in self._db.execute(
                "select n, line from chat where table_id = ? order by n", (table_id,))]
        except sqlite3.Error as exc:
            raise JournalError(f"{self.path}: {exc}") from None

    def over(self, table_id: int, record: str | None) -> None:
        """The game is over and its record (if any) written: nothing left to resume, so
        its seats, events and faults go (the journal stays the size of what is played)."""
        self._write("update tables set over = 1, record = ? where id = ?",
                    [(record, table_id)])
        for rows in ("seats", "events", "moves", "faults", "hosts", "chat"):
            self._write(f"delete from {rows} where table_id = ?", [(table_id,)])
        self.sync()

    # -- reading
    def last_id(self) -> int:
        row = self._db.execute("select max(id) from tables").fetchone()
        return int(row[0] or 0)

    def unfinished(self) -> list[SavedTable]:
        """Every table whose game is not over, in id order; a table whose rows cannot be
        read is set aside (``set_aside``), never stopping the others."""
        db = self._db
        try:
            rows = db.execute("select id, settings, observer, started from tables where "
                              "over = 0 order by id").fetchall()
        except sqlite3.Error as exc:
            raise JournalError(f"{self.path}: {exc}") from None
        found = []
        for tid, settings, observer, started in rows:
            try:
                found.append(self._saved(tid, settings, observer, started))
            except (sqlite3.Error, ValueError, TypeError, KeyError, AttributeError) as exc:
                self.set_aside(tid, f"unreadable: {exc}")
        return found

    def _saved(self, tid: int, settings: str, observer: bytes, started: str | None
               ) -> SavedTable:
        db = self._db
        seats = tuple(SavedSeat(bytes(key), json.loads(fields)) for key, fields in
                      db.execute("select token, fields from seats where table_id = ?"
                                 " order by seat", (tid,)))
        numbered = db.execute("select seq, line from events where table_id = ? order by seq",
                              (tid,)).fetchall()
        gap = next((n for n, (seq, _) in enumerate(numbered, 1) if seq != n), None)
        if gap is not None:
            raise ValueError(f"event {gap} is missing")
        faults = tuple(db.execute("select seat, reason, detail, at from faults where "
                                  "table_id = ? order by n", (tid,)).fetchall())
        moves = {int(seq): {str(k): int(v) for k, v in json.loads(fields).items()}
                 for seq, fields in db.execute("select seq, fields from moves where "
                                               "table_id = ?", (tid,))}
        return SavedTable(tid, decode_settings(settings), bytes(observer), started, seats,
                          tuple(line for _, line in numbered), faults, moves)

    def set_aside(self, table_id: int, why: str) -> None:
        """Keep a damaged table out of the games resumed, its rows kept for inspection,
        and say so (``damage``); committed at once."""
        why = " ".join(why.split())[:200]
        self._write("update tables set over = 2 where id = ?", [(table_id,)])
        self._write("insert or replace into aside values (?, ?)", [(table_id, why)])
        self.sync()
        self.damage.append(f"journal damaged: table {table_id} set aside, not resumed "
                           f"({why}); its rows are kept in {self.path.name} for inspection")

    def hosts(self) -> dict[int, dict[str, Any]]:
        """Each unfinished table's host data (``host``), by table number."""
        try:
            return {int(tid): json.loads(data) for tid, data in self._db.execute(
                "select table_id, data from hosts where table_id in "
                "(select id from tables where over = 0)")}
        except (sqlite3.Error, ValueError) as exc:
            raise JournalError(f"{self.path}: {exc}") from None

    def close(self) -> None:
        self._fsyncer.shutdown(wait=True)  # an fsync in flight ends on the files it began
        self._closed = True
        self.sync()
        self._db.close()
        os.close(self._wal)
        os.close(self._count)
