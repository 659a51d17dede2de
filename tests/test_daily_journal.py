"""Issue 45: a daily deal in play survives ``kill -9`` of ``xactika web``: the real
process, killed mid-deal and started again, gives the person the same deal at the same
point through /daily, privately (never listed, its record never in ``--out``)."""

from __future__ import annotations

import asyncio
import http.cookiejar
import json
import os
import stat
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from dailykit import first_option
from netkit import Client, LiveServer
from test_web_crash import Web, free_port
from websockets.sync.client import connect

from xactika.protocol.net.journal import Journal
from xactika.protocol.net.server import Server
from xactika.protocol.trust.signing import write_key


class Guest:
    """One browser's cookies against the real server."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

    def get(self, path: str) -> Any:
        with self.opener.open(self.url + path, timeout=30) as answer:
            return json.load(answer)

    def post(self, path: str, body: dict[str, Any]) -> Any:
        request = urllib.request.Request(
            self.url + path, data=json.dumps(body).encode(), method="POST",
            headers={"content-type": "application/json", "origin": self.url})
        with self.opener.open(request, timeout=30) as answer:
            return json.load(answer)


def play(url: str, token: str, stop_at_go: int | None = None) -> dict[int, str]:
    """The seat played with first options: every event line by its seq, until ``quit``
    or until the ``stop_at_go``-th ``go`` (left unanswered)."""
    seen: dict[int, str] = {}
    gos = 0
    with connect(url.replace("http", "ws") + "/ws", origin=url,  # type: ignore[arg-type]
                 open_timeout=10) as ws:
        ws.send(f"seat {token}")
        while True:
            for line in str(ws.recv(timeout=60)).splitlines():
                word = line.split(" ", 1)[0]
                if word == "error":
                    raise AssertionError(line)
                if word == "event":
                    seen[int(line.split()[1])] = line
                elif word == "hello":
                    ws.send("hello 1 name=Web kind=human")
                elif word == "isready":
                    ws.send("readyok")
                elif word == "go":
                    gos += 1
                    if gos == stop_at_go:
                        return seen
                    ws.send(first_option(line))
                elif word == "quit":
                    return seen


def test_a_daily_deal_in_play_survives_a_kill_and_goes_on_where_it_was(
        tmp_path: Path) -> None:
    key, out, site = tmp_path / "key.pem", tmp_path / "out", tmp_path / "site"
    write_key(key)
    web = Web(free_port(), out, key)
    web.args += ["--site", str(site)]
    try:
        web.start()
        guest = Guest(web.url)
        assert guest.get("/api/daily")["progress"][1]["state"] == "new"
        first = guest.post("/api/daily/play", {"deal": 2})
        before = play(web.url, first["token"], stop_at_go=3)  # the bid and a card in
        assert len(before) > 3
        web.kill()
        assert "resumed 1 unfinished tables" in "\n".join(web.start())
        assert guest.get("/api/daily")["progress"][1]["state"] == "playing"
        assert json.loads(urllib.request.urlopen(web.url + "/api/tables",
                                                 timeout=30).read()) == []
        for name in ("journal.sqlite", "journal.sqlite-wal", "../out/journal.sqlite"):
            try:  # the journal holds the deal's seed: the viewer never serves it
                guest.get(f"/replay/api/record?file={name}")
                raise AssertionError(f"{name} served")
            except urllib.error.HTTPError as refused:
                assert refused.code in (400, 403, 404), (name, refused.code)
        again = guest.post("/api/daily/play", {"deal": 2})
        assert again["table"] == first["table"] and again["token"] != first["token"]
        after = play(web.url, again["token"])
        assert {seq: after[seq] for seq in before} == before  # the same deal, as it was
        assert len(after) > len(before)
        done = guest.get("/api/daily")["progress"][1]
        assert done["state"] == "done" and done["points"] is not None
    finally:
        if web.proc is not None and web.proc.poll() is None:
            web.proc.terminate()
            web.proc.wait(10)
    assert sorted(p.name for p in out.iterdir()
                  if p.suffix == ".log") == []  # its record went to the database only
    journal = out / "journal.sqlite"
    assert stat.S_IMODE(os.stat(journal).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o700


def test_a_private_table_is_in_no_lobby_and_comes_back_only_privately(
        tmp_path: Path) -> None:
    """The terminal lobby listed a daily table (its person's name with it) and let it be
    asked for; and journalled, it must come back to its private folder or not at all."""
    out, secret = tmp_path / "out", tmp_path / "secret"
    secret.mkdir()
    journal = Journal.open(out)
    with LiveServer(out, journal=journal) as live:
        async def make() -> tuple[int, list[str]]:
            server = live.server
            table = server.add_table(server.settings({"players": "4", "rounds": "1"}),
                                     ["ann"], private=secret)
            return table.id, server.lobby.tables()

        number, listed = live.call(make())
        client = Client(live.port)
        client.send("lobby")
        assert client.read() == "lobby ok"
        client.send(f"watch {number}")
        refused = client.read() or ""
        client.close()
    journal.close()
    assert listed == []
    assert refused == f"error no lobby table {number}", refused
    with LiveServer(out, journal=Journal.open(out)) as plain:  # no daily deal: not opened
        assert plain.server.tables == []
        plain.server.journal.close()  # type: ignore[union-attr]

    async def restored() -> list[tuple[int, bool, Path | None]]:
        server = Server(out=out, journal=Journal.open(out))
        try:
            return [(t.id, t.private, t.out) for t in server.restore(secret)]
        finally:
            server.journal.close()  # type: ignore[union-attr]

    assert asyncio.run(restored()) == [(number, True, secret)]
