"""Issue 42: the arena's pages as people use them, in Chromium: ``/arena`` and an
entrant's page at a phone's and a laptop's size, in English and German, with 0 axe-core
violations, no sideways scrolling, a listed game's link opening that game in the
replay viewer, and a set under way's watch link opening its live page.

axe-core comes from the npm registry (``.ci/run`` installs it into ``.axe/``;
``XACTIKA_AXE`` names another ``axe.min.js``); without it the test skips on a dev
machine and fails where CI requires the browser tests (``XACTIKA_REQUIRE_BROWSER``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import unquote

import pytest
from arenawebkit import add_set, ids, live_game, played_arena
from axekit import axe_source, violations
from webkit import (
    DESKTOP,
    PHONE,
    WebServer,
    browser_session,
    no_horizontal_scroll,
    screenshot,
)

SIZES = [(PHONE, "375x667"), (DESKTOP, "1280x800")]
LIVE_EVENTS = 14  # the opening, 3 bids, two tricks and the third one's lead


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    folder = played_arena(tmp_path_factory.mktemp("arena-browser") / "a")
    going = add_set(folder, ids(folder, "ann", "bea", "cid"), played=0, claimed=True)
    live_game(folder, going, upto=LIVE_EVENTS)  # a trick on the table, the rest to come
    web = WebServer(tmp_path_factory.mktemp("web"), 7, extra=["--arena", str(folder)])
    yield web
    err = web.stop()
    assert "Traceback" not in err, err


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from browser_session()



@pytest.mark.parametrize("lang", ["en", "de"])
@pytest.mark.parametrize(("viewport", "size"), SIZES, ids=["phone", "desktop"])
def test_the_arena_pages_in_chromium(server: WebServer, browser: Any, lang: str,
                                     viewport: dict[str, int], size: str) -> None:
    source = axe_source()
    phone = viewport == PHONE
    context = browser.new_context(viewport=viewport, locale="de-DE" if lang == "de"
                                  else "en-US", is_mobile=phone, has_touch=phone)
    page = context.new_page()
    found: dict[str, list[str]] = {}
    try:
        page.goto(f"{server.url}/arena")
        assert page.locator("html").get_attribute("lang") == lang
        heading = page.locator("#recent").inner_text()
        assert heading == {"en": "Latest games", "de": "Letzte Spiele"}[lang]
        assert page.locator("table.standings tbody tr").count() >= 3
        no_horizontal_scroll(page)
        found["/arena"] = violations(page, source)
        screenshot(page, f"arena-{lang}-{size}")
        page.locator("ul.playing a.watch").click()
        page.wait_for_url("**/arena/watch/*")
        page.locator("#log li").nth(LIVE_EVENTS - 1).wait_for()  # every line drawn
        assert page.locator("#log li").count() == LIVE_EVENTS
        assert page.locator("#board .trick .cards li").count() == 1  # the third trick's lead
        assert page.locator("#board table.bids tr").count() == 4  # names, bid, taken, total
        no_horizontal_scroll(page)
        found["/arena/watch"] = violations(page, source)
        screenshot(page, f"arena-watch-{lang}-{size}")
        page.go_back()
        page.wait_for_url("**/arena")
        page.locator("table.standings a", has_text="ann").first.click()
        page.wait_for_url("**/arena/ann")
        assert page.locator("figure.plot svg polyline").count() == 1
        no_horizontal_scroll(page)
        found["/arena/ann"] = violations(page, source)
        screenshot(page, f"arena-entrant-{lang}-{size}")
        row = page.locator("#recent-games tbody tr").nth(1)
        seats = " ".join(row.locator("td.lineup").text_content().split())
        link = row.locator("a.replay")
        name = unquote(link.get_attribute("href").split("file=", 1)[1])
        link.click()
        page.wait_for_selector("#viewer:not([hidden])")
        # the game listed is the game opened: its record's name, its seats in their order
        assert page.locator("#title").inner_text().startswith(name + ":")
        labels = page.locator("#seat option").all_inner_texts()[1:]
        names = [part.rsplit(" ", 1)[0] for part in seats.split(", ")]
        assert len(labels) == len(names) and all(
            n in label for n, label in zip(names, labels, strict=True)), (names, labels)
        assert page.locator("#verdict.good").count() == 1  # signed by the arena, audited
        screenshot(page, f"arena-replay-{lang}-{size}")
    finally:
        context.close()
    bad = {where: lines for where, lines in found.items() if lines}
    assert not bad, "\n".join(f"{where}: {line}" for where, lines in bad.items()
                              for line in lines)
