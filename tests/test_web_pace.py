"""``xactika web`` paces its tables with people as ``serve`` does (spec/WEB.md; spec/SERVER.md,
"Pace"): by default the bots' cards reach a person one by one, a finished trick stays
before the next lead, and the person's bank is not charged for those pauses; a table of
bots alone still plays at once."""

from __future__ import annotations

import itertools
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from netkit import LiveServer, NotedAsyncio, first_option
from test_server_people import go_time
from test_web_server import _post
from webkit import WebServer
from websockets.sync.client import connect

from xactika.frontends.web.weblobby import WebLobby
from xactika.protocol.net import table as table_module
from xactika.protocol.net.clock import DEFAULT_PACE
from xactika.protocol.net.table import Table

XACTIKA = str(Path(sys.executable).with_name("xactika"))
MOVES = ("bid", "lead", "play")


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    """``xactika web`` with no ``--pace``: the default, as a host would start it."""
    out = tmp_path_factory.mktemp("webpace")
    proc = subprocess.Popen([XACTIKA, "web", "--port", "0", "--out", str(out), "--seed", "9"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        head = [proc.stdout.readline(), proc.stdout.readline()]
        url = re.search(r"(http://\S+?)/ ", head[0])
        assert url is not None, head
        assert head[1] == f"pace {DEFAULT_PACE.text()} at tables with people\n", head
        server = WebServer.__new__(WebServer)
        server.url, server.out, server.proc = url.group(1), out, proc
        yield server
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=10)
    assert "Traceback" not in err, err


def test_a_table_of_bots_alone_plays_at_once(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Paced, a card's 0.7 s alone would take 22 s over this game's 32 cards. A table of
    four bots made as the page makes one, with the pace ``xactika web`` gives its tables
    (web/serve.py's clocks), has that pace and never pauses: no sleep of table.py's."""
    paused = NotedAsyncio()
    monkeypatch.setattr(table_module, "asyncio", paused)
    with LiveServer(tmp_path) as live:
        live.server.clocks["pace"] = DEFAULT_PACE

        async def make() -> Table:
            web, _ = WebLobby(live.server).create(
                {"game": "xactika", "players": 4, "rounds": 1, "seats": ["1"] * 4},
                "192.0.2.1")
            return web.table

        table = live.call(make())
        live.wait_over(table, 60)
    assert table.settings.pace == DEFAULT_PACE and not table.faults
    assert len(table.events) > 30 and table.record is not None
    assert paused.slept == [], paused.slept


def _shown(got: list[tuple[float, str]]) -> list[tuple[float, str]]:
    """The game's lines as received (when, line): events and the person's ``go``."""
    return [(at, line) for at, line in got if line.startswith(("event ", "go "))]


def _led_after_a_trick(got: list[tuple[float, str]]) -> bool:
    """The person has been asked to lead right after a finished trick (its pause ahead)."""
    shown = _shown(got)
    return len(shown) > 1 and shown[-1][1].startswith("go ") and " trick-won " in shown[-2][1]


def test_a_person_sees_the_bots_cards_one_by_one_and_pays_no_pause(web: WebServer) -> None:
    """One person, three bots, the default pace: every bot's card comes at least ~0.5 s
    after the line before it, a finished trick stays ~1.5 s, and the person's bank, as
    each ``go`` says it, is charged only for the person's own moves, not for a pause
    before their turn (a lead after a trick they won)."""
    made = _post(web, "/api/tables", {"game": "xactika", "players": 4, "rounds": 1,
                                      "clock": "60+0", "seats": ["open", "1", "1", "1"]})
    assert "error" not in made, made
    got: list[tuple[float, str]] = []
    with connect(web.url.replace("http", "ws") + "/ws", origin=web.url,
                 open_timeout=5) as ws:  # type: ignore[arg-type]
        ws.send(f"seat {made['invites']['0']}")
        deadline = time.monotonic() + 60  # a guard: the deal's seed asks her to lead at ~12 s
        while not _led_after_a_trick(got):
            assert time.monotonic() < deadline, got[-5:]
            for line in str(ws.recv(timeout=10)).splitlines():
                got.append((time.monotonic(), line))
                word = line.split()[0]
                if word == "hello":
                    ws.send("hello 1 name=ann kind=human")
                elif word == "isready":
                    ws.send("readyok")
                elif word == "go" and not _led_after_a_trick(got):
                    ws.send(first_option(line))
    shown = _shown(got)
    bot_moves = trick_ends = 0
    for (before, prior), (at, line) in itertools.pairwise(shown):
        words = line.split()
        if words[0] == "event" and words[2] in MOVES and " seat=0 " not in line:
            bot_moves += 1
            assert at - before >= 0.5, (prior, line, at - before)
        if " trick-won " in prior:
            trick_ends += 1
            assert at - before >= DEFAULT_PACE.trick - 0.2, (prior, line, at - before)
    assert bot_moves >= 8 and trick_ends >= 2, shown
    banks = [go_time(line) for _, line in shown if line.startswith("go ")]
    (before, _), (asked, _) = shown[-2:]
    assert asked - before >= DEFAULT_PACE.trick - 0.2  # the pause the bank must not pay
    # her instant answers cost her less than that one pause (the mechanism, the clock
    # started after the pause, is test_server_fairness's, on the loop's own order)
    assert banks[0] == 60_000 and 0 <= banks[0] - banks[-1] < (asked - before) * 1000, banks
