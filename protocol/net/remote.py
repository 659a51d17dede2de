"""The client side of a remote seat (spec/SERVER.md): one socket, lines, and reconnects.

:class:`RemoteSeat` says ``seat TOKEN``, then hands the player protocol's lines to its
caller (a relay to a bot process, or the REPL). When the connection drops before the
game is over it reconnects with ``resume=<last event seq>``, so the caller sees one
unbroken stream: the server sends only the events missed and asks the pending ``go``
again.
"""

from __future__ import annotations

import socket
import ssl
import threading
import time

from xactika.core.engine.errors import XactikaError
from xactika.protocol.notation.untrusted import escape
from xactika.protocol.player import wire
from xactika.protocol.player.wire import MAX_LINE


class RemoteError(XactikaError):
    """The server refused us or the connection could not be (re)made."""

    code = "remote"


def parse_address(text: str, *, listen: bool = False) -> tuple[str, int]:
    """``HOST:PORT`` (``[v6]:PORT`` too) -> (host, port); ValueError says what is wrong.

    To ``listen``, port 0 means any free port."""
    host, sep, port = text.rpartition(":")
    host = host.strip("[]")
    low = 0 if listen else 1
    if not sep or not host or not port.isdigit() or not low <= int(port) < 65536:
        raise ValueError(f"bad address {text!r}: expected HOST:PORT, e.g. 127.0.0.1:7000")
    return host, int(port)


def client_context(cafile: str | None = None, *, insecure: bool = False) -> ssl.SSLContext:
    """TLS for a client: the system's roots, or ``cafile`` (a self-signed server cert)."""
    context = ssl.create_default_context(cafile=cafile)
    if insecure:  # tests and trusted networks only: encryption without authentication
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    return context


def connect_failure(host: str, port: int, exc: OSError) -> str:
    """One line naming the address and why, not a bare ``[Errno 111] ...``."""
    where = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    if isinstance(exc, ConnectionRefusedError):
        why = "connection refused (no server listens there: is it running, on that port?)"
    elif isinstance(exc, TimeoutError):
        why = "no answer (timed out)"
    else:
        why = str(exc.strerror or exc).rstrip(".")
        why = why[:1].lower() + why[1:]
    return f"cannot connect to {escape(where, 300)}: {why}"


class LineSocket:
    """Lines over a socket (TLS or not), bounded in length, with a read timeout."""

    def __init__(self, host: str, port: int, *, tls: ssl.SSLContext | None = None,
                 timeout: float = 10.0, source: str | None = None) -> None:
        try:
            sock = socket.create_connection((host, port), timeout=timeout,
                                            source_address=(source, 0) if source else None)
        except OSError as exc:  # the same kind, so callers catch it as before
            raise type(exc)(connect_failure(host, port, exc)) from None
        if tls is not None:
            sock = tls.wrap_socket(sock, server_hostname=host)
        sock.settimeout(None)
        self.sock = sock
        self.file = sock.makefile("rb")
        self._lock = threading.Lock()

    def readline(self, timeout: float | None = None) -> str | None:
        """The next line without its ending; None at end of stream."""
        self.sock.settimeout(timeout)
        try:
            raw = self.file.readline(MAX_LINE + 2)
        except (OSError, ValueError):
            return None
        if not raw.endswith(b"\n"):
            return None  # end of stream (a partial or over-long line is not a line)
        return raw.decode("utf-8", "replace").rstrip("\r\n")

    def send(self, line: str) -> None:
        with self._lock:
            self.sock.sendall(line.encode("utf-8") + b"\n")

    def close(self) -> None:
        """Shut the socket down first: that wakes a thread blocked in ``readline`` (with
        the file's lock held, so closing the file first would wait for it for good) and
        the other end sees the connection end at once."""
        try:  # the plain socket's shutdown: TLS's would unwrap under the reading thread
            socket.socket.shutdown(self.sock, socket.SHUT_RDWR)
        except OSError:
            pass
        for thing in (self.file, self.sock):
            try:
                thing.close()
            except OSError:
                pass


# Refusals that a moment's wait can cure: the server has not yet seen the old connection
# drop, or it is full.
_RETRY = ("closed the connection", "already connected", "too many connections")


