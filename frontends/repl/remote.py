"""``xactika play --connect HOST:PORT --token-file F``: a person in a remote seat, same REPL.

The table server is the referee; here the person's seat speaks the player protocol
(spec/PLAYER.md) like a bot would, and :class:`RemoteSession` is a
:class:`~xactika.frontends.repl.session.Session` whose state is folded from the seat's
own event lines (:class:`~xactika.protocol.player.session.SeatTracker`) and whose moves go to the
server. What is legal comes from the server's ``go`` line. Nothing hidden ever reaches
this process: the server sends only what this seat may see.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any, TextIO

from xactika.core.bots.agents import Agent, make_agent
from xactika.core.engine.errors import IllegalCommand, XactikaError
from xactika.core.engine.table import Command, Event, GameStarted, Legal
from xactika.frontends.repl import render
from xactika.frontends.repl.session import HUMAN, SeatSpec, Session
from xactika.protocol.net.remote import RemoteError, RemoteSeat, client_context, parse_address
from xactika.protocol.notation.text import parse_event
from xactika.protocol.notation.untrusted import escape
from xactika.protocol.player import wire
from xactika.protocol.player.session import SeatTracker

REMOTE = "remote"
NOBODY = Legal(None, "none")


class _Elsewhere:
    """Stands for a seat played at another machine; the server asks it, never we."""

    def choose(self, view: Any, legal: Legal) -> Command:
        raise IllegalCommand("this seat is played elsewhere")


class RemoteSession(Session):
    """A Session for one seat of a server's table: events in from the server, moves out."""

    def __init__(self, remote: RemoteSeat, seat: int, started: GameStarted, *,
                 make_hint: Callable[[int], Agent | None] | None = None,
                 **kwargs: Any) -> None:
        players = started.config.players
        seats = [SeatSpec(HUMAN) if s == seat else SeatSpec(REMOTE, REMOTE)
                 for s in range(players)]
        self.remote = remote
        self.seat = seat
        self.tracker = SeatTracker(seat)
        self.tracker.apply(started)
        self.gone: str | None = None  # why the connection ended early, if it did
        self._go: Legal | None = None
        super().__init__([started], seats, lambda s: _Elsewhere(), make_hint=make_hint,
                         practice=False, show_seed=False, **kwargs)
        self.state = self.tracker.state

    # -- what the server says
    @property
    def legal(self) -> Legal:
        return self._go if self._go is not None else NOBODY

    @property
    def over(self) -> bool:
        return self.gone is not None or self.tracker.state.over

    def advance(self) -> list[str]:
        """Read the server until it asks this seat to move or the game ends; narrate."""
        lines: list[str] = []
        while self._go is None and not self.over:
            try:
                line = self.remote.readline()
            except RemoteError as exc:
                self.gone = str(exc)
                lines.append(f"the connection to the server is lost: {exc}")
                break
            words = line.split()
            if not words:
                continue
            reply = wire.standard_reply(words, "human")
            if reply is not None:
                self.remote.send(reply)
            elif words[0] == "event":
                lines += self._took(parse_event(line, self.tracker.rules))
            elif words[0] == "go":
                assert self.tracker.rules is not None
                self._go = wire.legal_from_go(wire.parse_go(words), self.seat,
                                              self.tracker.rules)
            elif words[0] == wire.QUIT:
                self.gone = "the server ended the session"
        return lines

    def _took(self, event: Event) -> list[str]:
        """Fold one event of this seat's view, tell the hint bot, and narrate it as the
        local REPL does (the same narration: why each trick was won, the round's end)."""
        self.tracker.apply(event)
        self.state = self.tracker.state
        self.events.append(event)
        for seat, agent in self.hints.items():
            if agent is not None:
                self._tell(seat, agent, [event])
        return self.lay_out(self.narrate(len(self.events) - 1))

    # -- this seat's moves
    def _apply(self, command: Command) -> list[str]:
        if command not in self.legal:
            raise IllegalCommand("not one of the moves the server offers")
        self.remote.send(wire.answer_line(command, self.rules))
        self._go = None
        return []

    def save(self, path: str) -> str:
        return ("the server keeps this game's record (this seat sees only its own cards, "
                "which is not a game that --load could continue)")

    def close(self) -> None:
        self.remote.close()


def join(remote: RemoteSeat, out: TextIO) -> tuple[int, GameStarted]:
    """Answer the handshake and wait for the game to start: (seat, game-started)."""
    out.write(f"{remote.seated}; waiting for the other seats\n")
    out.flush()
    seat: int | None = None
    while True:
        words = remote.readline().split()
        reply = wire.standard_reply(words, "human")
        if reply is not None:
            remote.send(reply)
        elif words[:1] == ["newgame"]:
            seat = wire.parse_newgame(words)
        elif words[:1] == ["event"] and seat is not None:
            event = parse_event(" ".join(words), None)
            if isinstance(event, GameStarted):
                return seat, event


def play_remote(args: argparse.Namespace, inp: TextIO, out: TextIO,
                style: render.Style) -> int:
    """The REPL in a remote seat: connect, wait for the game, then the usual loop."""
    from xactika.frontends.net.options import token_from
    from xactika.frontends.repl.play import Shell, default_bot, history_path, pipe_reader
    from xactika.frontends.repl.play import prompt_reader as make_reader

    try:
        token = token_from(args)
        host, port = parse_address(args.connect)
    except ValueError as exc:
        print(f"xactika play: --connect: {exc}", file=sys.stderr)
        return 2
    try:
        tls = client_context(args.cafile) if args.tls or args.cafile else None
        remote = RemoteSeat(host, port, token, tls=tls)
        remote.connect()
        seat, started = join(remote, out)
    except (RemoteError, OSError, ValueError, XactikaError) as exc:
        print(f"xactika play: {escape(str(exc), 300)}", file=sys.stderr)
        return 1
    hint = args.hint_bot or default_bot()
    game = started.config.game
    session = RemoteSession(
        remote, seat, started, style=style,
        make_hint=lambda s: make_agent(hint, 500 + s, game=game),
    )
    try:
        interactive = inp.isatty() and out.isatty()
        read = (make_reader(session, history_path(args.history)) if interactive
                else pipe_reader(inp, out))
        return Shell(session, read, out, interactive=interactive).run()
    finally:
        session.close()
