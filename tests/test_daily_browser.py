"""Issue 45: the daily deal in Chromium at 375x667 and 1280x800, in English and German: a
deal played by clicks from ``/daily`` at the web's own table and back, yesterday's closed
day with its leaderboard and share line, 0 axe-core violations, no sideways scroll, a
name with markup shown as text; screenshots in test-artifacts/web/."""

from __future__ import annotations

import datetime as dt
import json
import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from axekit import axe_source, violations
from webkit import (
    DESKTOP,
    PHONE,
    WebServer,
    browser_session,
    no_horizontal_scroll,
    play_by_clicks,
    screenshot,
)

from xactika.frontends.accounts.store import Site
from xactika.frontends.daily.service import Daily
from xactika.frontends.daily.store import daily_plays
from xactika.frontends.web.dailypages import COOKIE, guest_key, guest_label

XSS = "<img src=x onerror=alert(1)>"


@pytest.fixture(scope="module")
def yesterday_cookie() -> str:
    return secrets.token_urlsafe(24)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, yesterday_cookie: str
           ) -> Iterator[WebServer]:
    """The daily deal's server, its database holding yesterday (closed): this browser's
    guest and a person with markup in the name played it."""
    base = tmp_path_factory.mktemp("daily-web")
    out = base / "out"
    out.mkdir()
    site = Site.open(base / "site", create=True)  # what 'xactika web --site' makes
    engine = site.engine
    today = dt.datetime.now(dt.UTC)
    yesterday = today - dt.timedelta(days=1)
    daily = Daily(engine, now=lambda: yesterday)
    day = daily.day()
    me = guest_key(yesterday_cookie)
    with engine.begin() as conn:
        for player, label, points in ((me, guest_label(me), [2, 1, 3, 0, 2, 1, 1, 2]),
                                      ("account:9", XSS, [1, 1, 2, 2, 0, 1, 3, 1])):
            for deal, got in enumerate(points):
                conn.execute(daily_plays.insert().values(
                    day=day.day.isoformat(), deal=deal, player=player, label=label,
                    rated=True, state="done", points=float(got), started=time.time(),
                    finished=time.time(), record="a record"))
    site.close()
    web = WebServer(out, 7, ["--site", str(base / "site")])
    yield web
    err = web.stop()
    assert "Traceback" not in err, err


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from browser_session()


def _yesterday() -> str:
    return (dt.datetime.now(dt.UTC) - dt.timedelta(days=1)).date().isoformat()


@pytest.mark.parametrize("size", [PHONE, DESKTOP])
def test_a_deal_played_from_the_daily_page_and_back(server: WebServer, browser: Any,
                                                    size: dict[str, int]) -> None:
    context = browser.new_context(viewport=size)
    page = context.new_page()
    source = axe_source()
    page.goto(server.url + "/?lang=en")  # the lobby leads to the daily deal
    assert violations(page, source) == []
    page.locator(".daily-link a").click()
    page.wait_for_url("**/daily")
    for lang in ("de", "en"):  # the German page looked at, the deal played in English
        page.goto(f"{server.url}/daily?lang={lang}")
        assert violations(page, source) == []
        no_horizontal_scroll(page)
        screenshot(page, f"daily-{size['width']}-{lang}-open")
    tag = f"daily-{size['width']}-en"
    commit = page.locator("#commit").text_content()
    assert commit is not None and len(commit) == 64
    page.locator("button[data-deal='1']").click()
    page.wait_for_url("**/table/*")
    page.locator("#join-name").fill("Ann")
    page.locator("#join-take").click()
    play_by_clicks(page)
    assert page.locator("#end a[href^='/daily']").is_visible()
    assert not page.locator("#rematch").is_visible()  # a daily deal has none
    screenshot(page, f"{tag}-end")
    page.locator("#end a[href^='/daily']").click()
    page.wait_for_url("**/daily*")
    played = page.locator(".daily-deals li").first.text_content() or ""
    assert "played: " in played
    assert page.locator("button[data-deal='2']").is_visible()
    assert violations(page, source) == []
    screenshot(page, f"{tag}-played")
    context.close()


@pytest.mark.parametrize(("size", "lang"), [(PHONE, "de"), (DESKTOP, "en")])
def test_yesterday_closed_with_its_leaderboard_and_share_line(
        server: WebServer, browser: Any, yesterday_cookie: str,
        size: dict[str, int], lang: str) -> None:
    context = browser.new_context(viewport=size)
    host = server.url.split("//")[1].split(":")[0]
    context.add_cookies([{"name": COOKIE, "value": yesterday_cookie, "domain": host,
                          "path": "/"}])
    page = context.new_page()
    page.goto(f"{server.url}/daily?day={_yesterday()}&lang={lang}")
    share = page.locator("#share").text_content() or ""
    assert share.startswith("Xactika daily #") and share.count("%") == 1
    names = page.locator(".board tbody th").all_text_contents()
    assert XSS in names and guest_label(guest_key(yesterday_cookie)) in names
    assert page.evaluate("() => document.querySelectorAll('.board img').length") == 0
    api = json.loads(page.evaluate("async () => JSON.stringify(await (await fetch("
                                   f"'/api/daily?day={_yesterday()}')).json())"))
    assert api["you"]["share"] == share and len(api["par"]) == 8
    assert violations(page, axe_source()) == []
    no_horizontal_scroll(page)
    screenshot(page, f"daily-{size['width']}-{lang}-closed")
    context.close()


def test_the_databases_file_is_outside_the_records_folder(server: WebServer) -> None:
    assert not list(Path(server.out).glob("*.db"))
    site_db = Path(server.out).parent / "site" / "site.db"  # the site folder's (--site)
    with sa.create_engine(f"sqlite:///{site_db}").connect() as c:
        assert c.execute(sa.text("SELECT count(*) FROM daily_days")).scalar() >= 1