class RemoteSeat:
    """A seat at a table server, as a stream of player-protocol lines.

    ``readline()`` returns what the server sends (``seated`` is consumed); it reconnects
    by itself within ``reconnect`` seconds after a drop, and raises RemoteError for an
    ``error`` line or when it cannot get back. ``send()`` drops lines while disconnected:
    the server asks again whatever was pending.
    """

    def __init__(self, host: str, port: int, token: str, *,
                 tls: ssl.SSLContext | None = None, reconnect: float = 30.0,
                 connect_timeout: float = 10.0) -> None:
        self.host, self.port, self.token = host, port, token
        self.tls = tls
        self.reconnect = reconnect
        self.connect_timeout = connect_timeout
        self.last_seq: int | None = None  # the last event seq handed out (None: no game yet)
        self.finished = False  # the server said quit
        self.abandoned = False  # our side gave the seat up (the bot exited)
        self.reconnects = 0
        self.seated = ""  # the server's 'seated ...' line
        self._sock: LineSocket | None = None
        self._lock = threading.Lock()
        self._gen = 0  # which connection this is
        self._go: str | None = None  # the last go handed out
        self._answered_on: int | None = None  # the connection its answer went out on
        self._resent: bool = False  # the next go may be the server asking that one again

    def connect(self) -> None:
        """Take the seat (resuming after the last event seen, if any)."""
        sock = LineSocket(self.host, self.port, tls=self.tls, timeout=self.connect_timeout)
        hello = f"seat {self.token}"
        if self.last_seq is not None:
            hello += f" resume={self.last_seq}"
        try:
            sock.send(hello)
            first = sock.readline(self.connect_timeout)
        except OSError as exc:
            sock.close()
            raise RemoteError(f"{self.host}:{self.port}: {exc}") from None
        answer = wire.read(first) if first is not None else None
        if first is None or not isinstance(answer, wire.Seated):
            sock.close()
            why = answer.text if isinstance(answer, wire.ServerError) else "closed the connection"
            if first is None and self.tls is None:
                why += " (if it is a TLS server, add --tls or --cafile)"
            raise RemoteError(f"the server refused the seat: {escape(why, 200)}")
        self.seated = first
        with self._lock:
            self._sock = sock
            self._gen += 1
            self._resent = self._go is not None

    def readline(self) -> str:
        """The next line from the server; RemoteError when the seat is lost."""
        while True:
            sock = self._sock
            line = sock.readline() if sock is not None else None
            if line is None:
                if self.abandoned:
                    raise RemoteError("the seat was given up")
                if self.finished:
                    raise RemoteError("the server closed the connection after quit")
                self._reconnect()
                continue
            match wire.read(line):
                case wire.ServerError(why):
                    self.close()
                    raise RemoteError(f"the server says: {escape(why, 300)}")
                case wire.Go() | wire.Malformed(wanted=wire.Go) if self._asked_already(line):
                    continue
                case wire.EventLine(seq):
                    self.last_seq = seq
                case wire.NewGame() | wire.Malformed(wanted=wire.NewGame):
                    self.last_seq = 0
                    with self._lock:
                        self._go = None
                case wire.Quit():
                    self.finished = True
            return line

    def _asked_already(self, go: str) -> bool:
        """After a reconnect the server asks its pending ``go`` again. If the caller has
        it still unanswered, or its answer went out on the new connection (where it
        answers this go), handing it out again would get two answers to one go."""
        with self._lock:
            again = self._resent and go == self._go and self._answered_on in (None, self._gen)
            self._resent = False
            if not again:
                self._go, self._answered_on = go, None
        return again

    def _reconnect(self) -> None:
        self.close()
        deadline = time.monotonic() + self.reconnect
        delay = 0.2
        last = "the connection dropped"
        while time.monotonic() < deadline:
            try:
                self.connect()
                self.reconnects += 1
                return
            except RemoteError as exc:
                if not any(why in str(exc) for why in _RETRY):
                    raise
                last = str(exc)
            except OSError as exc:
                last = str(exc)
            time.sleep(delay)
            delay = min(delay * 2, 2.0)
        raise RemoteError(f"lost the seat: {last}; no reconnect within {self.reconnect:g} s")

    def send(self, line: str) -> None:
        with self._lock:
            sock = self._sock
            if self._go is not None and self._answered_on is None and wire.is_answer(line):
                self._answered_on = self._gen if sock is not None else -1
        if sock is None:
            return
        try:
            sock.send(line)
        except OSError:
            pass  # the reader notices the drop and reconnects

    def abandon(self) -> None:
        """Leave for good (no reconnect): the server sees the drop at once."""
        self.abandoned = True
        self.close()

    def close(self) -> None:
        with self._lock:
            sock, self._sock = self._sock, None
        if sock is not None:
            sock.close()
