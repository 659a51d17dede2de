"""Issue 30, item 7: ``xactika web`` behind a real reverse proxy (Debian's nginx, started
here as the test's own process with a temporary prefix and stopped after).

(a) Through the proxy, clients at different addresses get separate per-address limits
    (the proxy's ``X-Forwarded-For`` is believed: it is a ``--trusted-proxy``), while a
    direct peer that is not a proxy gets its forwarding header ignored.
(b) The public name (``--allowed-host``) works through the proxy for the lobby's POST and
    the WebSocket, Host and Origin both; an unserved name is refused.
(c) Issue 40, item 1: a client's own forwarding headers (``Forwarded``, ``X-Forwarded-Host``,
    ``X-Real-IP``, several ``X-Forwarded-For``, IPv6 and odd spellings), through the proxy
    (README's block) or sent straight from a trusted peer, change neither the address the
    lobby's limits count nor the host the checks see.

Each client comes from its own loopback address (127.0.0.2, .3, .4), which the proxy
puts in ``X-Forwarded-For`` as it would a real client's.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from nginxkit import HEADER, Nginx, nginx_or_skip
from webkit import WebServer
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

PUBLIC = "cards.example"
FULL = "too many connections"  # the server's eviction (protocol/net/server.py)

CONFIG = HEADER + """    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://127.0.0.1:{upstream};
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto $scheme;
            proxy_set_header Forwarded "";
            proxy_set_header X-Forwarded-Host "";
            proxy_read_timeout 1h;
        }}
    }}
}}
"""


class Proxied:
    """``xactika web`` and an nginx in front of it."""

    def __init__(self, tmp: Path) -> None:
        self.web = WebServer(tmp / "web", 11, ["--trusted-proxy", "127.0.0.1",
                                               "--allowed-host", PUBLIC,
                                               "--max-per-address", "2",
                                               "--tables-per-address", "2"])
        self.upstream = int(self.web.url.rsplit(":", 1)[1])
        self.nginx = Nginx(tmp / "nginx", CONFIG, upstream=self.upstream)
        self.port = self.nginx.port

    def stop(self) -> None:
        self.nginx.stop()
        self.web.stop()


@pytest.fixture(scope="module")
def proxied(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Proxied]:
    nginx_or_skip()
    found = Proxied(tmp_path_factory.mktemp("proxied"))
    yield found
    found.stop()


def _socket(port: int, source: str, host: str, headers: dict[str, str] | None = None
            ) -> ClientConnection:
    """A WebSocket to ``port`` from the loopback address ``source``, naming ``host``."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=5,
                                    source_address=(source, 0))
    return connect(f"ws://{host}/ws", sock=sock, origin=f"http://{host}",  # type: ignore[arg-type]
                   additional_headers=headers or {}, open_timeout=5)


def _alive(ws: ClientConnection) -> bool:
    try:
        ws.recv(timeout=0.3)
    except TimeoutError:
        return True
    except ConnectionClosed:
        return False
    return True  # a message: still open


def _evicted(ws: ClientConnection) -> bool:
    """The connection was closed for the per-address limit (not the first-line timeout)."""
    said = []
    try:
        while True:
            said.append(str(ws.recv(timeout=3)))
    except ConnectionClosed:
        return any(FULL in line for line in said)
    except TimeoutError:
        return False


def test_proxied_clients_have_their_own_addresses_a_direct_peers_header_is_not_believed(
        proxied: Proxied) -> None:
    via = f"127.0.0.1:{proxied.port}"
    with contextlib.ExitStack() as stack:
        def opened(port: int, source: str, host: str, **headers: str) -> ClientConnection:
            return stack.enter_context(_socket(port, source, host, headers))

        a = [opened(proxied.port, "127.0.0.2", via) for _ in range(2)]
        b = [opened(proxied.port, "127.0.0.3", via) for _ in range(2)]
        # four waiting connections through one proxy, two addresses: none evicted
        assert all(_alive(ws) for ws in a + b)
        a.append(opened(proxied.port, "127.0.0.2", via))  # a third from 127.0.0.2
        assert _evicted(a[0])  # its own oldest goes
        assert all(_alive(ws) for ws in a[1:] + b)  # the other address's are untouched
        # direct, not a proxy: each says another X-Forwarded-For, all are one address
        direct = f"127.0.0.1:{proxied.upstream}"
        d = [opened(proxied.upstream, "127.0.0.4", direct, **{"X-Forwarded-For": f"10.0.0.{n}"})
             for n in range(3)]
        assert _evicted(d[0])


