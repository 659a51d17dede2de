"""The replay and match viewers in a real browser: Playwright driving /usr/bin/chromium.

The viewer app runs under uvicorn on 127.0.0.1 in a thread; screenshots at a phone's
375x667 and a laptop's 1280x800 go to test-artifacts/web-viewer/ (ignored by git).
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from webkit import browser_session
from webviewer_kit import XSS, build, event_lines

from xactika.core.engine.api import Dealt, TrickWon
from xactika.frontends.web.viewer import viewer_app
from xactika.protocol.records.textform import read_record
from xactika.protocol.trust.signing import load_public_keys

ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts" / "web-viewer"
SIZES = ((375, 667), (1280, 800))


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return build(tmp_path_factory.mktemp("webviewer-browser"))


@pytest.fixture(scope="module")
def base(served: tuple[Path, Path]) -> Iterator[str]:
    import uvicorn

    folder, pub = served
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(viewer_app(folder, load_public_keys(pub)),
                                           host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(200):
        if server.started:
            break
        time.sleep(0.05)
    assert server.started
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from browser_session()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.on("dialog", lambda d: errors.append(f"dialog {d.message}"))
    # a Content-Security-Policy violation, or any failed load, is a console error
    pg.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    yield pg
    context.close()
    assert errors == []


def line(pg: Any) -> str:
    return str(pg.locator("#line").text_content())


def at(pg: Any) -> int:
    """The 1-based event the page shows, read from its position line."""
    text = str(pg.locator("#pos").text_content())
    return int(text.split()[1])


def step(pg: Any, key: str) -> None:
    before = pg.url
    pg.keyboard.press(key)
    pg.wait_for_function("u => location.href !== u", arg=before, timeout=2000)


@pytest.mark.parametrize("name", ["x4.log", "dix.jsonl"])
def test_stepping_through_every_event(page: Any, base: str, served: tuple[Path, Path],
                                      name: str) -> None:
    want = event_lines(served[0] / name)
    page.goto(f"{base}/replay?file={name}")
    page.wait_for_selector("#viewer:not([hidden])")
    assert "e=1" in page.url and line(page) == want[0]
    seen = [line(page)]
    told: list[str] = []
    for _ in want[1:]:
        step(page, "ArrowRight")
        seen.append(line(page))
        told.append(str(page.locator("#told").text_content()))
    assert seen == want
    # the sentences name the cards as a player sees them, never by their code
    codes = re.compile(r"(?<![0-9A-Za-z])(?:[1-3]{4}|[2-9TJQKA][SHDC]|JK)(?![0-9A-Za-z])")
    assert [t for t in told if codes.search(t)] == []
    assert any(" leads the " in t for t in told)
    assert page.locator("#standings").text_content().startswith("final standings")
    for back in range(1, 4):
        step(page, "ArrowLeft")
        assert line(page) == want[-1 - back]
    page.keyboard.press("Home")
    assert at(page) == 1


def test_tricks_rounds_url_and_reload(page: Any, base: str, served: tuple[Path, Path]) -> None:
    events = read_record(served[0] / "x4.log").events
    tricks = [i + 1 for i, e in enumerate(events) if isinstance(e, TrickWon)]
    deals = [i + 1 for i, e in enumerate(events) if isinstance(e, Dealt)]
    page.goto(f"{base}/replay?file=x4.log")
    page.wait_for_selector("#viewer:not([hidden])")
    step(page, "ArrowDown")
    assert at(page) == deals[0] and "deal round=1" in line(page)
    step(page, "Shift+ArrowRight")
    assert at(page) == tricks[0] and "trick-won" in line(page)
    step(page, "Shift+ArrowRight")
    assert at(page) == tricks[1]
    step(page, "Shift+ArrowLeft")
    assert at(page) == tricks[0]
    step(page, "ArrowDown")
    assert at(page) == deals[1] and "deal round=2" in line(page)
    step(page, "ArrowUp")
    assert at(page) == deals[0]
    page.keyboard.press("ArrowUp")
    assert at(page) == deals[0]
    assert page.locator("#message").text_content() == "this is the first round"
    step(page, "ArrowRight")
    shown, url = line(page), page.url
    assert url.endswith(f"e={deals[0] + 1}")
    page.reload()
    page.wait_for_selector("#viewer:not([hidden])")
    assert page.url == url and line(page) == shown and at(page) == deals[0] + 1


@pytest.mark.parametrize(("name", "seat"), [("x4.jsonl", 2), ("dix.log", 1)])
def test_as_one_seat_no_other_hand_is_visible(page: Any, base: str, name: str,
                                              seat: int) -> None:
    page.goto(f"{base}/replay?file={name}&seat={seat}&e=12")
    page.wait_for_selector("#viewer:not([hidden])")
    assert page.locator("#seat").input_value() == str(seat)
    hands = page.locator("#hands .hand")
    players = hands.count()
    assert players >= 2
    for s in range(players):
        hand = page.locator(f'#hands .hand[data-seat="{s}"]')
        cards = hand.locator("svg.card-svg").count()
        if s == seat:
            assert cards > 0
        else:
            assert cards == 0 and "(hidden)" in str(hand.text_content())
    page.reload()
    page.wait_for_selector("#viewer:not([hidden])")
    assert f"seat={seat}" in page.url and at(page) == 12
    page.keyboard.press("Home")
    step(page, "ArrowRight")
    assert "deal round=1" in line(page) and line(page).count("?") >= players - 1
    # the omniscient view shows every hand, and v steps through the views
    page.select_option("#seat", "all")
    page.wait_for_function("() => !location.search.includes('seat=')")
    for s in range(players):
        assert page.locator(f'#hands .hand[data-seat="{s}"] svg.card-svg').count() > 0
    assert "?" not in line(page)
    page.keyboard.press("v")
    page.wait_for_function("() => location.search.includes('seat=0')")
    assert at(page) == 2


def test_upload_a_jsonl_record(page: Any, base: str, served: tuple[Path, Path]) -> None:
    want = event_lines(served[0] / "dix.jsonl")
    page.goto(f"{base}/replay")
    page.set_input_files("#upload", str(served[0] / "dix.jsonl"))
    page.wait_for_selector("#viewer:not([hidden])")
    assert "upload=dix.jsonl" in page.url and line(page) == want[0]
    page.keyboard.press("End")
    assert line(page) == want[-1]
    page.reload()
    page.wait_for_selector("#viewer:not([hidden])")
    assert line(page) == want[-1]
    assert "audit: clean and complete" in str(page.locator("#verdict").text_content())


def test_a_refused_name_is_said_on_the_page(browser: Any, base: str) -> None:
    page = browser.new_page()  # the 403 is logged in the console: not the page fixture
    page.goto(f"{base}/replay?file=../secret.log")
    page.wait_for_selector("#error:not([hidden])")
    assert page.locator("#error").text_content() == (
        "'..' is refused: name a file inside the files folder")
    assert page.locator("#viewer").is_hidden()
    page.close()


def test_match_viewer_opens_a_game(page: Any, base: str) -> None:
    page.goto(f"{base}/match")
    page.click("#matches a")
    page.wait_for_selector("#results")
    rows = page.locator("#results tbody th").all_text_contents()
    assert sorted(rows) == ["heuristic", "random"]
    assert "Elo difference" in str(page.locator("#elo").text_content())
    page.locator("#games a").first.click()
    page.wait_for_selector("#viewer:not([hidden])")
    assert line(page).startswith("event 1 game-started game=xactika")
    assert "signature verified" in str(page.locator("#verdict").text_content())


def test_xss_name_is_text_and_screenshots(page: Any, base: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.goto(f"{base}/replay?file=xss.log&e=31")
        page.wait_for_selector("#viewer:not([hidden])")
        hand = page.locator('#hands .hand[data-seat="1"] h3').text_content()
        assert hand == f"seat 2 ({XSS})'s hand"  # seat 1 of the record, as people count
        assert page.locator("img").count() == 0
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.screenshot(path=str(ARTIFACTS / f"replay-{width}x{height}.png"), full_page=True)
        page.goto(f"{base}/replay?file=x4.log&seat=1&e=60")
        page.wait_for_selector("#viewer:not([hidden])")
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.screenshot(path=str(ARTIFACTS / f"replay-seat-{width}x{height}.png"),
                        full_page=True)
        page.goto(f"{base}/replay?file=x4.log&seat=1&e=60&lang=de")  # issue 41: was English
        page.wait_for_selector("#viewer:not([hidden])")
        hidden = page.locator('#hands .hand[data-seat="0"] h3').text_content() or ""
        assert re.fullmatch(r"Platz 1 \(.*\): \d+ Karten? \(verdeckt\)", hidden), hidden
        page.goto(f"{base}/replay?file=x4.log&seat=1&e=60&lang=en")
        page.goto(f"{base}/match?dir=m1")
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.screenshot(path=str(ARTIFACTS / f"match-{width}x{height}.png"), full_page=True)


def test_a_records_analysis_beside_each_move(page: Any, base: str,
                                             served: tuple[Path, Path]) -> None:
    from xactika.frontends.records import analyse

    folder = served[0]
    shutil.copy(folder / "x4.log", folder / "analysed.log")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert analyse.main([str(folder / "analysed.log"), "--json", "--deals", "2"]) == 0
    (folder / "analysed.log.analysis.json").write_text(out.getvalue())
    lead = next(d for d in json.loads(out.getvalue())["decisions"] if "call" in d["made"])
    page.goto(f"{base}/replay?file=analysed.log&e={lead['seq']}")
    page.wait_for_selector("#analysis:not([hidden])")
    shown = str(page.locator("#analysis").text_content())
    assert shown.startswith(f"analysis: seat {lead['seat'] + 1} (")  # people count from 1
    assert f"{lead['made']['card']} {lead['made']['call']}" in shown
    other = (lead["seat"] + 1) % 4
    page.goto(f"{base}/replay?file=analysed.log&e={lead['seq']}&seat={other}")
    page.wait_for_selector("#viewer:not([hidden])")
    assert page.locator("#analysis").is_hidden()


def test_a_timed_move_says_how_long_its_player_thought(page: Any, base: str,
                                                       served: tuple[Path, Path]) -> None:
    """A match record's think.<seat> headers, at the move they time, in both languages
    and both sizes (screenshots replay-think-*.png)."""
    name = sorted(p.name for p in (served[0] / "m1" / "games").glob("*.log"))[0]
    record = read_record(served[0] / "m1" / "games" / name)
    pos = next(n for n, e in enumerate(record.events) if type(e).__name__ == "Led")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for lang, said in (("en", "thought for"), ("de", "überlegte")):
        for width, height in SIZES:
            page.set_viewport_size({"width": width, "height": height})
            page.goto(f"{base}/replay?file=m1/games/{name}&e={pos + 1}&lang={lang}")
            page.wait_for_selector("#told .think")
            assert said in str(page.locator("#told .think").text_content())
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            page.screenshot(path=str(ARTIFACTS / f"replay-think-{lang}-{width}x{height}.png"),
                            full_page=True)
    page.goto(f"{base}/replay?file=x4.log&e={pos + 1}")  # a record without think headers
    page.wait_for_selector("#viewer:not([hidden])")
    assert page.locator("#told .think").count() == 0
