"""Issue 45: a rated table played end to end on a real ``xactika web --site DIR``: only
accounts and named bots sit at it, the finished table rates its person once, the
person's page lists the game with its replay and record, leaving forfeits, and
``xactika account ratings`` recomputes the same ratings from the signed records alone."""

from __future__ import annotations

import http.cookiejar
import json
import re
import subprocess
import sys
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from netkit import until
from test_web_server import _lines, _socket
from webkit import WebServer

from xactika.protocol.records.textform import read_record

PASSWORD = "correct horse battery"


class Browser:
    """One person's cookies over urllib: sign up, post JSON, read pages."""

    def __init__(self, server: WebServer) -> None:
        self.url = server.url
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def open(self, path: str, data: bytes | None = None,
             headers: dict[str, str] | None = None) -> tuple[int, str]:
        request = urllib.request.Request(self.url + path, data=data,
                                         headers={"origin": self.url, **(headers or {})})
        try:
            with self.opener.open(request, timeout=20) as answer:
                return answer.status, answer.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode()

    def signup(self, name: str) -> int:
        form = urllib.parse.urlencode({"name": name, "password": PASSWORD}).encode()
        return self.open("/signup", form, {"content-type": "application/x-www-form-urlencoded"})[0]

    def post(self, path: str, body: dict[str, Any]) -> Any:
        return json.loads(self.open(path, json.dumps(body).encode(),
                                    {"content-type": "application/json"})[1])

    def get_json(self, path: str) -> Any:
        return json.loads(self.open(path)[1])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    site = tmp_path_factory.mktemp("site") / "site"
    web = WebServer(tmp_path_factory.mktemp("web"), 45, extra=["--site", str(site)])
    web.site = site  # type: ignore[attr-defined]
    yield web
    err = web.stop()
    assert "Traceback" not in err, err


def play_out(server: WebServer, token: str) -> list[str]:
    with _socket(server) as ws:
        ws.send(f"seat {token}")
        return _lines(ws, "quit", 60)


