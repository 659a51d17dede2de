"""The language switch keeps where you are: a replay's record and position, a table's
``#watch`` (both sizes, from English to German and back)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from webkit import (
    DESKTOP,
    PHONE,
    WebServer,
    browser_session,
    create_table,
    play_by_clicks,
    server_fixture,
)

server = server_fixture(44)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from browser_session()


@pytest.fixture(scope="module")
def finished(server: WebServer, browser: Any) -> int:
    """A table whose game is over (its record in the replay viewer)."""
    page = browser.new_page(viewport=DESKTOP)
    answer = create_table(page, server.url, name="Lena", clock="none")
    number: int = answer["table"]["id"]
    page.goto(f"{server.url}/table/{number}#seat={answer['invites']['0']}")
    page.wait_for_selector("#hand button.card")
    play_by_clicks(page)
    page.close()
    return number


@pytest.mark.parametrize(("start", "to"), [("en", "de"), ("de", "en")])
@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_the_language_switch_keeps_the_place(server: WebServer, browser: Any, finished: int,
                                             start: str, to: str,
                                             viewport: dict[str, int]) -> None:
    context = browser.new_context(viewport=viewport,
                                  locale="de-DE" if start == "de" else "en-US")
    page = context.new_page()
    try:
        page.goto(f"{server.url}/table/{finished}/replay")
        page.wait_for_selector("#viewer:not([hidden])")
        for _ in range(3):
            page.keyboard.press("ArrowRight")
        page.wait_for_function("() => location.search.includes('e=4')")
        record = parse_qs(urlsplit(page.url).query)["file"]
        page.locator(f".langs a[hreflang={to}]").click()
        page.wait_for_function("(to) => document.documentElement.lang === to", arg=to)
        page.wait_for_selector("#viewer:not([hidden])")
        query = parse_qs(urlsplit(page.url).query)
        assert (query["file"], query["e"]) == (record, ["4"]), page.url
        assert page.locator("#pos").inner_text().split()[1] == "4"
        page.goto(f"{server.url}/table/{finished}?lang={start}#watch")
        page.wait_for_selector("#end:not([hidden])")
        page.locator(f".langs a[hreflang={to}]").click()
        page.wait_for_function("(to) => document.documentElement.lang === to", arg=to)
        assert urlsplit(page.url).fragment == "watch", page.url
        page.wait_for_selector("#end:not([hidden])")
    finally:
        context.close()


@pytest.mark.parametrize("to", ["de", "en"])
def test_a_seat_held_in_mid_game_stays_across_the_language_switch(
        server: WebServer, browser: Any, to: str) -> None:
    """The seat's token lives in the page's history entry (issue 40), never in the address:
    the switch reloads that entry in the other language, and the seat is still ours."""
    context = browser.new_context(viewport=DESKTOP,
                                  locale="en-US" if to == "de" else "de-DE")
    page = context.new_page()
    try:
        answer = create_table(page, server.url, name="Mia", clock="none")
        number = answer["table"]["id"]
        page.goto(f"{server.url}/table/{number}#seat={answer['invites']['0']}")
        page.wait_for_selector("#hand button.card")
        assert "seat=" not in page.url
        page.locator(f".langs a[hreflang={to}]").click()
        page.wait_for_function("(to) => document.documentElement.lang === to", arg=to)
        page.wait_for_selector("#hand button.card")  # our hand: the seat is still ours
        assert "seat=" not in page.url and f"lang={to}" in page.url
        assert page.evaluate("() => history.state && history.state.seat") == \
            answer["invites"]["0"]
    finally:
        context.close()
