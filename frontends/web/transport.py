"""The WebSocket as one more transport of the table server's :class:`Link`.

A browser speaks the same player-protocol lines as a bot over TCP (spec/WEB.md): the
WebSocket's text messages are fed to a :class:`QueueTransport`, whose lines the server's
session reads with the same limits, tokens and faults as a TCP stream's; what the server
writes leaves as one text message per flush. Built-in bots at web tables sit over the
same transport, in the process (:func:`run_bot`); they think in the server's
thinking process, as its stand-ins do.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import cast

from xactika.core.bots.agents import make_agent
from xactika.protocol.net.link import Limits, Line, Link, Typed, text
from xactika.protocol.net.thinking import think
from xactika.protocol.player.agentside import PlayerSession
from xactika.protocol.player.wire import Go, Msg, read

log = logging.getLogger(__name__)


class QueueTransport:
    """Lines in from a queue, bytes out to a queue: no socket of its own.

    ``feed`` and ``end`` are the peer's side of reading; ``outgoing`` its side of
    writing. ``delay`` holds every outgoing message that many seconds (a spectator's
    delay, spec/WEB.md). What waits to go out is bounded by the limits' ``write_buffer``
    (a delay's held messages included): a peer that lets more pile up stops reading, so
    the queue is cleared, later writes are dropped and ``full`` is set for its owner to
    end the connection.
    """

    def __init__(self, limits: Limits, delay: float = 0.0) -> None:
        self.limits = limits
        self.delay = delay
        self._in: asyncio.Queue[bytes | None] = asyncio.Queue()
        self._inbound = 0  # bytes fed and not yet read: a client that floods is cut
        # each message: its bytes (a line written as text), or its lines with their values
        self._out: deque[tuple[float, bytes | list[Line] | None, int]] = deque()
        self._ready = asyncio.Event()
        self._pending = 0
        self.closed = False
        self.full = asyncio.Event()
        self._taken = asyncio.Event()  # the peer's side took the close: all before it sent

    # -- the peer's side
    def feed(self, text: str) -> bool:
        """One message of the peer's: its lines; False when it is too much at once."""
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        for line in lines:
            data = line.encode("utf-8", "surrogatepass") + b"\n"
            self._inbound += len(data)
            self._in.put_nowait(data)
        return self._inbound <= self.limits.write_buffer

    def end(self, drop: bool = False) -> None:
        """No more lines; ``drop``: nor those not read yet (a peer cut off for a flood, whose
        first line may still be queued behind the fault and must not open a session)."""
        if drop:
            while not self._in.empty():
                self._in.get_nowait()
            self._inbound = 0
        self._in.put_nowait(None)

    async def outgoing(self) -> bytes | None:
        """The next message to send (after the delay) as bytes, or None once closed."""
        data = await self._next()
        if isinstance(data, list):
            return "".join(text(line) + "\n" for line in data).encode("utf-8")
        return data

    async def outgoing_lines(self) -> list[Line] | None:
        """The next message's lines (after the delay), each with its value where the table
        gave one (link.Typed: what an in-process reader takes instead of parsing), or None
        once closed."""
        data = await self._next()
        if isinstance(data, bytes):  # at \n only: never at U+2028
            return list(data.decode("utf-8").split("\n")[:-1])
        return data

    async def _next(self) -> bytes | list[Line] | None:
        while not self._out:
            self._ready.clear()
            await self._ready.wait()
        due, data, size = self._out[0]
        wait = due - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)
        self._out.popleft()
        self._pending -= size
        if data is None:
            self._taken.set()
        return data

    def gone(self) -> None:
        """The peer's side stopped taking messages (the connection ended)."""
        self._taken.set()

    # -- the Link's side (protocol/net/link.py, Transport)
    async def readline(self) -> bytes:
        data = await self._in.get()
        if data is None:
            self._in.put_nowait(None)  # every later read ends too
            raise asyncio.IncompleteReadError(b"", None)
        self._inbound -= len(data)
        if len(data) > self.limits.max_line + 2:
            raise asyncio.LimitOverrunError("line too long", len(data))
        return data

    def write(self, data: bytes) -> None:
        self._queue(data, len(data))

    def write_lines(self, lines: list[Line]) -> None:
        """Lines with their values (Link's in-process writes): kept as they are, counted
        by the bytes they would be."""
        self._queue(lines, _size(lines))

    def _queue(self, data: bytes | list[Line], size: int) -> None:
        if self.closed:
            return
        if self._pending + size > self.limits.write_buffer:
            self._overflow()
            return
        self._out.append((time.monotonic() + self.delay, data, size))
        self._pending += size
        self._ready.set()

    def buffered(self) -> int:
        return self._pending if self.delay == 0 else 0  # a delay holds them on purpose

    def _overflow(self) -> None:
        """The peer does not read: nothing more is kept for it (never the server's memory)."""
        self._out.clear()
        self._pending = 0
        self.closed = True
        self._out.append((time.monotonic(), None, 0))
        self._ready.set()
        self.full.set()

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._out.append((time.monotonic() + self.delay, None, 0))
            self._ready.set()

    async def closed_and_sent(self) -> None:
        """Once the peer's side has sent every message before the close (each one
        ``outgoing`` returned, awaited by its sender before it asks for the next), or
        has stopped (``gone``)."""
        await self._taken.wait()


