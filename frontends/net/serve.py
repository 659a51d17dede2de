"""``xactika serve``: host tables for remote seats over TCP or TLS (spec/SERVER.md).

Prints the address, the admin token and every table's seat and observer tokens once
(a line each), then a line per finished game. People find and create tables in its
lobby (``xactika lobby``). Records go to ``--out`` as the match runner writes them.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import sys
from collections.abc import Sequence
from pathlib import Path

from xactika.core.engine.errors import XactikaError
from xactika.frontends.net.options import OneLineParser, port_number, positive_int, seconds
from xactika.frontends.stdio.selfplay import counting_number, whole_number
from xactika.protocol.net.link import Limits
from xactika.protocol.net.lobby import LobbyPolicy
from xactika.protocol.net.server import Server, tls_context
from xactika.protocol.net.table import table_lines, table_settings
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
    p.add_argument("--seed", type=whole_number, default=None,
                   help="deal seed of table 1; table k (the lobby's too) gets SEED+k-1 "
                   "(default: random)")
    p.add_argument("--move-timeout", type=seconds, default=10.0, metavar="S",
                   help="the server's move clock in seconds (default 10)")
    p.add_argument("--grace", type=seconds, default=30.0, metavar="S",
                   help="seconds a dropped seat has to reconnect (default 30)")
    p.add_argument("--auth-timeout", type=seconds, default=5.0, metavar="S",
                   help="seconds a new connection has to send its token (default 5)")
    p.add_argument("--max-connections", type=positive_int, default=256, metavar="N",
                   help="connections at once, seats not counted: a seat token always gets "
                   "in (default 256)")
    p.add_argument("--max-unauthenticated", type=positive_int, default=64, metavar="N",
                   help="connections that have not shown a token yet, and lobby sessions; "
                   "the oldest is closed to make room (default 64)")
    p.add_argument("--max-per-address", type=positive_int, default=16, metavar="N",
                   help="of those, from one address (default 16)")
    p.add_argument("--max-observers", type=positive_int, default=16, metavar="N",
                   help="observers per table (default 16)")
    p.add_argument("--lobby-tables", type=whole_number, default=32, metavar="N",
                   help="tables the lobby may create and keep open at once, all players "
                   "together (default 32; the admin token is not limited)")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="where records go (default serve-YYYYmmdd-HHMMSS)")
    p.add_argument("--key", default=None, metavar="FILE",
                   help="sign records with this private key (default: the user's key, made "
                   "on first use; see xactika keygen)")
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
                    max_unauthenticated=args.max_unauthenticated,
                    max_per_address=args.max_per_address, max_observers=args.max_observers,
                    auth_timeout=args.auth_timeout)
    out = Path(args.out or dt.datetime.now().strftime("serve-%Y%m%d-%H%M%S"))
    clocks = {"move_timeout": args.move_timeout, "grace": args.grace}
    settings = [table_settings(_pairs(args, k), **clocks) for k in range(args.tables)]
    seed = args.seed

    def note(text: str) -> None:
        print(text, flush=True)

    server = Server(limits=limits, out=out, ssl_context=context, on_note=note,
                    signer=signer_for(args.key), clocks=clocks,
                    seed_for=None if seed is None else lambda number: seed + number - 1,
                    lobby=LobbyPolicy(max_tables=args.lobby_tables))
    host, port = await server.start(args.host, args.port)
    note(f"listening on {host}:{port} ({'tls' if context else 'tcp'}); records in {out}")
    note(f"admin token={server.admin_token}")
    for one in settings:
        for line in table_lines(server.add_table(one)):
            note(line)
    try:
        if args.exit_when_done:
            await server.all_over.wait()
        else:
            await asyncio.Event().wait()
    finally:
        await server.close()
    return 0


def main(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(argv)
    try:
        return asyncio.run(serve(args))
    except (XactikaError, ValueError, OSError, KeyFileError) as exc:
        print(f"xactika serve: {exc}", file=sys.stderr)
        return 2
