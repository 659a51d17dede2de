"""Issue 45, "Past one process": two ``xactika web`` processes (``--shard 0/2`` and
``1/2``) behind the real nginx, on one PostgreSQL. The lobby through the proxy lists both
processes' tables; a table's page, requests and WebSocket (``/ws?table=N``) reach the
process that holds it, routed by the number's last digit; the daily deal is one day for
both (one commitment), a person's daily requests kept on one process by their cookie."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from netkit import until
from nginxkit import HEADER, Nginx, nginx_or_skip
from webkit import ROOT, WebServer
from websockets.sync.client import connect

CONFIG = HEADER + """    # a table's number names its process: even numbers 0/2's, odd ones 1/2's
    map $arg_table $by_query {{ ~^[0-9]*[02468]$ even; ~^[0-9]*[13579]$ odd; default any; }}
    map $cookie_xactika_session $person {{
        '' $cookie_xactika_daily; default $cookie_xactika_session; }}
    map $uri $backend {{
        ~^/(table|api/tables)/[0-9]*[02468](/|$) even;
        ~^/(table|api/tables)/[0-9]*[13579](/|$) odd;
        ~^/(daily|api/daily)(/|$) person;
        default $by_query;
    }}
    upstream even {{ server 127.0.0.1:{even}; }}
    upstream odd {{ server 127.0.0.1:{odd}; }}
    upstream any {{ server 127.0.0.1:{even}; server 127.0.0.1:{odd}; }}
    upstream person {{ hash $person consistent; server 127.0.0.1:{even}; server 127.0.0.1:{odd}; }}
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://$backend;
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_read_timeout 1h;
        }}
    }}
}}
"""


class Cluster:
    """Two web processes on one database, and nginx in front."""

    def __init__(self, tmp: Path, url: str) -> None:
        self.webs: list[WebServer] = []
        for k in range(2):  # a site folder each, one database
            self.webs.append(WebServer(tmp / f"web{k}", 21 + k,
                                       ["--shard", f"{k}/2", "--trusted-proxy", "127.0.0.1",
                                        "--site", str(tmp / f"site{k}"), "--site-db", url]))
        ports = [int(w.url.rsplit(":", 1)[1]) for w in self.webs]
        self.nginx = Nginx(tmp / "nginx", CONFIG, even=ports[0], odd=ports[1])
        self.port = self.nginx.port
        self.url = f"http://127.0.0.1:{self.port}"

    def stop(self) -> list[str]:
        self.nginx.stop()
        return [w.stop() for w in self.webs]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory, pg_cluster: Any) -> Iterator[Cluster]:
    nginx_or_skip()
    found = Cluster(tmp_path_factory.mktemp("cluster"), pg_cluster.database())
    yield found
    for err in found.stop():
        assert "Traceback" not in err, err


def _get(url: str, cookie: str = "") -> tuple[Any, str]:
    request = urllib.request.Request(url, headers={"Cookie": cookie} if cookie else {})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer), answer.headers.get("set-cookie", "")


def _create(base: str, name: str) -> dict[str, Any]:
    """A table of one person and three bots, made at ``base`` (a process, not the proxy)."""
    host = base.split("//")[1]
    request = urllib.request.Request(
        base + "/api/tables", data=json.dumps({"name": name, "rounds": 1,
                                               "seats": ["open", "3", "3", "3"]}).encode(),
        headers={"Origin": f"http://{host}", "content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        made: dict[str, Any] = json.load(answer)
    return made


def test_the_lobby_lists_both_processes_and_each_table_is_reached_through_the_proxy(
        cluster: Cluster) -> None:
    made = [_create(web.url, f"person{k}") for k, web in enumerate(cluster.webs)]
    numbers = [m["table"]["id"] for m in made]
    assert [n % 2 for n in numbers] == [0, 1]  # each process numbers its own tables

    def listed(url: str) -> bool:
        return set(numbers) <= {t["id"] for t in _get(url + "/api/tables")[0]}

    for web in cluster.webs:  # each process lists the other's as soon as it published
        until(lambda url=web.url: listed(url), f"both processes' tables at {web.url}")
    assert all(listed(cluster.url) for _ in range(4))  # the proxy's lobby, either process
    host = f"127.0.0.1:{cluster.port}"
    for number, m in zip(numbers, made, strict=True):
        page = urllib.request.urlopen(f"{cluster.url}/table/{number}", timeout=10)
        assert page.status == 200
        with connect(f"ws://{host}/ws?table={number}", origin=f"http://{host}",
                     open_timeout=5) as ws:
            ws.send(f"seat {m['invites']['0']}")  # known only to the process holding it
            seen = ""
            deadline = time.monotonic() + 20
            while f"seated table={number}" not in seen and time.monotonic() < deadline:
                seen += str(ws.recv(timeout=10))
            assert f"seated table={number} seat=0" in seen


def test_the_daily_deal_is_one_day_for_both_processes(cluster: Cluster) -> None:
    commits = {_get(web.url + "/api/daily")[0]["commit"] for web in cluster.webs}
    assert len(commits) == 1  # the first process made the day; the second reads it
    body, cookie = _get(cluster.url + "/api/daily")
    assert body["commit"] in commits and "xactika_daily=" in cookie


def test_a_shard_numbers_its_tables_k_mod_n_and_a_bad_one_is_one_line() -> None:
    import asyncio

    from xactika.protocol.net.server import Server

    async def numbers() -> list[int]:
        server = Server(shard=(1, 3))
        made = [server.add_table(server.settings({"rounds": "1"})).id for _ in range(3)]
        await server.close()
        return made

    assert asyncio.run(numbers()) == [1, 4, 7]
    with pytest.raises(ValueError, match="0 <= K < N"):
        Server(shard=(3, 3))
    bad = subprocess.run([sys.executable, "-m", "xactika.frontends.cli", "web",
                          "--shard", "2/2"], capture_output=True, text=True, cwd=ROOT)
    assert bad.returncode == 2 and "--shard: expected K/N" in bad.stderr


def test_a_persons_daily_deal_stays_on_one_process_through_the_proxy(
        cluster: Cluster) -> None:
    host = f"127.0.0.1:{cluster.port}"
    for _person in range(2):  # two people, whichever process their cookie hashes to
        _body, set_cookie = _get(cluster.url + "/api/daily")
        cookie = set_cookie.split(";")[0]

        def play(cookie: str = cookie) -> dict[str, Any]:
            request = urllib.request.Request(
                cluster.url + "/api/daily/play", data=json.dumps({"deal": 1}).encode(),
                headers={"Origin": f"http://{host}", "Cookie": cookie,
                         "content-type": "application/json"})
            with urllib.request.urlopen(request, timeout=10) as answer:
                made: dict[str, Any] = json.load(answer)
            return made

        first, again = play(), play()  # "go on": the same seat, from the same process
        assert (again["table"], again["token"]) == (first["table"], first["token"])
        with connect(f"ws://{host}/ws?table={first['table']}", origin=f"http://{host}",
                     open_timeout=5) as ws:
            ws.send(f"seat {first['token']}")
            seen = ""
            deadline = time.monotonic() + 20
            while "seated table=" not in seen and time.monotonic() < deadline:
                seen += str(ws.recv(timeout=10))
            assert f"seated table={first['table']} seat=0" in seen
        listed = {t["id"] for t in _get(cluster.url + "/api/tables")[0]}
        assert first["table"] not in listed  # a daily table is never in the lobby
