"""A person can follow the game: every trick is painted complete (sampled on every
animation frame of a 3-round game, at both sizes), each round ends in a summary that waits
for "continue" or a few seconds, the last trick comes back by a button and a key, the bid
total is in view while bidding, and the final standings mark you and the winner."""

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
    click_continue,
    click_move,
    create_table,
    no_horizontal_scroll,
    play_by_clicks,
    screenshot,
    server_fixture,
)

SAMPLER = """() => {
  window.painted = []; window.summaries = []; window.bidTotals = 0;
  const tick = () => {
    const box = document.querySelector('#trick-cards');
    const id = box.dataset.trick;
    const players = window.xactikaGame.players;
    if (id && box.querySelectorAll('figure.played').length === players
        && box.querySelector('figure.won') && !window.painted.includes(id)) {
      window.painted.push(id);
    }
    const summary = document.querySelector('#summary');
    if (!summary.hidden) {
      const title = summary.querySelector('h2').textContent;
      if (!window.summaries.includes(title)) window.summaries.push(title);
    }
    if (document.querySelector('#table-info .bid-total')) window.bidTotals += 1;
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}"""


server = server_fixture(23)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from browser_session()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280x800", "375x667"])
def test_every_trick_is_seen_complete(server: WebServer, browser: Any,
                                      viewport: dict[str, int]) -> None:
    page = browser.new_page(viewport=viewport)
    answer = create_table(page, server.url, name="Cy", rounds=3, mode="bid")
    number, token = answer["table"]["id"], answer["invites"]["0"]
    page.evaluate("() => localStorage.setItem('xactika-pace', '300')")  # a quick table
    page.goto(f"{server.url}/table/{number}#seat={token}")
    page.wait_for_selector("#hand button.card")
    page.evaluate(SAMPLER)
    size = f"{viewport['width']}x{viewport['height']}"
    reviewed = continued = False
    deadline = time.monotonic() + 120
    while not page.locator("#end").is_visible():
        assert time.monotonic() < deadline, "the game did not end in time"
        if not reviewed and page.evaluate("() => window.xactikaTricksWon.length") >= 2:
            page.keyboard.press("l")  # the last trick again, by its key
            assert "the last trick" in page.locator("#trick-title").inner_text()
            assert page.locator("#trick-cards figure.played").count() == 4
            assert page.locator("#trick-cards figure.won").count() == 1
            screenshot(page, f"follow-{size}-last-trick")
            page.click("#last-trick")  # and back by its button
            assert "the last trick" not in page.locator("#trick-title").inner_text()
            reviewed = True
        won = page.evaluate("() => window.xactikaTricksWon.length")
        if not continued and won == 7:
            page.select_option("#pace", "2500")  # slow: time to look at round 1's summary
        if not continued and won >= 8:
            page.wait_for_selector("#continue", state="visible", timeout=20_000)
            screenshot(page, f"follow-{size}-round-summary")
            no_horizontal_scroll(page)
            summary = page.locator("#summary").inner_text()
            # each seat's bid marked made or missed (which, the deal decides)
            marks = summary.count("✓ made") + summary.count("✗")
            assert "round 1 is over" in summary and marks == 4, summary
            page.click("#continue")  # the first summary by its button, the others wait
            assert page.locator("#summary").is_hidden()
            page.evaluate("() => { window.xactikaMiddle.pace = 300; }")  # quicker than any choice
            continued = True
        if not click_move(page, proceed=False):
            page.wait_for_timeout(20)
    # the standings come with the last round's summary, which waits its five paces
    page.wait_for_function("() => document.querySelector('#summary').hidden", timeout=20_000)
    won = page.evaluate("() => window.xactikaTricksWon")
    painted = page.evaluate("() => window.painted")
    assert len(won) == 24, won  # 3 rounds of 8 tricks
    never = [t for t in won if t not in painted]
    assert never == [], f"{len(never)} of {len(won)} tricks never shown complete: {never}"
    assert reviewed and continued
    summaries = page.evaluate("() => window.summaries")
    assert summaries == [f"round {r} is over" for r in (1, 2, 3)], summaries
    assert page.evaluate("() => window.bidTotals") > 0  # the bid total while bidding
    standings = page.locator("#standings")
    assert standings.locator("li.mine").count() == 1
    assert "Cy" in standings.locator("li.mine").inner_text()
    assert standings.locator("li.winner").count() >= 1
    assert "winner" in standings.locator("li.winner").first.inner_text()
    sheet = page.locator("#scores tbody tr:not(.total)")
    assert sheet.count() == 3
    assert "/" in sheet.first.inner_text()  # bid/took
    talk = page.locator("#log-list li").all_inner_texts()  # every move, scrollable
    assert [t for t in talk if XACTIKA_CARD.search(t)] == []  # cards named, never codes
    assert sum(" leads " in t for t in talk) == 24 and sum(" plays " in t for t in talk) == 72
    assert sum(" bids " in t for t in talk) == 12
    assert page.evaluate("() => { const l = document.querySelector('#log-list');"
                         " return l.scrollHeight > l.clientHeight; }")
    screenshot(page, f"follow-{size}-end")
    no_horizontal_scroll(page)
    page.close()


