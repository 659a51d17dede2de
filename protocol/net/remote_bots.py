"""Remote bots for a threaded host (the match runner): a listener and a player over TCP.

A bot author runs ``xactika connect HOST:PORT --token T -- mybot`` on their machine; the
runner's :class:`SeatListener` takes the connection that says ``seat T`` and hands it to
the :class:`RemotePlayer` of the bot with that token, which speaks the player protocol
over it exactly as :class:`~xactika.protocol.player.process.PlayerProcess` does over pipes, with
the same host logic (``PlayerBase``: wire.py's handshake, ``go``, answers) and the same
faults (spec/SERVER.md section 8). Tokens, failures and limits work as in the
table server. A bot whose connection drops during a game may come back within the
grace period with ``seat TOKEN resume=SEQ``, as a table server's seat does: it gets the
events after SEQ and the pending request again, and the drop is no fault.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import socket
import ssl
import threading
import time
from collections.abc import Mapping, Sequence
from typing import IO, Any, TextIO

from xactika.core.engine.api import Command, Legal, TrickGame
from xactika.protocol.net.link import Limits
from xactika.protocol.net.remote import parse_address
from xactika.protocol.net.server import Failures, TokenBook
from xactika.protocol.notation.untrusted import escape
from xactika.protocol.player import wire
from xactika.protocol.player.base import LineHook, PlayerBase
from xactika.protocol.player.faults import BotCrashed, BotProtocolError, BotTimeout
from xactika.protocol.player.wire import MAX_LINE, MAX_LINES, QUIT

log = logging.getLogger(__name__)

Connection = tuple[socket.socket, IO[bytes]]
GRACE = 30.0  # seconds a remote bot that dropped during a game has to come back


def _close(conn: Connection) -> None:
    for thing in (conn[1], conn[0]):
        with contextlib.suppress(OSError):
            thing.close()


class SeatListener:
    """Accepts remote bots: ``seat TOKEN`` queues the connection for that token's bot."""

    def __init__(self, host: str, port: int, tokens: Mapping[str, str], *,
                 tls: ssl.SSLContext | None = None, limits: Limits | None = None) -> None:
        self.limits = limits or Limits()
        self.tls = tls
        self._book: TokenBook[str] = TokenBook()
        self._waiting: dict[str, queue.Queue[tuple[Connection, int | None]]] = {}
        for token in tokens:
            self._book.add(token, token)
            self._waiting[token] = queue.Queue()
        self._names = dict(tokens)
        self._failures = Failures(self.limits)
        self._greeting = threading.BoundedSemaphore(self.limits.max_per_address)
        self._lock = threading.Lock()
        self.sock = socket.create_server((host, port))
        self.address: tuple[str, int] = self.sock.getsockname()[:2]
        self.closed = False
        threading.Thread(target=self._accept, name="seat-listener", daemon=True).start()

    def _accept(self) -> None:
        while not self.closed:
            try:
                conn, peer = self.sock.accept()
            except OSError:
                return
            if not self._greeting.acquire(blocking=False):
                with contextlib.suppress(OSError):
                    conn.sendall(b"error too many connections; try again later\n")
                conn.close()
                continue
            threading.Thread(target=self._greet, args=(conn, str(peer[0])), daemon=True).start()

    def _greet(self, raw: socket.socket, address: str) -> None:
        """Read ``seat TOKEN`` within the time limit; queue the connection or refuse it."""
        sock = raw
        file: IO[bytes] | None = None
        owned = False
        try:
            raw.settimeout(self.limits.auth_timeout)
            if self.tls is not None:  # the handshake too must finish within the limit
                sock = self.tls.wrap_socket(raw, server_side=True)
            file = sock.makefile("rb")
            conn: Connection = (sock, file)
            deadline = time.monotonic() + self.limits.auth_timeout
            line = b""
            while not line.endswith(b"\n"):  # a byte at a time still meets the deadline
                conn[0].settimeout(max(0.01, deadline - time.monotonic()))
                more = conn[1].readline(MAX_LINE + 2 - len(line))
                if not more or len(line) + len(more) > MAX_LINE + 1:
                    break
                line += more
            match wire.read(line.decode("utf-8", "replace").rstrip("\r\n")):
                case wire.TakeSeat(said, resume):
                    token = self._book.get(said)
                case _:
                    token, resume = None, None
            if token is None:
                if line.endswith(b"\n"):
                    why = "unknown token"
                elif len(line) > MAX_LINE:
                    why = f"flood: a line longer than {MAX_LINE} bytes"
                else:
                    why = "timeout: no 'seat TOKEN' line in time"
                with self._lock:
                    delay = self._failures.fail(address)
                time.sleep(delay)
                conn[0].sendall(f"error {why}\n".encode())
                return
            with self._lock:
                self._failures.forgive(address)
            conn[0].settimeout(None)
            conn[0].sendall(f"seated match bot={self._names[token]}\n".encode())
            self._waiting[token].put((conn, resume))
            owned = True  # the player that takes it closes it
        except (OSError, ValueError):
            pass
        finally:
            if not owned and file is not None:
                _close((sock, file))
            elif not owned:
                sock.close()
            self._greeting.release()

    def add_key(self, key: bytes, ident: str, name: str) -> None:
        """A seat known by its token's hash alone (``token_key``), so the host need not
        keep the token: the connection that says it is queued for ``take(ident)``."""
        with self._lock:
            self._book.add_key(key, ident)
            self._waiting.setdefault(ident, queue.Queue())
            self._names[ident] = name

    def waiting(self, ident: str) -> bool:
        """Whether a connection for ``ident`` is queued, not yet taken."""
        queued = self._waiting.get(ident)
        return queued is not None and not queued.empty()

    def take(self, token: str, timeout: float) -> tuple[Connection, int | None] | None:
        """The next connection for ``token`` within ``timeout`` seconds, if one comes,
        with the ``resume=`` it gave (None: a fresh start)."""
        waiting = self._waiting.get(token)
        if waiting is None:
            return None
        try:
            return waiting.get(timeout=timeout)
        except queue.Empty:
            return None

    def close(self) -> None:
        self.closed = True
        with contextlib.suppress(OSError):
            self.sock.close()
        for waiting in self._waiting.values():
            while not waiting.empty():
                _close(waiting.get_nowait()[0])


