"""Issue 30, items 6 and 7: ``xactika web`` serves only its own host names (DNS rebinding),
believes forwarding headers from trusted proxies only, and closes slow clients."""

from __future__ import annotations

import asyncio
import json
import select
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from rawws import RawSocket
from webkit import WebServer

from xactika.frontends.web.app import same_origin
from xactika.frontends.web.hosting import proxy_network, served


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    found = WebServer(tmp_path_factory.mktemp("web"), 3,
                      ["--allowed-host", "cards.example", "--header-timeout", "1"])
    yield found
    assert "Traceback" not in found.stop()


def _port(server: WebServer) -> int:
    return int(server.url.rsplit(":", 1)[1])


def _request(server: WebServer, path: str, host: str, body: dict[str, Any] | None = None
             ) -> int:
    """The status of a request naming ``host`` in its Host and Origin (a rebinding page's)."""
    origin = f"http://{host}:{_port(server)}"
    request = urllib.request.Request(
        server.url + path, data=json.dumps(body).encode() if body is not None else None,
        headers={"Host": f"{host}:{_port(server)}", "Origin": origin,
                 "content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as exc:
        return exc.code


def _tables(server: WebServer) -> int:
    with urllib.request.urlopen(server.url + "/api/tables", timeout=10) as answer:
        return len(json.load(answer))


def test_a_rebinding_page_is_refused_http_and_websocket(server: WebServer) -> None:
    before = _tables(server)
    table = {"game": "xactika", "rounds": 1, "players": 2, "seats": ["open", "1"]}
    for evil in ("evil.example", "127.0.0.1.evil.example", "localhost.evil.example"):
        assert _request(server, "/", evil) == 400
        assert _request(server, "/api/tables", evil, table) == 400
        ws = RawSocket("127.0.0.1", _port(server), headers={"Host": f"{evil}:{_port(server)}"},
                       origin=f"http://{evil}:{_port(server)}")
        assert ws.status != 101, evil
        ws.close()
    assert _tables(server) == before  # nothing was created
    for name in ("127.0.0.1", "localhost", "cards.example", "CARDS.example."):
        assert _request(server, "/", name) == 200, name
        ws = RawSocket("127.0.0.1", _port(server), headers={"Host": f"{name}:{_port(server)}"},
                       origin=f"http://{name}:{_port(server)}")
        assert ws.status == 101, name
        ws.close()
    assert _request(server, "/api/tables", "cards.example", table) == 200
    assert _tables(server) == before + 1


def _is_closed(sock: socket.socket, within: float) -> bool:
    sock.settimeout(within)
    try:
        while sock.recv(4096):
            pass  # a 4xx answer before the close is fine
        return True
    except TimeoutError:
        return False
    except OSError:
        return True


def test_slow_headers_and_silent_connections_are_closed(server: WebServer) -> None:
    """Slowloris: partial request heads (and nothing at all) are closed by the header
    deadline (1 s here), while a whole request on a kept-alive connection is served. The
    deadline counts from the connection: a byte every 0.1 s never extends it, so each
    trickle is cut while it still trickles."""
    slow = []
    for n in range(6):
        sock = socket.create_connection(("127.0.0.1", _port(server)), timeout=5)
        if n:
            sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow-%d: a" % n)
        slow.append(sock)
    open_ = list(slow)
    for _ in range(200):  # 20 s of trickling at most: a guard, never what is waited for
        for sock in open_:
            if sock is not slow[0]:  # the first says nothing at all
                try:
                    sock.sendall(b"b")  # a trickle does not extend the deadline
                except OSError:
                    pass  # cut meanwhile: the recv below sees it
        readable = select.select(open_, [], [], 0.1)[0]  # the server spoke or closed
        open_ = [sock for sock in open_ if sock not in readable or not _is_closed(sock, 5)]
        if not open_:
            break
    assert not open_, f"{len(open_)} of 6 kept open by a trickle (or by silence)"
    for sock in slow:
        sock.close()
    kept = socket.create_connection(("127.0.0.1", _port(server)), timeout=5)
    kept.sendall(b"GET /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    assert kept.recv(4096).startswith(b"HTTP/1.1 200")
    kept.sendall(b"GET /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")  # then stalls
    assert _is_closed(kept, 6)
    kept.close()


# --------------------------------------------------------------------------- proxies


def _seen(hosting_args: dict[str, Any], kind: str, peer: str,
          headers: dict[str, str] | list[tuple[str, str]]) -> dict[str, Any] | None:
    """The scope the app behind :func:`served` gets (None: refused)."""
    seen: list[dict[str, Any]] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen.append(dict(scope))

    async def receive() -> dict[str, str]:
        return {"type": f"{kind}.connect" if kind == "websocket" else "http.request"}

    async def send(message: Any) -> None:
        pass

    pairs = headers.items() if isinstance(headers, dict) else headers
    scope = {"type": kind, "scheme": "ws" if kind == "websocket" else "http",
             "client": (peer, 5555), "headers": [(k.lower().encode(), v.encode())
                                                 for k, v in pairs]}
    asyncio.run(served(app, **hosting_args)(scope, receive, send))
    return seen[0] if seen else None


PROXIED = {"bound": "127.0.0.1", "allowed": ["cards.example"],
           "proxies": [proxy_network("127.0.0.1"), proxy_network("10.0.0.0/8")]}


def _client(scope: dict[str, Any] | None) -> str:
    assert scope is not None
    return str(scope["client"][0])


def test_the_named_header_is_believed_from_trusted_proxies_only() -> None:
    headers = {"Host": "cards.example", "X-Forwarded-For": "203.0.113.9, 10.1.2.3",
               "X-Forwarded-Proto": "https", "Origin": "https://cards.example"}
    scope = _seen(PROXIED, "websocket", "127.0.0.1", headers)
    assert _client(scope) == "203.0.113.9"  # 10.1.2.3 is a trusted proxy too
    assert scope is not None and scope["scheme"] == "wss"
    assert same_origin({k.decode(): v.decode() for k, v in scope["headers"]}, scope["scheme"])
    # the same headers from a peer that is not a proxy: ignored, its own address counts
    scope = _seen(PROXIED, "websocket", "192.0.2.7", headers)
    assert _client(scope) == "192.0.2.7" and scope is not None and scope["scheme"] == "ws"
    assert not same_origin({k.decode(): v.decode() for k, v in scope["headers"]}, "ws")
    # a forged left part cannot hide the address the proxy saw
    assert _client(_seen(PROXIED, "http", "127.0.0.1", {
        "Host": "cards.example", "X-Forwarded-For": "1.1.1.1, 198.51.100.4"})) == "198.51.100.4"
    # several headers are one list; the proxy's own hop is the nearest
    assert _client(_seen(PROXIED, "http", "127.0.0.1", [
        ("Host", "cards.example"), ("X-Forwarded-For", "1.1.1.1"),
        ("X-Forwarded-For", "2.2.2.2, 198.51.100.5")])) == "198.51.100.5"


def test_no_other_forwarding_header_and_no_odd_hop_picks_the_address() -> None:
    """Issue 40, item 1: RFC 7239 ``Forwarded``, ``X-Real-IP`` and the like are never
    read; a hop that is not an address leaves the proxy's own; one address, one spelling."""
    for headers in ({"Forwarded": 'for="[2001:db8::7]:4711";proto=https'},
                    {"X-Real-IP": "203.0.113.1"}, {"True-Client-IP": "203.0.113.2"},
                    {"X-Forwarded-For": "evil-name"}, {"X-Forwarded-For": "10.9.9.9.9"},
                    {"X-Forwarded-For": ""}):
        scope = _seen(PROXIED, "http", "10.0.0.2", {"Host": "127.0.0.1", **headers})
        assert _client(scope) == "10.0.0.2", headers
        assert scope is not None and scope["scheme"] == "http"
        assert not any(k in (b"forwarded", b"x-real-ip", b"true-client-ip")
                       for k, _ in scope["headers"])
    assert _client(_seen(PROXIED, "http", "127.0.0.1", {
        "Host": "127.0.0.1", "X-Forwarded-For": "::ffff:198.51.100.4"})) == "198.51.100.4"
    assert _client(_seen(PROXIED, "http", "127.0.0.1", {
        "Host": "127.0.0.1", "X-Forwarded-For": "[2001:DB8:0::7]:80"})) == "2001:db8::7"
    # the operator names another header: only that one counts
    real = {**PROXIED, "header": "x-real-ip"}
    assert _client(_seen(real, "http", "127.0.0.1", {
        "Host": "127.0.0.1", "X-Forwarded-For": "203.0.113.3",
        "X-Real-IP": "198.51.100.6"})) == "198.51.100.6"
    assert _client(_seen(real, "http", "192.0.2.8", {
        "Host": "127.0.0.1", "X-Real-IP": "198.51.100.6"})) == "192.0.2.8"


def test_a_proxy_cannot_forward_an_unserved_host() -> None:
    for forged in ({"X-Forwarded-Host": "cards.example"}, {"Forwarded": "host=cards.example"}):
        assert _seen(PROXIED, "http", "127.0.0.1", {"Host": "evil.example", **forged}) is None
        assert _seen(PROXIED, "websocket", "127.0.0.1",
                     {"Host": "evil.example", **forged}) is None
        scope = _seen(PROXIED, "http", "127.0.0.1", {"Host": "127.0.0.1", **forged})
        assert scope is not None and dict(scope["headers"])[b"host"] == b"127.0.0.1"
    wild = {"bound": "0.0.0.0", "allowed": [], "proxies": []}
    assert _seen(wild, "http", "192.0.2.1", {"Host": "192.0.2.10:8000"}) is not None
    assert _seen(wild, "http", "192.0.2.1", {"Host": "[2001:db8::1]:8000"}) is not None
    assert _seen(wild, "http", "192.0.2.1", {"Host": "rebound.example:8000"}) is None
    assert _seen(wild, "http", "192.0.2.1", {"Host": "2130706433:8000"}) is None  # 127.0.0.1
    assert _seen(wild, "http", "192.0.2.1", {}) is None
    assert _seen(PROXIED, "http", "192.0.2.1", {"Host": "127.0.0.2"}) is None  # not bound


@pytest.mark.parametrize("option", [["--trusted-proxy", "proxy.example"],
                                    ["--allowed-host", "http://x/"],
                                    ["--proxy-header", "Forwarded"],
                                    ["--proxy-header", "x y"],
                                    ["--header-timeout", "0"]])
def test_bad_hosting_options_are_one_line(option: list[str]) -> None:
    done = subprocess.run([sys.executable, "-m", "xactika.frontends.cli", "web", "--port", "0",
                           *option], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert done.stderr.startswith("xactika web: ")
