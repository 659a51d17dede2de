"""``xactika serve``: host tables for remote seats over TCP or TLS (spec/SERVER.md).

Prints the address, the admin token and every table's seat and observer tokens once
(a line each), then a line per finished game. People find and create tables in its
lobby (``xactika lobby``). Records go to ``--out`` as the match runner writes them.
The journal in ``--out`` (protocol/net/journal.py) lets a restart with the same ``--out``
resume every unfinished table after a crash.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from xactika.core.engine.errors import XactikaError
from xactika.frontends.cli.invocation import xactika_command
from xactika.frontends.i18n import later
from xactika.frontends.match.tournament import (
    GUESSABLE_SEED_BITS,
    MATCH_SEED_BITS,
    derived_seed,
)
from xactika.frontends.net.options import (
    DEFAULT_CLOCK,
    OneLineParser,
    add_pace_option,
    pace_note,
    port_number,
    seconds,
)
from xactika.frontends.people.flags import (
    add_option_flags,
    counting_number,
    option_pairs,
    whole_number,
)
from xactika.protocol.net.clock import Clock, parse_clock
from xactika.protocol.net.journal import Journal, JournalError
from xactika.protocol.net.link import Limits
from xactika.protocol.net.lobby import BotSeats, LobbyPolicy
from xactika.protocol.net.server import Server, parse_timeouts, tls_context
from xactika.protocol.net.table import ON_TIMEOUT, Table, table_lines, table_settings
from xactika.protocol.trust.signing import KeyFileError, signer_for


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog="xactika serve",
        description="Host tables whose seats connect over the network: bots through "
        "'xactika connect', people through 'xactika play --connect'.",
        epilog="Each seat's token is printed once; give it to that seat's player only.",
    )
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1; 0.0.0.0 for every one)")
    p.add_argument("--port", type=port_number, default=7000,
                   help="port (default 7000; 0: any free)")
    p.add_argument("--tls-cert", default=None, metavar="PEM", help="TLS certificate chain")
    p.add_argument("--tls-key", default=None, metavar="PEM", help="TLS private key")
    p.add_argument("--tables", type=whole_number, default=1, metavar="N",
                   help="tables to open at start (default 1; more by the admin token)")
    p.add_argument("--game", default=None, help="game (default: xactika)")
    p.add_argument("--mode", default=None, help="mode (default: the game's)")
    p.add_argument("--players", type=counting_number, default=None, help="players (default 4)")
    p.add_argument("--rounds", type=counting_number, default=None, help="rounds")
    add_option_flags(p)  # each game's own settings: --target, --top, ...
    p.add_argument("--seed", type=whole_number, default=None,
                   help="master seed: table k is dealt from HMAC-SHA256(SEED, 'table/k'), "
                   "so the seed one table reveals at game over says nothing of another's "
                   "(default: a random seed per table)")
    p.add_argument("--move-timeout", type=seconds, default=10.0, metavar="S",
                   help="a bot's limit per move in seconds (default 10); people have "
                   "--clock instead")
    p.add_argument("--clock", type=_clock, default=parse_clock(DEFAULT_CLOCK),
                   metavar="BASE+INC",
                   help=later("each person's time bank: BASE seconds, plus INC after each "
                              "move (default {clock}; 'none' for no clock). A person is a "
                              "seat whose hello says kind=human, as 'xactika play --connect' "
                              "does", clock=DEFAULT_CLOCK))
    p.add_argument("--on-timeout", choices=ON_TIMEOUT, default="bot",
                   help="when a person's bank runs out: 'bot' (default) seats a built-in "
                   "bot of --level until they come back with their token; 'forfeit' "
                   "ends their part (a random player plays their cards; they cannot win)")
    p.add_argument("--timeouts", type=_timeouts, default=None, metavar="N",
                   help="with '--on-timeout bot': a person's N-th timeout forfeits their "
                   "seat (1: the first does); default 'none': a bot stands in each time")
    p.add_argument("--level", type=int, choices=range(1, 6), default=3, metavar="1..5",
                   help="the strength of the bot that stands in for a person (default 3)")
    add_pace_option(p)
    p.add_argument("--grace", type=seconds, default=30.0, metavar="S",
                   help="seconds a dropped seat has to reconnect (default 30)")
    p.add_argument("--auth-timeout", type=seconds, default=5.0, metavar="S",
                   help="seconds a new connection has to send its token (default 5)")
    p.add_argument("--max-connections", type=counting_number, default=256, metavar="N",
                   help="connections at once, seats not counted: a seat token always gets "
                   "in (default 256)")
    p.add_argument("--max-unauthenticated", type=counting_number, default=64, metavar="N",
                   help="connections that have not shown a token yet, and lobby sessions; "
                   "the oldest is closed to make room (default 64)")
    p.add_argument("--max-per-address", type=counting_number, default=16, metavar="N",
                   help="of those, from one address (default 16)")
    p.add_argument("--max-observers", type=counting_number, default=16, metavar="N",
                   help="observers per table (default 16)")
    p.add_argument("--lobby-tables", type=whole_number, default=32, metavar="N",
                   help="tables the lobby may create and keep open at once, all players "
                   "together (default 32; the admin token is not limited)")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="where records go (default serve-YYYYmmdd-HHMMSS)")
    p.add_argument("--key", default=None, metavar="FILE",
                   help="sign records with this private key (default: the user's key, made "
                   "on first use; see xactika keygen)")
    p.add_argument("--no-journal", action="store_true",
                   help="keep no journal in --out: a crash loses every game in progress "
                   "(for measuring what the journal costs)")
    p.add_argument("--exit-when-done", action="store_true",
                   help="stop once every table's game is over")
    return p


def _clock(text: str) -> Clock | None:
    try:
        return parse_clock(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _timeouts(text: str) -> int | None:
    try:
        return parse_timeouts(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _pairs(args: argparse.Namespace, table: int | None) -> dict[str, str]:
    """Table ``table``'s (0-based) settings; None: no seed (the server's rule gives it)."""
    pairs = {"game": args.game or "xactika"}
    for key in ("mode", "players", "rounds"):
        if getattr(args, key) is not None:
            pairs[key] = str(getattr(args, key))
    pairs.update(option_pairs(args))
    if args.seed is not None and table is not None:
        pairs["seed"] = str(table_seed(args.seed, table + 1))
    return pairs


def table_seed(seed: int, table: int) -> int:
    """Table ``table``'s (1-based) seed, derived from ``--seed`` as a match derives its
    deals' seeds: a seat sees its table's seed at game over, and must learn nothing of
    the tables still playing (spec/SERVER.md)."""
    return derived_seed(seed, f"serve/table/{table}")


def bot_agent(word: str, level: int) -> str:
    """A lobby table's bot seat as ``create ... seats=human,bot`` names it: ``bot`` (the
    server's --level), a level ``1``..``5``, or a built-in bot (``bot:random``)."""
    from xactika.core.bots.agents import agent_names
    from xactika.core.bots.levels import level_name

    name = word.removeprefix("bot:")
    if word == "bot":
        return level_name(level)
    if name.isdigit() and 1 <= int(name) <= 5:
        return level_name(int(name))
    if name in agent_names():
        return name
    raise ValueError(f"a seat is human (or open), bot, a level 1-5 or a built-in bot "
                     f"({', '.join(agent_names())}), not {word!r}")


