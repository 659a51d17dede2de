"""``xactika web`` on a network: which host names it serves, which forwarding header it
believes, and how long a slow client may hold a connection (spec/WEB.md, Hosting).

* Host names: a page at ``http://evil.example:PORT`` whose name an attacker rebinds to
  127.0.0.1 sends a Host and an Origin that match each other, so comparing the two proves
  nothing. Only the names the server was bound to, ``localhost``, and the names given by
  ``--allowed-host`` are served (Starlette's ``TrustedHostMiddleware``); an address literal
  cannot be rebound, so one the server listens on is served too. Any other Host is
  refused, HTTP and WebSocket alike. The Host header is the only name read: a client's
  ``X-Forwarded-Host`` or ``Forwarded: host=`` never is.
* Reverse proxies: exactly one forwarding header is believed, the one the operator names
  (``--proxy-header``, default ``X-Forwarded-For``) and only from a ``--trusted-proxy``
  peer; uvicorn's ``ProxyHeadersMiddleware`` reads it (the nearest hop from the right that
  is not a trusted proxy) with ``X-Forwarded-Proto``. Every other forwarding header
  (``Forwarded``, ``X-Forwarded-Host``, ``X-Real-IP``, ...) is dropped from every request,
  and a hop that is not an address leaves the proxy's own, so no spelling a client sends
  picks the address the per-address limits count.
* Slow clients: uvicorn arms its keep-alive timer only after a response, so a connection
  that sends part of a request line and headers, or nothing, is held for ever (slowloris).
  :func:`guarded_http` adds a deadline for a complete request head.
"""

from __future__ import annotations

import asyncio
import ipaddress
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any

from starlette._utils import parse_host_header
from starlette.middleware.trustedhost import TrustedHostMiddleware
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Any]]
Send = Callable[[Any], Awaitable[None]]
ASGI = Callable[[Scope, Receive, Send], Awaitable[None]]
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address

ABORT = "xactika.abort"  # the scope's key for dropping a WebSocket's connection at once
PEER = "xactika.peer"  # the scope's key for the connection's own peer address
WILDCARDS = ("", "0.0.0.0", "::")
HOST_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-._")
DEFAULT_HEADER = "X-Forwarded-For"
PROTO = b"x-forwarded-proto"  # believed with the named header, from trusted proxies only
# the forwarding headers a request may carry; none but the named one (and PROTO) is read
FORWARDING = frozenset({b"forwarded", b"x-forwarded-for", b"x-forwarded-host",
                        b"x-forwarded-proto", b"x-forwarded-port", b"x-forwarded-server",
                        b"x-forwarded-prefix", b"x-real-ip", b"x-client-ip",
                        b"true-client-ip", b"cf-connecting-ip", b"x-original-forwarded-for",
                        b"x-cluster-client-ip", b"forwarded-for"})
XFF = b"x-forwarded-for"
NOT_ADDRESSES = frozenset({b"forwarded", b"x-forwarded-host", PROTO, b"x-forwarded-port",
                           b"x-forwarded-server", b"x-forwarded-prefix", b"host"})
HEADER_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")


class HostingError(ValueError):
    """A bad ``--allowed-host``, ``--trusted-proxy`` or ``--proxy-header``: one line."""


def proxy_network(text: str) -> Network:
    """``--trusted-proxy``: an address (``127.0.0.1``) or a network (``10.0.0.0/8``)."""
    try:
        return ipaddress.ip_network(text.strip(), strict=False)
    except ValueError:
        raise HostingError(f"--trusted-proxy {text!r} is not an address or a network "
                           "(such as 127.0.0.1 or 10.0.0.0/8)") from None


def host_name(text: str) -> str:
    """``--allowed-host``: a host name or address, without a scheme or a port."""
    name = text.strip().lower().rstrip(".")
    if not name or (not set(name) <= HOST_CHARS and _address(name) is None):
        raise HostingError(f"--allowed-host {text!r} is not a host name (such as "
                           "cards.example.org)")
    return name


def proxy_header(text: str) -> str:
    """``--proxy-header``: the one header naming the client's address, a list of hops as
    ``X-Forwarded-For`` writes them (``X-Real-IP``: one), lower case."""
    name = text.strip().lower()
    if not name or not set(name) <= HEADER_CHARS or name.encode() in NOT_ADDRESSES:
        raise HostingError(f"--proxy-header {text[:40]!r} is not a header naming the "
                           "client's address (such as X-Forwarded-For or X-Real-IP)")
    return name


def _address(text: str) -> Address | None:
    try:
        return ipaddress.ip_address(text.strip("[]"))
    except ValueError:
        return None


