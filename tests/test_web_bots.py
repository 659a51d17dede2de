"""The built-in bots of web and lobby tables (frontends/web/transport.py) think where the
server's stand-ins think, in its thinking process (protocol/net/thinking.py), never in
the server's own process: a thread there competed with the event loop for the
interpreter, so a web table of strong bots slowed every other table. Their moves are
still the seeded agents' own. In-process servers on 127.0.0.1; every wait bounded."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest
from netkit import LiveServer

from xactika.core.bots.agents import make_agent
from xactika.core.bots.search import StrongAgent
from xactika.core.engine.referee import FaultPolicy, Referee, run
from xactika.core.engine.views import view
from xactika.frontends.web.weblobby import WebHosted, WebLobby
from xactika.protocol.net import thinking
from xactika.protocol.net.table import Table
from xactika.protocol.records.textform import read_record
from xactika.protocol.trust.audit import OK, audit_file


def bots_table(live: LiveServer, seats: list[str], rounds: int = 1) -> tuple[Table, WebHosted]:
    """A web table of bots only, made as the page makes one."""
    async def make() -> tuple[Table, WebHosted]:
        web, _ = WebLobby(live.server).create(
            {"players": len(seats), "rounds": rounds, "seats": seats}, "192.0.2.1")
        return web.table, web

    return live.call(make())


def cpu_of(pid: int) -> float:
    """A process's CPU seconds so far (user and system), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def thinkers() -> list[int]:
    pool = thinking._process
    return list(pool._processes) if pool is not None and pool._processes else []


def test_a_web_table_of_strong_bots_thinks_outside_the_servers_process(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Three level-5 bots play a three-round game: none of their moves is thought in the
    server's process (the patched ``choose`` is this process's alone: the child imported
    its own), and the child did the work. With the bots thinking in a thread again
    (asyncio.to_thread) or on the loop it fails. (How free the loop stays, and the
    server's CPU per move, are figures: bench/server_load.py --web-bots and --web.)"""
    here: list[int] = []  # moves thought in the server's process: on the loop or a thread
    choose = StrongAgent.choose

    def noted(agent: StrongAgent, *args: Any) -> Any:
        here.append(1)
        return choose(agent, *args)

    monkeypatch.setattr(StrongAgent, "choose", noted)
    failures = thinking._failures
    with LiveServer(tmp_path) as live:
        thinking._pool().submit(os.getpid).result(30)  # started: its start is not measured
        children = {pid: cpu_of(pid) for pid in thinkers()}
        table, web = bots_table(live, ["5", "5", "5"], rounds=3)
        live.wait_over(table, 60)
        child_cpu = sum(cpu_of(pid) - children.get(pid, 0.0) for pid in thinkers())
    assert web.kinds == ["strong:5"] * 3
    assert len(table.events) > 30 and not table.faults
    assert here == [] and thinking._failures == failures  # the child lived and thought all
    assert child_cpu > 0  # and it did work (a thread or the loop: none)
    assert audit_file(str(table.record)).status == OK


def test_web_bots_thinking_in_the_child_play_the_seeded_agents_own_moves(
        tmp_path: Path) -> None:
    """The agent's state comes back with each move: the web table's game is the very game
    the same seeded agents play in one process (seeds as the web seats them)."""
    seats = {"2": "strong:2", "random": "random", "heuristic": "heuristic"}
    with LiveServer(tmp_path) as live:
        table, web = bots_table(live, list(seats))
        live.wait_over(table, 60)
    agents = [make_agent(name, table.id * 10 + seat, game="xactika")
              for seat, name in enumerate(web.kinds)]
    assert web.kinds == list(seats.values())
    referee = Referee.new(table.config, policy=FaultPolicy.abort())

    def ask(turn: object) -> object:
        seat = turn.seat  # type: ignore[attr-defined]
        return agents[seat].choose(view(referee.state, seat), turn.legal)  # type: ignore[attr-defined]

    run(referee, ask)  # type: ignore[arg-type]
    assert referee.events == list(read_record(table.record).events)  # type: ignore[arg-type]


class Budgeted:
    """An agent that thinks to a budget and notes the budget it was given."""

    def __init__(self) -> None:
        self.think_ms = 3000.0
        self.seen: list[float] = []

    def choose(self, view: object, legal: object) -> str:
        self.seen.append(self.think_ms)
        return "move"


def test_a_move_that_waited_for_the_child_thinks_only_what_is_left() -> None:
    """One child serves every table: a strong bot's move queued behind others' would
    still think its whole ``time=`` and overrun its clock. It thinks what is left."""
    agent = Budgeted()
    before = time.monotonic()
    command, after, error = thinking._choose(agent, None, None,  # type: ignore[arg-type]
                                             before - 2.0)  # waited 2 s
    waited = time.monotonic() - before + 2.0  # the most it can have seen waited
    assert command == "move" and error is None
    # 3 s less the 2 s waited, and less whatever the call itself took on this machine
    assert 3000 - waited * 1000 <= after.seen[0] <= 1000, (after.seen, waited)
    assert after.think_ms == 3000.0  # the go's budget stays the agent's
