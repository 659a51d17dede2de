"""``xactika play --connect HOST:PORT --token-file F``: a person in a remote seat, same REPL.

The table server is the referee; here the person's seat speaks the player protocol
(spec/PLAYER.md) like a bot would, and :class:`RemoteShell` is a
:class:`~xactika.frontends.repl.shell.Shell` whose state is folded from the seat's
own event lines (:class:`~xactika.protocol.player.agentside.SeatTracker`) and whose moves go to the
server. What is legal comes from the server's ``go`` line. Nothing hidden ever reaches
this process: the server sends only what this seat may see.

The seat says it is a person (``hello 1 name=Ann kind=human``), so the server times it
with the table's bank and sends every event as it happens. On a terminal a thread reads
the server and prints each event at once while the prompt stays usable
(:meth:`RemoteShell.start_live`); the prompt's toolbar counts the bank down, with a
warning at 20 and at 5 seconds. A pipe reads the server only when it waits for its turn,
so a transcript is the same every time.
"""

from __future__ import annotations

import argparse
import contextvars
import getpass
import os
import shlex
import sys
import threading
import time
from collections.abc import Callable
from typing import Any, TextIO
from urllib.parse import unquote

import attrs

from xactika.core.bots.agents import Agent, make_agent
from xactika.core.engine.api import Command, Event, GameOver, GameStarted, Legal
from xactika.core.engine.errors import IllegalCommand, XactikaError
from xactika.frontends.i18n import _, ngettext
from xactika.frontends.people import narration
from xactika.frontends.people.driver import Saved
from xactika.frontends.repl import render
from xactika.frontends.repl.shell import HUMAN, Reply, SeatSpec, Shell
from xactika.protocol.net.remote import RemoteError, RemoteSeat, client_context, parse_address
from xactika.protocol.notation.text import parse_event
from xactika.protocol.notation.untrusted import escape
from xactika.protocol.player import wire

REMOTE = "remote"
NOBODY = Legal(None, "none")
WARNINGS = (20, 5)  # seconds left on the clock at which the person is warned
REPLACED = "replaced:"  # the server's error when a bot took the seat (spec/SERVER.md)


class _Elsewhere:
    """Stands for a seat played at another machine; the server asks it, never we."""

    def choose(self, view: Any, legal: Legal) -> Command:
        raise IllegalCommand(_("this seat is played elsewhere"))


def hello_reply(message: wire.Msg, name: str) -> str | None:
    """A person's answers to ``hello`` (with ``kind=human``, whatever version it says)
    and ``isready``."""
    match message:
        case wire.Hello() | wire.Malformed(wanted=wire.Hello):
            return wire.format_hello(wire.Hello(name=name, kind=HUMAN))
    return wire.standard_reply(message, name)


def newgame_names(newgame: wire.NewGame, players: int) -> list[str] | None:
    """The seats' names of a person's ``newgame ... names=`` (percent-quoted), if any."""
    field = newgame.fields.get("names")
    if not field:
        return None
    names = [escape(unquote(n), 40) for n in field.split(",")]
    return names if len(names) == players else None


