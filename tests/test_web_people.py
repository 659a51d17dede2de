"""People at web tables in a real browser: two at one table, a reload in mid-trick,
a spectator, and a name that is markup (spec/WEB.md)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from webkit import (
    DESKTOP,
    PHONE,
    XACTIKA_CARD,
    WebServer,
    browser_session,
    click_move,
    create_table,
    hidden_cards_seen,
    key_move,
    no_horizontal_scroll,
    record_deals,
    screenshot,
    web_server,
)

XSS = "<img/src=x/onerror=alert(1)>"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    yield from web_server(tmp_path_factory, seed=21)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from browser_session()


def _trick(page: Any) -> list[str]:
    return [c.get_attribute("aria-label") for c in
            page.locator("#trick-cards .card-svg").all()]


def _hand(page: Any) -> list[str]:
    return [c.get_attribute("data-card") for c in page.locator("#hand button.card").all()]


def test_two_people_a_spectator_and_a_markup_name(server: WebServer, browser: Any) -> None:
    ann, bob, eve = (browser.new_context(viewport=v) for v in (DESKTOP, PHONE, PHONE))
    alerts: list[str] = []
    pages = [ctx.new_page() for ctx in (ann, bob, eve)]
    for page in pages:
        page.on("dialog", lambda d: (alerts.append(d.message), d.dismiss()))
    a, b, watcher = pages
    answer = create_table(a, server.url, name="Ann", seats=["open", "open"])
    number, invites = answer["table"]["id"], answer["invites"]
    a.goto(f"{server.url}/table/{number}#seat={invites['0']}")
    # Bob opens his private invite link and gives his name (markup, shown as text)
    b.goto(f"{server.url}/table/{number}#seat={invites['1']}")
    b.fill("#join-name", XSS)
    b.click("#join-take")
    frames: list[str] = []
    watcher.on("websocket", lambda ws: ws.on("framereceived", lambda f: frames.append(f)))
    watcher.goto(f"{server.url}/table/{number}#watch")
    b.wait_for_selector("#hand button.card")
    a.wait_for_function(  # the name, as its characters (markup would not be text)
        "() => document.querySelector('#seats').textContent.includes('onerror')",
        timeout=10_000)
    b.fill("#chat-input", "<img src=x onerror=alert(2)> hello")
    b.press("#chat-input", "Enter")
    b.locator("#chat-input").blur()  # keys typed in the chat are chat, not moves
    a.wait_for_selector("#chat-list li")
    assert "<img src=x onerror=alert(2)> hello" in a.locator("#chat-list").inner_text()
    deadline = time.monotonic() + 90
    while not (a.locator("#end").is_visible() and b.locator("#end").is_visible()):
        assert time.monotonic() < deadline, "the game did not end"
        if not (click_move(a) or key_move(b)):  # Ann clicks, Bob uses the keys
            a.wait_for_timeout(20)
    watcher.wait_for_selector("#end:not([hidden])")
    for page in pages:
        text = page.locator("#seats").inner_text()
        kept = XSS.replace("(", "_").replace(")", "_")  # the handshake's clean_name: no labels
        assert XSS.replace("/", "-") in text or kept in text
        assert page.locator("#seats img, #chat-list img, #standings img").count() == 0
        no_horizontal_scroll(page)
    assert watcher.locator("#hand button.card").count() == 0
    screenshot(watcher, "spectator-375x667-end")
    screenshot(b, "second-person-375x667-end")
    assert not alerts
    deals = record_deals(server.out / f"table-{number}.log")
    assert frames and hidden_cards_seen(frames, None, deals, XACTIKA_CARD) == []
    a.goto(server.url + "/")  # the lobby lists the name as text too
    a.wait_for_selector(".lobby-table")
    assert "onerror" in a.locator("#tables").inner_text()
    assert a.locator("#tables img").count() == 0
    screenshot(a, "lobby-1280x800")
    for ctx in (ann, bob, eve):
        ctx.close()


def test_a_reload_in_mid_trick_resumes(server: WebServer, browser: Any) -> None:
    page = browser.new_page(viewport=DESKTOP)
    answer = create_table(page, server.url, name="Cid", seats=["3", "open", "3", "3"],
                          rounds=4)
    number, token = answer["table"]["id"], answer["invites"]["1"]
    page.goto(f"{server.url}/table/{number}#seat={token}")
    deadline = time.monotonic() + 60
    mid_trick = "() => { const g = window.xactikaGame; return !!g.go && g.go.kind === 'play'; }"
    while not page.evaluate(mid_trick):  # asked to follow: others have played to this trick
        assert time.monotonic() < deadline and not page.locator("#end").is_visible(), \
            "never asked to follow a trick"
        if not click_move(page):
            page.wait_for_timeout(20)
    # the finished trick held for its pace gives way to the one we are asked to follow
    page.wait_for_function("() => !window.xactikaMiddle.queue.length")
    trick, hand = _trick(page), _hand(page)
    assert trick and hand
    page.goto("about:blank")  # the page goes away; its history entry keeps the token
    page.go_back()  # back to it (a new visit of the table's address would only watch)
    page.wait_for_selector("#hand button.card.playable")
    assert _trick(page) == trick and _hand(page) == hand
    assert page.locator("#log-list li").count() > 0  # the events missed, told again
    page.locator("#hand button.card.playable").first.click()
    page.wait_for_function("() => window.xactikaTimes.length === 1")
    page.close()
