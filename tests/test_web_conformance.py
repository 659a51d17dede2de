"""Every registered game, and the tiny game registered only in the tests, created in the
web lobby's form and played to the end against bots in the real browser: no text on the
page (the lobby, the table, its rules, its end) and no ``say`` line the seat is sent (the
web narrator's) may name a joker, a call or a trump the game does not have.

The games are the registry's (:data:`test_conformance.EXPECTED_GAMES` is the one list);
what a game has is asked of the game (``test_conformance._has``).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from test_conformance import EXPECTED_GAMES, WORDS, Tiny, _false_names, _has
from webkit import (
    DESKTOP,
    DIX_CARD,
    PHONE,
    ROOT,
    WebServer,
    browser_session,
    click_move,
    no_horizontal_scroll,
    screenshot,
    server_fixture,
)

from xactika.core import Config, game_rules
from xactika.core.engine import api

# ``xactika web`` with the tiny game registered first (it lives only in the tests)
TINY_WEB = ["-c", f"import sys; sys.path.insert(0, {str(ROOT / 'tests')!r}); "
            "from test_conformance import Tiny; "
            "from xactika.core.engine.api import register_game; register_game(Tiny()); "
            "from xactika.frontends.cli import main; sys.exit(main(sys.argv[1:]))"]

server = server_fixture(11, TINY_WEB)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from browser_session()


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tiny game in this process too (what it has is asked of it)."""
    monkeypatch.setitem(api._GAMES, Tiny.name, Tiny())


def _facts(page: Any) -> dict[str, Any]:
    found: dict[str, Any] = page.evaluate(
        "async () => (await (await fetch('/api/games')).json())")
    return {g["name"]: g for g in found}


def _play(page: Any, limit: float) -> tuple[list[str], list[int]]:
    """Click moves to the end; the page's text at every move and the hand's size at
    every bid asked (a round's whole hand)."""
    texts, bid_hands = [], []
    deadline = time.monotonic() + limit
    while not page.locator("#end").is_visible():
        assert time.monotonic() < deadline, "the game did not end in time"
        bid = page.locator("#controls button.bid:not([disabled])")
        if bid.count():  # the bid asked: the hand is the round's whole hand
            bid_hands.append(page.locator("#hand button.card").count())
            bid.first.click()
            texts.append(page.locator("main").inner_text())
        elif click_move(page, bids=False):
            texts.append(page.locator("main").inner_text())
        else:
            page.wait_for_timeout(20)
    return texts, bid_hands


@pytest.mark.parametrize("game", [*EXPECTED_GAMES, Tiny.name])
def test_every_game_is_created_in_the_lobby_and_played_in_the_browser(
        game: str, server: WebServer, browser: Any, registered: None) -> None:
    page = browser.new_page(viewport=DESKTOP)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    said: list[str] = []  # the say lines the seat is sent (the web narrator's)
    page.on("websocket", lambda ws: ws.on("framereceived", lambda frame: said.extend(
        line for line in str(frame).split("\n") if line.startswith("say "))))
    page.goto(server.url + "/")
    page.wait_for_selector(f"#game option[value='{game}']", state="attached")
    facts = _facts(page)[game]
    rules = game_rules(game)
    # a short game: two rounds where the first hand is small, else one
    rounds = 2 if facts["modes"][0]["hand"] * rules.min_players <= 24 else 1
    page.fill("#name", "Ann")
    page.select_option("#game", game)
    texts = [page.locator("main").inner_text()]  # the form as the game fills it
    if page.locator("#players").is_enabled():
        page.fill("#players", str(rules.min_players))
        page.dispatch_event("#players", "change")
    page.fill("#rounds", str(rounds))
    for option in page.locator("#options [data-option]").all():
        if option.evaluate("e => e.tagName") == "INPUT":
            option.fill("")  # the game's own defaults (Dix: play the rounds, no target)
    page.check("#tutorial")
    for seat in range(1, rules.min_players):
        page.select_option(f"#seat-{seat}", facts["levels"][0]["id"])  # the weakest offered
    page.click("#create button[type=submit]")
    page.click("#go-to-table")
    page.wait_for_selector("#hand button.card")
    page.click("#rules-button")
    page.wait_for_selector("#rules[open] h2")
    texts.append(page.locator("#rules").inner_text())
    page.keyboard.press("Escape")
    screenshot(page, f"conformance-{game}-1280x800-play")
    played, bid_hands = _play(page, 60)
    texts += played + [page.locator("main").inner_text()]
    screenshot(page, f"conformance-{game}-1280x800-end")
    config = Config(game=game, mode=facts["modes"][0]["id"], players=rules.min_players,
                    rounds=rounds, seed=5)
    has = _has(game, config)
    assert said and any(line.startswith("say table ") for line in said)
    # a ``say table`` line's "trump=-" is a field saying there is none
    assert _false_names(texts + [line.replace(" trump=-", "") for line in said], has) == []
    if has["trump"]:  # the trump is on the page
        assert any(WORDS["trump"].search(t) for t in texts)
    why = [line for line in said if line.startswith("say why-won ")]
    assert why, "no trick was told why it was won"
    if facts["cards"] == "suits":  # a page that draws the cards names them in words
        assert not [line for line in why if DIX_CARD.search(line.split(" ", 4)[-1])], why
    if facts["modes"][0]["bidding"]:  # each round's hand, as the game deals it
        assert bid_hands == [rules.hand_size(config, r) for r in range(1, rounds + 1)]
    assert "Ann (you)" in page.locator("#standings").inner_text()
    no_horizontal_scroll(page)
    assert not errors, errors
    page.close()


def test_an_oh_hell_table_on_a_phone(server: WebServer, browser: Any) -> None:
    """Oh Hell at 375x667 from the lobby, seven players: its options as the game names
    them (and as chosen: the largest hand 3, going down), the trump on the table, nothing
    wider than the screen."""
    page = browser.new_page(viewport=PHONE)
    page.goto(server.url + "/")
    page.wait_for_selector("#game option[value='ohhell']", state="attached")
    page.fill("#name", "Bea")
    page.select_option("#game", "ohhell")
    assert page.locator("#players").get_attribute("min") == "3"
    assert page.locator("#players").get_attribute("max") == "7"
    assert page.locator("#mode option").all_inner_texts()[0] == "exact bids"
    labels = page.locator("#options label").all_inner_texts()
    assert [label.split("\n")[0] for label in labels] == [
        "the largest hand (default 10, fewer with 6 or 7 players)",
        "hand sizes round by round", "the dealer's hook: the bids may not total the tricks"]
    assert page.locator("#option-hands option").all_inner_texts() == [
        "the game's default", "updown", "downup", "up", "down", "fixed"]
    page.fill("#option-top", "3")
    page.select_option("#option-hands", "down")
    screenshot(page, "ohhell-375x667-lobby")
    no_horizontal_scroll(page)
    page.fill("#players", "7")  # the most the game takes: seven seats on a phone
    page.dispatch_event("#players", "change")
    assert page.locator("#seat-kinds select").count() == 7
    page.fill("#rounds", "3")
    page.click("#create button[type=submit]")
    page.click("#go-to-table")
    page.wait_for_selector("#hand button.card >> nth=2")  # top 3, going down: 3 cards
    assert page.locator("#hand button.card").count() == 3
    info = page.locator("#table-info").inner_text()
    assert "trump: " in info and "turned up: " in info, info
    page.wait_for_selector("#seats li.seat >> nth=6")
    screenshot(page, "ohhell-375x667-play")
    no_horizontal_scroll(page)
    page.close()
