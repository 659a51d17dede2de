"""The host side of the player protocol (spec/PLAYER.md): run one bot, python-chess style.

Every wait has a timeout, every fault is a precise :class:`BotError` subclass that the
match runner can count, and a faulty bot is killed (its whole process group) before the
error is raised, so no caller can leak a process by forgetting to clean up. The bot's
stdout is read as bytes with a bounded line length, in the caller's own waits (no thread
per bot); its stderr goes, capped, to a file and never into the protocol. Anything the
bot wrote that reaches a message goes through ``untrusted.escape`` first.

The protocol itself (handshake, ``go``, answers, faults) is :class:`PlayerBase`'s
(base.py), the lines wire.py's; this module is the process: its spawn, pipes, stderr and
kill. The other names a host needs are importable from here too, as they always were.
"""

from __future__ import annotations

import atexit
import collections
import concurrent.futures
import logging
import os
import select
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from typing import IO, Protocol

from xactika.protocol.notation.untrusted import escape
from xactika.protocol.player.base import LineHook as LineHook
from xactika.protocol.player.base import PlayerBase as PlayerBase
from xactika.protocol.player.base import _clip
from xactika.protocol.player.faults import REASONS as REASONS
from xactika.protocol.player.faults import BotCrashed as BotCrashed
from xactika.protocol.player.faults import BotError as BotError
from xactika.protocol.player.faults import BotIllegalMove as BotIllegalMove
from xactika.protocol.player.faults import BotProtocolError as BotProtocolError
from xactika.protocol.player.faults import BotTimeout as BotTimeout
from xactika.protocol.player.loopback import LoopbackPlayer as LoopbackPlayer
from xactika.protocol.player.loopback import ProcessAgent as ProcessAgent
from xactika.protocol.player.wire import MAX_LINE as MAX_LINE
from xactika.protocol.player.wire import MAX_LINES as MAX_LINES
from xactika.protocol.player.wire import PROTOCOL_VERSION as PROTOCOL_VERSION
from xactika.protocol.player.wire import QUIT, is_info
from xactika.protocol.player.wire import format_go as format_go
from xactika.protocol.player.wire import parse_answer as parse_answer

log = logging.getLogger(__name__)


STDERR_KEEP = 64 << 10  # bytes of a bot's stderr kept from its start, and again from its end
READ_CHUNK = 1 << 16


class Launched(Protocol):
    """How one bot process starts (xactika.frontends.match.sandbox.Launch is one)."""

    argv: list[str]
    cwd: str | None
    env: dict[str, str]
    preexec: Callable[[], None]
    sandboxed: bool

    def wipe(self) -> None: ...

    def close(self) -> None: ...


class Launcher(Protocol):
    """Turns a bot's command line into a :class:`Launched` (a sandbox, limits)."""

    def launch(self, argv: Sequence[str], cwd: str | os.PathLike[str] | None = None,
               extra_ro: Sequence[str] = ()) -> Launched: ...


class StderrCap:
    """A bot's stderr, capped: the first ``keep`` bytes as they come, the last ``keep`` at
    the end, and a line saying how much was cut between them; never unbounded."""

    def __init__(self, path: str | os.PathLike[str] | None, keep: int = STDERR_KEEP) -> None:
        self.keep = keep
        self._file: IO[bytes] | None = open(path, "ab", buffering=0) if path else None
        self.head = 0  # bytes written through
        self.tail = bytearray()  # bytes after the head, the last ``keep`` of them
        self.cut = 0  # bytes dropped between head and tail
        self.recent = bytearray()  # the last bytes of all, for crash messages

    def feed(self, data: bytes) -> None:
        self.recent += data
        del self.recent[:-512]
        if self.head < self.keep:
            n = min(self.keep - self.head, len(data))
            self._put(data[:n])
            self.head += n
            data = data[n:]
        if data:
            self.tail += data
            over = len(self.tail) - self.keep
            if over > 0:
                del self.tail[:over]
                self.cut += over

    def _put(self, data: bytes) -> None:
        if self._file is not None and data:
            try:
                self._file.write(data)
            except OSError:
                pass

    def close(self) -> None:
        if self.cut:
            nl = b"" if self.head == 0 else b"\n"
            self._put(nl + f"[... {human_bytes(self.cut)} cut ...]\n".encode())
        self._put(bytes(self.tail))
        self.tail.clear()
        if self._file is not None:
            self._file.close()
            self._file = None

    def last_line(self) -> str:
        lines = bytes(self.recent).decode("utf-8", "replace").strip().split("\n")
        return lines[-1] if lines else ""


