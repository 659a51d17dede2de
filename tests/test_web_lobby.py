"""The web's lobby is the server's one lobby (protocol/net/lobby.py), and its clock the
people's time bank: a table made on the page is in ``xactika lobby``'s ``tables`` and
can be joined there, and a web seat whose bank runs out gets a stand-in and comes back."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_web_server import _lines, _post, _socket, _until_closed
from webkit import (
    DESKTOP,
    PHONE,
    WebServer,
    browser_session,
    click_move,
    create_table,
    screenshot,
)


@pytest.fixture
def both(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[WebServer, tuple[str, int]]]:
    """``xactika web --tcp-port 0``: the page's URL and the TCP lobby's address (one a
    test: the lobby's limits per address count every table a test leaves waiting)."""
    out: Path = tmp_path_factory.mktemp("weblobby")
    proc = subprocess.Popen([sys.executable, "-m", "xactika.frontends.cli", "web", "--port", "0",
                             "--tcp-port", "0", "--out", str(out), "--seed", "5",
                             "--pace", "off"],
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        url = re.search(r"(http://\S+?)/ ", proc.stdout.readline())
        tcp = re.search(r"on (\S+):(\d+) \(tcp\)", proc.stdout.readline())
        assert url is not None and tcp is not None
        web = WebServer.__new__(WebServer)
        web.url, web.out, web.proc = url.group(1), out, proc
        yield web, (tcp.group(1), int(tcp.group(2)))
    finally:
        proc.terminate()
        proc.wait(timeout=10)


class LobbyClient:
    """``xactika lobby HOST:PORT`` by hand: a line out, the lines up to the answer back."""

    def __init__(self, address: tuple[str, int]) -> None:
        self.sock = socket.create_connection(address, timeout=10)
        self.file = self.sock.makefile("r")
        assert self.ask("lobby") == ["lobby ok"]

    def ask(self, line: str) -> list[str]:
        self.sock.sendall((line + "\n").encode())
        got = [self.file.readline().rstrip("\n")]
        while line == "tables" and got[-1] != "ok":
            got.append(self.file.readline().rstrip("\n"))
        return got

    def close(self) -> None:
        self.sock.close()


def _tables(web: WebServer) -> list[dict[str, Any]]:
    with urllib.request.urlopen(web.url + "/api/tables", timeout=10) as answer:
        found: list[dict[str, Any]] = json.load(answer)
    return found


def test_a_web_table_is_in_the_tcp_lobby_and_joined_there(
        both: tuple[WebServer, tuple[str, int]]) -> None:
    web, tcp = both
    made = _post(web, "/api/tables", {"game": "xactika", "players": 4, "rounds": 1,
                                      "seats": ["open", "open", "3", "3"], "name": "Ann",
                                      "clock": "90+2"})
    number = made["table"]["id"]
    assert made["table"]["clock"] == "90+2"
    lobby = LobbyClient(tcp)
    try:
        listed = [t for t in lobby.ask("tables") if t.startswith(f"table id={number} ")]
        assert len(listed) == 1, listed
        assert " open=1 " in listed[0] and "names=Ann," in listed[0]  # the bots' seats too
        joined = lobby.ask(f"join {number} name=Bob")[0]
        assert joined == f"joined table={number} seat=1 token={made['invites']['1']}"
        assert lobby.ask(f"join {number} name=Cy")[0].startswith("error no open seat")
        seats = next(t for t in _tables(web) if t["id"] == number)["seats"]
        assert [s["state"] for s in seats] == ["taken", "taken", "bot", "bot"]
        assert seats[1]["name"] == "Bob"
        # and the other way: a table made in the TCP lobby is on the page, joined there
        other = int(lobby.ask("create game=dix players=2 clock=60+1")[0].split("=")[1])
    finally:
        lobby.close()
    shown = next(t for t in _tables(web) if t["id"] == other)
    assert shown["clock"] == "60+1" and [s["state"] for s in shown["seats"]] == ["open"] * 2
    took = _post(web, f"/api/tables/{other}/take", {"name": "Dee"})
    assert took["seat"] == 0 and len(took["token"]) == 32


def test_a_web_seat_out_of_time_gets_a_stand_in_and_takes_it_back(
        both: tuple[WebServer, tuple[str, int]]) -> None:
    web, _ = both
    made = _post(web, "/api/tables", {"game": "dix", "players": 2, "rounds": 1,
                                      "seats": ["open", "1"], "clock": "2+0", "name": "Ann"})
    number, token = made["table"]["id"], made["invites"]["0"]
    with _socket(web) as ws:
        ws.send(f"seat {token}")
        seen = _lines(ws, "go ", answer=False)
        go = next(line for line in seen if line.startswith("go "))
        assert 0 < int(go.split("time=")[1].split()[0]) <= 2000  # the bank, not a move limit
        rest = "\n".join(_until_closed(ws))  # nothing answered: the bank runs out
    assert re.search(r"info seat 1 \(Ann\) ran out of time: a level-3 bot plays it", rest), rest
    assert "error replaced" in rest
    seat = next(t for t in _tables(web) if t["id"] == number)["seats"][0]
    assert seat["replaced"] is True and seat["bank"] == 0
    with _socket(web) as ws:  # the page reloads: the token is in the browser
        ws.send(f"seat {token}")
        back = _lines(ws, "info seat 1 (Ann) is back", answer=False)
        assert f"seated table={number} seat=0 players=2" in back
    deadline = time.monotonic() + 10
    while next(t for t in _tables(web) if t["id"] == number)["seats"][0]["replaced"]:
        assert time.monotonic() < deadline, "the seat was not taken back"
        time.sleep(0.1)


@pytest.fixture
def browser() -> Iterator[Any]:
    yield from browser_session()


def test_the_page_shows_the_banks_warns_and_gives_the_seat_back(
        both: tuple[WebServer, tuple[str, int]], browser: Any) -> None:
    web, _ = both
    a, b = (browser.new_context(viewport=v).new_page() for v in (DESKTOP, PHONE))
    made = create_table(a, web.url, name="Ann", seats=["open", "open", "3", "3"], clock="10+0")
    number, invites = made["table"]["id"], made["invites"]
    a.goto(f"{web.url}/table/{number}#seat={invites['0']}")
    b.goto(f"{web.url}/table/{number}#seat={invites['1']}&name=Bob")
    a.wait_for_selector("#seats .clock.running", timeout=20000)
    clocks = a.locator("#seats .clock").all_inner_texts()
    shown = [bool(re.fullmatch(r"clock 0:(0[0-9]|10)", c)) for c in clocks]
    assert shown == [True, True, False, False]  # the people's banks; bots have none
    assert a.locator("#seats .clock.running").count() == 1  # the seat to act, counting down
    # Bob's page shows Ann's bank too (the server's, refreshed every few seconds)
    b.locator("#seats .clock[data-seat='0']", has_text="clock 0:").wait_for(timeout=8000)
    screenshot(a, "clocks-1280x800")
    screenshot(b, "clocks-375x667")
    deadline = time.monotonic() + 40
    while not a.locator("#take-back").count():  # Bob plays in time; Ann's bank runs out
        assert time.monotonic() < deadline, "Ann's clock did not run out"
        click_move(b)
        time.sleep(0.2)
    assert "5 seconds left on your clock" in a.locator("#log-list").inner_text()
    assert "seat 1 (Ann) ran out of time" in a.locator("#chat-list").inner_text()
    assert "out of time" in a.locator("#seats .clock[data-seat='0']").inner_text()
    screenshot(a, "clocks-replaced-1280x800")
    a.click("#take-back")
    a.locator("#chat-list li", has_text="seat 1 (Ann) is back").wait_for(timeout=20000)
    assert a.locator("#take-back").count() == 0
