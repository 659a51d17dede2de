"""``xactika web`` without a browser: headers, Origin checks, the WebSocket as a seat of
the player protocol with the TCP server's limits, narration, chat and spectators."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from webkit import WebServer, web_server
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import ClientConnection, connect

from xactika.frontends.web.transport import QueueTransport
from xactika.protocol.net.link import Limits, Link, LinkFault


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    yield from web_server(tmp_path_factory, seed=31)


def _post(server: WebServer, path: str, body: dict[str, Any], origin: str | None = None
          ) -> dict[str, Any]:
    request = urllib.request.Request(server.url + path, data=json.dumps(body).encode(),
                                     headers={"content-type": "application/json",
                                              "origin": origin or server.url})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            found: dict[str, Any] = json.load(answer)
    except urllib.error.HTTPError as exc:
        found = json.load(exc)
    return found


def _socket(server: WebServer) -> ClientConnection:
    return connect(server.url.replace("http", "ws") + "/ws", origin=server.url,  # type: ignore[arg-type]
                   open_timeout=5)


def _lines(ws: ClientConnection, until: str, limit: float = 20.0, answer: bool = True
           ) -> list[str]:
    """Lines received until one starts with ``until``, answering hello/isready and (if
    ``answer``) go."""
    seen: list[str] = []
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        found = False
        for line in str(ws.recv(timeout=deadline - time.monotonic())).splitlines():
            seen.append(line)
            if line.startswith("hello"):
                ws.send("hello 1 name=Web kind=human")
            elif line == "isready":
                ws.send("readyok")
            elif line.startswith("go ") and answer:
                option = line.split("options=")[1].split()[0].split(",")[0]
                kind = line.split()[1]
                ws.send(f"bid {option}" if kind == "bid" else "play " + option.replace(":", " "))
            found = found or line.startswith(until)
        if found:  # the whole message is read: nothing is lost between two calls
            return seen
    raise AssertionError(f"no {until!r} in {seen[-5:]}")


def _until_closed(ws: ClientConnection) -> list[str]:
    seen: list[str] = []
    with contextlib.suppress(ConnectionClosed):
        while True:
            seen.append(str(ws.recv(timeout=10)))
    return seen


def test_pages_carry_a_csp_without_inline_script(server: WebServer) -> None:
    for path in ("/", "/table/1", "/static/table.js"):
        with urllib.request.urlopen(server.url + path, timeout=10) as answer:
            csp = answer.headers["content-security-policy"]
            body = answer.read().decode()
        assert "script-src 'self'" in csp and "unsafe-inline" not in csp
        assert answer.headers["x-content-type-options"] == "nosniff"
        if path != "/static/table.js":
            assert re.findall(r"<script(?![^>]*\bsrc=)", body) == []
            assert not re.search(r"\son[a-z]+=", body)


def test_other_origins_are_refused(server: WebServer) -> None:
    for origin in ("http://evil.example", None):
        with pytest.raises(InvalidStatus):
            connect(server.url.replace("http", "ws") + "/ws", origin=origin,  # type: ignore[arg-type]
                    open_timeout=5)
    found = _post(server, "/api/tables", {}, origin="http://evil.example")
    assert "this site" in found["error"]
    found = _post(server, "/api/seat", {"token": "x", "action": "move"},
                  origin="http://evil.example")
    assert "this site" in found["error"]


def test_a_seat_action_with_bad_input_is_refused(server: WebServer) -> None:
    """``/api/seat``: one clear error for a token it does not know (the empty one too,
    which a seat restored from the journal has), a wrong action or a bot's seat."""
    for body in ({"token": "", "action": "move"}, {"action": "leave"},
                 {"token": "0" * 32, "action": "leave"}, {"token": None, "action": "move"}):
        assert _post(server, "/api/seat", body) == {"error": "unknown token"}
    made = _post(server, "/api/tables", {"seats": ["open", "1"], "players": 2, "rounds": 1})
    token = made["invites"]["0"]
    assert _post(server, "/api/seat", {"token": token, "action": "fly"}) == {
        "error": "action is move or leave"}
    assert "only a game in play" in _post(server, "/api/seat",
                                          {"token": token, "action": "leave"})["error"]
    assert _post(server, "/api/seat", {"token": token, "action": "move"}) == {"seat": 0}


def test_a_seat_over_the_websocket_plays_a_whole_game(server: WebServer) -> None:
    made = _post(server, "/api/tables", {"seats": ["open", "1", "1", "1"], "rounds": 1,
                                          "tutorial": True})
    number, token = made["table"]["id"], made["invites"]["0"]
    with _socket(server) as ws:
        ws.send(f"seat {token}")
        seen = _lines(ws, "event", 10)
        assert f"seated table={number} seat=0 players=4" in seen
        seen += _lines(ws, "quit", 30)
    assert any(line.startswith("say names ") for line in seen)
    assert sum(line.startswith("say why-won trick=") for line in seen) == 8
    coached = [line for line in seen if line.startswith("say coach tutorial: ")]
    assert len(coached) >= 1 + 9  # the intro, then a line before each of the 9 moves
    assert any("The hint bot suggests: bid " in line for line in coached)
    # every card in a sentence is named as a player sees it, never by its code
    sentences = [line for line in seen
                 if line.startswith(("say why-won", "say coach", "say round"))]
    assert any("The hint bot suggests: play the " in line for line in coached)
    assert all(" wins" in line.split(":")[0] for line in sentences if "why-won" in line)
    assert not [line for line in sentences if re.search(r"(?<![0-9])[1-3]{4}(?![0-9])", line)]
    assert any(line.startswith("event") and "game-over" in line for line in seen)
    deal = next(line for line in seen if line.split()[2:3] == ["deal"])
    assert "/?/?/?" in deal and "aside=?" in deal
    with _socket(server) as ws:  # the same token again, after the game: refused
        ws.send(f"seat {token}")
        assert "is over" in str(ws.recv(timeout=5))


