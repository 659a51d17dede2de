"""Issue 40, item 2: one address cannot fill the lobby. Every setting a request can make
is bounded as a person would choose it (out of bounds: one line, nothing created), an
address's live tables count whatever their seats, a table of bots alone ends when nobody
watches it, and the table cap serves people first. In the process: the web's lobby over
the server's, the TCP lobby's ``create`` beside it."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from xactika.frontends.web.transport import QueueTransport
from xactika.frontends.web.weblobby import WebLobby, WebLobbyError
from xactika.protocol.net.link import Link, LinkDown
from xactika.protocol.net.lobby import LobbyError, LobbyPolicy
from xactika.protocol.net.server import Server
from xactika.protocol.net.table import Table
from xactika.protocol.records.textform import read_record

# the longest game the bounds allow (30 rounds: seconds of strong bots' play), far past
# the tests' idle time of 0.3 s; ended, random players finish it at once
BOTS = {"game": "ohhell", "players": 3, "rounds": 30, "seats": ["5"] * 3}
PEOPLE = {"game": "xactika", "players": 2, "rounds": 1, "seats": ["open", "1"]}
WAIT = 120.0  # a bound on waiting for an event, never a synchronisation

Body = Callable[[Server, WebLobby], Awaitable[None]]


def _run(tmp_path: Path, policy: LobbyPolicy, body: Body) -> None:
    async def main() -> None:
        server = Server(out=tmp_path, lobby=policy, clocks={"pace": None})
        try:
            await body(server, WebLobby(server))
        finally:
            await server.close()

    asyncio.run(main())


async def _started(*tables: Table) -> None:
    """Until every one of ``tables`` has begun (its bots seated and greeted)."""
    async with asyncio.timeout(WAIT):
        while not all(t.started for t in tables):
            await asyncio.sleep(0.01)


def _ended(table: Table) -> str:
    """The record's termination (``unwatched``: the lobby ended it) and its faults."""
    assert table.record is not None
    record = read_record(table.record)
    return f"{record.header('termination')} {record.headers}"


OUT_OF_BOUNDS: list[tuple[dict[str, Any], str]] = [
    ({"rounds": 1_000_000}, "rounds is 1 to 30"),
    ({"rounds": 31}, "rounds is 1 to 30"),
    ({"rounds": 0}, "rounds"),
    ({"clock": "86400+0"}, "clock is at most 3600[+]60"),
    ({"clock": "60+600"}, "clock is at most 3600[+]60"),
    ({"pace": "60/1/1"}, "pace is 0 to 10"),  # the TCP lobby's (the page sets no pace)
    ({"pace": "1/1/11"}, "pace is 0 to 10"),
    ({"game": "ohhell", "players": 4, "top": 14, "seats": ["open", "1", "1", "1"]}, "top"),
    ({"game": "ohhell", "players": 9, "seats": ["open"] + ["1"] * 8}, "players"),
    ({"players": 1, "seats": ["open"]}, "players"),
    ({"game": "dix", "players": 2, "target": 1_000_000}, "target is at most 100"),
    ({"delay": 100_000}, "delay is 0 to 600"),
]


def test_every_setting_out_of_bounds_is_one_line_and_nothing_is_made(tmp_path: Path) -> None:
    async def body(server: Server, web: WebLobby) -> None:
        for bad, said in OUT_OF_BOUNDS:
            request = {**PEOPLE, **bad}
            if "pace" not in bad:
                with pytest.raises(WebLobbyError, match=said) as exc:
                    web.create(request, "192.0.2.1")
                assert "\n" not in str(exc.value)
            words = [f"{k}={v}" for k, v in bad.items() if k not in ("seats", "delay")]
            if words:  # the TCP lobby's create: the same bounds
                with pytest.raises(LobbyError, match=said):
                    server.lobby.create(words, "192.0.2.2", admin=False)
        assert server.tables == [] and web.tables == {}
        within = {**PEOPLE, "rounds": 30, "clock": "3600+60"}
        assert web.create(within, "192.0.2.3")[0].table.config.rounds == 30
        assert server.lobby.create(["rounds=30", "clock=3600+60", "pace=10/10/10"],
                                   "192.0.2.3", admin=False).startswith("created ")

    _run(tmp_path, LobbyPolicy(), body)


