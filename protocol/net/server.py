"""A table server: remote seats play over TCP or TLS with per-seat tokens (spec/SERVER.md).

The referee keeps the game, the clock and the records; each player connects from its own
machine, says ``seat TOKEN`` and then speaks the player protocol (spec/PLAYER.md) as a
bot would over its pipes. Observers get the public events only. Everything a client
sends is bounded (connections, time before the token, line length, lines per second),
so no client can crash the server or disturb another table. Standard library asyncio
and ssl only.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import hashlib
import hmac
import logging
import os
import secrets
import ssl
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Generic, TypeVar

import attrs

from xactika.core.bots.agents import RandomAgent
from xactika.core.engine.errors import ParseError, XactikaError
from xactika.core.engine.referee import Faulted, FaultPolicy, Referee, Turn, run_async
from xactika.core.engine.rng import fresh_seed
from xactika.core.engine.table import (
    Command,
    Config,
    Event,
    GameOver,
    State,
    game_rules,
)
from xactika.core.engine.views import visible
from xactika.protocol.notation.text import config_from_pairs, format_event
from xactika.protocol.notation.untrusted import escape
from xactika.protocol.player.wire import (
    MAX_LINE,
    MAX_LINES,
    Handshake,
    WireError,
    clean_name,
    format_go,
    format_newgame,
    parse_answer,
)
from xactika.protocol.records.textform import format_record
from xactika.protocol.records.writing import standard_headers, write_record_file
from xactika.protocol.trust.signing import Signer
from xactika.protocol.trust.tamper import commit_config

log = logging.getLogger(__name__)

V = TypeVar("V")
PUBLIC = -1  # the "seat" an observer sees as: no hand is its own
TOKEN_BYTES = 16  # 128 bits


def new_token() -> str:
    return secrets.token_hex(TOKEN_BYTES)


def _key(token: str) -> bytes:
    """The lookup key of a token: its hash, so the dict lookup reveals nothing of it."""
    return hashlib.sha256(token.encode("utf-8", "replace")).digest()


@attrs.frozen
class Limits:
    """What one client may cost the server; every figure is per server."""

    max_connections: int = 256
    max_per_address: int = 64
    auth_timeout: float = 5.0  # seconds from connect to a complete first line
    max_line: int = MAX_LINE  # bytes, line ending not counted
    lines_per_second: float = 50.0
    burst: int = 200  # lines a client may send at once before the rate applies
    fail_free: int = 3  # wrong tokens from one address before answers are slowed
    fail_delay: float = 0.5  # seconds for the first slowed answer; doubles each time
    fail_delay_max: float = 10.0
    fail_forget: float = 60.0  # seconds without a failure that clear an address
    write_buffer: int = 1 << 20  # bytes queued for a client that does not read


@attrs.frozen
class TableSettings:
    """One table's game and clocks."""

    config: Config
    move_timeout: float = 10.0  # the server's move clock, per go
    startup_timeout: float = 10.0  # hello and isready of a joining seat
    grace: float = 30.0  # seconds a dropped seat has to reconnect


def table_settings(pairs: dict[str, str], **clocks: float) -> TableSettings:
    """Settings from ``key=value`` pairs (game, mode, players, rounds, dealer, seed)."""
    pairs = dict(pairs)
    if "seed" not in pairs:
        pairs["seed"] = str(fresh_seed())
    config = config_from_pairs(pairs, defaults=True)
    game_rules(config.game).validate(config)
    return TableSettings(config, **clocks)


class LinkDown(Exception):
    """The client went away (end of stream, reset, or it stopped reading)."""