def human_bytes(n: int) -> str:
    """``1.6 GB``: a size in words for a person."""
    for unit, size in (("GB", 10**9), ("MB", 10**6), ("kB", 10**3)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} bytes"


_LIVE: set[PlayerProcess] = set()
BATCH_LINES = 64  # lines held for one write at most (a decision owes a bot about ten)
_SPAWN: list[concurrent.futures.ThreadPoolExecutor] = []
_SPAWN_LOCK = threading.Lock()


def _spawner() -> concurrent.futures.ThreadPoolExecutor:
    """The one thread that starts every bot process, alive as long as this process.

    A parent-death signal (bwrap's ``--die-with-parent``) fires when the *thread* that
    forked the child ends: a bot started from a short-lived thread (the runner starts the
    seats of a game in parallel) would be killed the moment that thread finished.
    """
    with _SPAWN_LOCK:
        if not _SPAWN:
            _SPAWN.append(concurrent.futures.ThreadPoolExecutor(
                1, thread_name_prefix="bot-spawner"))
        return _SPAWN[0]


def _forked() -> None:
    """In a forked child (a match worker): the parent's spawner thread and bots are not
    ours; start our own spawner when needed and never kill the parent's bots."""
    global _SPAWN_LOCK
    _SPAWN_LOCK = threading.Lock()
    _SPAWN.clear()
    _LIVE.clear()


os.register_at_fork(after_in_child=_forked)


@atexit.register
def _kill_all() -> None:
    for player in list(_LIVE):
        player._kill()


