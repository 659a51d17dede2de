"""``xactika lobby HOST:PORT [COMMAND]``: find, create and join tables from the terminal.

It speaks the server's lobby lines (spec/SERVER.md section 9) over one connection:
``tables`` (the default) lists, ``create`` makes a table, ``join`` takes a seat and
either plays it at once in the REPL (``--play``, as ``play --connect`` does) or prints
the command that plays it; the token is shown and kept (0600, per seat: server, table
and seat, in the config folder), so ``leave`` and ``rematch`` need no token after a
``join`` (``rematch TABLE --seat S`` picks one of several), though they take one as
``connect`` does; ``watch`` follows a lobby table.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

from xactika.frontends.cli.invocation import xactika_command
from xactika.frontends.i18n import later
from xactika.frontends.net.lobbyclient import LobbyClient, LobbyFailure, fields
from xactika.frontends.net.options import (
    TOKEN_ENV,
    OneLineParser,
    add_token_options,
    token_from,
)
from xactika.frontends.net.rematch import kept_seats, rematch_command, seat_file, write_private
from xactika.frontends.people.flags import counting_number
from xactika.frontends.people.seats import seat_shown
from xactika.protocol.notation.untrusted import escape

PROG = "xactika lobby"
COLUMNS = ("id", "game", "mode", "players", "rounds", "status", "open", "names", "observers")


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog=PROG,
        description="List, create and join tables at an 'xactika serve' lobby.",
        epilog="examples: xactika lobby 127.0.0.1:7000 | ... create players=3 rounds=4 | "
        "... join 2 --name ann --play | ... rematch 2 --seat 1 --play | ... rematch "
        "--token-file seat.token --play",
    )
    p.add_argument("address", metavar="HOST:PORT", help="the server")
    p.add_argument("command", nargs="?", default="tables",
                   choices=("tables", "create", "join", "leave", "rematch", "watch"),
                   help="what to do (default: tables)")
    p.add_argument("values", nargs="*", metavar="ARG",
                   help="create: KEY=VALUE settings; join and watch: the table's number; "
                   "leave, rematch: the table of the seat kept (where several are)")
    p.add_argument("--name", default=None, help="join: the name to sit under")
    p.add_argument("--seat", type=counting_number, default=None, metavar="N",
                   help="join: seat N (counted from 1), not the first open; leave, rematch: "
                   "the seat kept (where several are)")
    p.add_argument("--play", action="store_true",
                   help="join, rematch: play the seat here now, in the REPL")
    p.add_argument("--save-token", default=None, metavar="FILE",
                   help="join, rematch: write the seat's token to FILE too (only you may "
                   "read it); it is always printed and kept for this seat in the config "
                   "folder, where rematch and leave find it")
    add_token_options(p, later("the seat's token, for leave and rematch"))
    p.add_argument("--tls", action="store_true", help="connect with TLS")
    p.add_argument("--cafile", default=None, metavar="PEM",
                   help="trust this certificate (a self-signed server's); implies --tls")
    return p


def _shown(seat: str | int) -> str:
    """A seat of the lobby's answer (counted from 0) as people count it."""
    return str(seat_shown(int(seat))) if str(seat).isdigit() else str(seat)


def show_tables(rows: list[dict[str, str]]) -> None:
    if not rows:
        print("no tables yet: 'xactika lobby HOST:PORT create' makes one")
        return
    cells = [list(COLUMNS)] + [[escape(r.get(c, ""), 60) for c in COLUMNS] for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(COLUMNS))]
    for row in cells:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())


def _seat_taken(args: argparse.Namespace, answer: str, used: Path | None = None) -> int:
    """A seat's token came: keep it (its seat's file, and ``--save-token``), say it, and
    play it now or say how. ``used``: the file of the seat whose rematch this is, done
    with."""
    got = fields(answer)
    token, where = got["token"], f"table {got['table']} seat {_shown(got['seat'])}"
    kept = seat_file(args.address, got["table"], got["seat"])
    try:
        write_private(kept, token)
        if used is not None and used != kept:
            used.unlink(missing_ok=True)
    except OSError as exc:
        print(f"{PROG}: cannot keep the token in {kept}: {exc.strerror or exc}",
              file=sys.stderr)
    tls = " --tls" if args.tls else ""
    if args.save_token is not None:
        path = Path(args.save_token)
        write_private(path, token)
        print(f"{where}: token saved in {path} and {kept}")
    else:
        print(f"{where}: token {token} (give it to no one; kept in {kept})")
    if args.play:
        from xactika.frontends.repl.play import main as play

        print(f"taking the seat; after the game "
              f"'{rematch_command(args.address, got['table'], got['seat'], bool(args.tls))}' "
              "plays the next one", flush=True)
        os.environ[TOKEN_ENV] = token  # not on a command line, where ps would show it
        return play(["--connect", args.address, *(["--tls"] if args.tls else []),
                     *(["--cafile", args.cafile] if args.cafile else []),
                     *(["--name", args.name] if args.name else [])])
    print("play it with:")
    print(f"  {xactika_command()} play --connect {args.address}{tls} --token-file "
          f"{shlex.quote(str(args.save_token or kept))}")
    return 0


