"""``xactika connect HOST:PORT --token-file F -- PROGRAM ARGS``: a local bot in a remote seat.

The bot runs here as a child process and never learns it is remote: this relay passes
the server's player-protocol lines to the bot's stdin and the bot's lines back
(spec/SERVER.md). A dropped connection is made again with the same token, resuming
after the last event the bot was given, so the bot sees one unbroken session.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Sequence
from typing import IO
from urllib.parse import unquote

from xactika.core.engine.api import Config, GameOver, GameStarted, TrickGame, game_rules
from xactika.frontends.i18n import later
from xactika.frontends.net.options import (
    TOKEN_ENV,
    OneLineParser,
    add_token_options,
    seconds,
    token_from,
)
from xactika.protocol.net.remote import RemoteError, RemoteSeat, client_context, parse_address
from xactika.protocol.notation.untrusted import escape
from xactika.protocol.player import wire
from xactika.protocol.player.wire import MAX_LINE, Outcome, bot_name


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog="xactika connect",
        description="Play a remote seat at an 'xactika serve' table with a local bot "
        "program (any bot that speaks spec/PLAYER.md).",
        epilog=later("example: xactika connect 127.0.0.1:7000 --token-file seat.token -- "
                     "python3 examples/random_bot.py (everything after -- is the bot's command "
                     "line); the token comes from --token-file, else ${variable}, else --token",
                     variable=TOKEN_ENV),
    )
    p.add_argument("address", metavar="HOST:PORT", help="the server")
    add_token_options(p, "the seat's token, as the server printed it")
    p.add_argument("--tls", action="store_true", help="connect with TLS")
    p.add_argument("--cafile", default=None, metavar="PEM",
                   help="trust this certificate (a self-signed server's); implies --tls")
    p.add_argument("--watch", action="store_true",
                   help="--token is an observer token: show the table's public events as "
                   "the REPL tells them, as they happen (no bot)")
    p.add_argument("--name", default=None,
                   help="the seat's name at the table, instead of the one the bot gives "
                   "in its hello")
    p.add_argument("--reconnect", type=seconds, default=30.0, metavar="S",
                   help="seconds to keep trying after a dropped connection (default 30)")
    return p


def _pump_bot(out: IO[bytes], seat: RemoteSeat, name: str | None = None) -> None:
    """The bot's stdout to the server, line by line; when the bot stops talking (it
    exited, or sent an over-long line) the seat is given up so the server knows now.
    With ``name`` (``--name``), the bot's hello says that name instead of its own."""
    while True:
        raw = out.readline(MAX_LINE + 2)
        if not raw.endswith(b"\n"):
            if not seat.finished:
                seat.abandon()
            return
        line = raw.decode("utf-8", "replace").rstrip("\r\n")
        if name is not None:
            match wire.read(line):
                case wire.Hello() | wire.Malformed(wanted=wire.Hello):
                    line = renamed(line, name)
        seat.send(line)


def renamed(hello: str, name: str) -> str:
    """A bot's ``hello`` line with ``name=`` set to ``name`` (other fields kept)."""
    words = [w for w in hello.split() if not w.startswith("name=")]
    return " ".join([*words[:2], f"name={bot_name(name)}", *words[2:]])


def relay(seat: RemoteSeat, argv: Sequence[str], name: str | None = None) -> int:
    """Run the bot and relay until the server says quit or either side goes away."""
    try:
        proc = subprocess.Popen(list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                start_new_session=True)
    except OSError as exc:
        print(f"xactika connect: cannot start {argv[0]!r}: {exc.strerror or exc}",
              file=sys.stderr)
        return 2
    assert proc.stdin is not None and proc.stdout is not None
    reader = threading.Thread(target=_pump_bot, args=(proc.stdout, seat, name), daemon=True)
    reader.start()
    code = 0
    outcome: wire.Outcome | None = None
    try:
        while True:
            line = seat.readline()
            try:
                proc.stdin.write(line.encode("utf-8") + b"\n")
                proc.stdin.flush()
            except OSError:
                print("xactika connect: the bot exited", file=sys.stderr)
                code = 1
                break
            message = wire.read(line)
            if isinstance(message, wire.Outcome):
                outcome = message
            if isinstance(message, wire.Quit):
                print(f"xactika connect: {result_line(seat.seated, outcome)}",
                      file=sys.stderr)
                break
    except RemoteError as exc:
        print(f"xactika connect: {exc}", file=sys.stderr)
        code = 1
    finally:
        if seat.reconnects:
            times = "once" if seat.reconnects == 1 else f"{seat.reconnects} times"
            print(f"xactika connect: reconnected {times}, resuming after the "
                  "last event the bot had", file=sys.stderr)
        seat.close()
        with contextlib.suppress(OSError):
            proc.stdin.close()  # end of input: the bot's cue to exit, as after quit
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(1.0)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)  # and whatever it started
        proc.wait()
    return code


def result_line(seated: str, outcome: wire.Outcome | None) -> str:
    """How the game ended for this seat, in one line: whether it won, the totals."""
    fields = dict(w.partition("=")[::2] for w in seated.split()[1:])
    mine = int(fields["seat"]) if fields.get("seat", "").isdigit() else None
    if outcome is None:
        return "the game is over (the server sent no result)"
    totals = ", ".join(f"seat {s} {t}" for s, t in enumerate(outcome.totals))
    if mine in outcome.forfeited:
        said = f"seat {mine} forfeited and cannot win"
    elif mine in outcome.winners:
        said = f"seat {mine} wins" + (" (shared)" if len(outcome.winners) > 1 else "")
    else:
        winners = ", ".join(f"seat {s}" for s in outcome.winners) or "nobody"
        said = f"seat {mine} does not win ({winners} won)"
    return f"the game is over: {said}; totals: {totals}"