def test_the_tcp_servers_limits_hold(server: WebServer) -> None:
    with _socket(server) as ws:
        ws.send("seat " + "0" * 32)
        assert str(ws.recv(timeout=10)).startswith("error unknown token")
    made = _post(server, "/api/tables", {"seats": ["open", "3", "3", "3"]})
    with _socket(server) as ws:
        ws.send(f"seat {made['invites']['0']}")
        _lines(ws, "go", 10, answer=False)
        ws.send("x" * 5000)  # a line past 4096 bytes: the seat is faulted, as over TCP
        assert "error flood: a line longer than 4096 bytes" in str(ws.recv(timeout=10))
    # an answer with a flood right behind it: the seat is faulted, the game goes on (the
    # server once voided it; the fixture fails on any traceback of the server's)
    made = _post(server, "/api/tables", {"seats": ["open", "3", "3", "3"]})
    with _socket(server) as ws:
        ws.send(f"seat {made['invites']['0']}")
        _lines(ws, "go", 10)
        ws.send("x" * 5000)
        assert "error flood" in "".join(_until_closed(ws))


def test_chat_is_escaped_rate_limited_and_not_in_the_record(server: WebServer) -> None:
    made = _post(server, "/api/tables", {"seats": ["open", "3"], "game": "dix",
                                          "players": 2, "delay": 0})
    number, token = made["table"]["id"], made["invites"]["0"]
    with _socket(server) as ws, _socket(server) as watcher:
        ws.send(f"seat {token}")
        _lines(ws, "go", 10)
        watcher.send(f"watch {number} name=Zed")
        for text in ("hi\x1b[2J there", *[f"spam{i}" for i in range(8)]):
            ws.send(f"chat {text}")
        heard: list[str] = []
        deadline = time.monotonic() + 5
        while len([h for h in heard if h.startswith("chat ")]) < 5 and time.monotonic() < deadline:
            heard += str(watcher.recv(timeout=5)).splitlines()
        said = [line for line in heard if line.startswith("chat ")]
        assert said[0] == "chat Web hi\\x1b[2J there"
        told = []
        while not any("chat-refused" in line for line in told) and time.monotonic() < deadline:
            told += str(ws.recv(timeout=5)).splitlines()
        assert any("chat-refused" in line for line in told)
        assert all(" deal " not in line or "hands=?/?" in line for line in heard)
    with _socket(server) as late:  # the chat is kept with the table for late joiners
        late.send(f"watch {number}")
        kept: list[str] = []
        while not any(line.startswith("chat ") for line in kept):
            kept += str(late.recv(timeout=5)).splitlines()
        assert "chat Web hi\\x1b[2J there" in kept
    # the record is the game's: no chat in it, whatever happens to the game
    for path in server.out.glob("*.log"):
        assert "spam" not in path.read_text()


def test_a_spectators_delay_holds_every_message() -> None:
    async def run() -> float:
        transport = QueueTransport(Limits(), delay=0.3)
        start = time.monotonic()
        transport.write(b"event 1 game-started\n")
        assert await transport.outgoing() == b"event 1 game-started\n"
        return time.monotonic() - start

    assert asyncio.run(run()) >= 0.29


def test_the_websocket_transport_keeps_the_link_limits() -> None:
    async def run() -> str:
        limits = Limits(max_line=100)
        transport = QueueTransport(limits)
        link = Link(None, None, limits, "test", transport=transport)
        transport.feed("x" * 101 + "\n")
        try:
            await link.read_raw()
        except LinkFault as fault:
            return fault.reason
        return "none"

    assert asyncio.run(run()) == "flood"


def test_one_server_offers_tcp_seats_and_the_web(tmp_path: Any) -> None:
    """``--tcp-port``: a bot takes a web table's seat over TCP, the same server."""
    import socket
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-m", "xactika.frontends.cli", "web", "--port", "0",
                             "--tcp-port", "0", "--out", str(tmp_path)],
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        url = re.search(r"(http://\S+?)/ ", proc.stdout.readline()).group(1)  # type: ignore[union-attr]
        tcp = re.search(r"on (\S+):(\d+) \(tcp\)", proc.stdout.readline())
        assert tcp is not None
        web = WebServer.__new__(WebServer)
        web.url = url
        made = _post(web, "/api/tables", {"seats": ["3", "open"], "game": "dix", "players": 2})
        with socket.create_connection((tcp.group(1), int(tcp.group(2))), timeout=10) as sock:
            sock.sendall(f"seat {made['invites']['1']}\n".encode())
            first = sock.makefile().readline()
        assert first == f"seated table={made['table']['id']} seat=1 players=2\n"
    finally:
        proc.terminate()
        proc.wait(timeout=10)