def _seq(line: str) -> int:
    """The sequence number of one of the event lines kept for a come back."""
    message = wire.read(line)
    return message.seq if isinstance(message, wire.EventLine) else 0


class RemotePlayer(PlayerBase):
    """A bot at the other end of a connection: PlayerProcess's protocol and faults; a
    connection that drops during a game may be made again within ``grace`` seconds."""

    def __init__(self, listener: SeatListener | None, token: str, *, name: str,
                 startup_timeout: float = 10.0, move_timeout: float | None = 10.0,
                 on_line: LineHook | None = None, max_lines: int = MAX_LINES,
                 grace: float = GRACE, connect_timeout: float | None = None) -> None:
        super().__init__(name=name, startup_timeout=startup_timeout,
                         move_timeout=move_timeout, on_line=on_line)
        self.listener = listener
        self.token = token
        self.max_lines = max_lines
        self.grace = grace
        # how long start() waits for the bot's connection (startup_timeout by default)
        self.connect_timeout = startup_timeout if connect_timeout is None else connect_timeout
        self.killed = False  # a remote bot cannot ignore quit: we close the connection
        self.reconnects = 0  # connections made again during games
        self._conn: Connection | None = None
        self._gen = 0  # which connection the reader's lines come from
        self._away = False  # dropped during a game, not yet back
        self._game: list[str] = []  # this game's event lines as sent, for a resume
        self._newgame: str | None = None  # this game's newgame line
        self._newgame_sent = False  # on the current connection (else: all is sent again)
        self._pending: str | None = None  # the request not yet answered
        self._resent_at: float | None = None  # when it was sent again after a come back
        self._queue: queue.Queue[tuple[int, str, str, str]] = queue.Queue()
        self._count = 0

    # -- life cycle
    def _spawn(self) -> None:
        if self.listener is None:
            raise BotCrashed(f"remote bot {self.name!r}: this host is not listening for it "
                             "(--listen)", exit_code=None, bot=self.name, startup=True)
        got = self.listener.take(self.token, self.connect_timeout)
        if got is None:
            raise BotCrashed(f"remote bot {self.name!r} did not connect within "
                             f"{self.connect_timeout:g} s", exit_code=None, bot=self.name,
                             startup=True)
        self._attach(got[0])

    def _attach(self, conn: Connection) -> None:
        self._gen += 1
        self._conn, self._away = conn, False
        threading.Thread(target=self._read, args=(conn[1], self._gen),
                         name=f"remote-{self.name}", daemon=True).start()

    @property
    def returncode(self) -> int | None:
        """None while connected (or away within its grace), as a running process's."""
        return None if self._conn is not None or self._away else 0

    def hung_up(self) -> bool:
        """Whether the bot closed its connection while kept between games (its end of
        file is queued, not yet read): a host then takes its next connection instead."""
        with self._queue.mutex:
            return any(gen == self._gen and kind == "eof"
                       for gen, kind, _t, _m in self._queue.queue)

    def quit(self, grace: float = 1.0) -> int | None:
        if self._conn is not None:
            with contextlib.suppress(OSError):
                self._conn[0].settimeout(max(grace, 0.1))
                self._conn[0].sendall(QUIT.encode() + b"\n")
        self._kill()
        return 0

    def kill(self) -> None:
        self._kill()

    def wipe(self) -> None:
        """Nothing of ours to clean between games: the bot's files are on its machine."""

    def _kill(self) -> None:
        self._away = False
        self._drop()

    def _drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(OSError):
                conn[0].shutdown(socket.SHUT_RDWR)
            _close(conn)

    # -- coming back
    def _resumable(self) -> bool:
        return (self.started and not self._startup and self.grace > 0
                and self.listener is not None)

    def _gone(self) -> None:
        """The connection dropped during a game: wait for it to come back."""
        self._drop()
        self._away = True

    def _come_back(self, doing: str) -> None:
        """Take the bot's new connection (``resume=SEQ``) within the grace period and
        send what it missed: the events after SEQ, then the pending request again."""
        assert self.listener is not None
        last = max((_seq(line) for line in self._game), default=0)
        deadline = time.monotonic() + self.grace
        while (left := deadline - time.monotonic()) > 0:
            got = self.listener.take(self.token, left)
            if got is None:
                break
            conn, resume = got
            why, lines = None, list[str]()
            if resume is None:
                why = ("a match seat comes back with 'seat TOKEN resume=SEQ' "
                       "(xactika connect does this)")
            elif self._newgame is not None and (not self._newgame_sent or resume > last):
                # SEQ is not of this game (it dropped as this game began): all of it
                lines = [self._newgame, *self._game]
            else:
                lines = [ln for ln in self._game if _seq(ln) > resume]
            lines += [self._pending] if self._pending else []
            try:
                conn[0].settimeout(self.move_timeout or 10.0)
                if why is not None:
                    conn[0].sendall(f"error {why}\n".encode())
                    _close(conn)
                    continue
                conn[0].sendall("".join(line + "\n" for line in lines).encode("utf-8"))
            except OSError:
                _close(conn)
                continue
            self._newgame_sent = True
            self._resent_at = time.monotonic()
            self._attach(conn)
            self.reconnects += 1
            log.info("remote bot %s came back (resume=%s)", self.name, resume)
            return
        self._away = False
        self._fail(BotCrashed(f"remote bot {self.name!r} disconnected while {doing} and did "
                              f"not come back within {self.grace:g} s", exit_code=None,
                              bot=self.name, startup=self._startup))

    def ask(self, legal: Legal, rules: TrickGame, time_ms: int | None = None) -> Command:
        """PlayerBase's ``ask``; after a come back the move was timed from the ``go``
        sent again, as the table server times it."""
        self._resent_at = None
        try:
            return super().ask(legal, rules, time_ms)
        finally:
            if self._resent_at is not None:
                self.last_think_s = time.monotonic() - self._resent_at

    # -- lines
    def _request(self, line: str) -> None:
        super()._request(line)
        self._pending = line

    def _write(self, line: str, limit: float | None = None) -> None:
        match wire.read(line):  # our own lines: what a bot that comes back is sent again
            case wire.NewGame():
                newgame = True
                self._game, self._newgame, self._newgame_sent = [], line, False
            case wire.EventLine():
                newgame = False
                self._game.append(line)
            case _:
                newgame = False
        conn = self._conn
        if conn is None:
            if self._away:
                return  # sent again when it comes back
            raise RuntimeError("the remote bot is not connected: call start() first")
        if limit is None:
            limit = self.startup_timeout if self._startup else (self.move_timeout or 10.0)
        try:
            conn[0].settimeout(limit)
            conn[0].sendall(line.encode("utf-8") + b"\n")
            self._newgame_sent |= newgame
        except TimeoutError:
            self._fail(BotTimeout(f"remote bot {self.name!r} stopped reading for {limit:g} s",
                                  bot=self.name, startup=self._startup))
        except OSError as exc:
            if self._resumable():
                self._gone()
                return
            self._fail(BotCrashed(f"remote bot {self.name!r} disconnected ({exc})",
                                  exit_code=None, bot=self.name, startup=self._startup))

    def _read(self, out: IO[bytes], gen: int) -> None:
        def put(kind: str, text: str, message: str) -> None:
            self._queue.put((gen, kind, text, message))

        try:
            while True:
                raw = out.readline(MAX_LINE + 2)
                if not raw.endswith(b"\n"):
                    if len(raw) > MAX_LINE + 1:
                        put("fault", "flood", f"sent a line longer than {MAX_LINE} bytes")
                    else:
                        put("eof", "", "")
                    return
                self._count += 1
                if self._count > self.max_lines:
                    put("fault", "flood",
                        f"sent more than {self.max_lines} lines without being asked")
                    return
                try:
                    text = raw.decode("utf-8").rstrip("\r\n")
                except UnicodeDecodeError as exc:
                    put("fault", "invalid-utf8", f"sent invalid UTF-8 (byte {exc.start})")
                    return
                if not text.strip():
                    continue
                if wire.is_info(text):
                    log.info("%s: %s", self.name, escape(text, 200))
                    continue
                put("line", text, "")
        except (OSError, ValueError):
            put("eof", "", "")

    def _begin(self) -> None:
        self._count = 0

    def _get(self, timeout: float | None) -> tuple[str, str, str]:
        """The next item of the current connection; queue.Empty past ``timeout``."""
        while True:
            gen, kind, text, message = self._queue.get(timeout=timeout)
            if gen == self._gen:
                return kind, text, message

    def _stale(self) -> str | None:
        while True:
            try:
                gen, kind, text, message = self._queue.get_nowait()
            except queue.Empty:
                return None
            if gen != self._gen:
                continue  # a connection since replaced
            if kind == "eof" and self._resumable():
                self._gone()  # it comes back at the next request
                return None
            self._handle(kind, text, message, "waiting for a request")
            return text

    def _next(self, timeout: float | None, doing: str) -> str:
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            if self._away:
                self._come_back(doing)  # the request goes again: its clock starts again
                deadline = None if timeout is None else time.monotonic() + timeout
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                kind, text, message = self._get(left)
            except queue.Empty:
                self._fail(BotTimeout(
                    f"remote bot {self.name!r} did not answer within {timeout:g} s while "
                    f"{doing}", bot=self.name, startup=self._startup))
            if kind == "eof" and self._resumable():
                self._gone()
                continue
            self._pending = None
            self._handle(kind, text, message, doing)
            return text

    def _handle(self, kind: str, text: str, message: str, doing: str) -> None:
        if kind == "fault":
            self._fail(BotProtocolError(f"remote bot {self.name!r} {message}", reason=text,
                                        bot=self.name, startup=self._startup))
        if kind == "eof":
            self._fail(BotCrashed(f"remote bot {self.name!r} disconnected while {doing}",
                                  exit_code=None, bot=self.name, startup=self._startup))
        if self.on_line is not None:
            self.on_line("<", text)


def remote_listener(address: str | None, bots: Sequence[Any],
                    stream: TextIO | None = None) -> SeatListener | None:
    """The listener a match with ``remote=`` bots needs (None without any); ValueError
    when one is needed and ``--listen`` is missing."""
    tokens = {bot.remote: bot.name for bot in bots if getattr(bot, "remote", None)}
    if not tokens:
        return None
    if address is None:
        raise ValueError("remote bots need --listen HOST:PORT, where they connect")
    host, port = parse_address(address, listen=True)
    listener = SeatListener(host, port, tokens)
    if stream is not None:
        where = f"{listener.address[0]}:{listener.address[1]}"
        for token, name in tokens.items():
            print(f"remote bot {name}: xactika connect {where} --token {token} -- PROGRAM",
                  file=stream, flush=True)
    return listener
