"""The host side of the player protocol (spec/PLAYER.md): run one bot, python-chess style.

Every wait has a timeout, every fault is a precise :class:`BotError` subclass that the
match runner can count, and a faulty bot is killed (its whole process group) before the
error is raised, so no caller can leak a process by forgetting to clean up. The bot's
stdout is read as bytes by a thread with a bounded line length; its stderr goes to a
file and never into the protocol.
"""

from __future__ import annotations

import atexit
import logging
import os
import queue
import select
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from typing import IO, Any, NoReturn, Self

from xactika.core.errors import ParseError, XactikaError
from xactika.core.table import Bid, Command, Event, GameStarted, Legal, Play, TrickGame, game_rules
from xactika.core.views import SeatView, visible
from xactika.protocol.text import format_event

log = logging.getLogger(__name__)

PROTOCOL_VERSION = 1
MAX_LINE = 4096  # bytes in one bot line, newline not counted
MAX_LINES = 1000  # lines (info included) a bot may send between two requests

# (direction ">" host->bot or "<" bot->host, line): a transcript hook. For a process,
# ``info`` lines are reported from the reader thread as they arrive.
LineHook = Callable[[str, str], None]


# --------------------------------------------------------------------------- errors


class BotError(XactikaError):
    """A bot broke the protocol or died; ``startup`` tells a start-up fault from a game one."""

    code = "bot"

    def __init__(self, message: str, *, bot: str = "", startup: bool = False) -> None:
        super().__init__(message)
        self.bot = bot
        self.startup = startup


class BotCrashed(BotError):
    """The process exited (or could not be started); ``exit_code`` is None if it never ran."""

    code = "crash"

    def __init__(
        self, message: str, *, exit_code: int | None, bot: str = "", startup: bool = False
    ) -> None:
        super().__init__(message, bot=bot, startup=startup)
        self.exit_code = exit_code


class BotTimeout(BotError):
    """No answer (or no reading of its input) within the time limit."""

    code = "timeout"


class BotProtocolError(BotError):
    """A line that is not the protocol; ``reason`` is one of :data:`REASONS`."""

    code = "protocol"

    def __init__(self, message: str, *, reason: str, bot: str = "", startup: bool = False) -> None:
        super().__init__(message, bot=bot, startup=startup)
        self.reason = reason


REASONS = ("garbage", "invalid-utf8", "flood", "closed-stdout", "closed-stdin")


class BotIllegalMove(BotError):
    """A well-formed ``bid``/``play`` answer that is not one of the options offered."""

    code = "illegal-move"

    def __init__(self, message: str, *, line: str, bot: str = "") -> None:
        super().__init__(message, bot=bot)
        self.line = line


# --------------------------------------------------------------------------- line codec


def format_go(legal: Legal, rules: TrickGame, time_ms: int | None = None) -> str:
    """The ``go`` line: the kind, every legal option and the optional time budget."""
    if legal.seat is None:
        raise ValueError("nobody may act: there is nothing to ask")
    if legal.kind == "bid":
        options = [str(b) for b in legal.bids]
    else:
        options = []
        for card in legal.cards:
            for call in legal.calls(card):
                options.append(str(card) if call is None else f"{card}:{rules.format_call(call)}")
    line = f"go {legal.kind} options={','.join(options)}"
    return line if time_ms is None else f"{line} time={time_ms}"


def parse_answer(line: str, legal: Legal, rules: TrickGame) -> Command:
    """The command a ``bid``/``play`` answer names; ParseError says why it is not legal."""
    words = line.split()
    seat = legal.seat if legal.seat is not None else -1
    expected = "bid <n>" if legal.kind == "bid" else (
        "play <card> <call>" if _has_calls(legal) else "play <card>"
    )
    if legal.kind == "bid":
        if len(words) != 2 or words[0] != "bid":
            raise ParseError(f"expected {expected} to answer go bid")
        try:
            bid = int(words[1])
        except ValueError:
            raise ParseError(f"bad bid {words[1]!r}: expected a number") from None
        command: Command = Bid(seat, bid)
    else:
        if words[0] != "play" or len(words) not in (2, 3):
            raise ParseError(f"expected {expected} to answer go {legal.kind}")
        card = rules.parse_card(words[1])
        call = rules.parse_call(words[2]) if len(words) == 3 else None
        command = Play(seat, card, call)
        if legal.kind == "lead" and call is None and _has_calls(legal):
            raise ParseError(f"a lead must name its call: expected {expected}")
        if legal.kind == "play" and call is not None:
            raise ParseError(f"only the leader makes a call: expected {expected}")
    if command not in legal:
        raise ParseError("not one of the options offered")
    return command


