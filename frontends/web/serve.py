"""``xactika web``: the lobby and tables in the browser, over the table server.

One process holds the table server (protocol/net/server.py) and serves the pages and
the WebSocket with uvicorn; ``--tcp-port`` opens the same server's TCP seats for bots
beside it (spec/SERVER.md). Records go to ``--out``, signed as ``xactika serve`` signs.
"""

from __future__ import annotations

import argparse
import datetime as dt
import socket
import sys
from collections.abc import Sequence
from pathlib import Path

from xactika.frontends.stdio.selfplay import whole_number
from xactika.protocol.net.link import Limits
from xactika.protocol.trust.signing import KeyFileError, signer_for


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="xactika web",
        description="Play, watch and invite in the browser: a lobby, tables with built-in "
        "bots, spectators and chat, on the same table server as 'xactika serve'.",
        epilog="Open http://HOST:PORT/ in a browser. Invite links carry a seat's token "
        "after '#', which browsers never send to the server.",
    )
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1; 0.0.0.0 for a LAN)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000; 0: any free)")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="where records go (default web-YYYYmmdd-HHMMSS)")
    p.add_argument("--tls-cert", default=None, metavar="PEM", help="TLS certificate chain")
    p.add_argument("--tls-key", default=None, metavar="PEM", help="TLS private key")
    p.add_argument("--tcp-port", type=int, default=None, metavar="PORT",
                   help="also take TCP seats (bots, 'xactika connect') on this port")
    p.add_argument("--seed", type=whole_number, default=None,
                   help="deal seed of table 1; table k gets SEED+k-1 (default: random)")
    p.add_argument("--key", default=None, metavar="FILE",
                   help="sign records with this private key (default: the user's key)")
    p.add_argument("--max-connections", type=int, default=256, metavar="N",
                   help="connections at once, web and TCP together (default 256)")
    p.add_argument("--max-per-address", type=int, default=64, metavar="N",
                   help="connections at once from one address (default 64)")
    # hosting (README, Hosting): the names served, the proxies believed, slow clients
    p.add_argument("--allowed-host", action="append", default=[], metavar="NAME",
                   help="also serve this host name (the public one behind a proxy); "
                   "repeatable. Served besides: localhost and the --host address")
    p.add_argument("--trusted-proxy", action="append", default=[], metavar="ADDR",
                   help="believe X-Forwarded-*/Forwarded headers from this address or "
                   "network (a reverse proxy); repeatable")
    p.add_argument("--header-timeout", type=float, default=10.0, metavar="S",
                   help="seconds a client has to send a request's headers (default 10)")
    p.add_argument("--idle-timeout", type=int, default=5, metavar="S",
                   help="seconds an idle HTTP keep-alive connection is kept (default 5)")
    return p


def hosting_options(args: argparse.Namespace) -> str | None:
    """The hosting options checked (one line of error, or None); the names and networks."""
    from xactika.frontends.web.hosting import HostingError, host_name, proxy_network

    try:
        args.allowed_host = [host_name(name) for name in args.allowed_host]
        args.trusted_proxy = [proxy_network(addr) for addr in args.trusted_proxy]
    except HostingError as exc:
        return str(exc)
    if not 0 < args.header_timeout <= 3600 or not 0 < args.idle_timeout <= 3600:
        return "--header-timeout and --idle-timeout are 1 to 3600 seconds"
    return None


def main(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(argv)
    if (args.tls_cert is None) != (args.tls_key is None):
        print("xactika web: TLS needs both --tls-cert and --tls-key", file=sys.stderr)
        return 2
    if (bad := hosting_options(args)) is not None:
        print(f"xactika web: {bad}", file=sys.stderr)
        return 2
    import uvicorn

    from xactika.frontends.web.app import create_app
    from xactika.frontends.web.hosting import guarded_http
    from xactika.protocol.net.server import Server

    out = Path(args.out or dt.datetime.now().strftime("web-%Y%m%d-%H%M%S"))
    try:
        signer = signer_for(args.key)
    except KeyFileError as exc:
        print(f"xactika web: {exc}", file=sys.stderr)
        return 2
    out.mkdir(parents=True, exist_ok=True)  # the viewers serve it from the start
    limits = Limits(max_connections=args.max_connections,
                    max_per_address=args.max_per_address)
    # a browser that reloads or reconnects gets longer than a program to come back
    server = Server(limits=limits, out=out, signer=signer,
                    clocks={"grace": 120.0, "startup_timeout": 30.0},
                    on_note=lambda text: print(text, flush=True))
    web = create_app(server, tcp=(args.host, args.tcp_port) if args.tcp_port is not None
                     else None, seed=args.seed, bound=args.host,
                     allowed_hosts=args.allowed_host, trusted_proxies=args.trusted_proxy)
    config = uvicorn.Config(
        web.asgi, host=args.host, port=args.port, ssl_certfile=args.tls_cert,
        ssl_keyfile=args.tls_key, ws="websockets-sansio", ws_max_size=64 * 1024,
        ws_ping_interval=20.0, access_log=False, log_level="warning", lifespan="on",
        proxy_headers=False, server_header=False,  # hosting.py reads trusted proxies'
        http=guarded_http(args.header_timeout), h11_max_incomplete_event_size=16 * 1024,
        timeout_keep_alive=args.idle_timeout, timeout_graceful_shutdown=5)
    runner = uvicorn.Server(config)
    scheme = "https" if args.tls_cert else "http"
    try:
        sock = socket.create_server((args.host, args.port))
        host, port = sock.getsockname()[:2]
        print(f"xactika web on {scheme}://{host}:{port}/ ; records in {out}", flush=True)
        runner.run(sockets=[sock])
    except OSError as exc:
        print(f"xactika web: {exc}", file=sys.stderr)
        return 2
    return 0
