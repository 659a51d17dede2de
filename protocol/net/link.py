"""One client connection as lines: bounded reading, rate limits, queued writing.

The table server's limits (spec/SERVER.md section 6) hold per connection here, so no
client can flood the server or another table.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import hashlib
import logging
import secrets
import ssl
import time
from collections.abc import Callable
from typing import Protocol

import attrs

from xactika.protocol.player.wire import MAX_LINE, MAX_LINES, is_info

log = logging.getLogger(__name__)

PUBLIC = -1  # the "seat" an observer sees as: no hand is its own
TOKEN_BYTES = 16  # 128 bits


def new_token() -> str:
    return secrets.token_hex(TOKEN_BYTES)


def token_key(token: str) -> bytes:
    """The lookup key of a token: its hash, so the dict lookup reveals nothing of it."""
    return hashlib.sha256(token.encode("utf-8", "replace")).digest()


@attrs.frozen
class Limits:
    """What one client may cost the server; every figure is per server."""

    max_connections: int = 256  # everything but seats (a seat token always gets in)
    max_unauthenticated: int = 64  # before a valid first line, and lobby sessions
    max_per_address: int = 16  # of those, from one address; its oldest goes first
    max_observers: int = 16  # per table
    auth_timeout: float = 5.0  # seconds from connect to a complete first line
    max_line: int = MAX_LINE  # bytes, line ending not counted
    lines_per_second: float = 50.0
    burst: int = 200  # lines a client may send at once before the rate applies
    fail_free: int = 3  # wrong tokens from one address before answers are slowed
    fail_delay: float = 0.5  # seconds for the first slowed answer; doubles each time
    fail_delay_max: float = 10.0
    fail_forget: float = 60.0  # seconds without a failure that clear an address
    write_buffer: int = 1 << 20  # bytes queued for a client that does not read


class Barrier(Protocol):
    """What a link waits on before it writes: the table server's journal (journal.py).

    ``mark`` counts what was written to it; ``wait(mark, again)`` is True when all of it
    up to ``mark`` is on disk, else it calls ``again`` once it is; ``sync()`` puts
    everything on disk before it returns."""

    @property
    def mark(self) -> int: ...

    def wait(self, mark: int, again: Callable[[], None]) -> bool: ...

    def sync(self) -> None: ...


@attrs.frozen(slots=True)
class Typed:
    """A line with the value it was formatted from (issue 44): an event as the connection
    sees it (``event``), or a wire message. What crosses a process or a socket is the
    line alone; an in-process reader (the web's connections, its built-in bots) takes the
    value and never parses the line."""

    line: str
    value: object
    event: bool = False


Line = str | Typed
"""What a :class:`Link` sends: a line, or a line with its value."""


def text(line: Line) -> str:
    return line if isinstance(line, str) else line.line


class LinkDown(Exception):
    """The client went away (end of stream, reset, or it stopped reading)."""


class Transport(Protocol):
    """Where a :class:`Link`'s bytes go: a TCP or TLS stream, or a WebSocket
    (frontends/web/transport.py). Every limit stays in the Link, so all transports get
    the same ones."""

    async def readline(self) -> bytes:
        """One line with its ending; ``asyncio.IncompleteReadError`` at the end,
        ``asyncio.LimitOverrunError`` past the line limit, ``OSError`` on a failure."""
        ...

    def write(self, data: bytes) -> None: ...

    # an in-process transport may also take ``write_lines(lines: list[Line])``: the lines
    # with their values (frontends/web/transport.py); a socket's writes bytes alone

    def buffered(self) -> int:
        """Bytes written but not yet taken by the peer."""
        ...

    def close(self) -> None: ...

    async def closed_and_sent(self) -> None:
        """Return once the transport is closed and what was written before has left the
        process (to the peer's socket), or the peer is gone."""
        ...


class StreamTransport:
    """A TCP or TLS connection: asyncio's streams."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    async def readline(self) -> bytes:
        return await self.reader.readuntil(b"\n")

    def write(self, data: bytes) -> None:
        self.writer.write(data)

    def buffered(self) -> int:
        return self.writer.transport.get_write_buffer_size()

    def close(self) -> None:
        self.writer.close()

    async def closed_and_sent(self) -> None:
        with contextlib.suppress(Exception):  # asyncio flushes the buffer, then closes
            await self.writer.wait_closed()


class LinkFault(Exception):
    """The client broke a limit or the protocol; ``reason`` is a MATCH.md reason."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason


# --------------------------------------------------------------------------- a connection


class Link:
    """One client connection: bounded line reading, rate limits, and non-blocking writes."""

    def __init__(self, reader: asyncio.StreamReader | None, writer: asyncio.StreamWriter | None,
                 limits: Limits, peer: str, *, transport: Transport | None = None) -> None:
        if transport is None:
            assert reader is not None and writer is not None
            transport = StreamTransport(reader, writer)
        self.transport = transport
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
        self._out: list[Line] = []  # lines queued in this step of the loop
        # an in-process transport takes the lines with their values (Typed); a socket, bytes
        self._write_lines: Callable[[list[Line]], None] | None = getattr(
            transport, "write_lines", None)
        # the server's journal: lines wait until what they may carry is on disk
        self.barrier: Barrier | None = None
        self._mark = 0  # the journal's mark when the last queued line was queued
        # when the last writes left (monotonic): a clock starts when its go leaves, not
        # when it was queued behind the journal's flush (Table._ask)
        self.writes: collections.deque[float] = collections.deque(maxlen=32)

    async def read_raw(self) -> str | None:
        """One line (no ending), or None at end of stream; LinkFault past the limits."""
        try:
            raw = await self.transport.readline()
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

    def charge(self, size: int) -> None:
        """A line its transport took for itself (the web's chat) costs what any line costs:
        its length and its share of the rate; LinkFault past either."""
        if size > self.limits.max_line:
            raise LinkFault("flood", f"a line longer than {self.limits.max_line} bytes")
        self._spend()

    def _spend(self) -> None:
        now = time.monotonic()
        rate = self.limits.lines_per_second
        self._tokens = min(float(self.limits.burst), self._tokens + (now - self._refill) * rate)
        self._refill = now
        self._tokens -= 1.0
        if self._tokens < 0:
            raise LinkFault("flood", f"more than {rate:g} lines per second")

    def _count(self) -> None:
        self._spend()
        self._since_request += 1
        if self._since_request > MAX_LINES:
            raise LinkFault("flood", f"more than {MAX_LINES} lines between two requests")

    def start_pump(self) -> None:
        """Read lines in the background from now on (after the first line); once."""
        if self._pump is None:
            self._pump = asyncio.create_task(self._run_pump())

    async def _run_pump(self) -> None:
        try:
            while True:
                line = await self.read_raw()
                if line is None:
                    self.finish(LinkDown("closed the connection"))
                    return
                self._count()
                if not line.strip() or is_info(line):
                    continue  # blank lines and notes for humans are never answers
                self._lines.put_nowait(line)
        except LinkFault as fault:
            self.finish(fault)
        except Exception as exc:  # no client may crash the server
            log.exception("reading from %s", self.peer)
            self.finish(LinkDown(f"read failed: {exc}"))

    def asked(self) -> None:
        """A request was answered: the count of lines between two requests starts again
        (a session of commands, the lobby's or the admin's, keeps the lines queued)."""
        self._since_request = 0

    def stale(self) -> str | None:
        """A line that arrived when nothing was asked (a fault), if any; resets the count."""
        self._since_request = 0
        try:
            line = self._lines.get_nowait()
        except asyncio.QueueEmpty:
            return None
        return line

    def untaken(self) -> list[str]:
        """The lines read and not yet taken, left in place (a person's ``leave`` sent as
        the connection went): the end's marker stays for whoever waits in :meth:`next`."""
        queued = []
        while not self._lines.empty():
            queued.append(self._lines.get_nowait())
        for line in queued:
            self._lines.put_nowait(line)
        return [line for line in queued if line is not None]

    async def next(self, timeout: float | None) -> str:
        """The next protocol line within ``timeout`` (None: no limit); LinkDown, LinkFault or
        TimeoutError."""
        if self.end is not None and self._lines.empty():
            raise self.end
        line = await asyncio.wait_for(self._lines.get(), timeout)
        if line is None:
            assert self.end is not None
            raise self.end
        return line

    def send(self, *lines: Line) -> None:
        """Queue lines; what one step of the loop queues leaves in one write (a move's
        events and the next ``go`` together), since each write is a system call."""
        if self.closed or not lines:
            return
        if not self._out:
            asyncio.get_running_loop().call_soon(self._flush)
        self._out.extend(lines)
        if self.barrier is not None:
            self._mark = self.barrier.mark

    def _flush(self) -> None:
        if self.closed or not self._out:
            self._out = []
            return
        if self.barrier is not None and not self.barrier.wait(self._mark, self._flush):
            return  # the journal calls again once what the lines carry is on disk
        lines, self._out = self._out, []
        self._write(lines)
        self.writes.append(time.monotonic())
        if self.transport.buffered() > self.limits.write_buffer:
            self.finish(LinkDown("stopped reading"))

    def _write(self, lines: list[Line]) -> None:
        if self._write_lines is not None:
            self._write_lines(lines)
        else:
            self.transport.write("".join(text(line) + "\n" for line in lines).encode("utf-8"))

    def finish(self, end: LinkDown | LinkFault, error: str | None = None) -> None:
        """Close once: an ``error`` line for faults, then the connection; tell the owner."""
        if self.closed:
            return
        if error is None and isinstance(end, LinkFault):
            error = f"{end.reason}: {end}"
        if error is not None:
            self._out.append(f"error {error}")
        if self._out:  # what was queued (quit, a last event), then the error, then close
            if self.barrier is not None:
                self.barrier.sync()  # rare (a fault, the end): on disk at once
            with contextlib.suppress(Exception):
                self._write(self._out)
        self._out = []
        self.closed = True
        self.done.set()
        self.end = end
        self._lines.put_nowait(None)
        with contextlib.suppress(Exception):
            self.transport.close()
        if self._pump is not None and self._pump is not asyncio.current_task():
            self._pump.cancel()
        if self.on_end is not None:
            self.on_end(self)


# --------------------------------------------------------------------------- a table
