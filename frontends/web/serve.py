"""``xactika web``: the lobby and tables in the browser, over the table server.

One process holds the table server (protocol/net/server.py) and serves the pages and
the WebSocket with uvicorn; ``--tcp-port`` opens the same server's TCP seats for bots
beside it (spec/SERVER.md). Records go to ``--out``, signed as ``xactika serve`` signs,
and the same journal as serve's keeps every table there: killed and started again with
the same ``--out``, it resumes every unfinished table, its web bots seated again, and
the pages come back with their tokens (spec/SERVER.md section 10).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import socket
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from xactika.core.engine.errors import XactikaError
from xactika.frontends.net.options import (
    OneLineParser,
    add_pace_option,
    pace_note,
    port_number,
)
from xactika.frontends.net.serve import seed_note, table_seed
from xactika.frontends.people.flags import counting_number, whole_number
from xactika.protocol.net.journal import Journal, JournalError
from xactika.protocol.net.link import Limits
from xactika.protocol.net.lobby import LobbyPolicy
from xactika.protocol.trust.signing import KeyFileError, signer_for


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog="xactika web",
        description="Play, watch and invite in the browser: a lobby, tables with built-in "
        "bots, spectators and chat, on the same table server as 'xactika serve'.",
        epilog="Open http://HOST:PORT/ in a browser. Invite links carry a seat's token "
        "after '#', which browsers never send to the server.",
    )
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1; 0.0.0.0 for a LAN)")
    p.add_argument("--port", type=port_number, default=8000,
                   help="port (default 8000; 0: any free)")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="where records and the journal go (default web-YYYYmmdd-HHMMSS); "
                   "started again with the same DIR, the server resumes its tables")
    p.add_argument("--tls-cert", default=None, metavar="PEM", help="TLS certificate chain")
    p.add_argument("--tls-key", default=None, metavar="PEM", help="TLS private key")
    p.add_argument("--tcp-port", type=port_number, default=None, metavar="PORT",
                   help="also take TCP seats (bots, 'xactika connect') on this port")
    p.add_argument("--seed", type=whole_number, default=None,
                   help="master seed: table k is dealt from HMAC-SHA256(SEED, 'table/k'), "
                   "as 'xactika serve' deals, so the seed one table reveals at game over "
                   "says nothing of another's (default: a random seed per table)")
    p.add_argument("--key", default=None, metavar="FILE",
                   help="sign records with this private key (default: the user's key)")
    add_pace_option(p)
    p.add_argument("--max-connections", type=counting_number, default=256, metavar="N",
                   help="connections at once, web and TCP together (default 256)")
    p.add_argument("--max-per-address", type=counting_number, default=64, metavar="N",
                   help="connections at once from one address (default 64)")
    # hosting (README, Hosting): the names served, the proxies believed, slow clients
    p.add_argument("--allowed-host", action="append", default=[], metavar="NAME",
                   help="also serve this host name (the public one behind a proxy); "
                   "repeatable. Served besides: localhost and the --host address")
    p.add_argument("--trusted-proxy", action="append", default=[], metavar="ADDR",
                   help="believe --proxy-header and X-Forwarded-Proto from this address or "
                   "network (a reverse proxy); repeatable")
    p.add_argument("--proxy-header", default="X-Forwarded-For", metavar="NAME",
                   help="the one header a trusted proxy names the client's address in "
                   "(default X-Forwarded-For); Forwarded, X-Forwarded-Host and the rest are "
                   "never read")
    p.add_argument("--header-timeout", type=float, default=10.0, metavar="S",
                   help="seconds a client has to send a request's headers (default 10)")
    p.add_argument("--idle-timeout", type=int, default=5, metavar="S",
                   help="seconds an idle HTTP keep-alive connection is kept (default 5)")
    p.add_argument("--tables-per-address", type=counting_number, default=2, metavar="N",
                   help="lobby tables not over, whatever their seats, one address may have "
                   "(default 2)")
    p.add_argument("--unwatched", type=float, default=300.0, metavar="S",
                   help="end a table of bots alone that nobody has watched for S seconds "
                   "(default 300)")
    p.add_argument("--arena", default=None, metavar="DIR",
                   help="also serve this arena's pages (/arena) and JSON (/api/arena), "
                   "its records openable in the replay viewer")
    p.add_argument("--site", default=None, metavar="DIR",
                   help="accounts, rated tables, people's pages and leaderboards, kept in "
                   "this site folder (made on first use; 'xactika account' manages it)")
    p.add_argument("--site-db", default=None, metavar="URL",
                   help="the site's database when it is made (default SQLite in --site; "
                   "postgresql://USER@HOST/DB for several processes)")
    p.add_argument("--shard", type=shard, default=(0, 1), metavar="K/N",
                   help="one of N web processes behind one proxy: number tables K mod N, "
                   "so the proxy routes a table's requests by its number (default 0/1)")
    p.add_argument("--no-journal", action="store_true",
                   help="keep no journal in --out: a crash loses every game in progress "
                   "(for measuring what the journal costs)")
    return p


def shard(text: str) -> tuple[int, int]:
    """``K/N`` with 0 <= K < N <= 100 (argparse's one line otherwise)."""
    k, slash, n = text.partition("/")
    if not (slash and k.isdigit() and n.isdigit() and 0 <= int(k) < int(n) <= 100):
        raise argparse.ArgumentTypeError(f"expected K/N with 0 <= K < N <= 100, not {text!r}")
    return int(k), int(n)


def hosting_options(args: argparse.Namespace) -> str | None:
    """The hosting options checked (one line of error, or None); the names and networks."""
    from xactika.frontends.web.hosting import (
        HostingError,
        host_name,
        proxy_header,
        proxy_network,
    )

    try:
        args.allowed_host = [host_name(name) for name in args.allowed_host]
        args.trusted_proxy = [proxy_network(addr) for addr in args.trusted_proxy]
        args.proxy_header = proxy_header(args.proxy_header)
    except HostingError as exc:
        return str(exc)
    if not 0 < args.header_timeout <= 3600 or not 0 < args.idle_timeout <= 3600:
        return "--header-timeout and --idle-timeout are 1 to 3600 seconds"
    return None


def _uvicorn_class() -> type:
    import uvicorn

    class Uvicorn(uvicorn.Server):
        """uvicorn's server, except that the signal that stopped it is not raised again
        once it has shut down (which would end the process before the journal closes)."""

        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            with super().capture_signals():
                try:
                    yield
                finally:
                    self._captured_signals.clear()

    return Uvicorn


def main(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(argv)
    try:
        return asyncio.run(_serve(args))
    except (ValueError, OSError, KeyFileError, JournalError, XactikaError) as exc:
        print(f"xactika web: {exc}", file=sys.stderr)
        return 2


async def _serve(args: argparse.Namespace) -> int:
    if (args.tls_cert is None) != (args.tls_key is None):
        raise ValueError("TLS needs both --tls-cert and --tls-key")
    if (bad := hosting_options(args)) is not None:
        raise ValueError(bad)
    if args.site_db is not None and args.site is None:
        raise ValueError("--site-db is the database of a --site DIR: give both")
    if not 0 < args.unwatched <= 86400:
        raise ValueError("--unwatched is more than 0 and at most 86400 seconds")
    import uvicorn

    from xactika.frontends.web.app import create_app
    from xactika.frontends.web.hosting import guarded_http
    from xactika.protocol.net.server import Server, tls_context

    if args.tls_cert:
        tls_context(args.tls_cert, args.tls_key)  # a bad file: one line now, not in uvicorn
    out = Path(args.out or dt.datetime.now().strftime("web-%Y%m%d-%H%M%S"))
    signer = signer_for(args.key)
    out.mkdir(parents=True, exist_ok=True)  # the viewers serve it from the start
    journal = None if args.no_journal else Journal.open(out)  # one server a folder
    try:
        limits = Limits(max_connections=args.max_connections,
                        max_per_address=args.max_per_address)
        seed = args.seed
        # a browser that reloads or reconnects gets longer than a program to come back;
        # bots' cards come one by one at tables with people, as serve's do
        server = Server(limits=limits, out=out, signer=signer, journal=journal,
                        clocks={"grace": 120.0, "startup_timeout": 30.0, "pace": args.pace},
                        seed_for=None if seed is None else lambda k: table_seed(seed, k),
                        lobby=LobbyPolicy(tables_per_address=args.tables_per_address,
                                          unwatched=args.unwatched),
                        on_note=lambda text: print(text, flush=True), shard=args.shard)
        web = create_app(server, bound=args.host, allowed_hosts=args.allowed_host,
                         trusted_proxies=args.trusted_proxy, proxy_header=args.proxy_header,
                         arena=args.arena, site=args.site, site_db=args.site_db)
        sock = socket.create_server((args.host, args.port))
        tcp = await server.start(args.host, args.tcp_port) if args.tcp_port is not None \
            else None
        daily = web.daily  # its deals in play come back to it alone, privately
        restored = server.restore(None if daily is None else daily.records)
        web.lobby.resume(restored)  # the tables a crash interrupted, their bots again
        if daily is not None:
            daily.resume(restored)
        web.watch_rated()  # rated tables a kill ended are rated now, resumed ones when over
        guessable = seed_note(seed)  # standard error, before the address is known
        if guessable is not None:
            print(guessable, file=sys.stderr, flush=True)
        for damage in journal.damage if journal is not None else ():
            print(f"xactika web: {damage}", file=sys.stderr, flush=True)
        host, port = sock.getsockname()[:2]
        scheme = "https" if args.tls_cert else "http"
        print(f"xactika web on {scheme}://{host}:{port}/ ; records in {out}", flush=True)
        if args.arena is not None:
            print(f"arena {args.arena} on {scheme}://{host}:{port}/arena", flush=True)
        if args.site is not None:
            print(f"accounts of {args.site} on {scheme}://{host}:{port}/login", flush=True)
        if tcp is not None:
            print(f"table server on {tcp[0]}:{tcp[1]} (tcp); "
                  f"admin token={server.admin_token}", flush=True)
        if journal is not None and journal.last_id():
            for table in restored:
                print(f"table id={table.id} resumed status={table.status()} "
                      f"events={len(table.events)}", flush=True)
            print(f"resumed {len(restored)} unfinished tables from {journal.path}", flush=True)
        print(f"{pace_note(args.pace)} at tables with people", flush=True)
        config = uvicorn.Config(
            web.asgi, host=args.host, port=args.port, ssl_certfile=args.tls_cert,
            ssl_keyfile=args.tls_key, ws="websockets-sansio", ws_max_size=64 * 1024,
            ws_ping_interval=20.0, access_log=False, log_level="warning", lifespan="on",
            proxy_headers=False, server_header=False,  # hosting.py believes the one header
            http=guarded_http(args.header_timeout), h11_max_incomplete_event_size=16 * 1024,
            timeout_keep_alive=args.idle_timeout, timeout_graceful_shutdown=5)
        await _uvicorn_class()(config).serve(sockets=[sock])
    finally:
        if journal is not None:
            journal.close()
    return 0
