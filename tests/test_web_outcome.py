"""The web table's end screen shows the outcome the record writes (issue 30 item 5): a
person whose clock runs out at a table that forfeits is told so, and nobody's page names
a forfeited seat the winner. Debian's Chromium under Playwright, a real ``xactika web``."""

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
    web_server,
)

from xactika.protocol.records.textform import read_record


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    yield from web_server(tmp_path_factory, seed=31)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from browser_session()


def test_the_end_screen_marks_the_forfeited_seat_and_the_record_s_winner(
        server: WebServer, browser: Any) -> None:
    context = browser.new_context(viewport=DESKTOP)
    ann, watcher = context.new_page(), context.new_page()
    ann.goto(server.url + "/")
    answer = ann.evaluate(
        """async () => (await fetch('/api/tables', {method: 'POST', headers:
            {'content-type': 'application/json'}, body: JSON.stringify({game: 'xactika',
            rounds: 1, players: 2, clock: '0.2', on_timeout: 'forfeit',
            seats: ['open', '2']})})).json()""")
    assert "error" not in answer, answer
    number, invites = answer["table"]["id"], answer["invites"]
    ann.evaluate("() => localStorage.setItem('xactika-name', 'Ann')")
    watcher.goto(f"{server.url}/table/{number}#watch")
    ann.goto(f"{server.url}/table/{number}#seat={invites['0']}")  # and never moves
    watcher.wait_for_selector("#end:not([hidden])", timeout=30_000)
    standings = watcher.locator("#standings li").all_inner_texts()
    screenshot(watcher, "outcome-forfeited-1280x800")
    watcher.set_viewport_size(PHONE)
    no_horizontal_scroll(watcher)
    screenshot(watcher, "outcome-forfeited-375x667")
    ann.wait_for_function(  # the person is told that their seat forfeited
        "() => document.body.innerText.includes('forfeits (timeout)')", timeout=10_000)
    context.close()
    record = read_record(server.out / f"table-{number}.log")
    assert record.result is not None and "seat 0 (Ann) forfeited" in record.result
    ann_line = next(line for line in standings if "Ann" in line and "forfeited" in line)
    assert "winner" not in ann_line, standings  # game-over's winner or not: never shown so
    assert any("winner" in line for line in standings), standings
    # the record counts seats from 0, the page as people do
    assert standings[-1].startswith("seat 1 (Ann) forfeited: it cannot win. "), standings
    assert standings[-1].endswith(" wins."), standings


def test_a_page_opened_after_the_end_links_the_game_in_the_replay_viewer(
        server: WebServer, browser: Any) -> None:
    """Reloaded after game over (the seat's token went with the end: the page watches), the
    page offers the game in the replay viewer (and the record) instead of an empty table
    or a form to take a seat."""
    context = browser.new_context(viewport=PHONE)
    ann = context.new_page()
    answer = create_table(ann, server.url, name="Ann", seats=["open", "3"], rounds=1)
    number, invites = answer["table"]["id"], answer["invites"]
    ann.goto(f"{server.url}/table/{number}#seat={invites['0']}")
    deadline = time.monotonic() + 60
    while not ann.locator("#end:not([hidden])").count() and time.monotonic() < deadline:
        if not click_move(ann):
            ann.wait_for_timeout(50)
    assert ann.locator("#replay").get_attribute("href") == f"/table/{number}/replay"
    ann.reload()  # the seat's token went with the game's end: the page watches the table
    again = ann.locator("#replay-over, #end:not([hidden]) #replay").first
    again.wait_for(timeout=10_000)
    assert again.get_attribute("href") == f"/table/{number}/replay"
    no_horizontal_scroll(ann)
    screenshot(ann, "over-reloaded-375x667")
    again.click()
    ann.wait_for_selector("#viewer:not([hidden])", timeout=10_000)
    assert f"file=table-{number}.log" in ann.url
    ann.keyboard.press("End")  # the viewer's last position: the game's standings
    ann.wait_for_function("() => document.querySelector('#standings').textContent"
                          ".startsWith('final standings')", timeout=10_000)
    missing = ann.request.get(f"{server.url}/table/{number + 1000}/replay", max_redirects=0)
    assert missing.status == 404
    # the lobby's finished table: its seats are not "playing", and it offers the game
    # again in the replay viewer (not "watch"), which links back to the table
    ann.goto(f"{server.url}/")
    listed = ann.locator(".lobby-table", has_text=f"table {number}:")
    listed.wait_for()
    assert "(playing)" not in listed.inner_text() and "Ann" in listed.inner_text()
    assert listed.locator(".actions a").all_inner_texts() == ["see the game again"]
    listed.locator("a", has_text="see the game again").click()
    ann.wait_for_selector("#viewer:not([hidden])")
    assert f"file=table-{number}.log" in ann.url
    ann.locator("#to-table").click()  # a watcher's page: the same links
    again.wait_for(timeout=10_000)
    assert again.get_attribute("href") == f"/table/{number}/replay"
    assert ann.locator("#status").inner_text() == "the game is over"
    context.close()
