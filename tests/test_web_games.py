"""The page is a thin client of the game's facts: a game registered only in the tests
(tests/toygame.py) is created in the lobby's form and played in the real browser with the
page unchanged; the lobby offers each game's players, modes and options as the game says."""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from webkit import (
    DESKTOP,
    PHONE,
    ROOT,
    WebServer,
    browser_session,
    card_names,
    click_continue,
    click_move,
    no_horizontal_scroll,
    screenshot,
    server_fixture,
)

server = server_fixture(7, [str(ROOT / "tests/toygame.py")])


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from browser_session()


def test_the_games_route_says_each_games_facts(server: WebServer) -> None:
    with urllib.request.urlopen(server.url + "/api/games", timeout=10) as answer:
        found = {g["name"]: g for g in json.load(answer)}
    assert next(iter(found)) == "xactika"  # the engine's default game first
    assert found["xactika"]["players"] == {"min": 2, "max": 10, "default": 4}
    assert [m["id"] for m in found["xactika"]["modes"]] == ["bid", "win", "lose"]
    assert found["xactika"]["modes"][0] | {"hand": 8} == {
        "id": "bid", "name": "Play to Bid", "bidding": True, "hand": 8, "low_wins": False}
    assert found["dix"]["options"] == [{"name": "target", "type": "int", "suggest": 50,
                                       "label": "game to (points; empty: play the rounds)",
                                       "choices": [], "choiceNames": {},
                                       "max": 100}]  # the lobby's bound
    assert found["xactika"]["maxRounds"] == 30
    toy = found["highcard"]
    assert toy["players"] == {"min": 2, "max": 5, "default": 3}
    assert toy["cards"] == "text" and toy["options"] == [] and toy["sorts"] == ["value"]


def _create_in_form(page: Any, url: str, game: str, name: str) -> None:
    page.goto(url + "/")
    page.wait_for_selector(f"#game option[value={game}]", state="attached")
    page.fill("#name", name)
    page.select_option("#game", game)


def test_a_toy_game_is_created_in_the_lobby_and_played(server: WebServer,
                                                        browser: Any) -> None:
    page = browser.new_page(viewport=DESKTOP)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    _create_in_form(page, server.url, "highcard", "Toy")
    assert page.locator("#players").get_attribute("max") == "5"
    assert page.locator("#players").input_value() == "3"
    assert page.locator("#mode option").all_inner_texts() == ["plain"]
    assert page.locator("#seat-kinds select").count() == 3
    page.click("#create button[type=submit]")
    page.click("#go-to-table")
    page.wait_for_selector("#hand button.card")
    # a spectator sees every hand's size, from the server's facts, not a guess
    watcher = browser.new_page(viewport=PHONE)
    watcher.goto(page.url.split("#")[0] + "#watch")
    watcher.wait_for_selector("#seats li.seat >> nth=2")
    assert "Highcard · plain" in page.locator("#banner").inner_text()
    assert page.locator("#hand button.card").count() == 4
    labels = card_names(page)
    assert all(label.split(": ", 1)[1].isdigit() for label in labels), labels
    page.click("#rules-button")  # the rules, as the game's presentation (the plain one) says
    page.wait_for_selector("#rules[open] h2")
    assert page.locator("#rules h2").inner_text() == "Highcard: plain"
    page.keyboard.press("Escape")
    assert page.locator("#keys-calls").is_hidden()  # a game without calls: no call keys
    screenshot(page, "toy-1280x800-play")
    no_horizontal_scroll(page)
    turns = []
    moves, deadline = 0, time.monotonic() + 60
    while not page.locator("#end").is_visible():
        assert time.monotonic() < deadline, "the toy game did not end"
        # the seat marked to act is the one the server asks (our seat while we are asked)
        asked = page.evaluate("() => !!window.xactikaGame.go")
        marked = page.locator("#seats li.turn").evaluate_all(
            "items => items.map(i => Number(i.dataset.seat))")
        if asked:
            turns.append(marked)
        if click_move(page, proceed=False):
            moves += 1
        elif not click_continue(page):
            page.wait_for_timeout(20)
    assert moves == 4 and turns and all(t == [0] for t in turns), turns
    assert "Toy (you)" in page.locator("#standings").inner_text()
    sizes = watcher.locator("#seats").inner_text()
    assert "0 cards" in sizes and "4 cards" not in sizes
    screenshot(watcher, "toy-375x667-watching-end")
    assert not errors, errors
    watcher.close()
    page.close()


def test_the_lobby_offers_ten_players_and_a_dix_target(server: WebServer,
                                                       browser: Any) -> None:
    page = browser.new_page(viewport=PHONE)
    _create_in_form(page, server.url, "xactika", "Ten")
    assert page.locator("#players").get_attribute("max") == "10"
    page.fill("#players", "10")
    page.dispatch_event("#players", "change")
    assert page.locator("#seat-kinds select").count() == 10
    assert page.locator("#seat-1 option:checked").inner_text() == "bot: heuristic (level 3)"
    page.fill("#clock-min", "5")
    page.fill("#clock-inc", "15")
    page.click("#create button[type=submit]")
    page.wait_for_selector("#go-to-table")
    page.select_option("#game", "dix")
    assert page.locator("#option-target").input_value() == "50"
    assert page.locator("#players").is_disabled()
    # Dix's every level is its heuristic: one choice, named as what plays
    assert page.locator("#seat-1 option:checked").inner_text() == "bot: heuristic (level 3)"
    assert page.locator("#seat-1 option").all_inner_texts() == [
        "open seat (a person)", "bot: heuristic (level 3)"]
    page.click("#create button[type=submit]")
    page.wait_for_function("() => document.querySelector('#tables').innerText.includes('Dix')")
    tables = page.locator("#tables").inner_text()
    assert "Xactika, Play to Bid, 10 players, 8 rounds" in tables, tables
    assert "time per player: 5 min + 15 s a move (a bot plays for whoever runs out of time)" \
        in tables  # the table's timeout rule (issue 40): casual, no seat forfeits for time
    assert "Dix, draw, 2 players, to 50 points" in tables
    screenshot(page, "lobby-375x667")
    no_horizontal_scroll(page)
    page.close()


def test_serve_and_the_tcp_lobby_take_a_target() -> None:
    from xactika.frontends.net import serve
    from xactika.protocol.net.lobby import CREATE_KEYS

    assert "target" in CREATE_KEYS
    args = serve.build_parser().parse_args(["--game", "dix", "--target", "50"])
    assert serve._pairs(args, 0)["target"] == "50"
