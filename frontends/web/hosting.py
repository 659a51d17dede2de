"""``xactika web`` on a network: which host names it serves, whose forwarding headers it
believes, and how long a slow client may hold a connection (spec/WEB.md, Hosting).

* Host names: a page at ``http://evil.example:PORT`` whose name an attacker rebinds to
  127.0.0.1 sends a Host and an Origin that match each other, so comparing the two proves
  nothing. Only the names the server was bound to, ``localhost``, and the names given by
  ``--allowed-host`` are served; any other Host is refused, HTTP and WebSocket alike. An
  address literal cannot be rebound, so one the server listens on is served too.
* Reverse proxies: the forwarding headers (``X-Forwarded-For``/``-Proto``/``-Host`` or
  ``Forwarded``) are believed only from the peers named by ``--trusted-proxy``; then the
  client's own address counts for the per-address limits, and the Host and Origin checks
  see the public name and scheme. From anyone else they are ignored.
* Slow clients: uvicorn arms its keep-alive timer only after a response, so a connection
  that sends part of a request line and headers, or nothing, is held for ever (slowloris).
  :func:`guarded_http` adds a deadline for a complete request head.
"""

from __future__ import annotations

import asyncio
import ipaddress
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Any]]
Send = Callable[[Any], Awaitable[None]]
ASGI = Callable[[Scope, Receive, Send], Awaitable[None]]
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address

ABORT = "xactika.abort"  # the scope's key for dropping a WebSocket's connection at once
WILDCARDS = ("", "0.0.0.0", "::")
HOST_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-._:[]")


class HostingError(ValueError):
    """A bad ``--allowed-host`` or ``--trusted-proxy``: the message is one line."""


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
    if not name or (not set(name) <= HOST_CHARS - {":", "[", "]"} and _address(name) is None):
        raise HostingError(f"--allowed-host {text!r} is not a host name (such as "
                           "cards.example.org)")
    return name


def _address(text: str) -> Address | None:
    try:
        return ipaddress.ip_address(text.strip("[]"))
    except ValueError:
        return None


def _split_host(value: str) -> str:
    """A Host header's name: lower case, without its port, brackets or final dot."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[1:value.find("]")] if "]" in value else ""
    if value.count(":") == 1:
        value = value.split(":")[0]
    return value.rstrip(".")


class Hosting:
    """The names served and the proxies trusted; an ASGI middleware around the app."""

    def __init__(self, app: ASGI, bound: str, allowed: Iterable[str] = (),
                 proxies: Iterable[Network] = ()) -> None:
        self.app = app
        self.bound = bound.strip().lower()
        self.names = {"localhost", *allowed}
        if self.bound not in WILDCARDS:
            self.names.add(self.bound.strip("[]"))
        self.proxies = tuple(proxies)

    def serves(self, host: str | None) -> bool:
        """True for a Host this server answers to (a name it was given, or an address it
        listens on)."""
        if not host or not set(host.lower()) <= HOST_CHARS:
            return False
        name = _split_host(host)
        if name in self.names:
            return True
        found = _address(name)
        return found is not None and (self.bound in WILDCARDS or found == _address(self.bound))

    def trusted(self, peer: str) -> bool:
        found = _address(peer)
        return found is not None and any(found in net for net in self.proxies)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = _headers(scope)
        client = scope.get("client")
        if self.proxies and client and self.trusted(str(client[0])):
            self._forwarded(scope, headers)
        if not self.serves(_headers(scope).get("host")):
            await self._refuse(scope, receive, send)
            return
        if scope["type"] == "websocket":
            scope[ABORT] = _aborter(send)
        await self.app(scope, receive, send)

    def _forwarded(self, scope: Scope, headers: dict[str, str]) -> None:
        """Believe a trusted proxy: the client's address, the scheme and the host it saw."""
        hops, proto, host = _forwarded_header(headers.get("forwarded", ""))
        if not hops:
            hops = _items(headers.get("x-forwarded-for", ""))
            proto = _last(headers.get("x-forwarded-proto", ""))
            host = _last(headers.get("x-forwarded-host", ""))
        if hops:
            scope["client"] = (self._client(hops, str(scope["client"][0])), 0)
        if proto in ("http", "https"):
            secure = proto == "https"
            scope["scheme"] = ("wss" if secure else "ws") if scope["type"] == "websocket" \
                else proto
        if host:
            raw = [(k, v) for k, v in scope.get("headers", []) if k.lower() != b"host"]
            scope["headers"] = [*raw, (b"host", host.encode("latin-1", "replace"))]

    def _client(self, hops: list[str], peer: str) -> str:
        """The nearest address that is not a trusted proxy, from the right (each proxy
        appends the address it heard from); the proxy's own where one is malformed."""
        for hop in reversed(hops):
            found = _address(_hop_address(hop))
            if found is None:
                return peer
            peer = str(found)
            if not any(found in net for net in self.proxies):
                return peer
        return peer

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            await receive()  # websocket.connect
            await send({"type": "websocket.close", "code": 1008})
            return
        body = b"this server does not serve that host name\n"
        await send({"type": "http.response.start", "status": 400,
                    "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                                (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})


def _headers(scope: Scope) -> dict[str, str]:
    """The headers a decision reads, repeated ones joined with commas."""
    found: dict[str, str] = {}
    for key, value in scope.get("headers", []):
        name = key.decode("latin-1").lower()
        if name in ("host", "forwarded", "x-forwarded-for", "x-forwarded-proto",
                    "x-forwarded-host"):
            text = value.decode("latin-1")
            found[name] = f"{found[name]},{text}" if name in found else text
    return found


def _items(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


def _last(value: str) -> str:
    items = _items(value)
    return items[-1].lower() if items else ""


def _forwarded_header(value: str) -> tuple[list[str], str, str]:
    """RFC 7239 ``Forwarded``: each element's ``for``, and the nearest one's proto and host."""
    hops: list[str] = []
    proto = host = ""
    for element in _items(value):
        pairs = {}
        for pair in element.split(";"):
            key, _, text = pair.partition("=")
            pairs[key.strip().lower()] = text.strip().strip('"')
        hops.append(pairs.get("for", "unknown"))
        proto, host = pairs.get("proto", "").lower(), pairs.get("host", "")
    return hops, proto, host


def _hop_address(hop: str) -> str:
    """An address from a hop (``1.2.3.4``, ``1.2.3.4:5``, ``[::1]:5``, ``::1``)."""
    hop = hop.strip().strip('"')
    if hop.startswith("["):
        return hop[1:hop.find("]")] if "]" in hop else hop
    return hop.split(":")[0] if hop.count(":") == 1 else hop


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


__all__ = ["ABORT", "Hosting", "HostingError", "guarded_http", "host_name", "proxy_network"]