class PlayerProcess(PlayerBase):
    """One bot process in its own process group (POSIX), optionally in a sandbox.

    No thread serves it: the caller's own waits (``select`` on its stdout and stderr)
    read what it writes, so a bot's leftover descendants can hold nothing of ours once
    :meth:`kill` has closed our ends of the pipes.
    """

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
        sandbox: Launcher | None = None,
        stderr_keep: int = STDERR_KEEP,
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
        self.sandbox = sandbox
        self.stderr_keep = stderr_keep
        self.killed = False  # True when quit had to kill the bot (it ignored quit)
        self.pid: int | None = None
        self.launched: Launched | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._err: StderrCap | None = None
        self._buf = bytearray()  # stdout bytes not yet a whole line
        self._lines: collections.deque[tuple[str, str, str]] = collections.deque()
        self._out_open = False  # still reading stdout (no end, no fault yet)
        self._poller: select.poll | None = None  # stdout and stderr while they are read
        self._out_fd = self._err_fd = -1
        self._in_fd = -1  # our end of the bot's stdin while it runs (-1 once stopped)
        self._count = 0
        self._pending: list[str] = []  # lines owed to the bot, sent with the next request
        self._quit_at: float | None = None  # when quit was sent: its grace counts from there

    @property
    def sandboxed(self) -> bool:
        return self.launched is not None and self.launched.sandboxed

    # -- life cycle
    def _spawn(self) -> None:
        if self._proc is not None:
            raise RuntimeError("this bot was already started")
        launched = self.sandbox.launch(self.argv, self.cwd) if self.sandbox else None
        self._err = StderrCap(self.stderr_path, self.stderr_keep)
        try:
            self._proc = _spawner().submit(
                subprocess.Popen,
                launched.argv if launched else self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=launched.cwd if launched else self.cwd,
                env=launched.env if launched else None,
                preexec_fn=launched.preexec if launched else None,
                start_new_session=True,
            ).result()
        except (OSError, subprocess.SubprocessError) as exc:
            self._err.close()
            if launched is not None:
                launched.close()
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            raise BotCrashed(
                f"cannot start bot {self.name!r} ({escape(self.argv[0], 200)}): {why}",
                exit_code=None, bot=self.name, startup=True,
            ) from None
        self.launched = launched
        self.pid = self._proc.pid
        self._out_open = True
        _LIVE.add(self)
        for stream in (self._proc.stdin, self._proc.stdout, self._proc.stderr):
            assert stream is not None
            os.set_blocking(stream.fileno(), False)
        assert self._proc.stdout is not None and self._proc.stderr is not None
        # one poll object for the bot's life: a wait costs one system call, no lists built
        self._poller = select.poll()
        self._out_fd, self._err_fd = self._proc.stdout.fileno(), self._proc.stderr.fileno()
        assert self._proc.stdin is not None
        self._in_fd = self._proc.stdin.fileno()
        for fd in (self._out_fd, self._err_fd):
            self._poller.register(fd, select.POLLIN)

    # -- batching: a line that needs no answer (newgame, event) waits for the next request
    # or quit and goes out with it in one write: one wake-up of the bot per decision, not
    # one per event
    def _send(self, line: str) -> None:
        if self.on_line is not None:
            self.on_line(">", line)
        self._pending.append(line)
        if len(self._pending) >= BATCH_LINES:  # bounded: a bot that stops reading times out
            self._flush()

    def tell_lines(self, lines: Sequence[str]) -> None:
        if self.on_line is not None:
            for line in lines:
                self.on_line(">", line)
        pending = self._pending
        pending += lines
        if len(pending) >= BATCH_LINES:
            self._flush()

    def _request(self, line: str) -> None:
        if self.on_line is not None:  # _send, _flush and _begin, written out (once a decision)
            self.on_line(">", line)
        self._pending.append(line)
        self._flush()
        self._count = 0

    def _flush(self) -> None:
        if not self._pending:
            return
        # the bot has been sent nothing since its last answer (``_answered`` still names
        # that go), so a bid or play that came unasked meanwhile is a second answer to it:
        # the check, one poll(0) of its output, written out (once a decision)
        poller = self._poller
        if self._lines or (self._out_open and poller is not None and poller.poll(0)):
            self._unasked()
        lines, self._pending = self._pending, []
        self._write("\n".join(lines))
        self._answered = None

    def quit(self, grace: float = 1.0) -> int | None:
        """Send ``quit``, wait ``grace`` seconds, then kill the group; the exit code."""
        proc = self._proc
        if proc is None:
            return None
        if proc.poll() is None:
            self.send_quit(grace)
            assert self._quit_at is not None
            self._wait_exit(proc, self._quit_at + grace)
        self._kill()
        return proc.returncode

    def _wait_exit(self, proc: subprocess.Popen[bytes], deadline: float) -> None:
        """Wait for the process to end by ``deadline`` (else mark it killed), reading its
        output meanwhile. A pidfd wakes the wait the moment it exits: its pipes close
        just before it does, and a poll with nothing left to watch would sleep it out."""
        try:
            pidfd = os.pidfd_open(proc.pid)
        except (AttributeError, OSError):  # not Linux 5.3+: 50 ms steps at worst
            pidfd = -1
        poller = self._poller
        if pidfd >= 0 and poller is not None:
            poller.register(pidfd, select.POLLIN)
        try:
            while proc.poll() is None and not self.killed:
                left = deadline - time.monotonic()
                if left <= 0:
                    self.killed = True
                    break
                if pidfd >= 0 and poller is None:
                    select.select([pidfd], [], [], min(left, 0.05))
                else:
                    self._pump(min(left, 0.05))  # keep its stderr flowing while it ends
        finally:
            if pidfd >= 0:
                if poller is not None:
                    try:
                        poller.unregister(pidfd)
                    except KeyError:
                        pass
                os.close(pidfd)

    def send_quit(self, grace: float = 1.0) -> None:
        proc = self._proc
        if proc is None or self._quit_at is not None:
            return
        self._quit_at = time.monotonic()
        if proc.poll() is not None:
            return
        try:
            if self.on_line is not None:
                self.on_line(">", QUIT)
            lines, self._pending = [*self._pending, QUIT], []
            self._write("\n".join(lines), limit=grace)
        except BotTimeout:  # it does not even read its input: that is ignoring quit
            self.killed = True
        except (BotError, OSError, RuntimeError):
            pass

    def kill(self) -> None:
        """Kill the bot's whole process group now (no quit); safe to call twice."""
        self._kill()

    def wipe(self) -> None:
        """Empty the bot's private writable directory (between games of a kept process)."""
        if self.launched is not None:
            self.launched.wipe()

    def _kill(self) -> None:
        self._in_fd = -1  # first: no write takes the fast way to a pipe being closed
        self._pending.clear()
        proc = self._proc
        if proc is None:
            return
        try:
            # the whole group: the bot and its children; in a sandbox, bwrap, whose death
            # takes its PID namespace (every process in it) down with it
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        proc.wait()
        self._drain_stderr()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass
        self._out_open = False
        self._poller = None
        if self._err is not None:
            self._err.close()
        if self.launched is not None:
            self.launched.close()
        _LIVE.discard(self)

    def _drain_stderr(self) -> None:
        """What the bot wrote to stderr before it died, without waiting on its heirs."""
        proc = self._proc
        if proc is None or proc.stderr is None or proc.stderr.closed or self._err is None:
            return
        for _ in range(64):  # a pipe holds 64 KiB; a writing heir gets no more than 4 MiB
            data = _read_some(proc.stderr)
            if not data:
                return
            self._err.feed(data)

    @property
    def returncode(self) -> int | None:
        return None if self._proc is None else self._proc.poll()

    # -- writing: non-blocking, so a bot that stops reading is a timeout, not a hang
    def _write(self, line: str, limit: float | None = None) -> None:
        raw = (line + "\n").encode("utf-8")
        fd = self._in_fd
        if fd >= 0:  # the usual case: the pipe takes it all at once
            try:
                written = os.write(fd, raw)
            except OSError:  # full, or closed: the long way says which
                written = 0
            if written == len(raw):
                return
            raw = raw[written:]
        proc = self._proc
        if proc is None or proc.stdin is None:
            raise RuntimeError("the bot is not running: call start() first")
        if proc.stdin.closed:
            raise RuntimeError("the bot was stopped")
        fd = proc.stdin.fileno()
        data = memoryview(raw)
        if limit is None:
            limit = self.startup_timeout if self._startup else (self.move_timeout or 10.0)
        deadline = None  # the clock is read only when the pipe is full (seldom)
        while data:
            try:
                data = data[os.write(fd, data):]
            except BlockingIOError:
                if deadline is None:
                    deadline = time.monotonic() + limit
                left = deadline - time.monotonic()
                if left <= 0 or not self._pump(left, fd):
                    self._fail(self._closed_or(BotTimeout(
                        f"bot {self.name!r} stopped reading its input for {limit:g} s",
                        bot=self.name, startup=self._startup,
                    ), "reading its input"))
            except BrokenPipeError:
                self._exited_or(BotProtocolError(
                    f"bot {self.name!r} closed its input but is still running",
                    reason="closed-stdin", bot=self.name, startup=self._startup,
                ), "reading its input")
                return

    # -- reading: poll stdout and stderr in the caller's own waits
    def _pump(self, timeout: float, write_fd: int | None = None) -> bool:
        """Wait up to ``timeout`` for output (or for ``write_fd`` to take input) and read
        what there is; True when ``write_fd`` became writable."""
        if write_fd is not None:  # the pipe to the bot is full (seldom)
            return self._pump_writing(timeout, write_fd)
        poller = self._poller
        if poller is None:
            time.sleep(max(0.0, timeout))
            return False
        try:
            ready = poller.poll(max(0.0, timeout) * 1000.0)
        except (OSError, ValueError):
            return False
        for fd, _ in ready:
            if fd == self._out_fd:
                self._read_stdout()
            elif fd == self._err_fd:
                self._read_stderr()
        return False

    def _unwatch(self, fd: int) -> None:
        """Stop polling ``fd`` (at its end, or when the bot's output is no longer read)."""
        if self._poller is not None:
            try:
                self._poller.unregister(fd)
            except KeyError:
                pass

    def _pump_writing(self, timeout: float, write_fd: int) -> bool:
        proc = self._proc
        assert proc is not None
        readers = []
        if self._out_open and proc.stdout is not None and not proc.stdout.closed:
            readers.append(proc.stdout.fileno())
        err_fd = -1
        if proc.stderr is not None and not proc.stderr.closed:
            err_fd = proc.stderr.fileno()
            readers.append(err_fd)
        writers = [write_fd] if write_fd is not None else []
        if not readers and not writers:
            time.sleep(max(0.0, timeout))
            return False
        try:
            ready_r, ready_w, _ = select.select(readers, writers, [], max(0.0, timeout))
        except (OSError, ValueError):
            return False
        for fd in ready_r:
            if fd == err_fd:
                self._read_stderr()
            else:
                self._read_stdout()
        return bool(ready_w)

    def _read_stderr(self) -> None:
        proc = self._proc
        assert proc is not None and proc.stderr is not None and self._err is not None
        data = _read_some(proc.stderr)
        if data:
            self._err.feed(data)
        elif data is not None:  # end of stderr: stop watching it
            self._unwatch(self._err_fd)
            proc.stderr.close()

    def _read_stdout(self) -> None:
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        data = _read_some(proc.stdout)
        if data is None:
            return
        if not data:  # end of output (a partial last line is dropped)
            self._lines.append(("eof", "", ""))
            self._out_open = False
            self._unwatch(self._out_fd)
            return
        if not self._buf and data.find(b"\n") == len(data) - 1 <= MAX_LINE + 1:
            self._line(data)  # one whole line, the usual answer: no buffer work
            return
        self._buf += data
        while self._out_open:
            end = self._buf.find(b"\n")
            if end < 0:
                if len(self._buf) > MAX_LINE + 1:
                    self._stop_reading("flood", f"sent a line longer than {MAX_LINE} bytes")
                return
            raw = bytes(self._buf[:end + 1])
            del self._buf[:end + 1]
            if len(raw) > MAX_LINE + 2:
                self._stop_reading("flood", f"sent a line longer than {MAX_LINE} bytes")
                return
            self._line(raw)

    def _stop_reading(self, reason: str, message: str) -> None:
        self._lines.append(("fault", reason, message))
        self._out_open = False
        self._unwatch(self._out_fd)
        self._buf.clear()

    def _line(self, raw: bytes) -> None:
        self._count += 1
        if self._count > self.max_lines:
            self._stop_reading("flood", f"sent more than {self.max_lines} lines without being "
                               "asked")
            return
        try:
            text = raw.decode("utf-8").rstrip("\r\n")
        except UnicodeDecodeError as exc:
            self._stop_reading("invalid-utf8",
                               f"sent invalid UTF-8 (byte {exc.start}): {_clip(repr(raw), 60)}")
            return
        if not text.strip():
            return
        if is_info(text):
            log.info("%s: %s", self.name, escape(text, 300))
            if self.on_line is not None:
                self.on_line("<", text)
            return
        self._lines.append(("line", text, ""))

    def _begin(self) -> None:
        self._count = 0

    def _stale(self) -> str | None:
        if self._out_open:
            self._pump(0.0)
        if not self._lines:
            return None
        kind, text, message = self._lines.popleft()
        self._handle(kind, text, message, "waiting for a request")
        return text

    def _next(self, timeout: float | None, doing: str) -> str:
        proc = self._proc
        assert proc is not None
        deadline = None if timeout is None else time.monotonic() + timeout
        waited = False  # wait for output before asking whether it exited: one syscall less
        while True:
            if self._lines:
                kind, text, message = self._lines.popleft()
                self._handle(kind, text, message, doing)
                return text
            if waited and proc.poll() is not None:
                # it has exited: read what it wrote last, if anything, else it crashed
                self._pump(0.0)
                if self._lines:
                    continue
                self._exited_or(None, doing)
            left = 0.25 if deadline is None else min(0.25, deadline - time.monotonic())
            if left <= 0:
                self._fail(self._closed_or(BotTimeout(
                    f"bot {self.name!r} did not answer within {timeout:g} s while {doing}",
                    bot=self.name, startup=self._startup,
                ), doing))
            self._pump(left)
            waited = True

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

    def _closed_or(self, error: BotError, doing: str) -> BotError:
        """In a sandbox, bwrap holds our pipes too, so a bot closing its stdout (or stdin)
        shows no end of file: ask /proc whether any process of the bot still holds them."""
        proc = self._proc
        if proc is None or not self.sandboxed or proc.stdin is None or proc.stdout is None:
            return error
        held = _pipes_held(proc.pid, (proc.stdout.fileno(), proc.stdin.fileno()))
        if held[0] is False:
            return BotProtocolError(
                f"bot {self.name!r} closed its output while {doing} but is still running",
                reason="closed-stdout", bot=self.name, startup=self._startup)
        if held[1] is False:
            return BotProtocolError(
                f"bot {self.name!r} closed its input but is still running",
                reason="closed-stdin", bot=self.name, startup=self._startup)
        return error

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
            # bwrap exits with 128 + the signal that killed the bot (SIGXCPU of --max-cpu...)
            else f"was killed by signal {_signal_name(code - 128)} (the sandbox exited with "
            f"code {code})" if self.sandboxed and 128 < code < 128 + 65
            else f"exited with code {code}"
        )
        self._fail(BotCrashed(
            f"bot {self.name!r} {how} {when}{self._stderr_tail()}",
            exit_code=code, bot=self.name, startup=self._startup,
        ))

    def _stderr_tail(self) -> str:
        if self._err is None:
            return ""
        self._drain_stderr()
        last = self._err.last_line()
        return f"; its stderr ends: {escape(last, 200)}" if last else ""