def bot_seats(server: Server, level: int) -> BotSeats:
    """The server's bots at lobby tables, each in a task on the server's loop that plays
    through an in-process link, as the web's bots do."""
    from xactika.frontends.web.transport import run_bot

    tasks: set[asyncio.Task[None]] = set()

    def seat(table: Table, number: int, agent: str) -> None:
        task = asyncio.get_running_loop().create_task(run_bot(
            server.serve_link, table.seats[number].token, agent, table.config.game,
            table.id * 10 + number, server.limits))
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    return BotSeats(lambda word: bot_agent(word, level), seat)


def usage_notes(address: str, tls: bool) -> list[str]:
    """What the tokens are for, printed once under them: a seat's token plays it (a
    person in the REPL, a bot through connect), the observer token watches. FILE holds
    the token (a command line is seen by every local user in ps)."""
    cmd = f"{xactika_command()} %s {address}{' --tls' if tls else ''}"
    return [f"a seat's token plays it: {cmd % 'play --connect'} --token-file FILE "
            "(a person)",
            f"  or {cmd % 'connect'} --token-file FILE -- PROGRAM (a bot)",
            f"the observer token watches: {cmd % 'connect'} --watch --token-file FILE"]


def seed_note(seed: int | None) -> str | None:
    """The warning a guessable ``--seed`` gets, as the match runner gives it."""
    if seed is None or seed >= 2**GUESSABLE_SEED_BITS:
        return None
    return (f"note: guessable deals: --seed {seed} is under 2^{GUESSABLE_SEED_BITS}, and a "
            "seat that finds it knows every hand of every table; between adversaries "
            f"leave --seed out ({MATCH_SEED_BITS} secret random bits)")


