"""axe-core in the real Chromium: 0 violations of any impact on the table mid-game and at
the end, the lobby and the replay viewer, at a phone's and a laptop's size, in English and
German; and a whole game played with the keyboard alone.

axe-core comes from the npm registry (``.ci/run`` installs it into ``.axe/``;
``XACTIKA_AXE`` names another ``axe.min.js``). Without it the test skips on a dev machine
and fails where CI requires the browser tests (``XACTIKA_REQUIRE_BROWSER``).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from axekit import axe_source, violations
from webkit import (
    DESKTOP,
    PHONE,
    WebServer,
    browser_session,
    create_table,
    screenshot,
    server_fixture,
)

server = server_fixture(43)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from browser_session()




SIZES = [(PHONE, "375x667"), (DESKTOP, "1280x800")]


@pytest.mark.parametrize("lang", ["en", "de"])
@pytest.mark.parametrize(("viewport", "size"), SIZES, ids=["phone", "desktop"])
def test_no_axe_violations_on_any_page(server: WebServer, browser: Any, lang: str,
                                       viewport: dict[str, int], size: str) -> None:
    source = axe_source()
    phone = viewport == PHONE
    context = browser.new_context(viewport=viewport, locale="de-DE" if lang == "de" else
                                  "en-US", is_mobile=phone, has_touch=phone)
    page = context.new_page()
    found: dict[str, list[str]] = {}
    try:
        answer = create_table(page, server.url, name="Axel", clock="none", rounds=2)
        page.reload()
        page.wait_for_selector("#tables li.lobby-table")
        found["lobby"] = violations(page, source)
        number, token = answer["table"]["id"], answer["invites"]["0"]
        page.goto(f"{server.url}/table/{number}#seat={token}")
        page.wait_for_selector("#controls button.bid")
        found["table bidding"] = violations(page, source)
        by_keys(page, until=lambda: page.locator("#hand button.card.playable").count() > 0
                and page.locator("#log-list li.why").count() > 0)
        found["table mid-game"] = violations(page, source)
        heard(page)
        screenshot(page, f"axe-{lang}-{size}-mid")

        def summary() -> None:
            found.setdefault("round summary", violations(page, source))
            if page.locator("#controls button.bid:not([disabled])").count():
                uncovered(page)
                seen.append("bid")

        seen: list[str] = []
        by_keys(page, until=lambda: page.locator("#end").is_visible(), summary=summary)
        assert seen, "no bid of ours while a round's summary showed"
        found["table at the end"] = violations(page, source)
        screenshot(page, f"axe-{lang}-{size}-end")
        page.goto(f"{server.url}/table/{number}/replay")
        page.wait_for_selector("#viewer:not([hidden])")
        page.keyboard.press("ArrowDown")
        found["replay viewer"] = violations(page, source)
        screenshot(page, f"axe-{lang}-{size}-replay")
    finally:
        context.close()
    bad = {where: lines for where, lines in found.items() if lines}
    assert not bad, "\n".join(f"{where}: {line}" for where, lines in bad.items()
                              for line in lines)


def heard(page: Any) -> None:
    """What a screen reader hears: each badge a word of its own ("dealer seat 0", not
    "dealerseat 0"), the seat to act marked (ours: our cards are playable), each why-line
    in one live region only."""
    joined = page.locator("#seats .badge").evaluate_all(
        "bs => bs.filter(b => !/^\\s/.test(b.nextSibling?.textContent || ''))"
        ".map(b => b.parentNode.textContent)")
    assert not joined, joined
    assert page.locator("#seats li[aria-current]").count() == 1
    assert page.locator("#seats li[aria-current]").get_attribute("class") == "seat turn mine"
    live = "[aria-live], [role=status], [role=log], [role=alert]"
    spoken = [page.locator(where).evaluate("(e, live) => !!e.closest(live)", live)
              for where in ("#why", "#log-list li.why >> nth=-1")]
    assert spoken == [False, True], spoken  # the log's line; the middle's is seen only


UNDER = """() => { scrollTo(0, 0);
  const dock = document.querySelector('.dock').getBoundingClientRect();
  const hidden = [];
  for (const sel of ['#status', '#controls button.bid:not([disabled])']) {
    const r = document.querySelector(sel).getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (!hit || !hit.closest(sel)) hidden.push(sel + ' under ' + (hit ? hit.className : '-'));
  }
  for (const sel of ['#last-trick', '#pace']) {
    const r = document.querySelector(sel).getBoundingClientRect();
    if (r.bottom > dock.top && r.top < dock.bottom) hidden.push(sel + ' under the dock');
  }
  return hidden; }"""


def uncovered(page: Any) -> None:
    """Our bid is asked while a round's summary shows: the bids and the status line are on
    top (the summary gives way or moves behind), the last-trick and pace tools not under
    the dock."""
    hidden = page.evaluate(UNDER)
    assert not hidden, hidden


def by_keys(page: Any, until: Any, limit: float = 120.0, summary: Any = None) -> int:
    """Moves by the keyboard alone (Tab to a control, Enter) until ``until()``; the number
    of moves. A summary's "continue" is reached by Tab too (``summary()`` called first)."""
    moves, deadline = 0, time.monotonic() + limit
    while not until():
        assert time.monotonic() < deadline, "the game did not go on by keys"
        target = page.evaluate(FIRST_ASKED)
        if target is None:
            page.wait_for_timeout(20)
            continue
        if summary is not None and target.endswith("#continue"):
            summary()
        if not tab_to(page, target):
            continue
        before = page.evaluate("() => window.xactikaTimes.length")
        page.keyboard.press("Enter")
        page.wait_for_function(
            "([n, t]) => window.xactikaTimes.length > n || !document.querySelector(t)"
            " || !!document.querySelector('#controls button.call-choice')", arg=[before, target])
        moves += 1
    return moves


