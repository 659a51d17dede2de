"""The host side of the player protocol (spec/PLAYER.md), whatever carries the lines.

:class:`PlayerBase` starts a session with wire.py's ``Handshake`` (the one every host uses),
sends ``newgame``, events and ``go``, checks each answer and names every fault; its
transports (a process's pipes in process.py, an in-process session in loopback.py, a
remote bot's socket in ``xactika.protocol.net.remote_bots``) only move lines. A faulty bot
is killed before the error is raised, and anything it wrote that reaches a message is
escaped first.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from typing import NoReturn, Self

from xactika.core.engine.api import Command, Event, GameStarted, Legal, TrickGame, game_rules
from xactika.core.engine.errors import ParseError
from xactika.protocol.notation.text import format_event
from xactika.protocol.notation.untrusted import escape
from xactika.protocol.player.faults import BotError, BotIllegalMove, BotProtocolError
from xactika.protocol.player.options import answer_command
from xactika.protocol.player.wire import (
    ANSWERS,
    ISREADY,
    READYOK,
    Answer,
    Handshake,
    WireError,
    clean_name,
    expect,
    format_go,
    format_newgame,
    parse_answer,
    read,
)

log = logging.getLogger(__name__)

# (direction ">" host->bot or "<" bot->host, line): a transcript hook. For a process,
# ``info`` lines are reported from the reader thread as they arrive.
LineHook = Callable[[str, str], None]


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
        self._answered: str | None = None  # the go just answered, until we send anything
        self._last_answer = ""  # the last answer to a go, to know it again if it comes late

    # -- the protocol
    def start(self) -> str:
        """Spawn the bot, do ``hello`` and ``isready``; return the name the bot gives.

        Once started (by ``with`` too), it only returns that name again."""
        if self.started:
            return self.declared
        self._startup = True
        self._spawn()
        shake = Handshake()
        declared = self.name
        while (request := shake.request()) is not None:
            self._request(request)
            answer = self._next(self.startup_timeout, shake.doing)
            try:
                shake.receive(answer)
            except WireError as exc:
                self._fail(BotProtocolError(f"bot {self.name!r} {exc}", reason="garbage",
                                            bot=self.name, startup=True))
            if shake.hello is not None and shake.hello.name is not None:
                declared = clean_name(shake.hello.name)
                if not self._named:
                    self.name = declared
        self._startup = False
        self.started = True
        self.declared = declared
        return declared

    def isready(self, timeout: float | None = None) -> None:
        """Ping: the bot must answer ``readyok`` in time."""
        wait = timeout if timeout is not None else self.startup_timeout
        self._request(ISREADY)
        self._answer((READYOK,), wait, "answering isready")

    def new_game(self, seat: int, events: Sequence[Event], rules: TrickGame) -> None:
        self._rules = rules
        self._send(format_newgame(seat))
        for event in events:
            self.tell(event)
        self._flush()  # the game starts now: a move before its first go is early

    def tell(self, event: Event, text: str | None = None) -> None:
        """Send an event the bot's seat may see (the caller has applied ``visible``);
        ``text`` is its line when the caller formatted it once for every seat."""
        if isinstance(event, GameStarted):
            self._rules = game_rules(event.config.game)
        self._send(format_event(event, self._rules) if text is None else text)

    def tell_lines(self, lines: Sequence[str]) -> None:
        """Send the lines of events the caller formatted once for every seat (a move's,
        never game-started: :meth:`tell` notes that one's rules)."""
        for line in lines:
            self._send(line)

    def ask(self, legal: Legal, rules: TrickGame, time_ms: int | None = None) -> Command:
        """Send ``go`` and return the bot's legal command, or raise a BotError."""
        go = format_go(legal, rules, time_ms)
        timeout = self.move_timeout
        if timeout is None and time_ms is not None:
            timeout = time_ms / 1000 + 1.0
        started = time.monotonic()
        self._request(go)
        doing = f"answering 'go {legal.kind}'"
        line = self._next(timeout, doing)
        command = answer_command(line, legal, rules)  # one of the options, looked up
        if command is None:
            self._checked(line, ANSWERS, doing)
        self.last_think_s = time.monotonic() - started
        self._answered = go
        last, self._last_answer = self._last_answer, line
        if command is not None:
            return command
        try:
            return parse_answer(line, legal, rules)
        except ParseError as exc:
            if line == last:  # its answer to the previous go again: most likely a late copy
                self._fail(BotProtocolError(
                    f"bot {self.name!r} sent '{escape(line, 80)}' again, taken for its answer to "
                    f"{_short(go)}: a late second answer to the previous go (or an illegal "
                    "repeat of it); one go, one answer",
                    reason="extra-answer", bot=self.name,
                ))
            self._fail(BotIllegalMove(
                f"bot {self.name!r} answered '{escape(line, 80)}' to {_short(go)}: {exc}",
                line=line, bot=self.name,
            ))

    def quit(self, grace: float = 1.0) -> int | None:
        raise NotImplementedError

    def send_quit(self, grace: float = 1.0) -> None:
        """Ask the bot to quit without waiting; the next :meth:`quit` waits for it.

        A host ending several bots sends every ``quit`` first and then waits, so their
        exits overlap instead of adding up. A transport with nothing to overlap keeps
        this default, and its :meth:`quit` does all.
        """

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
        """Send a line; anything the bot said unasked before it is a fault."""
        self._unasked()
        if self.on_line is not None:
            self.on_line(">", line)
        self._write(line)
        self._answered = None

    def _request(self, line: str) -> None:
        """Send a line that expects an answer."""
        self._send(line)
        self._begin()

    def _unasked(self) -> None:
        """Fault a line received while no request waited: one go, one answer.

        A ``bid``/``play`` is ``extra-answer`` when it came after the answer to a go and
        before we sent anything else, or repeats that answer (a stale second answer),
        ``early-answer`` at any other time (a move before its go); any other line is
        ``garbage``.
        """
        stale = self._stale()
        if stale is None:
            return
        shown = escape(stale, 80)
        match read(stale):
            case Answer() if self._answered is not None or stale == self._last_answer:
                reason = "extra-answer"
                to = _short(self._answered) if self._answered else "an earlier go"
                what = f"sent a second answer '{shown}' to {to}: one go, one answer"
            case Answer():
                reason = "early-answer"
                what = f"sent '{shown}' before it was asked: no go was waiting"
            case _:
                reason = "garbage"
                what = f"sent '{shown}' when nothing was asked"
        self._fail(BotProtocolError(f"bot {self.name!r} {what}", reason=reason, bot=self.name,
                                    startup=self._startup))

    def _answer(self, words: tuple[str, ...], timeout: float | None, doing: str) -> str:
        return self._checked(self._next(timeout, doing), words, doing)

    def _checked(self, line: str, words: tuple[str, ...], doing: str) -> str:
        """``line``, if its first word is one of ``words``; else a garbage fault."""
        try:
            return expect(line, words, doing)
        except WireError as exc:
            self._fail(BotProtocolError(f"bot {self.name!r} {exc}", reason="garbage",
                                        bot=self.name, startup=self._startup))

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

    def _flush(self) -> None:
        """Send now what a transport that batches lines still holds."""

    def _begin(self) -> None:
        """A request went out: the count of lines it may get starts again."""

    def _kill(self) -> None:
        raise NotImplementedError


def _clip(text: str, n: int = 80) -> str:
    return text if len(text) <= n else text[:n] + "..."


def _short(go: str) -> str:
    return repr(_clip(go, 60))
