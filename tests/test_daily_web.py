"""Issue 45: the daily deal on the web (``/daily``, ``/api/daily``), tried as its player
and as an attacker: before the close nothing of the deals, the seed or anyone's results
leaves (no page, API, record, replay, watch or error); after it the seed opens the
commitment, the records' deals are the committed ones, and the leaderboard is there."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from dailykit import ORIGIN, TINY, Browser, Clock, daily_for, engine_for, play_seat
from netkit import until

from xactika.frontends.daily.deals import committed, deal_seed
from xactika.frontends.web.app import create_app
from xactika.frontends.web.dailypages import COOKIE, PER_ADDRESS
from xactika.protocol.net.server import Server

pytestmark = pytest.mark.filterwarnings("ignore:.*httpx.*")  # TestClient's notice on httpx
DAY = dt.date(2026, 12, 2)
NOON = dt.datetime(2026, 12, 2, 12, tzinfo=dt.UTC)
AFTER = dt.datetime(2026, 12, 3, 0, 0, 1, tzinfo=dt.UTC)


@pytest.fixture(params=["sqlite", "postgres"])
def site(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Any, Clock]]:
    from starlette.testclient import TestClient

    url = None if request.param == "sqlite" else request.getfixturevalue("pg_cluster").database()
    engine = engine_for(tmp_path, url)
    clock = Clock(NOON)
    out = tmp_path / "records"  # the server's records folder, which the viewer serves
    out.mkdir()
    app = create_app(Server(out=out), daily=daily_for(engine, clock))
    with TestClient(app.asgi, base_url="http://127.0.0.1") as client:
        browser = Browser(client)
        browser.app = app
        yield browser, clock
    engine.dispose()


def another(browser: Browser) -> Browser:
    """A second browser on the same app: its own cookie jar."""
    return Browser(browser.client)


def start(client: Any, deal: int, **extra: Any) -> dict[str, Any]:
    answer = client.post("/api/daily/play", json={"deal": deal, **extra}, headers=ORIGIN)
    body: dict[str, Any] = answer.json()
    return body


def progress(client: Any, **query: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = client.get("/api/daily", params=query).json()["progress"]
    return found


def play_deal(client: Any, deal: int, **extra: Any) -> tuple[int, list[str]]:
    made = start(client, deal, **extra)
    assert "error" not in made, made
    seen = play_seat(client, made["token"])
    until(lambda: progress(client, **({"day": extra["day"]} if "day" in extra else {}))
          [deal - 1]["state"] == "done", "the deal's end in the database")
    return made["table"], seen


def test_a_day_is_committed_played_and_revealed(site: tuple[Any, Clock]) -> None:
    client, clock = site
    first = client.get("/api/daily")
    assert first.status_code == 200 and COOKIE in client.jar
    cookie_line = first.headers["set-cookie"]
    assert "HttpOnly" in cookie_line and "SameSite=lax" in cookie_line
    today = first.json()
    assert today["number"] == (DAY - dt.date(2026, 1, 1)).days + 1
    assert not {"seed", "nonce", "leaderboard", "par", "deal_seeds"} & set(today)
    page = client.get("/daily")
    assert today["commit"] in page.text
    tables, lines = [], []
    for deal in range(1, TINY.deals + 1):
        number, seen = play_deal(client, deal)
        tables.append(number)
        lines += seen
        assert any("game-over" in line for line in seen)
    mine = progress(client)
    assert [p["state"] for p in mine] == ["done"] * TINY.deals
    assert all(p["rated"] for p in mine)
    before = client.get("/api/daily").json()
    assert not {"seed", "nonce", "leaderboard", "par"} & set(before)

    clock.at = AFTER
    after = client.get("/api/daily", params={"day": DAY.isoformat()}).json()
    seed, nonce = int(after["seed"]), after["nonce"]
    assert committed("xactika", seed, nonce, today["commit"])
    assert sum(line.startswith("newgame") and "hint=off" in line for line in lines) == 3
    # the table told each deal's own seed at its end, never the day's nor its nonce
    assert not [line for line in lines if str(seed) in line or nonce in line]
    assert [k for k in range(TINY.deals)
            if any(f"seed={deal_seed(seed, k)}" in line for line in lines)] == [0, 1, 2]
    assert after["deal_seeds"] == [str(deal_seed(seed, k)) for k in range(TINY.deals)]
    (row,) = after["leaderboard"]
    assert row["rank"] == 1 and re.fullmatch(r"guest-[0-9a-f]{6}", row["name"])
    share = after["you"]["share"]
    assert re.fullmatch(r"Xactika daily #\d+ \d+% [\U0001F7E5\U0001F7E8\U0001F7E9]{3}", share)
    assert share.split()[3] == f"{after['you']['percent']}%"
    for k in range(TINY.deals):  # each record's deal is the committed one
        record = client.get(f"/daily/record/{DAY}/{k + 1}/{row['name']}")
        assert record.status_code == 200
        assert f"seed={deal_seed(seed, k)}" in record.text
    shown = client.get("/daily", params={"day": DAY.isoformat()}).text
    assert after["seed"] in shown and share in shown


def test_before_the_close_nothing_leaks(site: tuple[Any, Clock], tmp_path: Path) -> None:
    client, clock = site
    client.get("/daily")
    number, _seen = play_deal(client, 1)
    name = client.get("/api/daily").json()
    # the table is nobody's business: not listed, no record, no replay, not watched, and
    # each refusal is the one a table that never was gets
    assert all(t["id"] != number for t in client.get("/api/tables").json())
    never = number + 50
    for path in ("/api/tables/{}/record", "/table/{}/replay"):
        mine, none = client.get(path.format(number)), client.get(path.format(never))
        assert (mine.status_code, mine.text.replace(str(number), "N")) == \
            (none.status_code, none.text.replace(str(never), "N"))
    with client.websocket_connect("ws://127.0.0.1/ws", headers=ORIGIN) as ws:
        ws.send_text(f"watch {number}")
        assert "error" in ws.receive_text()
    # its record is not in the records folder, so the replay viewer has none to show
    assert not [p for p in (tmp_path / "records").rglob("*") if p.is_file()]
    record = client.app.lobby.private[number].table.record  # written where nobody serves
    assert record is not None and (tmp_path / "records") not in record.parents
    viewer = client.get("/replay/api/record", params={"file": f"table-{number:04d}.log"})
    assert viewer.status_code == 404
    # the record, by any name, is not served before the close
    for who in ("guest-000000", "x"):
        got = client.get(f"/daily/record/{DAY}/1/{who}")
        assert got.status_code == 404 and "close" in got.text
    # another browser sees its own progress only, and no seed in any answer or page
    other = another(client)
    assert [p["state"] for p in progress(other)] == ["new"] * TINY.deals
    clock.at = AFTER
    seed = client.get("/api/daily", params={"day": DAY.isoformat()}).json()["seed"]
    clock.at = NOON
    answers = [client.get("/api/daily").text, client.get("/daily").text,
               other.get("/api/daily").text, other.get("/daily?lang=de").text,
               client.get(f"/api/daily?day={DAY}&seed=1").text,
               start(client, 1)["error"], start(other, 9)["error"],
               client.get("/api/daily?day=2026-12-09").text]
    assert name["commit"] in answers[0]
    assert not any(seed in text for text in answers)
    assert not any(str(deal_seed(int(seed), 0)) in text for text in answers)


def test_one_deal_at_a_time_and_the_first_attempt_counts(site: tuple[Any, Clock]) -> None:
    client, _clock = site
    client.get("/daily")
    made = start(client, 1)
    seen = play_seat(client, made["token"], stop="go")  # a card of the deal in hand, then away
    assert any(line.startswith("go") for line in seen)
    again = start(client, 1)  # the same seat back: paused, not dealt again
    assert (again["table"], again["token"]) == (made["table"], made["token"])
    assert "finish deal 1 first" in start(client, 2)["error"]
    play_seat(client, made["token"])
    until(lambda: progress(client)[0]["state"] == "done", "deal 1's end")
    assert "first attempt counts" in start(client, 1)["error"]
    assert "error" not in start(client, 2)
    # a deal out of range, a day to come, a day nobody opened: one line each
    assert "deals 1 to 3" in start(client, 9)["error"]
    assert "from 1 to 3" in start(client, True)["error"]  # a bool is no deal number
    assert "not open yet" in start(client, 1, day="2026-12-05")["error"]
    assert "nobody opened" in start(client, 1, day="2026-11-05")["error"]
    assert "YYYY-MM-DD" in start(client, 1, day="yesterday")["error"]
    assert "rematch" in client.post("/api/rematch", json={"token": made["token"]},
                                    headers=ORIGIN).json()["error"]


def test_requests_from_elsewhere_and_without_the_cookie_are_refused(
        site: tuple[Any, Clock]) -> None:
    client, _clock = site
    assert "open /daily first" in start(client, 1)["error"]  # no cookie yet
    client.get("/daily")
    forged = client.post("/api/daily/play", json={"deal": 1},
                         headers={"origin": "http://evil.example"})
    assert forged.status_code == 400 and "this site's pages" in forged.json()["error"]
    client.jar[COOKIE] = "<script>"  # a made-up cookie is no guest id: a new one
    answer = client.get("/api/daily")
    assert answer.status_code == 200 and client.jar.get(COOKIE) not in (None, "<script>")
    assert progress(client)[0]["state"] == "new"


def test_a_past_day_is_played_unrated_against_everyone(site: tuple[Any, Clock]) -> None:
    client, clock = site
    client.get("/daily")
    play_deal(client, 1)
    clock.at = AFTER  # the next day: yesterday's deals are open to a newcomer, unrated
    late = another(client)
    late.get("/daily")
    play_deal(late, 1, day=DAY.isoformat())
    yesterday = late.get("/api/daily", params={"day": DAY.isoformat()}).json()
    assert yesterday["progress"][0]["rated"] is False
    assert len(yesterday["leaderboard"]) == 1  # the rated player alone
    assert yesterday["you"]["shares"][0] is not None  # yet compared with everyone
    german = late.get("/daily", params={"day": DAY.isoformat(), "lang": "de"}).text
    assert german.count("(ungewertet)") == 1 and "Rangliste" in german


class FakeAccounts:
    """The accounts' pages as the daily deal asks them (``app.state.accounts``): the
    signed-in account by its session cookie."""

    async def signed_in(self, request: Any) -> Any:
        from types import SimpleNamespace

        return SimpleNamespace(id=7, name="Ann") if request.cookies.get("sess") else None


def test_a_signed_in_person_plays_under_their_account(site: tuple[Any, Clock]) -> None:
    client, clock = site
    client.app.app.state.accounts = FakeAccounts()
    client.jar["sess"] = "1"
    assert "error" not in start(client, 1)  # no guest cookie needed: the account is enough
    client.jar.pop("sess")  # the same browser signed out is a guest, with its own progress
    client.get("/daily")
    assert progress(client)[0]["state"] == "new"
    client.jar["sess"] = "1"
    assert progress(client)[0]["state"] == "playing"
    made = start(client, 1)
    play_seat(client, made["token"])
    until(lambda: progress(client)[0]["state"] == "done", "the deal's end")
    clock.at = AFTER
    board = client.get("/api/daily", params={"day": DAY.isoformat()}).json()["leaderboard"]
    assert [row["name"] for row in board] == ["Ann"]


def test_one_address_has_a_few_daily_tables_in_play_however_many_cookies(
        site: tuple[Any, Clock]) -> None:
    client, _clock = site
    browsers = [another(client) for _ in range(PER_ADDRESS + 1)]
    made = []
    for browser in browsers:
        browser.get("/daily")
        made.append(start(browser, 1))
    assert all("table" in m for m in made[:PER_ADDRESS])
    assert f"{PER_ADDRESS} daily deals are in play from your address" in made[-1]["error"]
    again = start(browsers[0], 1)  # one's own deal in play goes on
    assert again["table"] == made[0]["table"]
    play_seat(browsers[0], made[0]["token"])
    until(lambda: progress(browsers[0])[0]["state"] == "done", "the deal's end")
    assert "table" in start(browsers[-1], 1)  # a place freed
