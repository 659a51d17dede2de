"""What the page says, at both sizes in both languages: a game to a target counts no
rounds, a finished table offers its replay, a seat whose person left says so, an invite
link can be copied, the replay viewer links back, and a touch screen hears of no keys."""

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
    web_server,
)


@pytest.fixture
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    """A server of its own for each test (the lobby counts an address's waiting tables)."""
    yield from web_server(tmp_path_factory, 45)

WORDS = {
    "en": {"target": "round 1, to 3 points", "again": "see the game again", "left": "left",
           "copy": "copy", "copied": "copied", "lobby": "lobby", "table": "table {n}",
           "keys": ("keys:", "press l"), "back": "its button goes back"},
    "de": {"target": "Runde 1, bis 3 Punkte", "again": "das Spiel noch einmal ansehen",
           "left": "gegangen", "copy": "kopieren", "copied": "kopiert", "lobby": "Lobby",
           "table": "Tisch {n}", "keys": ("Tasten:", "l oder die Schaltfläche"),
           "back": "die Schaltfläche führt zurück"},
}


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from browser_session()


@pytest.fixture(params=[("en", PHONE), ("de", PHONE), ("en", DESKTOP), ("de", DESKTOP)],
                ids=["en-phone", "de-phone", "en-desktop", "de-desktop"])
def page(request: pytest.FixtureRequest, browser: Any) -> Iterator[Any]:
    lang, viewport = request.param
    phone = viewport == PHONE
    context = browser.new_context(viewport=viewport, is_mobile=phone, has_touch=phone,
                                  locale="de-DE" if lang == "de" else "en-US")
    page = context.new_page()
    page.lang, page.phone = lang, phone
    yield page
    context.close()


def test_a_game_to_a_target_counts_no_rounds(server: WebServer, page: Any) -> None:
    words = WORDS[page.lang]
    page.goto(server.url + "/")
    answer = page.evaluate(
        """async () => (await fetch('/api/tables', {method: 'POST', headers:
        {'content-type': 'application/json'}, body: JSON.stringify({game: 'dix', target: 3,
        seats: ['open', '3'], players: 2, clock: 'none', name: 'Tia'})})).json()""")
    assert "error" not in answer, answer
    page.evaluate("() => localStorage.setItem('xactika-name', 'Tia')")
    page.goto(f"{server.url}/table/{answer['table']['id']}#seat={answer['invites']['0']}")
    page.wait_for_selector("#hand button.card")
    banner = page.locator("#banner").inner_text()
    assert words["target"] in banner, banner
    # issue 41: seats counted from 1, as people count them (BGA, BBO), in both languages
    seat = "seat" if page.lang == "en" else "Platz"
    titles = page.eval_on_selector_all("#seats .seat-name", "els => els.map(e => e.title)")
    assert [t.split(":")[0] for t in titles] == [f"{seat} 1", f"{seat} 2"], titles
    assert f"{seat} 0" not in page.locator("body").inner_text()
    if page.phone:  # a touch screen: no keys, neither the help nor the status lines
        click_move(page)
        page.locator("#hand button.card").first.wait_for()
        page.wait_for_function("() => !!window.xactikaMiddle.game.lastTrick")
        page.locator("#last-trick").click()
        page.wait_for_function("() => document.querySelector('#trick-title').textContent")
        text = page.locator("body").inner_text()
        assert not any(k in text for k in words["keys"]), text
        assert not page.locator(".keys").is_visible()
        assert words["back"] in page.locator("#trick-title").inner_text()


def test_the_lobby_offers_a_finished_games_replay_and_copies_invites(
        server: WebServer, page: Any) -> None:
    words = WORDS[page.lang]
    answer = create_table(page, server.url, name="Uli", seats=["open", "3", "open"],
                          clock="none")
    number, token = answer["table"]["id"], answer["invites"]["0"]
    page.goto(f"{server.url}/table/{number}#seat={token}")
    # the second person's seat: taken, then left (a bot plays it)
    elsewhere = page.context.browser.new_context(viewport=DESKTOP)
    other = elsewhere.new_page()
    other.goto(f"{server.url}/")
    other.evaluate("() => localStorage.setItem('xactika-name', 'Vera')")
    other.goto(f"{server.url}/table/{number}#seat={answer['invites']['2']}")
    other.wait_for_selector("#hand button.card")
    page.wait_for_selector("#hand button.card")
    other.locator("#leave").click()
    other.locator("#leave").click()  # a second click: sure
    other.wait_for_url(f"{server.url}/")
    elsewhere.close()
    page.goto(server.url + "/")
    entry = page.locator("#tables li.lobby-table", has_text=f"{number}:")
    entry.locator(".lobby-seats li").nth(2).wait_for()
    seat = entry.locator(".lobby-seats li").nth(2).inner_text()
    assert f"({words['left']}" in seat, seat
    page.goto(f"{server.url}/table/{number}#seat={token}")
    page.wait_for_selector("#hand button.card")
    while not page.locator("#end").is_visible():  # (play_by_clicks reads English only)
        if not click_move(page):
            page.wait_for_timeout(20)
    page.goto(server.url + "/")
    entry = page.locator("#tables li.lobby-table", has_text=f"{number}:")
    entry.locator(".actions a").first.wait_for()
    assert entry.locator(".actions a").all_inner_texts() == [words["again"]]
    entry.locator(".actions a").click()
    page.wait_for_selector("#viewer:not([hidden])")
    back = page.locator("#to-table")
    assert back.inner_text() == words["table"].format(n=number)
    assert page.locator("#to-lobby").inner_text() == words["lobby"]
    if page.phone:
        assert not page.locator(".keys").is_visible()
    back.click()
    page.wait_for_selector(f"#table[data-number='{number}']")
    # a new table's invite links, each with a copy button
    page.goto(server.url + "/")
    page.locator("#seat-1").select_option("open")
    page.locator("#name").fill("Uli")
    page.locator("#create button[type=submit]").click()
    copy = page.locator("#created button.copy").first
    copy.wait_for()
    assert copy.inner_text() == words["copy"]
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    copy.click()
    page.wait_for_function("(w) => document.querySelector('#created button.copy')"
                           ".textContent === w", arg=words["copied"])
    link = page.locator("#created input.invite").first.input_value()
    assert page.evaluate("() => navigator.clipboard.readText()") == link