def canonical(address: Address) -> str:
    """One spelling per address: an IPv4-mapped IPv6 address is its IPv4 one."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return str(address.ipv4_mapped)
    return str(address)


def served(app: ASGI, bound: str, allowed: Iterable[str] = (),
           proxies: Iterable[Network] = (), header: str = DEFAULT_HEADER) -> ASGI:
    """``app`` behind the forwarding rule and the host check (an ASGI app)."""
    return Forwarding(ServedHosts(app, bound, allowed), tuple(proxies), header)


class Forwarding:
    """The one named forwarding header from trusted proxies, every other one dropped."""

    def __init__(self, app: ASGI, proxies: tuple[Network, ...], header: str) -> None:
        self.app = app
        self.proxies = proxies
        self.header = header.lower().encode()
        self.believe = ProxyHeadersMiddleware(self._believed,  # type: ignore[arg-type]
                                              [str(net) for net in proxies]) \
            if proxies else None

    def trusted(self, peer: str) -> bool:
        found = _address(peer)
        return found is not None and any(found in net for net in self.proxies)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        client = scope.get("client")
        peer = str(client[0]) if client else ""
        trusted = self.believe is not None and self.trusted(peer)
        kept = (self.header, PROTO) if trusted else ()
        scope["headers"] = [(XFF if key.lower() == self.header and trusted else key.lower(),
                             value) for key, value in scope.get("headers", [])
                            if key.lower() not in FORWARDING or key.lower() in kept]
        scope[PEER] = peer
        if trusted and self.believe is not None:
            await self.believe(scope, receive, send)  # type: ignore[arg-type]
        else:
            await self._believed(scope, receive, send)

    async def _believed(self, scope: Scope, receive: Receive, send: Send) -> None:
        """After uvicorn's reading: the address in one spelling; a hop that is not an
        address (a proxy that passed a client's text on) leaves the peer's own."""
        client = scope.get("client")
        if client:
            found = _address(str(client[0]))
            scope["client"] = (canonical(found) if found is not None else scope[PEER],
                               client[1])
        await self.app(scope, receive, send)


class ServedHosts:
    """The names served (Starlette's check), and the addresses listened on."""

    def __init__(self, app: ASGI, bound: str, allowed: Iterable[str] = ()) -> None:
        self.app = app
        self.bound = bound.strip().lower().strip("[]")
        names = {"localhost", *allowed}
        if self.bound not in WILDCARDS:
            names.add(self.bound)
        patterns = set()
        for name in names:  # as a Host names it: an IPv6 address in brackets, a final dot
            patterns |= {f"[{name}]"} if ":" in name else {name, f"{name}."}
        self.names = TrustedHostMiddleware(app, sorted(patterns), www_redirect=False)

    def listens_on(self, host: str | None) -> bool:
        """An address literal this server listens on (any, bound to a wildcard)."""
        parsed = parse_host_header(host)
        found = _address(parsed.host) if parsed is not None else None
        return found is not None and (self.bound in WILDCARDS or found == _address(self.bound))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            scope[ABORT] = _aborter(send)
        hosts = [v.decode("latin-1") for k, v in scope.get("headers", []) if k == b"host"]
        if len(hosts) == 1 and self.listens_on(hosts[0]):
            await self.app(scope, receive, send)
        else:  # a name served, else refused (400, a WebSocket's handshake too)
            await self.names(scope, receive, send)


def _aborter(send: Send) -> Callable[[], None] | None:
    """A way to drop the connection under a WebSocket at once. ASGI has none, and
    uvicorn's close waits for the peer to take what is queued, so a peer that never reads
    would keep its socket and buffer; its protocol object's transport can abort."""
    transport = getattr(getattr(send, "__self__", None), "transport", None)
    abort = getattr(transport, "abort", None)
    return abort if callable(abort) else None


def guarded_http(header_timeout: float) -> type[asyncio.Protocol]:
    """uvicorn's h11 protocol with a deadline: a request's line and headers must be complete
    within ``header_timeout`` seconds of the connection (or of the last response), else the
    connection is closed."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class GuardedH11Protocol(H11Protocol):
        _deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._arm()

        def handle_websocket_upgrade(self, event: h11.Request) -> None:
            self._disarm()
            super().handle_websocket_upgrade(event)

        def _arm(self) -> None:
            self._disarm()
            if not self.transport.is_closing():
                self._deadline = self.loop.call_later(header_timeout, self._too_slow)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _too_slow(self) -> None:
            self._deadline = None
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                self.transport.close()

    return GuardedH11Protocol


__all__ = ["ABORT", "HostingError", "canonical", "guarded_http", "host_name", "proxy_header",
           "proxy_network", "served"]