def _size(lines: list[Line]) -> int:
    """The bytes ``lines`` are on the wire (what the write bound counts)."""
    return sum(len(text(line).encode("utf-8", "surrogatepass")) + 1 for line in lines)


# --------------------------------------------------------------------------- built-in bots


async def run_bot(accept: Callable[[Link, str], Awaitable[None]], token: str, agent_name: str,
                  game: str, seed: int | None, limits: Limits) -> None:
    """A built-in bot in a seat, over a :class:`QueueTransport`: it says ``seat TOKEN``
    and answers as ``xactika bot`` would. Its moves are chosen where the server's
    stand-ins choose theirs, in the server's thinking process (protocol/net/thinking.py):
    in a thread they competed with the event loop for the interpreter, so a table of
    strong bots slowed every other table. The agent's state comes back with each move,
    so a seeded bot plays exactly the moves it would play here. It thinks its own budget
    (the strong bot's 100 ms, as in the REPL), at most the ``go``'s time: the table's move
    limit (10 s by default) bounds programs, and people should not wait 6 s for a move."""
    transport = QueueTransport(limits)
    link = Link(None, None, limits, "bot", transport=transport)
    serving = asyncio.ensure_future(accept(link, "bot"))
    session = PlayerSession(make_agent(agent_name, seed, game), agent_name, own_budget=True)
    transport.feed(f"seat {token}\n")
    try:
        while not session.done:
            lines = await transport.outgoing_lines()
            if lines is None:
                break
            for line in lines:
                for answer in await _hear(session, line):
                    transport.feed(answer + "\n")
    finally:
        transport.end()
        transport.gone()
        with contextlib.suppress(Exception):
            await serving


async def _hear(session: PlayerSession, line: Line) -> list[str]:
    """What the bot answers a line: its value where the table gave one (an event as the
    seat sees it, a newgame), never parsed; its answer goes back as text, through the
    table's one reader of answers (Table._ask), which judges every seat's faults alike."""
    if isinstance(line, Typed):
        if line.event:
            return session.feed_event(line.value)
        if isinstance(line.value, Go):
            return await _go(session, line.value, line.line)
        return session.take(cast("Msg", line.value), line.line)
    message = read(line)
    if isinstance(message, Go):  # a move may think: never on the event loop
        return await _go(session, message, line)
    return session.take(message, line)


async def _go(session: PlayerSession, go: Go, line: str) -> list[str]:
    """A ``go``'s answer, the agent's choice made in the thinking process."""
    try:
        choice = session.choice(go)
    except PlayerSession.ERRORS:
        return session.feed(line)  # a go it cannot follow: the session's own info
    if choice.broken is not None:
        return session.failed(choice, choice.broken)
    try:
        command = await think(choice.agent, choice.view, choice.legal)
    except Exception as exc:  # a bot's bug must not cost it the game: play legally
        return session.failed(choice, exc)
    return session.answer(choice, command)