class LinkFault(Exception):
    """The client broke a limit or the protocol; ``reason`` is a MATCH.md reason."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason


# --------------------------------------------------------------------------- a connection


class Link:
    """One client connection: bounded line reading, rate limits, and non-blocking writes."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 limits: Limits, peer: str) -> None:
        self.reader = reader
        self.writer = writer
        self.limits = limits
        self.peer = peer
        self.closed = False
        self.done = asyncio.Event()
        self.end: LinkDown | LinkFault | None = None
        self.on_end: Callable[[Link], None] | None = None
        self._lines: asyncio.Queue[str | None] = asyncio.Queue()
        self._tokens = float(limits.burst)
        self._refill = time.monotonic()
        self._since_request = 0
        self._pump: asyncio.Task[None] | None = None
        self._out: list[str] = []  # lines queued in this step of the loop

    async def read_raw(self) -> str | None:
        """One line (no ending), or None at end of stream; LinkFault past the limits."""
        try:
            raw = await self.reader.readuntil(b"\n")
        except asyncio.IncompleteReadError:
            return None
        except asyncio.LimitOverrunError:
            raise LinkFault("flood", f"a line longer than {self.limits.max_line} bytes") from None
        except (ConnectionError, ssl.SSLError, OSError):
            return None
        body = raw.rstrip(b"\r\n")
        if len(body) > self.limits.max_line:
            raise LinkFault("flood", f"a line longer than {self.limits.max_line} bytes")
        try:
            return body.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise LinkFault("invalid-utf8", f"invalid UTF-8 at byte {exc.start}") from None

    def _count(self) -> None:
        now = time.monotonic()
        rate = self.limits.lines_per_second
        self._tokens = min(float(self.limits.burst), self._tokens + (now - self._refill) * rate)
        self._refill = now
        self._tokens -= 1.0
        self._since_request += 1
        if self._tokens < 0:
            raise LinkFault("flood", f"more than {rate:g} lines per second")
        if self._since_request > MAX_LINES:
            raise LinkFault("flood", f"more than {MAX_LINES} lines between two requests")

    def start_pump(self) -> None:
        """Read lines in the background from now on (after the first line)."""
        self._pump = asyncio.create_task(self._run_pump())

    async def _run_pump(self) -> None:
        try:
            while True:
                line = await self.read_raw()
                if line is None:
                    self.finish(LinkDown("closed the connection"))
                    return
                self._count()
                words = line.split(maxsplit=1)
                if not words or words[0] == "info":
                    continue  # blank lines and notes for humans are never answers
                self._lines.put_nowait(line)
        except LinkFault as fault:
            self.finish(fault)
        except Exception as exc:  # no client may crash the server
            log.exception("reading from %s", self.peer)
            self.finish(LinkDown(f"read failed: {exc}"))

    def stale(self) -> str | None:
        """A line that arrived when nothing was asked (a fault), if any; resets the count."""
        self._since_request = 0
        try:
            line = self._lines.get_nowait()
        except asyncio.QueueEmpty:
            return None
        return line

    async def next(self, timeout: float) -> str:
        """The next protocol line within ``timeout``; LinkDown, LinkFault or TimeoutError."""
        if self.end is not None and self._lines.empty():
            raise self.end
        line = await asyncio.wait_for(self._lines.get(), timeout)
        if line is None:
            assert self.end is not None
            raise self.end
        return line

    def send(self, *lines: str) -> None:
        """Queue lines; what one step of the loop queues leaves in one write (a move's
        events and the next ``go`` together), since each write is a system call."""
        if self.closed or not lines:
            return
        if not self._out:
            asyncio.get_running_loop().call_soon(self._flush)
        self._out.extend(lines)

    def _flush(self) -> None:
        lines, self._out = self._out, []
        if self.closed or not lines:
            return
        self.writer.write("".join(line + "\n" for line in lines).encode("utf-8"))
        if self.writer.transport.get_write_buffer_size() > self.limits.write_buffer:
            self.finish(LinkDown("stopped reading"))

    def finish(self, end: LinkDown | LinkFault, error: str | None = None) -> None:
        """Close once: an ``error`` line for faults, then the connection; tell the owner."""
        if self.closed:
            return
        if error is None and isinstance(end, LinkFault):
            error = f"{end.reason}: {end}"
        if error is not None:
            self._out.append(f"error {error}")
        if self._out:  # what was queued (quit, a last event), then the error, then close
            with contextlib.suppress(Exception):
                self.writer.write("".join(line + "\n" for line in self._out).encode("utf-8"))
        self._out = []
        self.closed = True
        self.done.set()
        self.end = end
        self._lines.put_nowait(None)
        with contextlib.suppress(Exception):
            self.writer.close()
        if self._pump is not None and self._pump is not asyncio.current_task():
            self._pump.cancel()
        if self.on_end is not None:
            self.on_end(self)


