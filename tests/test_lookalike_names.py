"""Issue 30, item 6: look-alike names cannot share a table, and no name imitates the
pages' own labels. Names are compared after NFKC and case folding, format characters
dropped or refused, at every edge names come in: the handshake (TCP and web alike), the
lobby, the web's form and the web's chat."""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from netkit import Client, LiveServer
from webkit import WebServer
from websockets.sync.client import connect

from xactika.frontends.web.weblobby import WebLobby, web_name
from xactika.protocol.net.lobby import LobbyError, check_name
from xactika.protocol.player import wire

LOOKALIKES = ["ａnn", "Ann\u200b", "ANN", "a\u200dnn", "\u202eann"]


def test_look_alikes_have_one_key_and_clean_names_drop_what_hides() -> None:
    assert {wire.name_key(n) for n in ["ann", *LOOKALIKES]} == {"ann"}
    assert wire.name_key("bob") != wire.name_key("ann")
    assert wire.clean_name("ａnn") == "ann"  # NFKC: fullwidth is plain
    assert wire.clean_name("Ann\u200b") == "Ann"  # zero width: dropped, not kept hidden
    assert wire.clean_name("\u202eevil") == "evil"  # a bidi override
    for label in ["bob(watching)", "bob (you)", "bob（bot）", "bob❨bot❩", "bob⁽you⁾"]:
        kept = wire.clean_name(label)
        assert "(" not in kept and ")" not in kept, kept  # the pages' labels
        assert kept.startswith("bob")


def test_the_lobby_and_the_web_form_refuse_or_rename_look_alikes() -> None:
    assert check_name("ａnn") == "ann"
    for bad in ["Ann\u200b", "bob(watching)", "a\u202eb"]:
        with pytest.raises(LobbyError, match="bad name"):
            check_name(bad)
    assert web_name("ａnn") == "ann"
    assert web_name("Ann\u200b") == "Ann"
    assert web_name("bob(watching)") == "bob-watching"


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveServer]:
    with LiveServer(tmp_path) as server:
        yield server


def _lobby(live: LiveServer) -> Client:
    client = Client(live.port)
    client.send("lobby")
    assert client.read() == "lobby ok"
    return client


def test_a_lobby_table_refuses_a_look_alike_of_a_name_it_has(live: LiveServer) -> None:
    ann, other = _lobby(live), _lobby(live)
    ann.send("create players=3 rounds=1")
    created = ann.read()
    assert created is not None and created.startswith("created")
    number = dict(w.partition("=")[::2] for w in created.split()[1:])["table"]
    ann.send(f"join {number} name=ann")
    assert str(ann.read()).startswith("joined")
    for lookalike in ["ａnn", "ANN"]:
        other.send(f"join {number} name={lookalike}")
        answer = str(other.read())
        assert answer.startswith("error") and "taken" in answer, answer
    other.send(f"join {number} name=Ann\u200b")
    assert "bad name" in str(other.read())


def test_handshake_names_that_look_alike_are_told_apart(live: LiveServer) -> None:
    """Over TCP (the web's WebSocket is the same handshake): ``ann`` and ``ａnn`` at one
    table become ``ann`` and ``ann (2)``; a parenthesised label is not kept."""
    table = live.table(players=3, rounds=1)
    clients = []
    for seat, name in enumerate(["ann", "ａnn", "Bob(you)"]):
        client = Client(live.port)
        client.send(f"seat {table.seats[seat].token}")
        while (line := client.read()) is not None:
            if line.startswith("hello"):
                client.send(f"hello 1 name={name}")
            elif line == "isready":
                client.send("readyok")
                break
        clients.append(client)
    deadline = time.monotonic() + 20
    while not table.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert table.started
    assert [s.name for s in table.seats] == ["ann", "ann (2)", "Bob_you_"]
    for client in clients:
        client.close()


def test_the_web_desk_renames_a_look_alike_of_a_name_at_the_table(live: LiveServer) -> None:
    async def make() -> list[str]:
        lobby = WebLobby(live.server)
        web, _ = lobby.create({"players": 3, "rounds": 1, "seats": ["open", "open", "open"],
                              "name": "ann"}, "192.0.2.1")
        names = []
        for given in ["ＡＮＮ", "Ann\u200b"]:
            seat, _ = lobby.take(web.table.id, None, given, "192.0.2.2")
            names.append(web.table.seats[seat].name)
        return names

    assert live.call(make()) == ["ANN-2", "Ann-3"]


def test_a_watcher_cannot_chat_under_a_seats_label(tmp_path: Path) -> None:
    """``watch N name=bob(you)``: the chat says ``bob_you_(watching)``, never ``bob(you)``."""
    server = WebServer(tmp_path / "web", 5)
    try:
        body = {"game": "xactika", "rounds": 1, "players": 2, "seats": ["open", "1"]}
        request = urllib.request.Request(server.url + "/api/tables",
                                         data=json.dumps(body).encode(),
                                         headers={"origin": server.url})
        with urllib.request.urlopen(request, timeout=10) as answer:
            number = json.load(answer)["table"]["id"]
        with connect(server.url.replace("http", "ws") + "/ws", origin=server.url,  # type: ignore[arg-type]
                     open_timeout=5) as ws:
            ws.send(f"watch {number} name=bob(you)")
            ws.send("chat hello")
            heard: list[str] = []
            deadline = time.monotonic() + 10
            while not any(h.startswith("chat ") for h in heard) and time.monotonic() < deadline:
                heard += str(ws.recv(timeout=deadline - time.monotonic())).splitlines()
        said = [h for h in heard if h.startswith("chat ")]
        assert said == ["chat bob_you_(watching) hello"], heard[-5:]
    finally:
        server.stop()