def _token(args: argparse.Namespace) -> tuple[str, str, Path | None]:
    """The seat's token, where it sits (``table 1 seat 0: `` or nothing) and its kept
    file: given (``--token``, ``--token-file``, $XACTIKA_TOKEN), else the one kept for
    this server by a ``join`` or ``rematch`` (``rematch TABLE --seat S`` picks one of
    several)."""
    if args.token is not None or args.token_file is not None or os.environ.get(TOKEN_ENV):
        return token_from(args), "", None
    if len(args.values) > 1 or (args.values and not args.values[0].isdigit()):
        raise ValueError(f"{args.command} takes the table's number: {args.command} [TABLE] "
                         "[--seat S]")
    table = int(args.values[0]) if args.values else None
    kept = [(t, s, p) for t, s, p in kept_seats(args.address)
            if table in (None, t) and args.seat in (None, s)]
    if not kept:
        raise ValueError(f"no token: give --token-file FILE, ${TOKEN_ENV} or --token (no seat "
                         f"taken at {args.address} from here is kept"
                         + ("" if table is None else f" for table {table}")
                         + (f" seat {seat_shown(args.seat)}" if args.seat is not None else "")
                         + ")")
    if len(kept) > 1:
        seats = ", ".join(f"table {t} seat {seat_shown(s)}" for t, s, _p in kept)
        raise ValueError(f"seats kept at {args.address}: {seats}; say which: "
                         f"{args.command} TABLE --seat S")
    t, s, path = kept[0]
    token = token_from(argparse.Namespace(token=None, token_file=str(path)))
    return token, f"table {t} seat {seat_shown(s)}: ", path


def run(args: argparse.Namespace) -> int:
    if args.seat is not None:  # typed as people count seats; the lobby counts from 0
        args.seat -= 1
    if args.command == "watch":
        from xactika.frontends.net.connect import watch

        if len(args.values) != 1:
            raise ValueError("watch needs the table's number: watch TABLE")
        return watch(args, "", opening=["lobby", f"watch {args.values[0]}"])
    token, where, used = _token(args) if args.command in ("leave", "rematch") else ("", "", None)
    if args.command == "join" and (len(args.values) != 1 or not args.name):
        raise ValueError("join needs the table's number and a name: join TABLE --name NAME")
    lobby = LobbyClient(args.address, args)
    try:
        if args.command == "tables":
            show_tables(lobby.tables())
            return 0
        if args.command == "create":
            made = fields(lobby.ask(" ".join(["create", *args.values])))
            tls = " --tls" if args.tls else ""
            print(f"created table {made['table']}: take a seat and play it with")
            print(f"  {xactika_command()} lobby {args.address}{tls} join {made['table']} "
                  "--name NAME --play")
            return 0
        if args.command == "join":
            seat = f" seat={args.seat}" if args.seat is not None else ""
            answer = lobby.ask(f"join {args.values[0]} name={args.name}{seat}")
        else:
            try:  # leave or rematch: an error names the seat it was for
                answer = lobby.ask(f"{args.command} {token}")
            except LobbyFailure as exc:
                if used is not None and "unknown token" in str(exc):
                    used.unlink(missing_ok=True)  # a seat the server no longer knows
                raise LobbyFailure(f"{where}{exc}") from None
        if args.command == "leave":
            left = fields(answer)
            print(f"left table {left['table']} seat {_shown(left['seat'])}")
            if used is not None:
                used.unlink(missing_ok=True)
            return 0
    finally:
        lobby.close()
    return _seat_taken(args, answer, used)


def main(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(argv)
    try:
        return run(args)
    except (ValueError, LobbyFailure) as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 2 if isinstance(exc, ValueError) else 1
    except OSError as exc:
        print(f"{PROG}: {escape(str(exc), 300)}", file=sys.stderr)
        return 1