def test_the_end_shows_the_last_trick_of_the_last_round(server: WebServer,
                                                       browser: Any) -> None:
    """A whole Oh Hell game (hand sizes 1, 2, 3) at a person's click speed: the final
    standings come once the middle has shown every trick, with the last round's summary,
    and then the middle holds the game's last trick (never an older one, never nothing)."""
    page = browser.new_page(viewport=DESKTOP)
    answer = create_table(page, server.url, name="Di", game="ohhell", rounds=3,
                          seats=["open", "3", "3", "3", "3"])
    number, token = answer["table"]["id"], answer["invites"]["0"]
    page.evaluate("() => localStorage.setItem('xactika-pace', '300')")
    page.goto(f"{server.url}/table/{number}#seat={token}")
    page.wait_for_selector("#hand button.card")
    page.evaluate(SAMPLER)
    deadline = time.monotonic() + 60
    while not page.locator("#end").is_visible():
        assert time.monotonic() < deadline, "the game did not end in time"
        if not click_move(page):
            page.wait_for_timeout(20)
    won = page.evaluate("() => window.xactikaTricksWon")
    assert len(won) == 6 and won[-1] == "3.3", won
    if page.locator("#summary").is_visible():  # the last round's, with the standings
        assert page.locator("#summary h2").inner_text() == "round 3 is over"
        screenshot(page, "follow-1280x800-ohhell-end-summary")
        click_continue(page)  # unless it went by itself meanwhile
    for _ in range(2):  # the game's last trick, and after a pace or two still
        assert page.locator("#summary").is_hidden()
        assert page.locator("#trick-cards").get_attribute("data-trick") == "3.3"
        assert page.locator("#trick-title").inner_text() == "trick 3 of round 3"
        assert page.locator("#trick-cards figure.played").count() == 5
        page.wait_for_timeout(700)
    assert [t for t in won if t not in page.evaluate("() => window.painted")] == []
    screenshot(page, "follow-1280x800-ohhell-end")
    page.close()


def test_the_pace_menu_shows_the_pace_in_use(server: WebServer, browser: Any) -> None:
    """A stored pace that is none of the menu's (set by hand, or by the tests' quick
    pace) is shown as an option of its own, never as a blank menu; nonsense is normal."""
    page = browser.new_page(viewport=PHONE)
    answer = create_table(page, server.url, name="Ed")
    url = f"{server.url}/table/{answer['table']['id']}#seat={answer['invites']['0']}"
    shown = "() => { const s = document.querySelector('#pace');" \
        " return [s.value, s.selectedIndex >= 0 ? s.options[s.selectedIndex].text : '']; }"
    page.goto(url)
    for stored, value, text in (("40", "40", "40 ms"), ("2500", "2500", "slow"),
                                ("junk", "1200", "normal"), ("-5", "1200", "normal")):
        page.evaluate("(v) => localStorage.setItem('xactika-pace', v)", stored)
        page.reload()
        page.wait_for_selector("#hand button.card")
        assert page.evaluate(shown) == [value, text], stored
        assert page.evaluate("() => window.xactikaMiddle.pace") == int(value)
    page.select_option("#pace", "600")  # a choice is kept for the next page
    page.reload()
    page.wait_for_selector("#hand button.card")
    assert page.evaluate(shown) == ["600", "quick"]
    page.close()


def test_the_panels_leave_no_empty_column_on_a_desktop(server: WebServer,
                                                       browser: Any) -> None:
    """Four seats or more: the score sheet takes a row of its own, and the table talk and
    the chat share the row above it, edge to edge (a third column stood empty)."""
    page = browser.new_page(viewport=DESKTOP)
    answer = create_table(page, server.url, name="Flo")
    page.goto(f"{server.url}/table/{answer['table']['id']}#seat={answer['invites']['0']}")
    play_by_clicks(page)  # a round scored: the sheet has its five columns
    assert page.locator("#scores thead th:nth-child(5)").count() == 1
    boxes = page.evaluate("""() => [...document.querySelectorAll('.panels, .panels section')]
        .map(e => { const r = e.getBoundingClientRect(); return [r.left, r.right, r.top]; })""")
    (left, right, _), talk, scores, chat = boxes
    assert talk[2] == chat[2] < scores[2]  # talk and chat side by side, the sheet below
    assert abs(talk[0] - left) < 1 and abs(chat[1] - right) < 1, boxes
    assert abs(scores[0] - left) < 1 and abs(scores[1] - right) < 1, boxes
    screenshot(page, "follow-1280x800-panels")
    page.set_viewport_size(PHONE)  # on a phone, one below the other
    boxes = page.evaluate("""() => [...document.querySelectorAll('.panels section')]
        .map(e => e.getBoundingClientRect().top)""")
    assert boxes[0] < boxes[1] < boxes[2], boxes
    page.close()
