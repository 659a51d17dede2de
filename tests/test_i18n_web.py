"""The web in German: the language from Accept-Language or a remembered switch, the
page's strings from the catalog, and a whole German game in the real Chromium with no
English sentence on screen, at 1280x800 and 375x667."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient
from webkit import (
    DESKTOP,
    PHONE,
    WebServer,
    browser_session,
    card_names,
    click_move,
    create_table,
    no_horizontal_scroll,
    screenshot,
    server_fixture,
)

from xactika.frontends import i18n
from xactika.frontends.web.app import create_app
from xactika.protocol.net.server import Server

# English words a German page must not show (German shares "in", "an", "so", "will").
ENGLISH = set("""
the you your is are to and of with trick tricks bids wins win won card cards seat round
leads plays calling hand legal must follow not game over points total scored final
standings no yet has played nobody taken shows showing highest only deals dealt turn
waiting watching table lobby take sit down back leave rules mute send say something
score scores chat talk pace quick slow sort keys cancels call called winner forfeited
""".split())
ALLOWED = {"heuristic", "Xactika", "Esc", "Enter", "Chat", "Lobby", "Bot", "Tab", "normal",
           "xactika", "en", "de"}
# the replay viewer's text but the record's own line (what the file holds, as a program reads
# it) and the auditor's own reasons for a problem (as 'xactika audit' prints them)
TEXT_BUT_RECORD_LINES = """m => { const c = m.cloneNode(true);
  for (const id of ['#line', '#verdict li.problem']) c.querySelector(id)?.remove();
  document.body.append(c); const text = c.innerText; c.remove(); return text; }"""
WORD = re.compile(r"[A-Za-zÄÖÜäöüß]+")


FILE = re.compile(r"\S+\.(?:log|rec|jsonl)\b")  # a record's file name is a name


def english(text: str) -> list[str]:
    return [w for w in WORD.findall(FILE.sub(" ", text)) if w in ENGLISH and w not in ALLOWED]


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(create_app(Server()).asgi, base_url="http://127.0.0.1") as c:
        yield c


def test_the_page_follows_accept_language_and_remembers_the_switch(client: TestClient) -> None:
    german = {"accept-language": "de-DE,de;q=0.9,en;q=0.8"}
    page = client.get("/", headers=german)
    assert '<html lang="de">' in page.text and "Neuer Tisch" in page.text
    assert "Accept-Language" in page.headers["vary"]
    assert '<html lang="en">' in client.get("/", headers={"accept-language": "fr, en"}).text
    switched = client.get("/?lang=en", headers=german)  # the switch wins, and is kept
    assert '<html lang="en">' in switched.text and "New table" in switched.text
    assert switched.cookies.get(i18n.COOKIE) == "en"
    again = client.get("/table/1", headers=german)  # the cookie rides along
    assert '<html lang="en">' in again.text
    client.cookies.clear()  # the switch's "en" goes: a browser that holds "de"
    client.cookies.set(i18n.COOKIE, "de")
    table = client.get("/table/1", headers={"accept-language": "en"})
    assert '<html lang="de">' in table.text and "den Tisch verlassen" in table.text
    assert "<title>Xactika: Tisch 1</title>" in table.text  # a {field} filled in a template


def test_the_page_strings_come_from_the_same_catalog(client: TestClient) -> None:
    page = client.get("/i18n/de.json").json()
    assert page["messages"]["your turn"] == "du bist am Zug"
    assert page["messages"]["{n} ball"] == ["{n} Kugel", "{n} Kugeln"]  # shared with Python
    assert "commands:" not in page["messages"]  # only what the page's scripts ask for
    assert client.get("/i18n/xx.json").json()["messages"] == {}
    rules = client.get("/api/rules?game=xactika&mode=bid",
                       headers={"accept-language": "de"}).json()
    assert rules["mode"] == "Ansage" and rules["headings"]["scoring"] == "Wertung"
    assert rules["topics"]["win"].startswith("wer den Stich gewinnt")
    games = client.get("/api/games", headers={"accept-language": "de"}).json()
    assert {m["name"] for m in games[0]["modes"]} == {"High Score", "Low Score", "Ansage"}
    ohhell = next(g for g in games if g["name"] == "ohhell")
    assert ohhell["options"][0]["label"] == (
        "die größte Hand (Standard 10, weniger bei 6 oder 7 Spielern)")
    names = {o["name"]: o["choiceNames"] for o in ohhell["options"]}
    assert (names["hands"]["updown"], names["hook"]["none"]) == ("auf und ab", "keiner")
    assert not english(" ".join(o["label"] for o in ohhell["options"]))
    # a count of players takes in the bots; tricks taken are "Stiche"
    with i18n.using("de"):
        assert "Spieler" in i18n._("{game}: {mode}, {players} players, {length}")
        assert "gemacht" not in i18n._("{who} (bid {bid}, took {took}: {points})")


def test_a_german_line_never_leaves_an_alone() -> None:
    """A separable verb's "an" ends a German line ("sagt 2 an"): a no-break space keeps it
    with the word before, so that a narrow seat box never starts a line with "an"."""
    de = i18n.translator("de")
    for msgid in ("{who} bids {bid}", "you bid {bid}", "bid {bid}"):
        text = de.gettext(msgid)
        assert text.endswith("\u00a0an"), (msgid, text)


server = server_fixture(23)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from browser_session()


def _play_german(browser: Any, server: WebServer, game: str, viewport: dict[str, int],
                 name: str) -> tuple[Any, list[str]]:
    context = browser.new_context(locale="de-DE", viewport=viewport)
    page = context.new_page()
    seats = ["open", "3"] if game == "dix" else ["open", "3", "3"]
    answer = create_table(page, server.url, name="Anna", game=game,
                          rounds=3 if game == "ohhell" else 1, seats=seats)
    page.reload()  # the lobby lists the new table
    page.wait_for_selector("#tables li.lobby-table")
    lobby = page.locator("main").inner_text()
    screenshot(page, f"{name}-lobby")
    no_horizontal_scroll(page)
    number, token = answer["table"]["id"], answer["invites"]["0"]
    page.goto(f"{server.url}/table/{number}#seat={token}")
    assert page.evaluate("document.documentElement.lang") == "de"
    page.wait_for_selector("#hand button.card")
    seen = [lobby]
    deadline = time.monotonic() + 120
    shot = False
    while not page.locator("#end").is_visible():
        assert time.monotonic() < deadline, "the game did not end in time"
        seen.append(page.locator("main").inner_text())
        seen += card_names(page)
        if not shot and page.locator("#log-list li.why").count():
            screenshot(page, f"{name}-play")
            no_horizontal_scroll(page)
            shot = True
        if not click_move(page):
            page.wait_for_timeout(30)
    seen.append(page.locator("main").inner_text())
    screenshot(page, f"{name}-end")
    no_horizontal_scroll(page)
    page.locator("#rules-button").click()
    page.wait_for_selector("#rules[open]")
    seen.append(page.locator("#rules").inner_text())
    screenshot(page, f"{name}-rules")
    page.goto(f"{server.url}/replay")  # the finished game in the replay viewer, German too
    assert page.evaluate("document.documentElement.lang") == "de"
    page.locator("#folder a").last.click()
    page.wait_for_selector("#viewer:not([hidden])")
    # (not checked: the record's own line, which stays as the file has it)
    for key in ("ArrowDown", "ArrowRight", "Shift+ArrowRight", "End"):
        page.keyboard.press(key)
        seen.append(page.locator("main").evaluate(TEXT_BUT_RECORD_LINES))
    screenshot(page, f"{name}-replay")
    return context, seen


@pytest.mark.parametrize(("game", "viewport", "name"), [
    ("xactika", DESKTOP, "de-xactika-1280x800"), ("dix", PHONE, "de-dix-375x667"),
    ("ohhell", PHONE, "de-ohhell-375x667")])
def test_a_whole_german_game_in_chromium_shows_no_english(
        server: WebServer, browser: Any, game: str, viewport: dict[str, int],
        name: str) -> None:
    context, seen = _play_german(browser, server, game, viewport, name)
    try:
        found = sorted({(tuple(words), line.strip()) for text in seen
                        for line in text.split("\n") if (words := english(line))})
        assert not found, "\n".join(f"{w}: {line}" for w, line in found[:20])
        text = "\n".join(seen)
        assert "Endstand" in text and "gewinnt" in text  # the why-lines, in German
        assert "Hash-Kette intakt" in text and "Sicht: alle" in text  # verdict, position
        assert not re.search(r"\{[a-z_]+\}", text), "a {field} left unfilled on screen"
    finally:
        context.close()