def _has_calls(legal: Legal) -> bool:
    return any(call is not None for card in legal.cards[:1] for call in legal.calls(card))


# --------------------------------------------------------------------------- the host side


class PlayerBase:
    """The protocol logic shared by a real process and an in-process loopback.

    Subclasses supply the transport: ``_spawn``, ``_write``, ``_next`` and ``_kill``.
    """

    def __init__(
        self,
        *,
        name: str | None = None,
        startup_timeout: float = 10.0,
        move_timeout: float | None = 10.0,
        on_line: LineHook | None = None,
    ) -> None:
        self.name = name or "bot"
        self._named = name is not None
        self.startup_timeout = startup_timeout
        self.move_timeout = move_timeout
        self.on_line = on_line
        self.started = False
        self.last_think_s = 0.0  # how long the last ``ask`` waited for its answer
        self.declared = ""  # the name the bot gave in ``hello``, once started
        self._rules: TrickGame | None = None
        self._startup = True

    # -- the protocol
    def start(self) -> str:
        """Spawn the bot, do ``hello`` and ``isready``; return the name the bot gives.

        Once started (by ``with`` too), it only returns that name again."""
        if self.started:
            return self.declared
        self._startup = True
        self._spawn()
        self._request(f"hello {PROTOCOL_VERSION}")
        words = self._answer(("hello",), self.startup_timeout, "answering hello").split()
        if len(words) < 2 or words[1] != str(PROTOCOL_VERSION):
            got = words[1] if len(words) > 1 else "none"
            self._fail(BotProtocolError(
                f"bot {self.name!r} speaks protocol version {got}, expected "
                f"'hello {PROTOCOL_VERSION} name=<name>'",
                reason="garbage", bot=self.name, startup=True,
            ))
        declared = self.name
        for word in words[2:]:
            key, _, value = word.partition("=")
            if key == "name" and value:
                declared = value
        if not self._named:
            self.name = declared
        self.isready(self.startup_timeout)
        self._startup = False
        self.started = True
        self.declared = declared
        return declared

    def isready(self, timeout: float | None = None) -> None:
        """Ping: the bot must answer ``readyok`` in time."""
        wait = timeout if timeout is not None else self.startup_timeout
        self._request("isready")
        self._answer(("readyok",), wait, "answering isready")

    def new_game(self, seat: int, events: Sequence[Event], rules: TrickGame) -> None:
        self._rules = rules
        self._send(f"newgame seat={seat}")
        for event in events:
            self.tell(event)

    def tell(self, event: Event) -> None:
        """Send an event the bot's seat may see (the caller has applied ``visible``)."""
        if isinstance(event, GameStarted):
            self._rules = game_rules(event.config.game)
        self._send(format_event(event, self._rules))

    def ask(self, legal: Legal, rules: TrickGame, time_ms: int | None = None) -> Command:
        """Send ``go`` and return the bot's legal command, or raise a BotError."""
        go = format_go(legal, rules, time_ms)
        timeout = self.move_timeout
        if timeout is None and time_ms is not None:
            timeout = time_ms / 1000 + 1.0
        started = time.monotonic()
        self._request(go)
        line = self._answer(("bid", "play"), timeout, f"answering {go.split(' options')[0]!r}")
        self.last_think_s = time.monotonic() - started
        try:
            return parse_answer(line, legal, rules)
        except ParseError as exc:
            self._fail(BotIllegalMove(
                f"bot {self.name!r} answered {line!r} to {_short(go)}: {exc}",
                line=line, bot=self.name,
            ))

    def quit(self, grace: float = 1.0) -> int | None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        """Start the bot (spawn, ``hello``, ``isready``) unless started: ``with`` is the
        whole life cycle; a start-up fault raises here, the bot already killed."""
        if not self.started:
            self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.quit()

    # -- framing shared by every transport
    def _send(self, line: str) -> None:
        if self.on_line is not None:
            self.on_line(">", line)
        self._write(line)

    def _request(self, line: str) -> None:
        """Send a line that expects an answer; anything the bot said unasked is a fault."""
        stale = self._stale()
        if stale is not None:
            self._fail(BotProtocolError(
                f"bot {self.name!r} sent {_clip(stale)!r} when nothing was asked",
                reason="garbage", bot=self.name, startup=self._startup,
            ))
        self._send(line)

    def _answer(self, words: tuple[str, ...], timeout: float | None, doing: str) -> str:
        line = self._next(timeout, doing)
        first = line.split()[0]
        if first not in words:
            want = " or ".join(repr(w) for w in words)
            self._fail(BotProtocolError(
                f"bot {self.name!r} sent {_clip(line)!r} while {doing}: expected {want}",
                reason="garbage", bot=self.name, startup=self._startup,
            ))
        return line

    def _fail(self, error: BotError) -> NoReturn:
        log.debug("%s", error)
        self._kill()
        raise error

    # -- transport
    def _spawn(self) -> None:
        raise NotImplementedError

    def _write(self, line: str, limit: float | None = None) -> None:
        raise NotImplementedError

    def _next(self, timeout: float | None, doing: str) -> str:
        """The next non-blank, non-info line, or a BotError (after killing the bot)."""
        raise NotImplementedError

    def _stale(self) -> str | None:
        """A line already received that nobody asked for, if any."""
        return None

    def _kill(self) -> None:
        raise NotImplementedError


