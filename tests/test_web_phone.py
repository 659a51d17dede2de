"""The table on a phone: the whole hand in view while bidding and playing at a table of
ten, key help only where there is a keyboard, and the hand sorted by the game's orders
(Xactika: value or shape), the choice remembered."""

from __future__ import annotations

import time
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
    no_horizontal_scroll,
    screenshot,
    server_fixture,
)

IN_VIEW = """() => [...document.querySelectorAll('#hand button.card')].every(c => {
  const r = c.getBoundingClientRect();
  return r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth; })"""


server = server_fixture(41)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from browser_session()


def test_a_table_of_ten_on_a_phone(server: WebServer, browser: Any) -> None:
    phone = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = phone.new_page()
    answer = create_table(page, server.url, name="Hal", seats=["open"] + ["3"] * 9,
                          clock="none")
    number, token = answer["table"]["id"], answer["invites"]["0"]
    page.goto(f"{server.url}/table/{number}#seat={token}")
    page.wait_for_selector("#controls button.bid")
    assert page.locator("#hand button.card").count() == 8
    assert page.evaluate(IN_VIEW), "a card of the hand is out of view while bidding"
    assert not page.locator(".keys").is_visible()  # no keyboard on a phone
    page.screenshot(path=str(screenshot(page, "ten-375x667-bid-full").with_name(
        "ten-375x667-bid.png")))  # what the window shows, and the whole page
    no_horizontal_scroll(page)
    # three plays of ours, counted by the hand (a count of turns seen would miss a turn
    # that came and went between two looks, and then wait out a game already over)
    hand, shot, deadline = page.locator("#hand button.card"), False, time.monotonic() + 90
    while hand.count() > 8 - 3:
        assert time.monotonic() < deadline, "no three plays of ours"
        if page.locator("#hand button.card.playable").count():
            assert page.evaluate(IN_VIEW), "a card of the hand is out of view while playing"
            if not shot:
                page.screenshot(path=str(screenshot(page, "ten-375x667-play-full").with_name(
                    "ten-375x667-play.png")))
                shot = True
        if not click_move(page):
            page.wait_for_timeout(20)
    assert shot, "never saw a playable card"
    no_horizontal_scroll(page)
    phone.close()


def test_key_help_where_there_are_keys_and_the_hand_sorted(server: WebServer,
                                                           browser: Any) -> None:
    page = browser.new_page(viewport=DESKTOP)
    answer = create_table(page, server.url, name="Ida", clock="none")
    number, token = answer["table"]["id"], answer["invites"]["0"]
    page.goto(f"{server.url}/table/{number}#seat={token}")
    page.wait_for_selector("#hand button.card")
    assert page.locator(".keys").is_visible()
    assert page.locator("#sort option").all_inner_texts() == ["value", "shape"]
    hand = "() => [...document.querySelectorAll('#hand button.card')].map(c => c.dataset.card)"
    by_value = page.evaluate(hand)
    values = [sum(map(int, c)) for c in by_value]
    assert values == sorted(values)
    page.select_option("#sort", "shape")
    by_shape = page.evaluate(hand)
    assert sorted(by_shape) == sorted(by_value)
    assert by_shape == sorted(by_shape, key=lambda c: tuple(-int(n) for n in c)
                              + (sum(map(int, c)),))
    page.reload()
    page.wait_for_selector("#hand button.card")
    assert page.locator("#sort").input_value() == "shape"
    assert page.evaluate(hand) == by_shape
    page.close()


CUT = """() => [...document.querySelectorAll('#seats .seat-score, .played figcaption,'
  + ' #summary .sheet-box, #scores, #standings li, #trick-title, #why, #table-info')]
  .filter(e => e.offsetParent).filter(e => { const r = e.getBoundingClientRect();
    return e.scrollWidth > e.clientWidth || r.left < 0 || r.right > innerWidth; })
  .map(e => `${e.id || e.className}: ${e.scrollWidth} > ${e.clientWidth}: ${e.textContent}`)"""


TALLER = """() => [...document.querySelectorAll('#summary, #scores')].filter(e => e.offsetParent)
  .filter(e => e.getBoundingClientRect().height > innerHeight
    || e.getBoundingClientRect().width > innerWidth)
  .map(e => `${e.id}: ${e.getBoundingClientRect().width}x${e.getBoundingClientRect().height}`)"""


@pytest.mark.parametrize(("players", "lang", "game"), [(3, "en", "ohhell"), (7, "de", "ohhell"),
                                                       (10, "de", "xactika")])
def test_seats_trick_summary_and_scores_fit_the_width(server: WebServer, browser: Any,
                                                      players: int, lang: str,
                                                      game: str) -> None:
    """Nothing a person reads is cut or scrolls sideways: the seats' scores, a trick's
    captions, the round's summary, the score sheet and the standings, at 375x667 and
    1280x800, in English and in German's longer words, from 3 seats to Oh Hell's 7 and
    Xactika's 10; the summary and the score sheet fit the phone's screen."""
    page = browser.new_page(viewport=PHONE)
    answer = create_table(page, server.url, name="Jo", game=game, rounds=1,
                          seats=["open"] + ["3"] * (players - 1), clock="none")
    number, token = answer["table"]["id"], answer["invites"]["0"]
    page.evaluate("() => localStorage.setItem('xactika-pace', '1200')")  # time to look
    page.goto(f"{server.url}/table/{number}?lang={lang}#seat={token}")
    page.wait_for_selector("#hand button.card")
    deadline = time.monotonic() + 30
    while not page.locator("#continue").is_visible():
        assert time.monotonic() < deadline, "no round summary"
        if not click_move(page, proceed=False):
            page.wait_for_timeout(20)
    assert page.evaluate(CUT) == [], "cut while the round's summary shows"
    assert page.evaluate(TALLER) == [], "larger than the phone's screen"
    # the last round's: the standings come below it, and the status line says so (it said
    # only "the game is over", under a summary that offers "continue")
    page.wait_for_selector("#end:not([hidden])")
    assert page.locator("#summary").is_visible()
    assert page.locator("#status").inner_text() == {
        "en": "that was the last round: the final standings are below",
        "de": "das war die letzte Runde: der Endstand steht darunter"}[lang]
    page.click("#continue")
    assert page.locator("#status").inner_text() == {
        "en": "the game is over", "de": "das Spiel ist aus"}[lang]
    for size in (PHONE, DESKTOP):
        page.set_viewport_size(size)
        assert page.evaluate(CUT) == [], f"cut at {size}"
        assert page.evaluate(TALLER) == [], f"larger than the screen at {size}"
        no_horizontal_scroll(page)
        screenshot(page, f"fit-{players}-{lang}-{size['width']}x{size['height']}")
    page.close()