class RemoteShell(Shell):
    """A Shell for one seat of a server's table: events in from the server, moves out."""

    def __init__(self, remote: RemoteSeat, seat: int, started: GameStarted, *,
                 make_hint: Callable[[int], Agent | None] | None = None,
                 names: list[str] | None = None, player: str = "human",
                 **kwargs: Any) -> None:
        from xactika.protocol.player.agentside import SeatTracker

        players = started.config.players
        seats = [SeatSpec(HUMAN) if s == seat else SeatSpec(REMOTE, REMOTE)
                 for s in range(players)]
        self.remote = remote
        self.seat = seat
        self.player = player  # the name this seat gives the server
        self.tracker = SeatTracker(seat)
        self.tracker.apply(started)
        self.gone: str | None = None  # why the connection ended early, if it did
        self.replaced = False  # a bot plays this seat until 'back'
        self.hints_off = False  # the table's hint=off: 'hint' says so
        self.deadline: float | None = None  # when this seat's bank runs out (monotonic)
        self.bank_ms: int | None = None  # the bank the last go carried
        self.lock = threading.RLock()  # the reader thread and the prompt share the game
        self.emit: Callable[[str], None] | None = None  # live: print above the prompt
        self._timers: list[threading.Timer] = []
        self._go: Legal | None = None
        # the end: the server's result (a forfeited seat never wins), after game-over
        self.outcome: wire.Outcome | None = None
        self._standings: narration.Standings | None = None  # game-over's, until the result
        self._ended = False  # the result (or quit) came after game-over
        # this seat's name as the table has it (--name, or the lobby's join name)
        self.seat_name = names[seat] if names is not None else player
        shown = list(names) if names is not None else [REMOTE] * players
        shown[seat] = "you"
        super().__init__([started], seats, lambda s: _Elsewhere(), make_hint=make_hint,
                         practice=False, show_seed=False, names=shown, **kwargs)
        self.state = self.tracker.state

    # -- what the server says
    @property
    def legal(self) -> Legal:
        return self._go if self._go is not None else NOBODY

    @property
    def over(self) -> bool:
        """The session is done: the server's result came after game-over (or it left)."""
        return self.gone is not None or (self.tracker.state.over and self._ended)

    def advance(self) -> list[str]:
        """Read the server until it asks this seat to move or the game ends; narrate.

        Live (a thread reads the server), nothing to do here."""
        if self.emit is not None or self.replaced:
            return []
        lines: list[str] = []
        while self._go is None and not self.over and not self.replaced:
            try:
                line = self.remote.readline()
            except RemoteError as exc:
                lines.append(self._lost(exc))
                break
            lines += self.take(line)
        return lines

    def take(self, line: str) -> list[str]:
        """One line from the server: answered, folded and narrated (what to print)."""
        message = wire.read(line)
        reply = hello_reply(message, self.player)
        if reply is not None:
            self.remote.send(reply)
            return []
        ending = self.tracker.state.over and not self._ended
        match message:
            case wire.EventLine() | wire.Malformed(wanted=wire.EventLine):
                return self._took(parse_event(line, self.tracker.rules))  # ParseError if bad
            case wire.Go() as go:
                assert self.tracker.rules is not None
                self._go = wire.legal_from_go(go, self.seat, self.tracker.rules)
                self.bank_ms = go.time_ms
                self.deadline = (time.monotonic() + go.time_ms / 1000
                                 if go.time_ms is not None else None)
            case wire.Malformed(wanted=wire.Go, why=why):
                raise wire.WireError(why)
            case wire.Info(said):
                return [self.style.dim(_("server: {said}").format(said=escape(said, 300)))]
            case wire.Outcome() as outcome if ending:
                self.outcome = outcome
                return self._the_end()
            case wire.Quit():
                self.gone = _("the server ended the session")
                return self._the_end()
        return []  # a result that does not read: game-over's standings stand, told at quit

    def _the_end(self) -> list[str]:
        """The final standings as the table's record counts them (a forfeited seat never
        wins), told once: at the ``result`` line, or at ``quit`` from a server without."""
        if self._ended or self._standings is None:
            return []
        self._ended = True
        standings = self.final_standings()
        lines = self.lay_out([standings])
        if self.outcome is not None:
            lines += [self.style.bold(note) for note in narration.outcome_notes(
                self.outcome.winners, self.outcome.forfeited, self.names, self.seat)]
        return lines

    def final_standings(self) -> narration.Standings:
        """game-over's standings, with the winners of the server's result once known."""
        standings = super().final_standings()
        if self.outcome is not None and len(self.outcome.totals) == len(standings.totals):
            standings = attrs.evolve(standings, winners=self.outcome.winners)
        return standings

    def _lost(self, exc: RemoteError) -> str:
        """The connection ended: a bot took the seat (it can be taken back), or it is gone."""
        self._go, self.deadline = None, None
        if REPLACED in str(exc):
            self.replaced = True
            return _("a bot plays your seat now (your time ran out, or you were away too "
                     "long): type 'back' to take it back; you play again from your next turn")
        self.gone = str(exc)
        if "says: timeout:" in str(exc):
            return _("your clock ran out and this table forfeits your seat ({error})").format(
                error=exc)
        return _("the connection to the server is lost: {error}").format(error=exc)

    def _took(self, event: Event) -> list[str]:
        """Fold one event of this seat's view, tell the hint bot, and narrate it as the
        local REPL does (the same narration: why each trick was won, the round's end)."""
        self.tracker.apply(event)
        self.state = self.tracker.state
        self.events.append(event)
        for seat, agent in self.hints.items():
            if agent is not None:
                self._tell(seat, agent, [event])
        items = self.narrate(len(self.events) - 1)
        if isinstance(event, GameOver):  # the standings wait for the server's result
            self._standings = next((i for i in items if isinstance(i, narration.Standings)),
                                   self.final_standings())
            items = [i for i in items if not isinstance(i, narration.Standings)]
        return self.lay_out(items)

    # -- live: a thread reads the server
    def start_live(self, emit: Callable[[str], None]) -> None:
        """Read the server in a thread from now on; ``emit`` prints above the prompt."""
        self.emit = emit
        self._read_in_thread()

    def _read_in_thread(self) -> None:
        # in this context's copy: the thread speaks the person's language (i18n.using)
        threading.Thread(target=contextvars.copy_context().run, args=(self._pump,),
                         name="server-reader", daemon=True).start()

    def _pump(self) -> None:
        emit = self.emit
        assert emit is not None
        while not self.over:
            try:
                line = self.remote.readline()
            except RemoteError as exc:
                self._cancel_warnings()
                if self.remote.abandoned:
                    return  # the person left: nothing to tell on the way out
                with self.lock:
                    text = self._lost(exc)
                emit(text)
                return
            with self.lock:
                asked = self._go is not None
                out = self.take(line)
                if self._go is not None and not asked:
                    out.append(self.table(self.seat))
                    self._warn_at(self.deadline)
                if self.over:
                    out.append(self.end_words())
            if out:
                emit("\n".join(out))

    def _warn_at(self, deadline: float | None) -> None:
        self._cancel_warnings()
        if deadline is None or self.emit is None:
            return
        for left in WARNINGS:
            wait = deadline - left - time.monotonic()
            if wait > 0:
                timer = threading.Timer(wait, contextvars.copy_context().run,
                                        (self._warn, left))
                timer.daemon = True
                timer.start()
                self._timers.append(timer)

    def _warn(self, left: int) -> None:
        if self._go is not None and self.emit is not None:
            self.emit(self.style.bold("\a" + ngettext(
                "{n} second left on your clock", "{n} seconds left on your clock", left
            ).format(n=left)))

    def _cancel_warnings(self) -> None:
        timers, self._timers = self._timers, []
        for timer in timers:
            timer.cancel()

    def clock_text(self) -> str:
        """The toolbar: this seat's bank, counting down on its turn."""
        if self.replaced:
            return _("a bot plays your seat: type 'back' to take it back")
        if self.gone is not None and not self.tracker.state.over:
            return _("no longer at the table: 'scores' and 'last' still work")
        if self.over:
            return _("the game is over")
        if self._go is None:
            return _("waiting for the others")
        if self.deadline is None:
            return _("your turn (no clock)")
        left = max(0.0, self.deadline - time.monotonic())
        return _("your turn: {time} left on your clock").format(time=_mmss(int(left * 1000)))

    # -- this seat's moves
    def _handle(self, line: str) -> Reply:
        word = line.split()[0].lower() if line.split() else ""
        if word == "back":
            return Reply(self.back())
        with self.lock:
            if (self.human_to_act is None and not self.over and word
                    and word not in ("help", "?", "scores", "score", "last", "rules",
                                     "quit", "exit", "q", "save")):
                return Reply(_("not your turn yet: the server asks you when it is (type "
                               "'back' first)") if self.replaced else
                             _("not your turn yet: the server asks you when it is"))
            return super()._handle(line)

    def hint_text(self, seat: int) -> str:
        if self.hints_off:
            return _("no hints at this table: its setting hint=off")
        return super().hint_text(seat)

    def back(self) -> str:
        """Take the seat back from the bot that stands in (connect again with the token)."""
        if not self.replaced:
            return _("your seat is yours: nothing to take back")
        try:
            self.remote.connect()
        except (RemoteError, OSError) as exc:
            return _("cannot take the seat back: {error}").format(error=escape(str(exc), 300))
        self.replaced = False
        if self.emit is not None:
            self._read_in_thread()
        return _("you are back: you play again from your next turn")

    def _apply(self, command: Command) -> list[str]:
        if command not in self.legal:
            raise IllegalCommand(_("not one of the moves the server offers"))
        self.remote.send(wire.answer_line(command, self.rules))
        self._go, self.deadline = None, None
        self._cancel_warnings()
        return []

    def save(self, path: str) -> str:
        """This seat's own view of the game so far, as a record (the others' cards as
        ``?``, no seed): ``replay`` steps through it; the server keeps the whole game."""
        if not path:
            return _("save needs a file name: save FILE")
        from xactika.frontends.cli.invocation import xactika_command
        from xactika.protocol.records.assemble import RecordFacts, record_headers
        from xactika.protocol.records.textform import format_record
        from xactika.protocol.records.writing import write_record_file

        names = [self.seat_name if s == self.seat else n for s, n in enumerate(self.names)]
        facts = RecordFacts(self.config, names, seed=False, event="xactika serve",
                            extra={"view": str(self.seat)})
        with self.lock:
            text = format_record(record_headers(facts, self.events), list(self.events))
            count = len(self.events)
        try:
            write_record_file(os.path.expanduser(path), text)
        except OSError as exc:
            return _("cannot save to {path}: {error}").format(path=repr(path),
                                                              error=exc.strerror or exc)
        self.saved = Saved(path, count)
        return (_("saved {n} events of your view to {path} (the others' cards as the game "
                  "showed them; the server keeps the whole game); step through it:").format(
                    n=count, path=path) + "\n"
                + render.command(f"{xactika_command()} replay {shlex.quote(path)}"))

    def close(self) -> None:
        """Leave: mid-game the server is told first (``leave``), so a bot plays the seat
        at once and the others do not wait out this seat's grace."""
        self._cancel_warnings()
        if not self.tracker.state.over and self.gone is None and not self.replaced:
            self.remote.send(wire.LEAVE)
        self.remote.abandon()  # for good: the reader thread must not connect again


