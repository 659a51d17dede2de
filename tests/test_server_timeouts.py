"""A table's ``timeouts`` setting (issue 40; spec/SERVER.md section 2, "People"): under
``on-timeout=bot`` a person's N-th timeout forfeits their seat; without it (casual, the
default) a bot stands in at every timeout and the seat never forfeits for time. A 50 ms
bank runs out at once; the test waits for the seat to be replaced or forfeited (events),
never for time. In-process server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from netkit import Client, LiveServer, in_thread, play_first, until
from test_server_people import person

from xactika.frontends.web.weblobby import WebLobby
from xactika.protocol.net import table as table_module
from xactika.protocol.net.clock import Clock
from xactika.protocol.net.server import people_settings
from xactika.protocol.net.table import Table, table_settings
from xactika.protocol.records.textform import read_record
from xactika.protocol.trust.audit import OK, audit_file

XACTIKA = Path(sys.executable).with_name("xactika")


def time_out(live: LiveServer, timeouts: int | None, times: int,
             monkeypatch: pytest.MonkeyPatch) -> Table:
    """Ann (seat 0, a 50 ms bank) lets her clock run out ``times`` times, coming back
    after each replacement; the bot plays seat 1. Her stand-in moves only once she is
    back (or forfeited), so that the game cannot end while she is on her way. The table,
    once over."""
    table = live.table(table_settings({"players": "2", "rounds": "1", "seed": "7"},
                                      grace=20.0, clock=Clock(50, 0), timeouts=timeouts))
    backs = [0]

    async def held(agent: Any, seen: Any, legal: Any) -> Any:
        await asyncio.to_thread(until, lambda: table.seats[0].fault is not None
                                or backs[0] >= len(timed_out(table)), "she is back")
        return agent.choose(seen, legal)

    monkeypatch.setattr(table_module, "think", held)
    bot = in_thread(play_first, Client(live.port), table.seats[1].token)
    ann = Client(live.port)
    person(ann, table.seats[0].token)  # her go: she never answers
    for n in range(times):
        until(lambda n=n: len(timed_out(table)) > n or table.seats[0].fault,  # type: ignore[misc]
              "her clock runs out")
        if table.seats[0].fault is not None:
            break
        ann = Client(live.port)  # back (its info line says so): her seat from her next turn
        assert person(ann, table.seats[0].token, resume=0, until="info")[-1].endswith(
            "is back: they play their seat from their next turn")
        backs[0] += 1
    in_thread(play_first, ann, None)  # the last time she plays on
    live.wait_over(table)
    bot.result(20)
    return table


def timed_out(table: Table) -> list[tuple[int, str, str]]:
    return [f for f in table.faults if f[0] == 0 and f[1] == "timeout"]


@pytest.mark.parametrize("timeouts", [1, 2])
def test_the_n_th_timeout_forfeits_the_seat(tmp_path: Path, timeouts: int,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    with LiveServer(tmp_path) as live:
        table = time_out(live, timeouts, timeouts + 1, monkeypatch)
    assert table.seats[0].fault is not None and table.seats[0].fault[0] == "timeout"
    replaced = [f for f in table.faults if f[0] == 0]
    assert len(replaced) == timeouts, replaced  # the N-1 before it had a bot stand in
    assert f"timeout {timeouts}:" in replaced[-1][2]
    assert table.record is not None
    headers = dict(read_record(str(table.record)).headers)
    assert headers["clock"] == f"0.05+0 on-timeout=bot timeouts={timeouts}"
    assert headers["forfeit"] == "0"
    assert audit_file(str(table.record)).status == OK


def test_a_casual_table_never_forfeits_a_seat_for_time(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The default keeps today's rule: a bot stands in at each timeout, however many."""
    with LiveServer(tmp_path) as live:
        table = time_out(live, None, 3, monkeypatch)
    assert table.seats[0].fault is None
    assert [f[1] for f in table.faults if f[0] == 0] == ["timeout"] * 3
    assert table.record is not None
    assert dict(read_record(str(table.record)).headers)["clock"] == "0.05+0 on-timeout=bot"


@pytest.mark.parametrize("value", ["0", "-1", "x", "1e3", "100", "٣"])
def test_a_bad_timeouts_setting_is_one_line(value: str) -> None:
    with pytest.raises(ValueError, match=r"^bad timeouts=.*: expected 1 to 99 or none$"):
        people_settings({"timeouts": value})
    assert people_settings({"timeouts": "none"}) == {"timeouts": None}


def test_serve_takes_the_option_and_says_it() -> None:
    done = subprocess.run([str(XACTIKA), "serve", "--timeouts", "0"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2 and "bad timeouts='0'" in done.stderr
    assert "--timeouts N" in subprocess.run([str(XACTIKA), "serve", "--help"],
                                            capture_output=True, text=True, timeout=60,
                                            check=True).stdout


def test_the_web_lobby_lists_a_tables_timeout_rule(tmp_path: Path) -> None:
    """GET /api/tables' settings name the rule (spec/WEB.md), which the page shows."""
    with LiveServer(tmp_path) as live:
        async def make() -> dict[str, Any]:
            web, _ = WebLobby(live.server).create({"players": 2, "rounds": 1,
                                                   "seats": ["open", "3"]}, "192.0.2.1")
            return web.public()

        listed = live.call(make())
    assert listed["timeouts"] is None and listed["on_timeout"] == "bot"