# --------------------------------------------------------------------------- a table


@attrs.define(eq=False)
class Seat:
    token: str
    name: str = ""
    link: Link | None = None
    claim: Link | None = None  # a connection in its handshake: the seat is taken already
    fault: tuple[str, str] | None = None  # (reason, detail) once forfeited
    dropped_at: float | None = None
    sent: int = 0  # events of this game the current link has been sent


class Table:
    """One game between remote seats; the server's clock, the record at the end."""

    def __init__(self, number: int, settings: TableSettings, out: Path | None,
                 on_over: Callable[[Table], None] | None = None,
                 signer: Signer | None = None) -> None:
        self.id = number
        self.settings = settings
        self.config = commit_config(settings.config)  # committed seed, revealed at the end
        self.rules = game_rules(self.config.game)
        self.seats = [Seat(new_token()) for _ in range(self.config.players)]
        self.observer_token = new_token()
        self.observers: set[Link] = set()
        self.events: list[Event] = []
        self.state: State | None = None
        self.referee: Referee | None = None
        self.faults: list[tuple[int, str, str]] = []
        self.out = out
        self.signer = signer  # signs the record (spec/TAMPER.md section 6) when given
        self.record: Path | None = None
        self.on_over = on_over
        self.over = asyncio.Event()
        self.latencies: list[float] = []  # seconds from go to answer, for the load bench
        self._changed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    # -- status
    @property
    def started(self) -> bool:
        return bool(self.events)

    def status(self) -> str:
        if self.over.is_set():
            return "over"
        return "playing" if self.started else "waiting"

    def seated(self) -> int:
        return sum(1 for s in self.seats if s.link is not None)

    def start_task(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"table-{self.id}")

    # -- seats joining and leaving
    def refusal(self, seat: int) -> str | None:
        """Why seat ``seat`` may not be taken now, or None."""
        s = self.seats[seat]
        if self.over.is_set():
            return f"table {self.id} is over"
        if s.fault is not None:
            return f"seat {seat} of table {self.id} was forfeited ({s.fault[0]})"
        if s.link is not None or s.claim is not None:
            return f"seat {seat} of table {self.id} is already connected"
        return None

    def attach(self, seat: int, link: Link, name: str, resume: int | None) -> None:
        """Seat a handshaken link; send the game so far (all of it, or after ``resume``)."""
        s = self.seats[seat]
        s.link, s.dropped_at = link, None
        if name:
            s.name = name
        link.on_end = lambda lk: self._dropped(seat, lk)
        if self.started:
            if resume is None:
                link.send(format_newgame(seat))
                s.sent = 0
            else:
                s.sent = resume
            self._sync(seat)
        self._changed.set()

    def _dropped(self, seat: int, link: Link) -> None:
        s = self.seats[seat]
        if s.link is not link:
            return
        s.link, s.dropped_at = None, time.monotonic()
        if isinstance(link.end, LinkFault) and self.started and not self.over.is_set():
            self._forfeit(seat, link.end.reason, str(link.end))
        self._changed.set()

    def _forfeit(self, seat: int, reason: str, detail: str) -> None:
        s = self.seats[seat]
        if s.fault is not None:
            return
        s.fault = (reason, detail)
        self.faults.append((seat, reason, detail))
        if self.referee is not None:  # a stand-in plays the seat from now on
            self.referee.fault(seat, reason, detail)
        if s.link is not None:
            link, s.link = s.link, None
            link.finish(LinkFault(reason, detail))

    def _sync(self, seat: int) -> None:
        s = self.seats[seat]
        if s.link is None:
            return
        s.link.send(*(format_event(visible(e, seat), self.rules) for e in self.events[s.sent:]))
        s.sent = len(self.events)

    def _publish(self, new: Sequence[Event]) -> None:
        for seat in range(len(self.seats)):
            self._sync(seat)
        if self.observers:
            public = [format_event(visible(event, PUBLIC), self.rules) for event in new]
            for link in list(self.observers):
                link.send(*public)

    def watch(self, link: Link) -> None:
        link.send(f"watching table={self.id}",
                  *(format_event(visible(event, PUBLIC), self.rules) for event in self.events))
        if self.over.is_set():
            link.finish(LinkDown("game over"))
            return
        self.observers.add(link)
        link.on_end = self.observers.discard

    # -- the game
    async def _run(self) -> None:
        try:
            await self._play()
        except Exception:  # one table's bug must not stop the others
            log.exception("table %s failed", self.id)
            self.faults.append((-1, "crash", "the server failed; the game is void"))
        finally:
            for s in self.seats:
                if s.link is not None:
                    s.link.send("quit")
                    s.link.finish(LinkDown("game over"))
            for link in list(self.observers):
                link.finish(LinkDown("game over"))
            self.over.set()
            if self.on_over is not None:
                self.on_over(self)

    async def _play(self) -> None:
        while not all(s.link is not None for s in self.seats):
            self._changed.clear()
            await self._changed.wait()
        started = dt.datetime.now(dt.UTC)
        config = self.config  # a forfeited seat is played by a seeded random bot
        fallback = FaultPolicy.stand_in(lambda seat: RandomAgent(_seed(config, seat)))
        self.referee = referee = Referee.new(config, policy=fallback)
        self.events = referee.events  # the same list: the referee appends every move
        for seat, s in enumerate(self.seats):
            if s.link is not None:
                s.link.send(f"newgame seat={seat}")
                s.sent = 0
        self._publish(self.events)

        def moved(new: list[Event]) -> None:
            self.state = referee.state
            self._publish(new)

        await run_async(referee, self._ask, moved)
        self.state = referee.state
        self._write_record(started)

    async def _ask(self, turn: Turn) -> Command | Faulted:
        """The seat's move, or why it forfeits (fault, or gone past the grace)."""
        seat, legal = turn.seat, turn.legal
        s = self.seats[seat]
        move = self.settings.move_timeout
        go = format_go(legal, self.rules, int(move * 1000))
        while s.fault is None:
            link = s.link
            if link is None:
                left = (s.dropped_at or time.monotonic()) + self.settings.grace - time.monotonic()
                if left > 0:
                    self._changed.clear()
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._changed.wait(), left)
                    continue
                self._forfeit(seat, "crash", f"disconnected and did not come back within "
                              f"{self.settings.grace:g} s")
                break
            stale = link.stale()
            if stale is not None:  # the player protocol's names for it (MATCH.md)
                early = stale.split()[0] in ("bid", "play")
                self._forfeit(seat, "early-answer" if early else "garbage",
                              f"sent {escape(stale, 60)!r} when nothing was asked")
                break
            link.send(go)
            asked = time.monotonic()
            try:
                line = await link.next(move)
            except LinkDown:
                continue  # wait for the seat to come back, then ask again
            except LinkFault as fault:
                self._forfeit(seat, fault.reason, str(fault))
                break
            except TimeoutError:
                self._forfeit(seat, "timeout", f"no answer within {move:g} s to "
                              f"'go {legal.kind}'")
                break
            self.latencies.append(time.monotonic() - asked)
            try:
                return parse_answer(line, legal, self.rules)
            except (ParseError, XactikaError, ValueError, IndexError) as exc:
                reason = "illegal-move" if line.split()[0] in ("bid", "play") else "garbage"
                self._forfeit(seat, reason, f"answered {escape(line, 60)!r}: {exc}")
        assert s.fault is not None  # _forfeit told the referee already
        return Faulted(*s.fault)

    def _write_record(self, started: dt.datetime) -> None:
        """The record, written whole beside its name and renamed (protocol/records/writing.py)."""
        if self.out is None:
            return
        names = [_header_name(s.name, seat) for seat, s in enumerate(self.seats)]
        headers = standard_headers(
            self.config, names, date=started, event="xactika serve",
            extra=[("server.table", str(self.id)),
                   ("termination", self.faults[0][1] if self.faults else "normal")])
        headers += [("fault", f"{seat} {reason}: {' '.join(detail.split())}")
                    for seat, reason, detail in self.faults if seat >= 0]
        self.out.mkdir(parents=True, exist_ok=True)
        path = self.out / f"table-{self.id}.log"
        write_record_file(path, format_record(headers, self.events, signer=self.signer))
        self.record = path

    def totals(self) -> tuple[int, ...]:
        last = self.events[-1] if self.events else None
        return last.totals if isinstance(last, GameOver) else ()