def watch(args: argparse.Namespace, token: str, opening: Sequence[str] = ()) -> int:
    """Follow a table as an observer, told in the REPL's words (public events only);
    ``opening`` replaces ``observe TOKEN`` (the lobby's ``lobby``, ``watch N``)."""
    from xactika.frontends.people.narration import outcome_notes
    from xactika.frontends.repl import render
    from xactika.protocol.net.remote import LineSocket
    from xactika.protocol.notation.text import parse_event

    try:
        host, port = parse_address(args.address)
        tls = client_context(args.cafile) if args.tls or args.cafile else None
        sock = LineSocket(host, port, tls=tls)
        for first in opening or [f"observe {token}"]:
            sock.send(first)
    except (ValueError, OSError) as exc:
        print(f"xactika connect: {escape(str(exc), 300)}", file=sys.stderr)
        return 2 if isinstance(exc, ValueError) else 1
    style = render.Style(color=sys.stdout.isatty() and not os.environ.get("NO_COLOR"))
    game, names, mode = "xactika", list[str](), ""
    rules: TrickGame | None = None
    config: Config | None = None
    table, told_names = "", None  # the watching line's names (a server before: the lobby's)
    over: GameOver | None = None  # its standings wait for the server's result line

    def standings(outcome: Outcome | None) -> None:
        assert over is not None
        low = config is not None and rules is not None and rules.low_wins(config)
        winners = over.winners if outcome is None else outcome.winners
        print(render.standings(over.totals, winners, names, style, low_wins=low))
        if outcome is not None:
            for note in outcome_notes(outcome.winners, outcome.forfeited, names):
                print(style.bold(note))
        sys.stdout.flush()

    try:
        while (line := sock.readline()) is not None:
            match wire.read(line):
                case wire.ServerError(why):
                    print(f"xactika connect: {escape(why, 300)}", file=sys.stderr)
                    return 1
                case wire.Outcome() as outcome if over is not None:
                    standings(outcome)
                    over = None
                    continue
                case wire.Malformed(wanted=wire.Outcome) if over is not None:
                    continue
                case wire.EventLine() | wire.Malformed(wanted=wire.EventLine):
                    pass  # told below (a malformed one fails there, as it always did)
                case other:
                    if isinstance(other, wire.Watching):
                        table, told_names = other.table, other.names
                        print(f"watching table={escape(table, 20)}")
                        continue
                    if line != "lobby ok":
                        print(escape(line, 200))
                    continue
            event = parse_event(line, rules)
            if isinstance(event, GameStarted):  # who plays what
                config = event.config
                game, mode = config.game, config.mode
                names = watched_names(told_names, config.players)
                if not any(names):  # watched before the seats came: the lobby knows them
                    names = table_names(args, table, config.players)
                rules = game_rules(game)
                rounds = f"{config.rounds} round" + ("s" if config.rounds != 1 else "")
                print(f"{game} {mode}, {config.players} players, {rounds}")
                print("seats: " + ", ".join(render.seat_label(s, names)
                                            for s in range(config.players)))
            told = render.narrate(event, names, game, style, mode=mode)
            if told is not None:
                print(told, flush=True)
            if isinstance(event, GameOver):
                over = event
        if over is not None:  # a server that sends no result: game-over's winners
            standings(None)
    finally:
        sock.close()
    return 0


def watched_names(field: str | None, players: int) -> list[str]:
    """The seats' names of the ``watching ... names=`` line (percent-quoted; "" for a seat
    unnamed, shown ``seat N``), or none where the count is wrong."""
    names = [escape(unquote(n), 40) for n in (field or "").split(",")]
    return names if len(names) == players else [""] * players


def table_names(args: argparse.Namespace, table: str, players: int) -> list[str]:
    """The seats' names, as the server's lobby lists them (an observer's lines name no
    one); ``""`` (shown ``seat N``) for a seat without one, or where there is no lobby."""
    from xactika.frontends.net.lobbyclient import LobbyClient, LobbyFailure

    try:
        lobby = LobbyClient(args.address, args)
    except (LobbyFailure, ValueError, OSError):
        return [""] * players
    try:
        row = next((r for r in lobby.tables() if r.get("id") == table), {})
    except (LobbyFailure, OSError):
        row = {}
    finally:
        lobby.close()
    names = [n if n != "-" else "" for n in row.get("names", "").split(",")]
    return names if len(names) == players else [""] * players


def main(argv: Sequence[str]) -> int:
    argv = list(argv)
    cut = argv.index("--") if "--" in argv else len(argv)
    args = build_parser().parse_args(argv[:cut])
    program = argv[cut + 1:]
    try:
        token = token_from(args)
        host, port = parse_address(args.address)
    except ValueError as exc:
        print(f"xactika connect: {exc}", file=sys.stderr)
        return 2
    if args.watch:
        return watch(args, token)
    if not program:
        print("xactika connect: no bot: give -- PROGRAM ARGS", file=sys.stderr)
        return 2
    tls = client_context(args.cafile) if args.tls or args.cafile else None
    seat = RemoteSeat(host, port, token, tls=tls, reconnect=args.reconnect)
    try:
        seat.connect()
    except (RemoteError, OSError) as exc:
        print(f"xactika connect: {escape(str(exc), 300)}", file=sys.stderr)
        return 1
    print(f"xactika connect: {seat.seated}", file=sys.stderr)
    return relay(seat, program, args.name)