def _clip(text: str, n: int = 80) -> str:
    return text if len(text) <= n else text[:n] + "..."


def _short(go: str) -> str:
    return repr(_clip(go, 60))


_LIVE: set[PlayerProcess] = set()


@atexit.register
def _kill_all() -> None:
    for player in list(_LIVE):
        player._kill()


class PlayerProcess(PlayerBase):
    """One bot process in its own process group (POSIX)."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        cwd: str | os.PathLike[str] | None = None,
        stderr_path: str | os.PathLike[str] | None = None,
        startup_timeout: float = 10.0,
        move_timeout: float | None = 10.0,
        name: str | None = None,
        on_line: LineHook | None = None,
        max_lines: int = MAX_LINES,
    ) -> None:
        if not argv:
            raise ValueError("a bot needs a command line")
        super().__init__(
            name=name,
            startup_timeout=startup_timeout,
            move_timeout=move_timeout,
            on_line=on_line,
        )
        if name is None:
            self.name = os.path.basename(argv[0])  # until the bot names itself
        self.argv = list(argv)
        self.cwd = cwd
        self.stderr_path = stderr_path
        self.max_lines = max_lines
        self.killed = False  # True when quit had to kill the bot (it ignored quit)
        self.pid: int | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._stderr: IO[bytes] | None = None
        self._queue: queue.Queue[tuple[str, str, str]] = queue.Queue()
        self._count = 0
        self._reader: threading.Thread | None = None

    # -- life cycle
    def _spawn(self) -> None:
        if self._proc is not None:
            raise RuntimeError("this bot was already started")
        if self.stderr_path is not None:
            self._stderr = open(self.stderr_path, "a+b")
        else:
            self._stderr = tempfile.TemporaryFile()
        try:
            self._proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                cwd=self.cwd,
                start_new_session=True,
            )
        except OSError as exc:
            self._stderr.close()
            raise BotCrashed(
                f"cannot start bot {self.name!r} ({self.argv[0]}): {exc.strerror or exc}",
                exit_code=None, bot=self.name, startup=True,
            ) from None
        self.pid = self._proc.pid
        _LIVE.add(self)
        assert self._proc.stdin is not None and self._proc.stdout is not None
        os.set_blocking(self._proc.stdin.fileno(), False)
        self._reader = threading.Thread(
            target=self._read, args=(self._proc.stdout,), name=f"bot-{self.name}", daemon=True
        )
        self._reader.start()

    def quit(self, grace: float = 1.0) -> int | None:
        """Send ``quit``, wait ``grace`` seconds, then kill the group; the exit code."""
        proc = self._proc
        if proc is None:
            return None
        if proc.poll() is None:
            try:
                if self.on_line is not None:
                    self.on_line(">", "quit")
                self._write("quit", limit=grace)
            except BotTimeout:  # it does not even read its input: that is ignoring quit
                self.killed = True
            except (BotError, OSError):
                pass
            try:
                proc.wait(grace)
            except subprocess.TimeoutExpired:
                self.killed = True
        self._kill()
        return proc.returncode

    def kill(self) -> None:
        """Kill the bot's whole process group now (no quit); safe to call twice."""
        self._kill()

    def _kill(self) -> None:
        proc = self._proc
        if proc is None:
            return
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the whole group: the bot and its children
        except (ProcessLookupError, PermissionError):
            pass
        proc.wait()
        streams: list[IO[bytes] | None] = [proc.stdin, self._stderr]
        if self._reader is not None:
            self._reader.join(1.0)
            if not self._reader.is_alive():  # else an escaped process holds stdout open
                streams.append(proc.stdout)
        for stream in streams:
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass
        _LIVE.discard(self)

    @property
    def returncode(self) -> int | None:
        return None if self._proc is None else self._proc.poll()

    # -- writing: non-blocking, so a bot that stops reading is a timeout, not a hang
    def _write(self, line: str, limit: float | None = None) -> None:
        proc = self._proc
        if proc is None or proc.stdin is None:
            raise RuntimeError("the bot is not running: call start() first")
        if proc.stdin.closed:
            raise RuntimeError("the bot was stopped")
        fd = proc.stdin.fileno()
        data = memoryview((line + "\n").encode("utf-8"))
        if limit is None:
            limit = self.startup_timeout if self._startup else (self.move_timeout or 10.0)
        deadline = time.monotonic() + limit
        while data:
            try:
                data = data[os.write(fd, data):]
            except BlockingIOError:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([], [fd], [], left)[1]:
                    self._fail(BotTimeout(
                        f"bot {self.name!r} stopped reading its input for {limit:g} s",
                        bot=self.name, startup=self._startup,
                    ))
            except BrokenPipeError:
                self._exited_or(BotProtocolError(
                    f"bot {self.name!r} closed its input but is still running",
                    reason="closed-stdin", bot=self.name, startup=self._startup,
                ), "reading its input")
                return

    # -- reading: a thread turns stdout bytes into queued lines or one fault
    def _read(self, out: IO[bytes]) -> None:
        put = self._queue.put
        try:
            while True:
                raw = out.readline(MAX_LINE + 2)
                if not raw.endswith(b"\n"):
                    if len(raw) > MAX_LINE + 1:
                        put(("fault", "flood", f"sent a line longer than {MAX_LINE} bytes"))
                    else:  # end of output (a partial last line is dropped)
                        put(("eof", "", ""))
                    return
                self._count += 1
                if self._count > self.max_lines:
                    put(("fault", "flood",
                         f"sent more than {self.max_lines} lines without being asked"))
                    return
                try:
                    text = raw.decode("utf-8").rstrip("\r\n")
                except UnicodeDecodeError as exc:
                    put(("fault", "invalid-utf8",
                         f"sent invalid UTF-8 (byte {exc.start}): {_clip(repr(raw), 60)}"))
                    return
                words = text.split(maxsplit=1)
                if not words:
                    continue
                if words[0] == "info":
                    log.info("%s: %s", self.name, text)
                    if self.on_line is not None:
                        self.on_line("<", text)
                    continue
                put(("line", text, ""))
        except (OSError, ValueError):
            put(("eof", "", ""))

    def _stale(self) -> str | None:
        self._count = 0
        try:
            kind, text, message = self._queue.get_nowait()
        except queue.Empty:
            return None
        self._handle(kind, text, message, "waiting for a request")
        return text

    def _next(self, timeout: float | None, doing: str) -> str:
        proc = self._proc
        assert proc is not None
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            wait = 0.25 if deadline is None else min(0.25, deadline - time.monotonic())
            try:
                kind, text, message = self._queue.get(timeout=max(wait, 0.0))
            except queue.Empty:
                if proc.poll() is not None:
                    # it has exited: let the reader deliver what it wrote last, if anything
                    if self._reader is not None:
                        self._reader.join(0.5)
                    if not self._queue.empty():
                        continue
                    self._exited_or(None, doing)
                if deadline is not None and time.monotonic() >= deadline:
                    self._fail(BotTimeout(
                        f"bot {self.name!r} did not answer within {timeout:g} s while {doing}",
                        bot=self.name, startup=self._startup,
                    ))
                continue
            self._handle(kind, text, message, doing)
            return text

    def _handle(self, kind: str, text: str, message: str, doing: str) -> None:
        if kind == "fault":
            self._fail(BotProtocolError(
                f"bot {self.name!r} {message}", reason=text, bot=self.name,
                startup=self._startup,
            ))
        if kind == "eof":
            self._exited_or(BotProtocolError(
                f"bot {self.name!r} closed its output while {doing} but is still running",
                reason="closed-stdout", bot=self.name, startup=self._startup,
            ), doing)
        if self.on_line is not None:
            self.on_line("<", text)

    def _exited_or(self, error: BotError | None, doing: str) -> None:
        """BotCrashed if the process has exited (or does so shortly), else ``error``."""
        proc = self._proc
        assert proc is not None
        try:
            code = proc.wait(0.5)
        except subprocess.TimeoutExpired:
            if error is None:
                return
            self._fail(error)
        when = "during start-up" if self._startup else f"while {doing}"
        how = (
            f"was killed by signal {_signal_name(-code)}" if code < 0
            else f"exited with code {code}"
        )
        self._fail(BotCrashed(
            f"bot {self.name!r} {how} {when}{self._stderr_tail()}",
            exit_code=code, bot=self.name, startup=self._startup,
        ))

    def _stderr_tail(self) -> str:
        err = self._stderr
        if err is None or err.closed:
            return ""
        try:
            err.flush()
            size = err.seek(0, os.SEEK_END)
            err.seek(max(0, size - 300))
            tail = err.read().decode("utf-8", "replace").strip().splitlines()
        except OSError:
            return ""
        return f"; its stderr ends: {_clip(tail[-1], 200)}" if tail else ""


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)