def _seed(config: Config, seat: int) -> int:
    text = f"server-fallback/{config.commit or config.seed}/{seat}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:6], "big")


def _header_name(name: str, seat: int) -> str:
    """A seat's self-given name (the handshake made it safe: ``clean_name``), or a stand-in."""
    return name or f"seat{seat}"


# --------------------------------------------------------------------------- the server


class Failures:
    """Wrong tokens per address: the first few are free, then each answer waits longer."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._seen: dict[str, tuple[int, float]] = {}

    def fail(self, address: str) -> float:
        """Count a failure; the seconds to wait before answering it."""
        now = time.monotonic()
        count, last = self._seen.get(address, (0, now))
        if now - last > self.limits.fail_forget:
            count = 0
        count += 1
        self._seen[address] = (count, now)
        if len(self._seen) > 10000:  # bounded memory under a spray of addresses
            self._seen.pop(next(iter(self._seen)))
        extra = count - self.limits.fail_free
        if extra <= 0:
            return 0.0
        return float(min(self.limits.fail_delay * 2 ** (extra - 1), self.limits.fail_delay_max))

    def forgive(self, address: str) -> None:
        self._seen.pop(address, None)


class TokenBook(Generic[V]):
    """Tokens looked up by their hash and compared in constant time."""

    def __init__(self) -> None:
        self._entries: dict[bytes, tuple[str, V]] = {}

    def add(self, token: str, value: V) -> None:
        self._entries[_key(token)] = (token, value)

    def get(self, token: str) -> V | None:
        found = self._entries.get(_key(token))
        if found is None or not hmac.compare_digest(found[0].encode(),
                                                    token.encode("utf-8", "replace")):
            return None
        return found[1]


@attrs.define(eq=False)
class _Entry:
    token: str
    kind: str  # "seat", "observe" or "admin"
    table: Table | None = None
    seat: int = -1


class Server:
    """Listens, checks tokens, and hands each connection to its table."""

    def __init__(self, *, limits: Limits | None = None, out: Path | None = None,
                 ssl_context: ssl.SSLContext | None = None,
                 admin_token: str | None = None, signer: Signer | None = None,
                 on_note: Callable[[str], None] | None = None) -> None:
        self.limits = limits or Limits()
        self.out = out
        self.ssl_context = ssl_context
        self.signer = signer
        self.admin_token = admin_token or new_token()
        self.on_note = on_note or (lambda text: None)
        self.tables: list[Table] = []
        self.connections = 0
        self._links: set[Link] = set()  # every connection counted in ``connections``
        self.refused = 0  # connections turned away: caps, bad first lines, wrong tokens
        self._per_address: dict[str, int] = {}
        self._failures = Failures(self.limits)
        self._tokens: TokenBook[_Entry] = TokenBook()
        self._tokens.add(self.admin_token, _Entry(self.admin_token, "admin"))
        self._server: asyncio.Server | None = None
        self.all_over = asyncio.Event()

    # -- tables
    def add_table(self, settings: TableSettings) -> Table:
        table = Table(len(self.tables) + 1, settings, self.out, self._table_over, self.signer)
        self.tables.append(table)
        for seat, s in enumerate(table.seats):
            self._tokens.add(s.token, _Entry(s.token, "seat", table, seat))
        self._tokens.add(table.observer_token, _Entry(table.observer_token, "observe", table))
        self.all_over.clear()
        table.start_task()
        return table

    def _table_over(self, table: Table) -> None:
        where = f" record={table.record}" if table.record is not None else ""
        totals = ",".join(map(str, table.totals()))
        faults = "".join(f" fault={seat}:{reason}" for seat, reason, _ in table.faults)
        self.on_note(f"table={table.id} over totals={totals}{faults}{where}")
        if all(t.over.is_set() for t in self.tables):
            self.all_over.set()

    # -- listening
    async def start(self, host: str = "127.0.0.1", port: int = 0) -> tuple[str, int]:
        self._server = await asyncio.start_server(
            self._serve, host, port, ssl=self.ssl_context, limit=self.limits.max_line + 2,
            ssl_handshake_timeout=self.limits.auth_timeout if self.ssl_context else None,
        )
        sock = self._server.sockets[0].getsockname()
        return str(sock[0]), int(sock[1])

    async def close(self) -> None:
        """Stop listening, end every game and close every connection."""
        if self._server is not None:
            self._server.close()
        for table in self.tables:
            if table._task is not None and not table._task.done():
                table._task.cancel()
                with contextlib.suppress(BaseException):
                    await table._task
        for link in list(self._links):
            link.finish(LinkDown("server closing"))
        if self._server is not None:
            await self._server.wait_closed()

    # -- one connection
    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peername = writer.get_extra_info("peername")
        address = str(peername[0]) if peername else "?"
        link = Link(reader, writer, self.limits, address)
        if (self.connections >= self.limits.max_connections
                or self._per_address.get(address, 0) >= self.limits.max_per_address):
            self.refused += 1
            link.finish(LinkDown("refused"), "too many connections; try again later")
            return
        self.connections += 1
        self._links.add(link)
        self._per_address[address] = self._per_address.get(address, 0) + 1
        try:
            await self._session(link, address)
        except Exception:  # nothing a client sends may stop the server
            log.exception("connection from %s", address)
            link.finish(LinkDown("server error"), "internal error")
        finally:
            link.finish(LinkDown("done"))
            self.connections -= 1
            self._links.discard(link)
            left = self._per_address.get(address, 1) - 1
            if left:
                self._per_address[address] = left
            else:
                self._per_address.pop(address, None)

    async def _first_line(self, link: Link) -> str | None:
        deadline = time.monotonic() + self.limits.auth_timeout
        for _ in range(8):  # a few blank lines are forgiven, not an endless stream
            left = deadline - time.monotonic()
            if left <= 0:
                break
            try:
                line = await asyncio.wait_for(link.read_raw(), left)
            except TimeoutError:
                break
            except LinkFault as fault:
                link.finish(fault)
                return None
            if line is None:
                link.finish(LinkDown("closed"))
                return None
            if line.strip():
                return line
        link.finish(LinkDown("timeout"), f"timeout: no 'seat TOKEN' line within "
                    f"{self.limits.auth_timeout:g} s")
        return None

    async def _session(self, link: Link, address: str) -> None:
        line = await self._first_line(link)
        if line is None:
            self.refused += 1
            return
        words = line.split()
        if words[0] not in ("seat", "observe", "admin") or len(words) < 2:
            await self._fail(link, address, "expected 'seat TOKEN', 'observe TOKEN' or "
                             "'admin TOKEN' first")
            return
        entry = self._tokens.get(words[1])
        if entry is None or entry.kind != words[0]:
            await self._fail(link, address, "unknown token")
            return
        self._failures.forgive(address)
        if entry.kind == "admin":
            await self._admin(link)
        elif entry.kind == "observe":
            assert entry.table is not None
            link.start_pump()
            entry.table.watch(link)
            await link.done.wait()  # the slot is held while it lives
        else:
            await self._seat(link, entry, words[2:])

    async def _fail(self, link: Link, address: str, why: str) -> None:
        """One error line and close; repeated failures from one address wait longer."""
        self.refused += 1
        delay = self._failures.fail(address)
        if delay > 0:
            await asyncio.sleep(delay)
        link.finish(LinkDown("refused"), why)

    async def _seat(self, link: Link, entry: _Entry, rest: list[str]) -> None:
        table, seat = entry.table, entry.seat
        assert table is not None
        resume: int | None = None
        for word in rest:
            key, _, value = word.partition("=")
            if key == "resume" and value.isascii() and value.isdigit() and len(value) < 10:
                resume = int(value)
            else:
                link.finish(LinkDown("refused"), f"unknown field {escape(word, 40)!r}: "
                            "expected 'seat TOKEN [resume=SEQ]'")
                return
        why = table.refusal(seat)
        if why is None and resume is not None and resume > len(table.events):
            why = f"resume={resume} is beyond the last event ({len(table.events)})"
        if why is not None:
            link.finish(LinkDown("refused"), why)
            return
        link.send(f"seated table={table.id} seat={seat} players={len(table.seats)}")
        link.start_pump()
        claimed = table.seats[seat]
        claimed.claim = link  # nobody else may take the seat while this one shakes hands
        try:
            if resume is None or not table.started:
                resume = None
                name = await self._handshake(link, table.settings.startup_timeout)
                if name is None:
                    return
            else:
                name = ""
                link.stale()  # nothing asked yet: start counting afresh
        finally:
            claimed.claim = None
        why = table.refusal(seat)  # forfeited or over during the handshake?
        if why is not None:
            link.finish(LinkDown("refused"), why)
            return
        table.attach(seat, link, name, resume)
        await link.done.wait()  # the slot is held while it lives

    async def _handshake(self, link: Link, limit: float) -> str | None:
        """wire.py's ``Handshake`` (``hello``, ``isready``), as every host does it; the
        name the client gives (escaped as every host keeps it), or None (closed)."""
        shake = Handshake()
        try:
            while (request := shake.request()) is not None:
                link.send(request)
                shake.receive(await link.next(limit))
        except TimeoutError:
            link.finish(LinkDown("timeout"), f"timeout: no answer within {limit:g} s")
            return None
        except WireError as exc:
            link.finish(LinkFault("garbage", str(exc)))
            return None
        except LinkFault as fault:
            link.finish(fault)
            return None
        except LinkDown:
            return None
        link.stale()
        assert shake.hello is not None
        return clean_name(shake.hello.name) if shake.hello.name is not None else ""

    async def _admin(self, link: Link) -> None:
        """Create and list tables: ``table KEY=VALUE...``, ``tables``, ``quit``."""
        link.send("admin ok")
        link.start_pump()
        while not link.closed:
            try:
                line = await link.next(3600.0)
            except (LinkDown, LinkFault, TimeoutError):
                return
            words = line.split()
            link.stale()
            if words[0] == "quit":
                link.finish(LinkDown("quit"))
                return
            if words[0] == "tables":
                for t in self.tables:
                    link.send(f"table id={t.id} status={t.status()} "
                              f"seated={t.seated()}/{len(t.seats)}")
                link.send("ok")
                continue
            if words[0] != "table":
                link.send(f"error unknown admin command {escape(words[0], 40)!r}: expected "
                          "table KEY=VALUE..., tables or quit")
                continue
            try:
                pairs = dict(_pair(w) for w in words[1:])
                settings = table_settings(pairs)
            except (XactikaError, ValueError, KeyError, TypeError) as exc:
                link.send(f"error {escape(str(exc), 200)}")
                continue
            table = self.add_table(settings)
            link.send(table_line(table))


def _pair(word: str) -> tuple[str, str]:
    key, eq, value = word.partition("=")
    if not eq or key not in ("game", "mode", "players", "rounds", "dealer", "seed"):
        raise ValueError(f"bad setting {escape(word, 40)!r}: expected game=, mode=, "
                         "players=, rounds=, dealer= or seed=")
    return key, value


def table_line(table: Table) -> str:
    """The tokens of a new table, as ``xactika serve`` prints them (once)."""
    seats = ",".join(s.token for s in table.seats)
    return f"table id={table.id} seats={seats} observer={table.observer_token}"


def tls_context(cert: str | os.PathLike[str], key: str | os.PathLike[str]) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(cert, key)
    return context
