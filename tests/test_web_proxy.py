"""Issue 30, item 7: ``xactika web`` behind a real reverse proxy (Debian's nginx, started
here as the test's own process with a temporary prefix and stopped after).

(a) Through the proxy, clients at different addresses get separate per-address limits
    (the proxy's ``X-Forwarded-For`` is believed: it is a ``--trusted-proxy``), while a
    direct peer that is not a proxy gets its forwarding header ignored.
(b) The public name (``--allowed-host``) works through the proxy for the lobby's POST and
    the WebSocket, Host and Origin both; an unserved name is refused.

Each client comes from its own loopback address (127.0.0.2, .3, .4), which the proxy
puts in ``X-Forwarded-For`` as it would a real client's.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from webkit import WebServer
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

NGINX = "/usr/sbin/nginx"
PUBLIC = "cards.example"
FULL = "too many connections"  # the server's eviction (protocol/net/server.py)

CONFIG = """
daemon off;
master_process off;
worker_processes 1;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log;
events {{ worker_connections 128; }}
http {{
    access_log off;
    client_body_temp_path {prefix}/body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;
    map $http_upgrade $connection_upgrade {{ default upgrade; '' close; }}
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://127.0.0.1:{upstream};
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto $scheme;
            proxy_read_timeout 1h;
        }}
    }}
}}
"""


def _nginx_or_skip() -> None:
    if not os.access(NGINX, os.X_OK):
        if os.environ.get("XACTIKA_REQUIRE_BROWSER"):  # CI installs it beside chromium
            pytest.fail(f"{NGINX} is missing (.ci/run installs Debian's nginx)")
        pytest.skip(f"{NGINX} is not installed")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Proxied:
    """``xactika web`` and an nginx in front of it."""

    def __init__(self, tmp: Path) -> None:
        self.web = WebServer(tmp / "web", 11, ["--trusted-proxy", "127.0.0.1",
                                               "--allowed-host", PUBLIC,
                                               "--max-per-address", "2"])
        self.upstream = int(self.web.url.rsplit(":", 1)[1])
        prefix = tmp / "nginx"
        prefix.mkdir()
        self.port = _free_port()
        (prefix / "nginx.conf").write_text(CONFIG.format(prefix=prefix, port=self.port,
                                                         upstream=self.upstream))
        self.nginx = subprocess.Popen([NGINX, "-p", str(prefix), "-c", str(prefix / "nginx.conf"),
                                       "-e", str(prefix / "error.log")],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                break
            except OSError:
                if self.nginx.poll() is not None:
                    break
                time.sleep(0.05)
        else:
            self.stop()
            raise AssertionError("nginx did not start")
        if self.nginx.poll() is not None:
            err = self.nginx.stderr.read().decode() if self.nginx.stderr else ""
            self.stop()
            raise AssertionError(f"nginx did not start: {err}")

    def stop(self) -> None:
        self.nginx.terminate()
        try:
            self.nginx.wait(10)
        except subprocess.TimeoutExpired:
            self.nginx.kill()
            self.nginx.wait()
        self.web.stop()


@pytest.fixture(scope="module")
def proxied(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Proxied]:
    _nginx_or_skip()
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
    with pytest.raises(Exception, match="HTTP 403"):
        _socket(proxied.port, "127.0.0.5", f"evil.example:{proxied.port}")
