"""Helpers for the table server's tests: a live server on 127.0.0.1 in a thread, raw
line clients, and the spec's first-option bot over a socket. Every wait is bounded."""

from __future__ import annotations

import asyncio
import concurrent.futures as cf
import socket
import ssl
import threading
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

from xactika.protocol.net.journal import Journal
from xactika.protocol.net.link import Limits
from xactika.protocol.net.lobby import LobbyPolicy
from xactika.protocol.net.remote import LineSocket
from xactika.protocol.net.server import Server
from xactika.protocol.net.table import Table, TableSettings, table_settings

T = TypeVar("T")
WAIT = 20.0  # seconds: the longest any single test step may take


class LiveServer:
    """A Server on 127.0.0.1 with its own event loop in a daemon thread."""

    def __init__(self, out: Path | None, limits: Limits | None = None,
                 context: ssl.SSLContext | None = None, lobby: LobbyPolicy | None = None,
                 journal: Journal | None = None, port: int = 0) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.server = self.call(self._make(out, limits, context, lobby, journal))
        self.host, self.port = self.call(self.server.start("127.0.0.1", port))

    @staticmethod
    async def _make(out: Path | None, limits: Limits | None, context: ssl.SSLContext | None,
                    lobby: LobbyPolicy | None, journal: Journal | None) -> Server:
        server = Server(limits=limits, out=out, ssl_context=context, lobby=lobby,
                        journal=journal)
        server.restore()
        return server

    def call(self, coro: Coroutine[Any, Any, T], timeout: float = WAIT) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def table(self, settings: TableSettings | None = None, **pairs: Any) -> Table:
        if settings is None:
            settings = table_settings({k: str(v) for k, v in pairs.items()},
                                      move_timeout=5.0, grace=5.0)

        async def add() -> Table:
            return self.server.add_table(settings)

        return self.call(add())

    def wait_over(self, table: Table, timeout: float = WAIT) -> None:
        async def wait() -> None:
            await asyncio.wait_for(table.over.wait(), timeout)

        self.call(wait(), timeout + 1)

    def close(self) -> None:
        try:
            self.call(self.server.close())
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(5)
            self.loop.close()

    def __enter__(self) -> LiveServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class NotedAsyncio:
    """A module's ``asyncio``, to monkeypatch in (``monkeypatch.setattr(module, "asyncio",
    noted)``): it notes the pauses the module asks for, the delays of ``sleep`` and the
    timeouts of ``wait_for``, so a test checks the waits the server chose (a penalty, a
    pace, a seat's time left), not how long a loaded machine took to get through them."""

    def __init__(self) -> None:
        self.slept: list[float] = []
        self.timeouts: list[float | None] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(asyncio, name)

    async def sleep(self, delay: float, result: T | None = None) -> T | None:
        self.slept.append(delay)
        return await asyncio.sleep(delay, result)

    async def wait_for(self, aw: Awaitable[T], timeout: float | None) -> T:
        self.timeouts.append(timeout)
        return await asyncio.wait_for(aw, timeout)


class Client(LineSocket):
    """A raw line client (what a bot author's socket code does); keeps what it got."""

    def __init__(self, port: int, context: ssl.SSLContext | None = None,
                 timeout: float = WAIT, source: str | None = None) -> None:
        super().__init__("127.0.0.1", port, tls=context, timeout=timeout, source=source)
        self.lines: list[str] = []  # everything received, for the hidden-card checks

    def send_raw(self, data: bytes) -> None:
        self.sock.sendall(data)

    def read(self, timeout: float = WAIT) -> str | None:
        """The next line, or None when the server has closed the connection."""
        line = self.readline(timeout)
        if line is not None:
            self.lines.append(line)
        return line

    def rest(self, timeout: float = WAIT) -> list[str]:
        """Every line until the server closes the connection."""
        out = []
        while (line := self.read(timeout)) is not None:
            out.append(line)
        return out


def until(done: Callable[[], object], what: str, timeout: float = WAIT) -> None:
    """Wait until ``done()`` is true (an event another thread or process brings about: a
    seat taken, a file written), looking every 10 ms; AssertionError naming ``what``
    after ``timeout`` seconds, a guard only, never what the test waits for."""
    pause = threading.Event()
    for _ in range(int(timeout / 0.01) + 1):
        if done():
            return
        pause.wait(0.01)
    raise AssertionError(f"never happened: {what}")


def first_option(go: str) -> str:
    """The spec's deterministic bot: the first option of a go line, as an answer."""
    words = go.split()
    option = dict(w.partition("=")[::2] for w in words[2:])["options"].split(",")[0]
    return f"bid {option}" if words[1] == "bid" else "play " + option.replace(":", " ")


def play_first(client: Client, token: str | None, until: Callable[[str], bool] | None = None,
               resume: int | None = None) -> list[str]:
    """Take a seat and play first options until the server closes, or until ``until(line)``
    (that line is left unanswered)."""
    if token is not None:  # None: the seat is taken already, play on
        client.send(f"seat {token}" + (f" resume={resume}" if resume is not None else ""))
    got = []
    while (line := client.read()) is not None:
        got.append(line)
        if until is not None and until(line):
            break
        word = line.split()[0]
        if word == "hello":
            client.send("hello 1 name=first")
        elif word == "isready":
            client.send("readyok")
        elif word == "go":
            client.send(first_option(line))
    return got


def in_thread(fn: Callable[..., T], *args: Any) -> cf.Future[T]:
    pool = cf.ThreadPoolExecutor(1)
    future = pool.submit(fn, *args)
    pool.shutdown(wait=False)
    return future


class Proxy:
    """A TCP relay on 127.0.0.1 whose connections the test can cut, as a network would."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.accepted = 0
        self._open: list[socket.socket] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                down, _ = self.listener.accept()
            except OSError:
                return
            up = socket.create_connection(("127.0.0.1", self.target))
            with self._lock:
                self.accepted += 1
                self._open += [down, up]
            for a, b in ((down, up), (up, down)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        for sock in (src, dst):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self) -> None:
        """Drop every connection through the proxy (new ones are still let through)."""
        with self._lock:
            live, self._open = self._open, []
        for sock in live:
            try:
                sock.shutdown(socket.SHUT_RDWR)
                sock.close()
            except OSError:
                pass

    def close(self) -> None:
        self.listener.close()
        self.cut()
