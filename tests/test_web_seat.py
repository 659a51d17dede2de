"""A seat's page: its token leaves the address bar, a second page on a live seat says so
and offers to move the seat there (never retrying in a loop), bots have unique names and a
bot mark, a hidden tab is told of its turn (title and a tone, a remembered mute), and a
person can leave a game in play (a bot takes the seat, everyone is told, the record says
so) and go back to the lobby. Issue 40, item 5b: a seat's token is kept where only its
table's page reads it (never by the replay viewer), dropped at the game's end, and an
invite link asks before it replaces the seat a page holds."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from webkit import (
    DESKTOP,
    PHONE,
    WebServer,
    browser_session,
    click_move,
    create_table,
    screenshot,
    server_fixture,
)

server = server_fixture(31)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from browser_session()


def _sockets(page: Any) -> list[str]:
    opened: list[str] = []
    page.on("websocket", lambda ws: opened.append(ws.url))
    return opened


def test_the_seat_moves_between_pages_and_never_loops(server: WebServer,
                                                     browser: Any) -> None:
    context = browser.new_context(viewport=DESKTOP)
    first = context.new_page()
    answer = create_table(first, server.url, name="Di", clock="none")
    number, token = answer["table"]["id"], answer["invites"]["0"]
    first_sockets = _sockets(first)
    first.goto(f"{server.url}/table/{number}#seat={token}")
    first.wait_for_selector("#hand button.card")
    assert "seat=" not in first.url and token not in first.url  # shared: the table only
    assert first.evaluate("() => history.state && history.state.seat") == token
    names = first.locator("#seats .seat-name").evaluate_all(
        "ns => ns.map(n => [[...n.querySelectorAll('.badge')].map(b => b.textContent)"
        "  .filter(b => b === 'bot'), n.lastChild.textContent])")
    assert names == [[[], "seat 1: Di (you)"], [["bot"], "seat 2: heuristic"],
                     [["bot"], "seat 3: heuristic (2)"], [["bot"], "seat 4: heuristic (3)"]]
    first.wait_for_selector("#log-list li:has-text('heuristic (2) · bot bids')")
    # a second page of the same browser on the live seat: told, not looping
    second = context.new_page()
    second.set_viewport_size(PHONE)
    second_sockets = _sockets(second)
    second.goto(f"{server.url}/table/{number}#seat={token}")  # the seat's link again
    second.wait_for_selector("#move-here")
    assert "open in another page" in second.locator("#status").inner_text()
    second.wait_for_timeout(3000)
    assert len(second_sockets) <= 3, second_sockets  # a reload's grace, then no retries
    screenshot(second, "seat-375x667-open-elsewhere")
    second.click("#move-here")
    second.wait_for_selector("#hand button.card")
    first.wait_for_selector("#move-here")
    assert "moved to another page" in first.locator("#status").inner_text()
    before = len(first_sockets)
    first.wait_for_timeout(2000)
    assert len(first_sockets) == before  # the old page does not take the seat back
    assert click_move(second) or second.locator("#hand button.card").count()
    context.close()


def test_a_hidden_tab_is_told_its_turn(server: WebServer, browser: Any) -> None:
    page = browser.new_page(viewport=DESKTOP)
    answer = create_table(page, server.url, name="Ed", clock="none")
    number, token = answer["table"]["id"], answer["invites"]["0"]
    page.goto(f"{server.url}/table/{number}#seat={token}")
    page.wait_for_selector("#hand button.card")
    title = page.title()
    hide = """(hidden) => { Object.defineProperty(document, 'hidden',
        {value: hidden, configurable: true});
        document.dispatchEvent(new Event('visibilitychange')); }"""
    for muted in (False, True):
        if muted:
            page.check("#mute")
        page.wait_for_function("() => !!window.xactikaGame.go")
        page.evaluate(hide, True)
        alerts = page.evaluate("() => window.xactikaAlerts || 0")
        sounds = page.evaluate("() => window.xactikaSounds || 0")
        click_move(page)  # our move; the next turn of ours comes while the tab is hidden
        page.wait_for_function("(n) => (window.xactikaAlerts || 0) > n", arg=alerts)
        assert page.title().startswith("▶ your turn")
        assert page.evaluate("() => window.xactikaSounds || 0") == sounds + (0 if muted else 1)
        page.evaluate(hide, False)
        assert page.title() == title
    while page.evaluate("() => window.xactikaTricksWon.length") < 2:  # two tricks played
        if not click_move(page):
            page.wait_for_timeout(20)
    page.reload()
    page.wait_for_selector("#hand button.card")
    assert page.is_checked("#mute")  # remembered
    # the game so far is not played back trick by trick after a reload
    assert page.evaluate("() => window.xactikaMiddle.queue.length") <= 1
    assert page.evaluate("() => window.xactikaTricksWon.length") <= 1
    page.close()


def test_a_person_leaves_and_a_bot_plays_on(server: WebServer, browser: Any) -> None:
    page = browser.new_page(viewport=PHONE)
    answer = create_table(page, server.url, name="Flo", seats=["open", "open", "3", "3"],
                          clock="none")
    number, invites = answer["table"]["id"], answer["invites"]
    other = browser.new_page(viewport=DESKTOP)
    other.goto(f"{server.url}/table/{number}#seat={invites['1']}")
    other.fill("#join-name", "Gus")
    other.click("#join-take")
    page.goto(f"{server.url}/table/{number}#seat={invites['0']}")
    page.wait_for_selector("#hand button.card")
    other.wait_for_selector("#hand button.card")
    page.click("#leave")
    assert "really leave" in page.locator("#leave").inner_text()
    page.click("#leave")
    page.wait_for_url(f"{server.url}/")
    assert page.evaluate("() => JSON.stringify(localStorage)").find(invites["0"]) < 0
    other.wait_for_function(
        "() => document.querySelector('#log-list').innerText.includes('left')")
    talk = other.locator("#log-list").inner_text()
    assert "seat 1 (Flo) left: a level-3 bot plays it" in talk, talk
    other.wait_for_selector("#seats li[data-seat='0'] .badge:text-is('bot')", timeout=10_000)
    while not other.locator("#end").is_visible():  # the bot plays Flo's seat to the end
        if not click_move(other):
            other.wait_for_timeout(20)
    record = (server.out / f"table-{number}.log").read_text()
    assert "header fault 0 left: left the table" in record
    assert "header stand-in 0 events " in record
    page.close()
    other.close()


STORED = "() => JSON.stringify([localStorage, sessionStorage, history.state])"


def test_a_seats_token_is_only_its_tables_and_gone_at_the_end(server: WebServer,
                                                               browser: Any) -> None:
    page = browser.new_page(viewport=DESKTOP)
    answer = create_table(page, server.url, name="Hal", seats=["open", "1"], clock="none")
    number, token = answer["table"]["id"], answer["invites"]["0"]
    page.goto(f"{server.url}/table/{number}#seat={token}")
    page.wait_for_selector("#hand button.card")
    assert token in page.evaluate(STORED)  # this page's own history entry holds it
    page.reload()
    page.wait_for_selector("#hand button.card")  # a reload keeps the seat
    # the same tab goes to the replay viewer (it shows uploaded files): nothing to read
    page.goto(f"{server.url}/replay")
    assert token not in page.evaluate(STORED)
    lobby = browser.new_page(viewport=DESKTOP)  # another page of the site
    lobby.goto(f"{server.url}/")
    assert token not in lobby.evaluate(STORED)
    lobby.close()
    page.go_back()
    page.wait_for_selector("#hand button.card")  # back at the table: its entry's token
    while not page.locator("#end").is_visible():
        if not click_move(page):
            page.wait_for_timeout(20)
    assert token not in page.evaluate(STORED)  # the game is over: dropped
    page.reload()
    page.wait_for_selector("#status")
    assert token not in page.evaluate(STORED)
    page.close()


def test_an_invite_link_asks_before_it_replaces_a_seat(server: WebServer,
                                                       browser: Any) -> None:
    page = browser.new_page(viewport=DESKTOP)
    answer = create_table(page, server.url, name="Ida", seats=["open", "open", "1"],
                          clock="none")
    number, invites = answer["table"]["id"], answer["invites"]
    page.goto(f"{server.url}/table/{number}#seat={invites['0']}")
    page.wait_for_function("(t) => history.state && history.state.seat === t",
                           arg=invites["0"])
    asked: list[str] = []

    def dismiss(dialog: Any) -> None:
        asked.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", dismiss)
    page.evaluate("(t) => { location.hash = 'seat=' + t; }", invites["1"])
    page.wait_for_function("() => !location.hash")
    assert asked and "invite link" in asked[0]
    assert page.evaluate("() => history.state.seat") == invites["0"]  # kept
    page.remove_listener("dialog", dismiss)
    page.on("dialog", lambda dialog: dialog.accept())
    page.evaluate("(t) => { location.hash = 'seat=' + t; }", invites["1"])
    page.wait_for_function("(t) => history.state && history.state.seat === t && !location.hash",
                           arg=invites["1"])
    page.close()
