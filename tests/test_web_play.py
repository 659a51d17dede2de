"""A person plays whole games in a real browser: Xactika by clicks, Dix by keys.

Every WebSocket frame the page receives is captured and checked against the finished
game's record: none may name a card the seat could not see then (spec/WEB.md).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from webkit import (
    DESKTOP,
    DIX_CARD,
    PHONE,
    XACTIKA_CARD,
    WebServer,
    browser_session,
    card_names,
    click_move,
    create_table,
    hidden_cards_seen,
    no_horizontal_scroll,
    play_by_clicks,
    record_deals,
    screenshot,
    web_server,
)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    yield from web_server(tmp_path_factory, seed=11)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from browser_session()


def _frames(page: Any) -> list[str]:
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda data: frames.append(
        data if isinstance(data, str) else data.decode())))
    return frames


def test_a_whole_xactika_game_by_clicks(server: WebServer, browser: Any) -> None:
    page = browser.new_page(viewport=DESKTOP)
    alerts: list[str] = []
    page.on("dialog", lambda d: (alerts.append(d.message), d.dismiss()))
    answer = create_table(page, server.url, name="Ann", rounds=2)
    number, token = answer["table"]["id"], answer["invites"]["0"]
    frames = _frames(page)
    page.goto(f"{server.url}/table/{number}#seat={token}")
    page.wait_for_selector("#hand button.card")
    page.wait_for_selector("#controls button.bid")
    # the dealer's forbidden bid (if we deal) is disabled and says why; the rest are open
    shot = screenshot(page, "xactika-1280x800-bid")
    no_horizontal_scroll(page)
    assert shot.stat().st_size > 10_000
    assert card_names(page)[0].split(": ", 1)[1].startswith("value ")
    clicks, deadline = 0, time.monotonic() + 60
    while not page.locator("#controls button.call-choice, #end:not([hidden])").count():
        assert time.monotonic() < deadline, "no lead of ours, and no end"
        clicks += click_move(page, calls=False) or page.wait_for_timeout(20) or 0
    page.set_viewport_size(PHONE)  # the same table on a phone, choosing a lead's call
    screenshot(page, "xactika-375x667-lead-call")
    no_horizontal_scroll(page)
    page.set_viewport_size(DESKTOP)
    clicks += play_by_clicks(page)
    assert clicks >= 2 * 9  # 2 rounds: a bid and 8 cards each
    standings = page.locator("#standings").inner_text()
    assert "Ann (you)" in standings and standings.count("heuristic") == 3
    assert page.locator("#log-list li.why").count() > 0  # why each trick was won
    assert page.locator("#scores tbody tr:not(.total)").count() == 2
    screenshot(page, "xactika-1280x800-end")
    no_horizontal_scroll(page)
    # the record to download is the server's record of this very game
    record = page.evaluate(
        "async () => (await fetch(document.querySelector('#record').href)).text()")
    assert "game-over" in record
    path = server.out / f"table-{number}.log"
    deals = record_deals(path)
    assert len(deals) == 2 and all(len(d) == 81 for d in deals.values())
    assert frames and hidden_cards_seen(frames, 0, deals, XACTIKA_CARD) == []
    assert not alerts
    times = page.evaluate("window.xactikaTimes")
    assert len(times) >= 16
    page.click("#rematch")  # the same settings and bots again, Ann in her seat
    page.wait_for_url(f"**/table/{number + 1}#seat=*")
    page.wait_for_selector("#hand button.card")
    assert "Ann (you)" in page.locator("#seats").inner_text()
    page.close()


def test_a_dix_game_by_keys_on_a_phone(server: WebServer, browser: Any) -> None:
    page = browser.new_page(viewport=PHONE)
    answer = create_table(page, server.url, name="Bea", game="dix", seats=["open", "3"])
    number, token = answer["table"]["id"], answer["invites"]["0"]
    frames = _frames(page)
    page.goto(f"{server.url}/table/{number}#seat={token}")
    page.wait_for_selector("#hand button.card")
    assert page.locator("#hand button.card").count() == 13
    label = card_names(page)[0]
    assert " of " in label or "joker" in label
    no_horizontal_scroll(page)
    screenshot(page, "dix-375x667-start")
    page.keyboard.press("r")  # the rules, from the REPL's texts
    page.wait_for_selector("#rules[open] h3")
    assert "trumps" in page.locator("#rules-body").inner_text()
    no_horizontal_scroll(page)
    page.keyboard.press("Escape")
    moves, deadline = 0, time.monotonic() + 120
    info = page.locator("#table-info").inner_text()  # trump and stock always in view
    assert "trump: " in info and "stock: 26 cards" in info and "turned up: " in info, info
    while not page.locator("#end").is_visible():
        assert time.monotonic() < deadline
        playable = page.locator("#hand button.card.playable")
        if not playable.count():
            page.wait_for_timeout(20)
            continue
        position = int(playable.last.locator(".pos").inner_text())
        before = page.locator("#hand button.card").count()
        page.keyboard.type(str(position))
        if position * 10 <= before:
            page.keyboard.press("Enter")  # "1" could start "12": Enter plays card 1
        moves += 1
        page.wait_for_function("(n) => window.xactikaTimes.length > n", arg=moves - 1)
        # read in one go: the end may be drawn (and the info line cleared) between two reads
        ended, info = page.evaluate("() => [!document.querySelector('#end').hidden, "
                                    "document.querySelector('#table-info').innerText]")
        if not ended:
            assert "trump: " in info and "stock: " in info, info
    assert moves >= 13
    talk = page.locator("#log-list li").all_inner_texts()  # cards named, never codes
    assert any(" of " in t and " plays " in t for t in talk)
    assert [t for t in talk if DIX_CARD.search(t)] == []
    screenshot(page, "dix-375x667-end")
    no_horizontal_scroll(page)
    deals = record_deals(server.out / f"table-{number}.log")
    assert hidden_cards_seen(frames, 0, deals, DIX_CARD) == []
    page.close()


def test_the_frame_check_finds_a_leak() -> None:
    """The check above can fail: a frame naming another seat's card is caught."""
    deals = {1: {"1111", "2222", "3333", "1232"}}
    seen = ["event 2 deal round=1 dealer=0 hands=1111/? aside=?\n",
            "say why-won trick=1 winner=1 2222 wins\n"]
    assert hidden_cards_seen(seen, 0, deals, XACTIKA_CARD) == [seen[1].strip()]
    played = ["event 2 deal round=1 dealer=0 hands=1111/? aside=?\n",
              "event 3 lead seat=1 card=2222 call=2ba\nsay why-won 2222 wins\n"]
    assert hidden_cards_seen(played, 0, deals, XACTIKA_CARD) == []
    shown = ["event 2 deal round=1 dealer=0 hands=1111/2222 aside=?\n"]
    assert hidden_cards_seen(shown, 0, deals, XACTIKA_CARD) == [shown[0].strip()]
