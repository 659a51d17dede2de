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

from xactika.core.bots.agents import make_agent
from xactika.protocol.net.link import Limits, Link
from xactika.protocol.net.thinking import think
from xactika.protocol.player.agentside import PlayerSession
from xactika.protocol.player.wire import Go, read

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
        self._out: deque[tuple[float, bytes | None]] = deque()
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
        """The next message to send (after the delay), or None once closed."""
        while not self._out:
            self._ready.clear()
            await self._ready.wait()
        due, data = self._out[0]
        wait = due - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)
        self._out.popleft()
        if data is not None:
            self._pending -= len(data)
        else:
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
        if self.closed:
            return
        if self._pending + len(data) > self.limits.write_buffer:
            self._overflow()
            return
        self._out.append((time.monotonic() + self.delay, data))
        self._pending += len(data)
        self._ready.set()

    def buffered(self) -> int:
        return self._pending if self.delay == 0 else 0  # a delay holds them on purpose

    def _overflow(self) -> None:
        """The peer does not read: nothing more is kept for it (never the server's memory)."""
        self._out.clear()
        self._pending = 0
        self.closed = True
        self._out.append((time.monotonic(), None))
        self._ready.set()
        self.full.set()

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._out.append((time.monotonic() + self.delay, None))
            self._ready.set()

    async def closed_and_sent(self) -> None:
        """Once the peer's side has sent every message before the close (each one
        ``outgoing`` returned, awaited by its sender before it asks for the next), or
        has stopped (``gone``)."""
        await self._taken.wait()


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
            data = await transport.outgoing()
            if data is None:
                break
            for line in data.decode("utf-8").split("\n"):  # at \n only: never at U+2028
                message = read(line)
                if isinstance(message, Go):  # a move may think: never on the event loop
                    answers = await _go(session, message, line)
                else:
                    answers = session.feed(line)
                for answer in answers:
                    transport.feed(answer + "\n")
    finally:
        transport.end()
        transport.gone()
        with contextlib.suppress(Exception):
            await serving


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
