"""Helpers of the browser tests: ``xactika web`` in a subprocess, Debian's chromium driven
by Playwright, the moves a person makes, and the hidden-card check of WebSocket frames.

Playwright's own browser download is not available here: the tests launch the system's
``/usr/bin/chromium`` (``.ci/run`` installs it), with ``--no-sandbox`` as root. Screenshots
go to ``test-artifacts/web/`` (``XACTIKA_ARTIFACTS`` moves it).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(os.environ.get("XACTIKA_ARTIFACTS", ROOT / "test-artifacts")) / "web"
PHONE = {"width": 375, "height": 667}
DESKTOP = {"width": 1280, "height": 800}
XACTIKA_CARD = re.compile(r"(?<![0-9A-Za-z])[1-3]{4}(?![0-9A-Za-z])")
DIX_CARD = re.compile(r"(?<![0-9A-Za-z])(?:[2-9TJQKA][SHDC]|JK)(?![0-9A-Za-z])")


def playwright_or_skip() -> Any:
    """The sync Playwright API, or skip where no browser can run (a dev machine without
    chromium; CI always has it, and .ci/run installs it)."""
    if not Path(CHROMIUM).exists():
        if os.environ.get("XACTIKA_REQUIRE_BROWSER"):  # CI (.ci/run) installs it
            pytest.fail(f"no {CHROMIUM}: apt-get install chromium")
        pytest.skip(f"no {CHROMIUM}: apt-get install chromium")
    from playwright.sync_api import sync_playwright

    return sync_playwright


class WebServer:
    """``xactika web --port 0`` in a subprocess; its URL and its records folder. Unpaced
    (``--pace off``: bots play at once, so that whole games stay quick) unless ``extra``
    names a ``--pace``."""

    def __init__(self, out: Path, seed: int, extra: Sequence[str] = (),
                 program: list[str] | None = None) -> None:
        self.out = out
        paced = any(arg == "--pace" or arg.startswith("--pace=") for arg in extra)
        self.proc = subprocess.Popen(
            [sys.executable, *(program or ["-m", "xactika.frontends.cli"]), "web", "--port",
             "0", "--out", str(out), "--seed", str(seed),
             # every page of a test comes from 127.0.0.1: one address for many people
             "--tables-per-address", "64",
             *(() if paced else ("--pace", "off")), *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        found = re.search(r"(http://\S+?)/ ", line)
        if found is None:
            self.proc.kill()
            raise AssertionError(f"xactika web did not start: {line!r} "
                                 f"{self.proc.stderr.read() if self.proc.stderr else ''}")
        self.url = found.group(1)

    def stop(self) -> str:
        """Stop the server; what it printed to stderr (tokens must never be there)."""
        self.proc.terminate()
        try:
            _, err = self.proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            _, err = self.proc.communicate()
        return err


def web_server(tmp_path_factory: pytest.TempPathFactory, seed: int,
               program: list[str] | None = None) -> Iterator[WebServer]:
    """``xactika web`` (``program``: another entry point, such as one that registers a
    game first) for a module's tests; stopped after, its output checked."""
    server = WebServer(tmp_path_factory.mktemp("web"), seed, program=program)
    yield server
    err = server.stop()
    assert "Traceback" not in err, err
    assert not re.search(r"[0-9a-f]{32}", err), "a token in the server's output"


def launch(playwright: Any) -> Any:
    args = ["--no-sandbox"] if os.geteuid() == 0 else []
    return playwright.chromium.launch(executable_path=CHROMIUM, args=args)


QUICK_PACE = "() => { if (!localStorage.getItem('xactika-pace'))" \
    " localStorage.setItem('xactika-pace', '40'); }"
"""A page's own pace, unless a test set one: tests click at once, so that the trick a
page shows falls far behind the game; at 40 ms a trick the page catches up at once (the
final standings wait for every trick), while each is still painted complete."""


class QuickBrowser:
    """The browser, its pages at a quick pace of their own (QUICK_PACE)."""

    def __init__(self, browser: Any) -> None:
        self.browser = browser

    def new_context(self, **options: Any) -> Any:
        context = self.browser.new_context(**options)
        context.add_init_script(f"({QUICK_PACE})()")
        return context

    def new_page(self, **options: Any) -> Any:
        page = self.browser.new_page(**options)
        page.context.add_init_script(f"({QUICK_PACE})()")
        return page

    def __getattr__(self, name: str) -> Any:
        return getattr(self.browser, name)


def browser_session() -> Iterator[Any]:
    """The browser fixtures' body: Debian's chromium under Playwright (QuickBrowser),
    closed after; a skip without it, a failure where CI requires it (playwright_or_skip)."""
    with playwright_or_skip()() as playwright:
        found = launch(playwright)
        yield QuickBrowser(found)
        found.close()


def server_fixture(seed: int, program: list[str] | None = None) -> Any:
    """A module's ``server`` fixture: ``xactika web`` dealing from ``seed``."""

    @pytest.fixture(scope="module")
    def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
        yield from web_server(tmp_path_factory, seed, program)

    return server


def create_table(page: Any, url: str, *, name: str, game: str = "xactika", rounds: int = 1,
                 seats: list[str] | None = None, tutorial: bool = False,
                 mode: str | None = None, clock: str = "120") -> dict[str, Any]:
    """Create a table from the page's origin (as the lobby form does); its answer."""
    page.goto(url + "/")
    request = {"game": game, "rounds": rounds, "clock": clock,
               "seats": seats or ["open", "3", "3", "3"], "tutorial": tutorial,
               "players": len(seats or [0] * 4)}
    if mode:
        request["mode"] = mode
    answer: dict[str, Any] = page.evaluate(
        """async (request) => (await fetch('/api/tables', {method: 'POST', headers:
            {'content-type': 'application/json'}, body: JSON.stringify(request)})).json()""",
        request)
    assert "error" not in answer, answer
    page.evaluate("(name) => localStorage.setItem('xactika-name', name)", name)
    return answer