# --------------------------------------------------------------------------- in process


class LoopbackPlayer(PlayerBase):
    """A player-protocol speaker in this process (``feed(line) -> lines``), same framing.

    Lets tests, benchmarks and the REPL drive a built-in bot through exactly the lines a
    process would get, without a process.
    """

    def __init__(self, session: Any, *, name: str | None = None,
                 on_line: LineHook | None = None) -> None:
        super().__init__(name=name, on_line=on_line)
        self.session = session
        self._out: list[str] = []

    def _spawn(self) -> None:
        self._out.clear()

    def _write(self, line: str, limit: float | None = None) -> None:
        self._out.extend(self.session.feed(line))

    def _next(self, timeout: float | None, doing: str) -> str:
        while self._out:
            line = self._out.pop(0)
            if self.on_line is not None:
                self.on_line("<", line)
            if line.strip() and line.split()[0] != "info":
                return line
        self._fail(BotTimeout(f"bot {self.name!r} gave no answer while {doing}",
                              bot=self.name, startup=self._startup))

    def _stale(self) -> str | None:
        for line in self._out:
            if line.strip() and line.split()[0] != "info":
                return line
        self._out.clear()
        return None

    def quit(self, grace: float = 1.0) -> int | None:
        self._send("quit")
        return 0

    def _kill(self) -> None:
        self._out.clear()