FIRST_ASKED = """() => {
  const pick = [['#summary:not([hidden]) #continue'],
    ['#controls button.call-choice', true], ['#controls button.bid:not([disabled])'],
    ['#hand button.card.playable', true]];
  for (const [sel, last] of pick) {
    const all = document.querySelectorAll(sel);
    if (all.length) {
      const el = all[last ? all.length - 1 : 0];
      if (!el.id) el.id = 'kb-' + Math.random().toString(36).slice(2);
      return '#' + el.id;
    }
  }
  return null; }"""


def tab_to(page: Any, target: str) -> bool:
    """Press Tab (Shift+Tab past it) until ``target`` has the focus: the control is
    reachable by keys, in a bounded number of presses. False if it went meanwhile (a
    summary that gave way, a hand drawn again): the caller looks again."""
    for _ in range(200):
        if page.evaluate("(t) => document.activeElement === document.querySelector(t)",
                         target):
            return True
        if not page.evaluate("(t) => !!document.querySelector(t)?.checkVisibility()", target):
            return False
        page.keyboard.press("Tab")
    raise AssertionError(f"{target} is not reachable by Tab")


def test_the_axe_check_finds_a_violation(browser: Any) -> None:
    """The check itself can fail: a page with an image without a name."""
    source = axe_source()
    page = browser.new_page()
    page.set_content("<!doctype html><html lang=en><title>t</title><main><h1>x</h1>"
                     "<img src='data:,'></main></html>")
    assert any(line.startswith("image-alt") for line in violations(page, source))
    page.close()


SUMMARY_HELD = """async () => {
  const { Middle } = await import('/static/middle.js');
  const held = (go, trick) => {
    const middle = new Middle({ go, trick, over: null }, () => {});
    middle.queue.push({ kind: 'summary', row: {}, said: [], since: 0 });
    middle.advance(middle.pace * 2);  // two paces of its five shown
    return middle.summing;
  };
  return { lead: held({ kind: 'card' }, []), bid: held({ kind: 'bid' }, []),
           follow: held({ kind: 'card' }, ['QH']), none: held(null, []) }; }"""


def test_a_round_summary_stays_its_time_unless_a_card_must_follow(
        server: WebServer, browser: Any) -> None:
    """Our lead (Dix's loser leads) or our bid keeps the summary its five paces, as in
    every game (it moves behind the dock instead); only a card to play to a trick begun
    sends it away, so that the led card shows."""
    page = browser.new_page()
    page.goto(f"{server.url}/table/1")
    held = page.evaluate(SUMMARY_HELD)
    assert held == {"lead": True, "bid": True, "follow": False, "none": True}, held
    page.close()