CARD_NAMES = ("cards => cards.map(c => [...c.children].filter(k =>"
              " k.getAttribute('aria-hidden') !== 'true').map(k => k.textContent).join(''))")
"""The names the hand's cards are read out by (``1: value 5: ...``): from their content,
the drawing left out (as the browser names a button without an aria-label)."""


def card_names(page: Any) -> list[str]:
    names: list[str] = page.locator("#hand button.card").evaluate_all(CARD_NAMES)
    return names


def click_move(page: Any, calls: bool = True, bids: bool = True, proceed: bool = True) -> bool:
    """One move by clicks where one is asked: a bid (unless not ``bids``: the caller
    bids), a card, a call (unless not ``calls``: then a lead's card is chosen and its
    call left to ask), else a round summary's "continue" (unless not ``proceed``: the
    caller looks at it). False if none."""
    bid = page.locator("#controls button.bid:not([disabled])")
    if bid.count() and bids:
        bid.first.click()
        return True
    call = page.locator("#controls button.call-choice")
    if call.count() and calls:
        call.last.click()
        return True
    card = page.locator("#hand button.card.playable")
    if card.count() and not call.count():
        card.last.click()
        return True
    return proceed and click_continue(page)


def click_continue(page: Any) -> bool:
    """A round summary's "continue", if one is shown (it may give way by itself meanwhile:
    clicked only where it still is). False if none."""
    return bool(page.evaluate(
        "() => { const c = document.querySelector('#summary:not([hidden]) #continue');"
        " if (c) c.click(); return !!c; }"))


def key_move(page: Any) -> bool:
    """One move by keys, as the REPL's: a bid's number, a card's position, then the
    call's shape letter (b c o s). False if none is asked; else it waits until the page
    took the key."""
    moves = page.evaluate("() => window.xactikaTimes.length")
    done = "(n) => window.xactikaTimes.length > n"
    bid = page.locator("#controls button.bid:not([disabled])")
    call = page.locator("#controls button.call-choice")
    card = page.locator("#hand button.card.playable")
    if bid.count():
        page.keyboard.type(bid.first.inner_text())
    elif call.count():
        words = call.last.get_attribute("aria-label").split()  # "call 2 stars (4)"
        page.keyboard.type({"balls": "b", "ball": "b", "cubes": "c", "cube": "c",
                            "cones": "o", "cone": "o", "stars": "s", "star": "s"}[words[2]])
    elif card.count():
        page.keyboard.type(card.last.locator(".pos").inner_text())
        done = ("(n) => window.xactikaTimes.length > n"
                " || !!document.querySelector('#controls button.call-choice')")
    else:
        return False
    page.wait_for_function(done, arg=moves)
    return True


def play_by_clicks(page: Any, limit: float = 120.0) -> int:
    """Click moves until the game is over; the number of clicks. Whenever cards are
    dimmed, their names say why."""
    clicks = 0
    deadline = time.monotonic() + limit
    while not page.locator("#end").is_visible():
        assert time.monotonic() < deadline, "the game did not end in time"
        for label in page.locator("#hand button.card.dimmed").evaluate_all(CARD_NAMES):
            assert "(not playable: you must follow the lead (" in label, label
        if click_move(page, proceed=False):
            clicks += 1
        elif not click_continue(page):
            page.wait_for_timeout(20)
    return clicks


def no_horizontal_scroll(page: Any) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    inner = page.evaluate("window.innerWidth")
    assert width <= inner, f"the page is {width}px wide in a {inner}px window"


def screenshot(page: Any, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


# --------------------------------------------------------------------------- hidden cards


def record_deals(path: Path) -> dict[int, set[str]]:
    """Every round's whole deal (all hands and the rest) from a finished game's record."""
    deals: dict[int, set[str]] = {}
    for line in path.read_text().splitlines():
        words = line.split()
        if len(words) > 2 and words[0] == "event" and words[2] == "deal":
            fields = dict(w.split("=", 1) for w in words[3:] if "=" in w)
            cards = set(re.split(r"[,/]", fields["hands"] + "," + fields["aside"]))
            deals[int(fields["round"])] = cards - {"?", "-", ""}
    return deals


def hidden_cards_seen(frames: list[str], seat: int | None, deals: dict[int, set[str]],
                      card: re.Pattern[str]) -> list[str]:
    """Every line of ``frames`` that names a card ``seat`` (None: a spectator) could not
    see then: a card of this round's deal not in its hand, not drawn by it, not played
    and not turned up."""
    leaks: list[str] = []
    secret: set[str] = set()
    for frame in frames:
        for line in frame.split("\n"):
            words = line.split()
            if len(words) > 2 and words[0] == "event":
                fields = dict(w.split("=", 1) for w in words[3:] if "=" in w)
                kind = words[2]
                if kind == "deal":
                    own = (fields["hands"].split("/")[seat].split(",")
                           if seat is not None else [])
                    secret = deals[int(fields["round"])] - set(own) - {fields.get("turned")}
                    shown = [h for i, h in enumerate(fields["hands"].split("/")) if i != seat]
                    if any(h != "?" for h in shown) or fields["aside"] not in ("?", "-"):
                        leaks.append(line)
                    continue
                if kind in ("lead", "play") or (kind == "draw" and fields.get("seat") == str(seat)):
                    secret.discard(fields.get("card", ""))
            if set(card.findall(line)) & secret:
                leaks.append(line)
    return leaks