def _pipes_held(sandbox_pid: int, fds: Sequence[int]) -> list[bool | None]:
    """For each of our pipe ends ``fds``: does a process in the sandbox still hold the other
    end? Its bwrap processes (the launcher and the namespace's init) do not count; None
    when /proc cannot tell."""
    parent: dict[int, int] = {}
    try:
        entries = os.listdir("/proc")
        links = [f"pipe:[{os.fstat(fd).st_ino}]" for fd in fds]
    except OSError:
        return [None] * len(fds)
    for entry in entries:
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    stat = fh.read()
            except OSError:
                continue
            parent[int(entry)] = int(stat[stat.rindex(")") + 2:].split()[1])
    inits = [pid for pid, pp in parent.items() if pp == sandbox_pid]
    frontier, bots = list(inits), []
    while frontier:
        kids = [pid for pid, pp in parent.items() if pp == frontier[-1]]
        frontier.pop()
        bots += kids
        frontier += kids
    held = [False] * len(fds)
    for pid in bots:
        try:
            names = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for name in names:
            try:
                target = os.readlink(f"/proc/{pid}/fd/{name}")
            except OSError:
                continue
            for i, link in enumerate(links):
                held[i] = held[i] or target == link
    return list(held)


def _read_some(stream: IO[bytes]) -> bytes | None:
    """What a non-blocking pipe holds now: b"" at its end, None when there is nothing yet."""
    try:
        return os.read(stream.fileno(), READ_CHUNK)
    except (BlockingIOError, InterruptedError):
        return None
    except OSError:
        return b""


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)