def test_an_addresss_tables_of_bots_count_against_its_limit(tmp_path: Path) -> None:
    async def body(server: Server, web: WebLobby) -> None:
        made = [web.create(BOTS, "192.0.2.9")[0] for _ in range(2)]
        assert all(w.table.started or not w.table.over.is_set() for w in made)
        for request in (BOTS, PEOPLE):  # bots play at once: they count all the same
            with pytest.raises(WebLobbyError, match="2 tables of yours are not over yet"):
                web.create(request, "192.0.2.9")
        assert len(server.tables) == 2

    _run(tmp_path, LobbyPolicy(tables_per_address=2), body)


@contextlib.asynccontextmanager
async def _watching(server: Server, table: Table) -> AsyncIterator[Link]:
    """A spectator of ``table``, as the web's WebSocket watches (reads all it gets)."""
    transport = QueueTransport(server.limits)
    link = Link(None, None, server.limits, "watcher", transport=transport)
    watching = asyncio.create_task(server.observe(link, table))

    async def drain() -> None:
        while await transport.outgoing() is not None:
            pass

    draining = asyncio.create_task(drain())
    await asyncio.sleep(0)  # the observe task's first step: it watches now
    assert link in table.observers
    try:
        yield link
    finally:
        link.finish(LinkDown("gone"))
        transport.end()
        transport.gone()
        draining.cancel()
        await watching


def test_a_table_of_bots_nobody_watches_ends_and_its_record_says_so(tmp_path: Path) -> None:
    async def body(server: Server, web: WebLobby) -> None:
        watched = web.create(BOTS, "192.0.2.10")[0].table
        alone = web.create(BOTS, "192.0.2.11")[0].table
        async with _watching(server, watched):
            await asyncio.wait_for(alone.over.wait(), WAIT)
            assert _ended(alone).startswith("unwatched ")
            assert "nobody watched it for 0.3 s" in _ended(alone)
            # watched all along: never ended for nobody (it may have ended as games do)
            assert watched.id not in server.lobby.ending and not watched.faults
            assert not watched.over.is_set() or _ended(watched).startswith("normal ")
        # a spectator who goes: that table ends after the idle time
        left = web.create(BOTS, "192.0.2.12")[0].table
        async with _watching(server, left):
            await _started(left)
        await asyncio.wait_for(left.over.wait(), WAIT)
        assert _ended(left).startswith("unwatched ")
        assert web.create(BOTS, "192.0.2.11")  # ended tables count no more

    _run(tmp_path, LobbyPolicy(unwatched=0.3), body)


def test_the_table_cap_serves_people_first(tmp_path: Path) -> None:
    async def body(server: Server, web: WebLobby) -> None:
        first = web.create(BOTS, "192.0.2.20")[0].table
        second = web.create(BOTS, "192.0.2.21")[0].table
        await _started(first, second)  # a table not begun would be closed, not ended
        with pytest.raises(WebLobbyError, match="the lobby has 2 tables already"):
            web.create(BOTS, "192.0.2.22")  # bots never take another bots' place
        person, invites = web.create(PEOPLE, "192.0.2.22")  # a person's: room is made
        assert invites and not person.table.over.is_set()
        await asyncio.wait_for(first.over.wait(), WAIT)  # the oldest bots' table ended
        assert "make room for a table with people" in _ended(first)
        assert not second.faults
        second_person = web.create(PEOPLE, "192.0.2.23")[0]  # and again: the other one
        await asyncio.wait_for(second.over.wait(), WAIT)
        assert not second_person.table.over.is_set()
        with pytest.raises(WebLobbyError, match="the lobby has 2 tables already"):
            web.create(PEOPLE, "192.0.2.24")  # people's tables alone: the cap holds

    _run(tmp_path, LobbyPolicy(max_tables=2, unwatched=3600), body)