def _mmss(ms: int) -> str:
    seconds = max(0, ms) // 1000
    return f"{seconds // 60}:{seconds % 60:02d}"


def join(remote: RemoteSeat, out: TextIO, name: str = "human"
         ) -> tuple[int, GameStarted, list[str] | None, bool]:
    """Answer the handshake and wait for the game to start: (seat, game-started, the
    seats' names when the server gives them, whether the table allows hints)."""
    out.write(f"{remote.seated}; waiting for the other seats\n")
    out.flush()
    seat: int | None = None
    names: list[str] | None = None
    newgame = wire.NewGame(0)
    while True:
        line = remote.readline()
        message = wire.read(line)
        reply = hello_reply(message, name)
        if reply is not None:
            remote.send(reply)
            continue
        match message:
            case wire.NewGame() as newgame:
                seat = newgame.seat
            case wire.Malformed(wanted=wire.NewGame, why=why):
                raise wire.WireError(why)
            case wire.EventLine() | wire.Malformed(wanted=wire.EventLine) if seat is not None:
                event = parse_event(line, None)
                if isinstance(event, GameStarted):
                    names = newgame_names(newgame, event.config.players)
                    return seat, event, names, newgame.fields.get("hint") != "off"


def default_name() -> str:
    """The login name: what a person is called at a table unless ``--name`` says."""
    try:
        return wire.bot_name(getpass.getuser()) or "human"
    except (OSError, KeyError, ImportError):
        return "human"