def test_a_rated_table_rates_its_person_once(server: WebServer, tmp_path: Path) -> None:
    ann = Browser(server)
    assert ann.signup("ann") == 200  # redirected to her page
    made = ann.post("/api/rated", {"seats": ["open", "2", "1"], "players": 3, "rounds": 1})
    number, token = made["table"]["id"], made["invites"]["0"]
    seen = play_out(server, token)
    newgame = next(line for line in seen if line.startswith("newgame"))
    assert "hint=off" in newgame  # no hint bot at a rated table
    until(lambda: ann.get_json("/api/people/ann")["games"], "the table rated")
    person = ann.get_json("/api/people/ann")
    (rating,) = person["ratings"]
    (game,) = person["games"]
    assert rating["games"] == 1 and rating["shown"].endswith("?")
    assert game["seats"][0] == "ann" and len(game["seats"]) == 3
    record = server.out / game["record"]
    kept = read_record(record)
    assert kept.header("rated") == "yes" and kept.header("server.table") == str(number)
    text = record.read_text()
    assert PASSWORD not in text and "argon2" not in text and "xactika_session" not in text
    status, page = ann.open("/people/ann")
    assert status == 200 and game["replay"].replace("&", "&amp;") in page
    assert ann.open(game["replay"])[0] == 200
    status, download = ann.open(f"/rated/{game['id']}/record")
    assert status == 200 and download == text
    # asked again (a restart's catch-up), the same table changes nothing
    site = server.site  # type: ignore[attr-defined]
    ratings_before = ann.get_json("/api/people/ann")["ratings"]
    out = subprocess.run([sys.executable, "-m", "xactika.frontends.cli", "account", "ratings",
                          str(site), "--records", str(server.out)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert re.search(r"\b1 rated games? applied again", out.stdout), out.stdout
    assert ann.get_json("/api/people/ann")["ratings"] == ratings_before


def test_leaving_a_rated_table_forfeits(server: WebServer) -> None:
    bea = Browser(server)
    assert bea.signup("bea") == 200
    made = bea.post("/api/rated", {"seats": ["open", "1", "1"], "players": 3, "rounds": 1})
    token = made["invites"]["0"]
    with _socket(server) as ws:
        ws.send(f"seat {token}")
        _lines(ws, "go", 30, answer=False)
        assert bea.post("/api/seat", {"token": token, "action": "leave"}) == {"seat": 0}
    until(lambda: bea.get_json("/api/people/bea")["games"], "the left table rated")
    (game,) = bea.get_json("/api/people/bea")["games"]
    assert game["place"] == 3  # a forfeit places last
    kept = read_record(server.out / game["record"])
    assert ("forfeit", "0") in kept.headers
    assert not any(k == "stand-in" and v.startswith("0 ") and "strong" in v
                   for k, v in kept.headers)  # no bot kept the seat for her


def test_a_guest_cannot_open_or_join_a_rated_table(server: WebServer) -> None:
    guest, cid = Browser(server), Browser(server)
    assert "sign in" in guest.post("/api/rated", {"seats": ["open", "1"], "players": 2})[
        "error"]
    assert cid.signup("cid") == 200
    made = cid.post("/api/rated", {"seats": ["open", "open", "1"], "players": 3})
    number = made["table"]["id"]
    assert "sign in" in guest.post(f"/api/tables/{number}/take", {"seat": 1})["error"]
    # the same person twice at one table: refused (one account, one seat)
    assert "taken" in cid.post(f"/api/tables/{number}/take", {"seat": 1})["error"]


def test_a_kill_before_the_rating_is_caught_up_from_the_records(server: WebServer) -> None:
    """A table whose record was written but whose rating a kill lost is rated at the next
    start (``catch_up``, what serve.py calls): once, however often it runs."""
    import sqlalchemy as sa

    from xactika.frontends.accounts import ratings
    from xactika.frontends.accounts.store import (
        Site,
        rated_games,
        rating_history,
    )
    from xactika.frontends.accounts.store import (
        ratings as rating_rows,
    )
    from xactika.protocol.trust.signing import signer_for

    dan = Browser(server)
    assert dan.signup("dan") == 200
    made = dan.post("/api/rated", {"seats": ["open", "1"], "players": 2, "rounds": 1})
    play_out(server, made["invites"]["0"])
    until(lambda: dan.get_json("/api/people/dan")["games"], "dan's table rated")
    site = Site.open(server.site)  # type: ignore[attr-defined]
    try:
        keys = [signer_for(None).public]
        assert ratings.catch_up(site.engine, server.out, keys) == 0  # nothing left over
        with site.engine.begin() as conn:  # as if killed before the rating
            conn.execute(sa.delete(rating_history))
            conn.execute(sa.delete(rating_rows))
            conn.execute(sa.delete(rated_games))
        assert dan.get_json("/api/people/dan")["games"] == []
        applied = ratings.catch_up(site.engine, server.out, keys)
        assert applied >= 1 and ratings.catch_up(site.engine, server.out, keys) == 0
        (game,) = dan.get_json("/api/people/dan")["games"]
        assert game["seats"][0] == "dan"
    finally:
        site.close()


def test_a_timeout_at_a_rated_table_forfeits(server: WebServer) -> None:
    """No bot keeps a rated seat for its person: the first timeout forfeits it."""
    eve = Browser(server)
    assert eve.signup("eve") == 200
    made = eve.post("/api/rated", {"seats": ["open", "1"], "players": 2, "rounds": 1,
                                   "clock": "1+0", "on_timeout": "bot"})
    assert made["table"]["on_timeout"] == "forfeit"  # whatever the form asked
    with _socket(server) as ws:
        ws.send(f"seat {made['invites']['0']}")
        seen = _lines(ws, "go", 30, answer=False)  # asked, and never answering
        seen += _lines(ws, "error", 30, answer=False)
    assert any("timeout" in line for line in seen), seen[-3:]
    until(lambda: eve.get_json("/api/people/eve")["games"], "the timed-out table rated")
    (game,) = eve.get_json("/api/people/eve")["games"]
    assert game["place"] == 2
    kept = read_record(server.out / game["record"])
    assert ("forfeit", "0") in kept.headers
    assert any(k == "fault" and v.startswith("0 timeout") for k, v in kept.headers)


def test_a_seat_follows_its_person_across_a_restart(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """The journal keeps whose seats they were; after a restart (which keeps only the
    tokens' hashes) the person, logged in anew, gets a new token that works."""
    site = tmp_path_factory.mktemp("site2") / "site"
    out = tmp_path_factory.mktemp("web2")
    first = WebServer(out, 46, extra=["--site", str(site)])
    try:
        fay = Browser(first)
        assert fay.signup("fay") == 200
        made = fay.post("/api/rated", {"seats": ["open", "open", "1"], "players": 3})
        number, old = made["table"]["id"], made["invites"]["0"]
    finally:
        assert "Traceback" not in first.stop()
    second = WebServer(out, 46, extra=["--site", str(site)])
    try:
        again = Browser(second)
        form = urllib.parse.urlencode({"name": "FAY", "password": PASSWORD}).encode()
        assert again.open("/login", form,
                          {"content-type": "application/x-www-form-urlencoded"})[0] == 200
        (seat,) = again.post("/api/me/seats", {})["seats"]
        assert (seat["table"], seat["seat"], seat["rated"]) == (number, 0, True)
        assert seat["token"] and seat["token"] != old
        with _socket(second) as ws:
            ws.send(f"seat {seat['token']}")
            seen = _lines(ws, "seated", 20, answer=False)
        assert any(line.startswith(f"seated table={number} seat=0") for line in seen)
    finally:
        assert "Traceback" not in second.stop()