# --------------------------------------------------------------------------- core agent


class ProcessAgent:
    """A core Agent backed by a player (process or loopback): play_out can drive it.

    It sends ``newgame`` when it sees game-started, an ``event`` line for every event
    (passed through ``visible`` again, so even an omniscient caller cannot leak), and
    ``go`` when asked. BotErrors propagate to the caller.
    """

    def __init__(self, player: PlayerBase, *, time_ms: int | None = None) -> None:
        self.player = player
        self.time_ms = time_ms
        self.seat: int | None = None
        self.rules: TrickGame | None = None

    def observe(self, seat: int, event: Event) -> None:
        event = visible(event, seat)
        if isinstance(event, GameStarted):
            self.seat = seat
            self.rules = game_rules(event.config.game)
            self.player.new_game(seat, [event], self.rules)
        elif self.rules is not None and seat == self.seat:
            self.player.tell(event)

    def choose(self, view: SeatView, legal: Legal) -> Command:
        if self.rules is None or self.seat is None:
            raise RuntimeError(
                "ProcessAgent was never told that a game started: drive it with "
                "self_play, or pass it the opening events through observe()"
            )
        if legal.seat != self.seat:
            raise ValueError(f"asked to act for seat {legal.seat}, but this bot plays {self.seat}")
        return self.player.ask(legal, self.rules, self.time_ms)