def watch_instead(args: argparse.Namespace, token: str) -> int:
    """A token that is no seat's may be the table's observer token (issue 34: a person
    given it typed ``play --connect``): follow the table as ``connect --watch`` does."""
    from xactika.frontends.net.connect import watch

    print("xactika play: not a seat's token; watching the table with it "
          "(the observer token)", file=sys.stderr, flush=True)
    return watch(argparse.Namespace(address=args.connect, cafile=args.cafile,
                                    tls=args.tls), token)


def play_remote(args: argparse.Namespace, inp: TextIO, out: TextIO,
                style: render.Style) -> int:
    """The REPL in a remote seat: connect, wait for the game, then the usual loop."""
    from xactika.frontends.net.options import token_from
    from xactika.frontends.repl.play import Loop, default_bot, history_path, pipe_reader
    from xactika.frontends.repl.play import prompt_reader as make_reader

    try:
        token = token_from(args)
        host, port = parse_address(args.connect)
    except ValueError as exc:
        print(f"xactika play: --connect: {exc}", file=sys.stderr)
        return 2
    name = wire.bot_name(args.name) if args.name else default_name()
    try:
        tls = client_context(args.cafile) if args.tls or args.cafile else None
        remote = RemoteSeat(host, port, token, tls=tls)
        remote.connect()
        seat, started, names, hints = join(remote, out, name)
    except (RemoteError, OSError, ValueError, XactikaError) as exc:
        if isinstance(exc, RemoteError) and "unknown token" in str(exc):
            return watch_instead(args, token)
        print(f"xactika play: {escape(str(exc), 300)}", file=sys.stderr)
        return 1
    hint = args.hint_bot or default_bot()
    game = started.config.game
    session = RemoteShell(
        remote, seat, started, style=style, names=names, player=name,
        make_hint=(lambda s: make_agent(hint, 500 + s, game=game)) if hints else None,
    )
    session.hints_off = not hints
    try:
        interactive = inp.isatty() and out.isatty()
        if not interactive:
            return Loop(session, pipe_reader(inp, out), out, interactive=False).run()
        from prompt_toolkit.patch_stdout import patch_stdout

        read = make_reader(session, history_path(args.history), live=True)
        with patch_stdout(raw=True):
            def emit(text: str) -> None:
                print(render.fit(text, session.width), flush=True)

            return Loop(session, read, sys.stdout, interactive=True,
                         live=lambda: session.start_live(emit)).run()
    finally:
        session.close()
