"""The terminal's client of a server's lobby: one session, a command line out and its
answer back (spec/SERVER.md section 9), for ``xactika lobby`` and for ``connect``'s
seat names."""

from __future__ import annotations

import argparse

from xactika.protocol.net.lines import LobbyOk, LobbyTable, Ok, parse_answer
from xactika.protocol.net.remote import LineSocket, client_context, parse_address
from xactika.protocol.notation.untrusted import escape
from xactika.protocol.player.wire import ServerError, read


class LobbyFailure(Exception):
    """The server answered ``error``, or went away; one line for the user."""


class LobbyClient:
    """One lobby session: a command line out, its answer back."""

    def __init__(self, address: str, args: argparse.Namespace) -> None:
        self.host, self.port = parse_address(address)
        tls = client_context(args.cafile) if args.tls or args.cafile else None
        self.sock = LineSocket(self.host, self.port, tls=tls)
        self.sock.send("lobby")
        if not isinstance(parse_answer(self._read()), LobbyOk):
            raise LobbyFailure("the server has no lobby here")

    def _read(self) -> str:
        line = self.sock.readline(30.0)
        if line is None:
            raise LobbyFailure("the server closed the connection")
        match read(line):
            case ServerError(why):
                raise LobbyFailure(escape(why, 300))
        return line

    def ask(self, line: str) -> str:
        self.sock.send(line)
        return self._read()

    def tables(self) -> list[dict[str, str]]:
        self.sock.send("tables")
        rows = []
        while not isinstance(answer := parse_answer(self._read()), Ok):
            if isinstance(answer, LobbyTable):  # the listing's rows, typed (lines.py)
                rows.append({key: str(getattr(answer, key)) for key in answer.__match_args__})
        return rows

    def close(self) -> None:
        try:
            self.sock.send("quit")
        except OSError:
            pass
        self.sock.close()


def fields(line: str) -> dict[str, str]:
    """A lobby answer's ``key=value`` words after its first (``seated table=1 seat=0``)."""
    return dict(w.partition("=")[::2] for w in line.split()[1:])