def _post(port: int, host: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/tables", data=json.dumps(body).encode(),
        headers={"Host": host, "Origin": f"http://{host}", "content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return int(answer.status), json.load(answer)
    except urllib.error.HTTPError as exc:
        return exc.code, {}


def test_the_public_name_works_through_the_proxy(proxied: Proxied) -> None:
    public = f"{PUBLIC}:{proxied.port}"
    table = {"game": "xactika", "rounds": 1, "players": 2, "seats": ["open", "1"]}
    status, made = _post(proxied.port, public, table)
    assert status == 200, made
    with _socket(proxied.port, "127.0.0.5", public) as ws:
        ws.send(f"watch {made['table']['id']} name=viewer")
        assert str(ws.recv(timeout=10)).split()[0] in ("hello", "newgame", "chat", "say")
    assert _post(proxied.port, f"evil.example:{proxied.port}", table)[0] == 400
    with pytest.raises(Exception, match="HTTP 400"):
        _socket(proxied.port, "127.0.0.5", f"evil.example:{proxied.port}")


# --------------------------------------------------------------------------- issue 40, item 1

TABLE = {"game": "xactika", "rounds": 1, "players": 2, "seats": ["open", "1"]}
WAITING = "tables of yours"  # the lobby's per-address refusal (protocol/net/lobby.py)


def _forged(address: str) -> list[list[tuple[str, str]]]:
    """Headers a client sends to pass for ``address`` (one list per request): every
    forwarding header, repeated, in IPv6 and in odd spellings."""
    v6 = "2001:db8::" + address.rsplit(".", 1)[1]
    return [[("Forwarded", f"for={address}")],
            [("Forwarded", f'for="[{v6}]:4711";proto=https;host={PUBLIC}')],
            [("Forwarded", f"For={address}, for={address}")],
            [("X-Forwarded-For", address)],
            [("X-Forwarded-For", address), ("X-Forwarded-For", address)],
            [("X-Forwarded-For", f"{address}, {address}"), ("X-Forwarded-For", v6)],
            [("X-Forwarded-For", f"::ffff:{address}")],
            [("X-Forwarded-For", f"[{v6}]:80")],
            [("X-Forwarded-For", f" {address}:443 ,")],
            [("X-Real-IP", address)],
            [("X-Forwarded-Host", PUBLIC), ("Forwarded", f"for={address};host={PUBLIC}")]]


def _request(port: int, source: str, headers: list[tuple[str, str]], host: str = "",
             origin: str = "", method: str = "POST") -> tuple[int, str]:
    """A lobby POST (or a GET of the lobby page) from ``source`` with extra (repeatable)
    headers: the status and the text."""
    host = host or f"{PUBLIC}:{port}"
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10,
                                      source_address=(source, 0))
    try:
        body = json.dumps(TABLE).encode() if method == "POST" else b""
        conn.putrequest(method, "/api/tables" if method == "POST" else "/", skip_host=True)
        for name, value in [("Host", host), ("Origin", origin or f"http://{host}"),
                            ("Content-Type", "application/json"),
                            ("Content-Length", str(len(body))), *headers]:
            conn.putheader(name, value)
        conn.endheaders(body)
        answer = conn.getresponse()
        return answer.status, answer.read().decode()
    finally:
        conn.close()


def _create(port: int, source: str, headers: list[tuple[str, str]], host: str = "",
            origin: str = "") -> tuple[int, str]:
    return _request(port, source, headers, host, origin)


def test_a_clients_own_forwarding_headers_do_not_change_its_address(proxied: Proxied) -> None:
    """One client (127.0.0.2x) forges every header naming many addresses: it opens only
    the 2 tables its own address may have waiting, through the proxy and straight from a
    trusted peer alike (the server alone holds, README's block aside)."""
    for via, source in ((proxied.port, "127.0.0.21"), (proxied.upstream, "127.0.0.1")):
        if source == "127.0.0.1":  # straight from the trusted peer: its only header counts
            forged = [h for h in (_forged(f"10.9.9.{n}") for n in range(8)) for h in h
                      if not any(name == "X-Forwarded-For" for name, _ in h)]
        else:
            forged = [h for n in range(8) for h in _forged(f"10.9.9.{n}")]
        answers = [_create(via, source, headers) for headers in forged]
        made = [a for a in answers if a[0] == 200]
        assert len(made) <= 2, (via, len(made), len(forged))
        refused = [text for status, text in answers if status != 200]
        assert refused and all(WAITING in text for text in refused), refused[:3]


def test_a_client_cannot_use_up_a_victims_quota(proxied: Proxied) -> None:
    victim = "127.0.0.23"
    for headers in _forged(victim) * 2:
        _create(proxied.port, "127.0.0.22", headers)
    status, text = _create(proxied.port, victim, [])
    assert status == 200, text  # the victim's first table: no "2 tables of yours"


def test_forwarded_hosts_change_no_host_a_check_sees(proxied: Proxied) -> None:
    """A DNS-rebinding page names its own host; a header naming the public one does not
    make it served (through the proxy, or straight from the trusted peer)."""
    for via, source in ((proxied.port, "127.0.0.24"), (proxied.upstream, "127.0.0.1")):
        evil = f"evil.example:{via}"
        for headers in ([("X-Forwarded-Host", PUBLIC)], [("Forwarded", f"host={PUBLIC}")],
                        [("Forwarded", f'host="{PUBLIC}";proto=http')],
                        [("X-Forwarded-Host", PUBLIC), ("X-Forwarded-Host", PUBLIC)]):
            status, text = _create(via, source, headers, host=evil,
                                   origin=f"http://{PUBLIC}:{via}")
            assert status == 400, (via, headers, text)
            assert '"table"' not in text
            page = _request(via, source, headers, host=evil, method="GET")
            assert page[0] == 400, (via, headers, page[0])  # not the lobby's page


def test_forged_headers_on_websockets_share_one_address(proxied: Proxied) -> None:
    via = f"127.0.0.1:{proxied.port}"
    with contextlib.ExitStack() as stack:
        forged = [{"Forwarded": f"for=10.8.8.{n}", "X-Real-IP": f"10.7.7.{n}"}
                  for n in range(3)]
        sockets = [stack.enter_context(_socket(proxied.port, "127.0.0.25", via, h))
                   for h in forged]
        assert _evicted(sockets[0])  # three from one address, the limit is 2
