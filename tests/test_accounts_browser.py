"""Issue 45 in Chromium, at a phone's and a desktop's size, in English and German, in one
flow: sign up through the form (a real browser's form POST passes the Origin check), open
a rated table from the lobby's form and play it on the table page, play a daily deal from
/daily as the account, and find the rated game on one's page."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from axekit import axe_source, violations
from netkit import until
from webkit import DESKTOP, PHONE, WebServer, browser_session, click_move, screenshot

PASSWORD = "correct horse battery"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    site = tmp_path_factory.mktemp("site") / "site"
    web = WebServer(tmp_path_factory.mktemp("web"), 45, extra=["--site", str(site)])
    yield web
    err = web.stop()
    assert "Traceback" not in err, err


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from browser_session()


@pytest.mark.parametrize(("size", "lang", "name"), [(PHONE, "de", "Bea"), (PHONE, "en", "Eve"),
                                                    (DESKTOP, "en", "Ann"),
                                                    (DESKTOP, "de", "Flo")])
def test_sign_up_play_rated_and_find_the_game(server: WebServer, browser: Any,
                                              size: dict[str, int], lang: str,
                                              name: str) -> None:
    source = axe_source()
    context = browser.new_context(viewport=size)
    page = context.new_page()
    try:
        page.goto(f"{server.url}/signup?lang={lang}")
        assert violations(page, source) == []
        page.fill("#name", name)
        page.fill("#password", PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_url(f"**/people/{name}")
        assert page.locator("main h1").inner_text() == name
        page.goto(f"{server.url}/login?lang={lang}")
        page.fill("#name", name)
        page.fill("#password", "not the password")
        page.click("button[type=submit]")
        page.wait_for_selector("#form-error")
        assert violations(page, source) == []
        page.fill("#password", PASSWORD)
        page.click("button[type=submit]")  # the second try, the right password
        page.wait_for_url(f"**/people/{name}")
        page.goto(server.url + "/")
        page.wait_for_selector("#account-nav")
        page.wait_for_selector("#seat-1")  # the form is drawn from /api/games
        page.fill("#name", name)
        page.fill("#players", "2")
        page.dispatch_event("#players", "change")
        page.fill("#rounds", "1")
        page.check("#rated")
        page.click("#create button[type=submit]")
        page.wait_for_selector("#created p")
        assert page.locator("#go-to-table").count() == 1, page.locator("#created").inner_text()
        page.click("#go-to-table")
        page.wait_for_selector("#hand button.card")
        # every move the page offers, by clicks, until the game is over (play_by_clicks
        # reads the English labels of dimmed cards: not this page's in German)
        def over_or_move() -> bool:
            if page.locator("#end").is_visible():
                return True
            click_move(page)
            return False

        until(over_or_move, "the rated game played", 60)
        page.goto(f"{server.url}/daily?lang={lang}")  # the daily deal, signed in
        assert violations(page, source) == []
        page.locator("button[data-deal='1']").click()
        page.wait_for_url("**/table/*")
        until(lambda: page.locator("#hand button.card").count() > 0
              or page.locator("#join-take").is_visible(), "the daily seat", 30)
        if page.locator("#join-take").is_visible():  # a guest names their seat
            page.locator("#join-take").click()
        until(over_or_move, "the daily deal played", 60)
        page.locator("#end a[href^='/daily']").click()
        page.wait_for_url("**/daily*")
        assert page.locator("button[data-deal='2']").is_visible()
        progress = page.evaluate("async () => (await (await fetch('/api/daily')).json())"
                                 ".progress[0]")
        assert progress["state"] == "done" and progress["points"] is not None, progress
        screenshot(page, f"accounts-daily-{lang}-{size['width']}")
        page.goto(f"{server.url}/people/{name}?lang={lang}")
        def rated() -> bool:
            page.reload()
            return page.locator("#person-games tbody tr").count() == 1

        until(rated, "the rated game on the person's page", 30)
        screenshot(page, f"accounts-person-{lang}-{size['width']}")
        text = page.locator("main").inner_text()
        assert ("Gewertete Partien" if lang == "de" else "Rated games") in text
        assert page.locator("svg[role=img]").count() == 0  # a line from the second game on
        assert page.locator("#person-games a.replay").count() == 1
        assert violations(page, source) == []
        page.goto(f"{server.url}/leaderboard/xactika/bid?lang={lang}")
        assert violations(page, source) == []
    finally:
        context.close()


@pytest.mark.parametrize(("size", "lang", "name"), [(PHONE, "de", "Cyd"),
                                                    (DESKTOP, "en", "Dee")])
def test_a_passkey_added_on_ones_page_logs_in_on_localhost(
        server: WebServer, browser: Any, size: dict[str, int], lang: str,
        name: str) -> None:
    """Chromium's virtual authenticator (DevTools' WebAuthn domain) as the person's
    device: passkeys are offered on localhost, not on 127.0.0.1."""
    local = server.url.replace("127.0.0.1", "localhost")
    source = axe_source()
    context = browser.new_context(viewport=size)
    page = context.new_page()
    devtools = context.new_cdp_session(page)
    devtools.send("WebAuthn.enable")
    devtools.send("WebAuthn.addVirtualAuthenticator", {"options": {
        "protocol": "ctap2", "transport": "internal", "hasResidentKey": True,
        "hasUserVerification": True, "isUserVerified": True,
        "automaticPresenceSimulation": True}})
    try:
        page.goto(f"{server.url}/login?lang={lang}")
        assert page.locator("[data-passkey]").count() == 0  # an IP address: passwords
        page.goto(f"{local}/signup?lang={lang}")
        page.fill("#name", name)
        page.fill("#password", PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_url(f"**/people/{name}")
        page.click("button[data-passkey=register]")
        page.wait_for_function("() => document.querySelector('#passkey-said').textContent")
        said = page.locator("#passkey-said").inner_text()
        assert ("Passkey hinzugefügt (1" if lang == "de" else "passkey added (1") in said, said
        assert violations(page, source) == []
        screenshot(page, f"accounts-passkey-{lang}-{size['width']}")
        page.click("form[action='/logout'] button")
        page.goto(f"{local}/login?lang={lang}")
        assert violations(page, source) == []
        page.click("button[data-passkey=login]")
        page.wait_for_url(f"**/people/{name}")
        assert page.locator("button[data-passkey=register]").is_visible()  # signed in
        credentials = devtools.send("WebAuthn.getCredentials", {
            "authenticatorId": devtools.send("WebAuthn.addVirtualAuthenticator", {
                "options": {"protocol": "ctap2", "transport": "usb"}})["authenticatorId"]})
        assert credentials["credentials"] == []  # a second device holds nothing of it
    finally:
        context.close()