async def serve(args: argparse.Namespace) -> int:
    if (args.tls_cert is None) != (args.tls_key is None):
        raise ValueError("TLS needs both --tls-cert and --tls-key")
    context = tls_context(args.tls_cert, args.tls_key) if args.tls_cert else None
    limits = Limits(max_connections=args.max_connections,
                    max_unauthenticated=args.max_unauthenticated,
                    max_per_address=args.max_per_address, max_observers=args.max_observers,
                    auth_timeout=args.auth_timeout)
    out = Path(args.out or dt.datetime.now().strftime("serve-%Y%m%d-%H%M%S"))
    clocks: dict[str, Any] = {"move_timeout": args.move_timeout, "grace": args.grace,
                              "clock": args.clock, "on_timeout": args.on_timeout,
                              "timeouts": args.timeouts, "level": args.level, "pace": args.pace}
    settings = [table_settings(_pairs(args, k), **clocks) for k in range(args.tables)]
    seed = args.seed

    def note(text: str) -> None:
        print(text, flush=True)

    signer = signer_for(args.key)
    journal = None if args.no_journal else Journal.open(out)
    server = Server(limits=limits, out=out, ssl_context=context, on_note=note,
                    signer=signer, journal=journal, clocks=clocks,
                    seed_for=None if seed is None else lambda number: table_seed(seed, number),
                    lobby=LobbyPolicy(max_tables=args.lobby_tables))
    server.lobby.bots = bot_seats(server, args.level)
    restored = server.restore()
    server.lobby.resume(restored)  # its lobby tables' seats as given, their bots again
    host, port = await server.start(args.host, args.port)
    note(f"listening on {host}:{port} ({'tls' if context else 'tcp'}); records in {out}")
    guessable = seed_note(args.seed)
    if guessable is not None:  # stderr: stdout is the tokens, read by scripts
        print(guessable, file=sys.stderr, flush=True)
    for damage in journal.damage if journal is not None else ():
        print(f"xactika serve: {damage}", file=sys.stderr, flush=True)
    note(f"admin token={server.admin_token}")
    if journal is not None and journal.last_id():  # a restart: the tables exist already
        for table in restored:
            note(f"table id={table.id} resumed status={table.status()} "
                 f"events={len(table.events)}")
        note(f"resumed {len(restored)} unfinished tables from {journal.path}")
        if not restored:
            server.all_over.set()
    else:
        for one in settings:
            if seed is not None:  # dealt by the number it gets (after any records in --out)
                one = server.settings(_pairs(args, None))
            for line in table_lines(server.add_table(one)):
                note(line)
        if settings:
            for line in usage_notes(f"{host}:{port}", context is not None):
                note(line)
    then = args.on_timeout if args.timeouts is None or args.on_timeout != "bot" \
        else f"bot, forfeit at timeout {args.timeouts}"
    people = (f"people have {args.clock.text()} each (then {then})"
              if args.clock is not None else "people are not timed")
    note(f"clocks: bots {args.move_timeout:g} s a move; {people}; {pace_note(args.pace)} "
         "at tables with people")
    try:
        if args.exit_when_done:
            await server.all_over.wait()
        else:
            await asyncio.Event().wait()
    finally:
        await server.close()
        if journal is not None:
            journal.close()
    return 0


def main(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(argv)
    try:
        return asyncio.run(serve(args))
    except (XactikaError, ValueError, OSError, KeyFileError, JournalError) as exc:
        print(f"xactika serve: {exc}", file=sys.stderr)
        return 2
