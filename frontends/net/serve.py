"""``xactika serve``: host tables for remote seats over TCP or TLS (spec/SERVER.md).

Prints the address, the admin token and every table's seat and observer tokens once,
then a line per finished game. Records go to ``--out`` as the match runner writes them;
the journal there (protocol/net/journal.py) lets a restart with the same ``--out`` resume
every unfinished table after a crash.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import sys
from collections.abc import Sequence
from pathlib import Path

from xactika.core.engine.errors import XactikaError
from xactika.frontends.stdio.selfplay import counting_number, whole_number
from xactika.protocol.net.journal import Journal, JournalError
from xactika.protocol.net.link import Limits
from xactika.protocol.net.server import Server, tls_context
from xactika.protocol.net.table import table_line, table_settings
from xactika.protocol.trust.signing import KeyFileError, signer_for


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="xactika serve",
        description="Host tables whose seats connect over the network: bots through "
        "'xactika connect', people through 'xactika play --connect'.",
        epilog="Each seat's token is printed once; give it to that seat's player only.",
    )
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1; 0.0.0.0 for every one)")
    p.add_argument("--port", type=int, default=7000, help="port (default 7000; 0: any free)")
    p.add_argument("--tls-cert", default=None, metavar="PEM", help="TLS certificate chain")
    p.add_argument("--tls-key", default=None, metavar="PEM", help="TLS private key")
    p.add_argument("--tables", type=int, default=1, metavar="N",
                   help="tables to open at start (default 1; more by the admin token)")
    p.add_argument("--game", default=None, help="game (default: xactika)")
    p.add_argument("--mode", default=None, help="mode (default: the game's)")
    p.add_argument("--players", type=counting_number, default=None, help="players (default 4)")
    p.add_argument("--rounds", type=counting_number, default=None, help="rounds")
    p.add_argument("--seed", type=whole_number, default=None,
                   help="deal seed of table 1; table k gets SEED+k-1 (default: random)")
    p.add_argument("--move-timeout", type=float, default=10.0, metavar="S",
                   help="the server's move clock in seconds (default 10)")
    p.add_argument("--grace", type=float, default=30.0, metavar="S",
                   help="seconds a dropped seat has to reconnect (default 30)")
    p.add_argument("--auth-timeout", type=float, default=5.0, metavar="S",
                   help="seconds a new connection has to send its token (default 5)")
    p.add_argument("--max-connections", type=int, default=256, metavar="N",
                   help="connections at once (default 256)")
    p.add_argument("--max-per-address", type=int, default=64, metavar="N",
                   help="connections at once from one address (default 64)")
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


def _pairs(args: argparse.Namespace, table: int) -> dict[str, str]:
    pairs = {"game": args.game or "xactika"}
    for key in ("mode", "players", "rounds"):
        if getattr(args, key) is not None:
            pairs[key] = str(getattr(args, key))
    if args.seed is not None:
        pairs["seed"] = str(args.seed + table)
    return pairs


async def serve(args: argparse.Namespace) -> int:
    if (args.tls_cert is None) != (args.tls_key is None):
        raise ValueError("TLS needs both --tls-cert and --tls-key")
    context = tls_context(args.tls_cert, args.tls_key) if args.tls_cert else None
    limits = Limits(max_connections=args.max_connections,
                    max_per_address=args.max_per_address, auth_timeout=args.auth_timeout)
    out = Path(args.out or dt.datetime.now().strftime("serve-%Y%m%d-%H%M%S"))
    settings = [
        table_settings(_pairs(args, k), move_timeout=args.move_timeout, grace=args.grace)
        for k in range(args.tables)
    ]

    def note(text: str) -> None:
        print(text, flush=True)

    signer = signer_for(args.key)
    journal = None if args.no_journal else Journal.open(out)
    server = Server(limits=limits, out=out, ssl_context=context, on_note=note,
                    signer=signer, journal=journal)
    restored = server.restore()
    host, port = await server.start(args.host, args.port)
    note(f"listening on {host}:{port} ({'tls' if context else 'tcp'}); records in {out}")
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
            note(table_line(server.add_table(one)))
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
        if args.tables < 0:
            raise ValueError(f"--tables must be 0 or more, not {args.tables}")
        return asyncio.run(serve(args))
    except (XactikaError, ValueError, OSError, KeyFileError, JournalError) as exc:
        print(f"xactika serve: {exc}", file=sys.stderr)
        return 2
