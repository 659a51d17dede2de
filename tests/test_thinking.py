"""protocol/net/thinking.py when its child dies (issue 40): a fresh child is started once
per death, however many moves were in flight, those moves are thought again (each once)
and the moves after it think in the child again, not in a thread of the server. The
child is killed with SIGKILL while moves wait for it; every wait is for an event (a
file the child writes, the game's end), bounded only as a guard."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from netkit import LiveServer, until
from test_web_bots import bots_table, thinkers

from xactika.core.bots.agents import RandomAgent
from xactika.core.engine.api import Command, Legal
from xactika.core.engine.referee import FaultPolicy, Referee
from xactika.core.engine.views import SeatView
from xactika.protocol.net import thinking
from xactika.protocol.trust.audit import OK, audit_file

GUARD = 60.0  # seconds: only so that a broken build fails instead of hanging


class Gate:
    """A bot that notes each choice it starts (a line in ``started``) and chooses only
    once the file ``open`` exists, so that the test can kill its process mid-thought."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.pids: list[int] = []

    def choose(self, view: SeatView | None, legal: Legal) -> Command:
        with (self.folder / "started").open("a") as fh:
            fh.write(f"{os.getpid()}\n")
        until((self.folder / "open").exists, "the test opens the gate", GUARD)
        self.pids.append(os.getpid())
        return RandomAgent(1).choose(view, legal)


def started(folder: Path) -> list[int]:
    path = folder / "started"
    return [int(x) for x in path.read_text().split()] if path.exists() else []


@pytest.fixture()
def fresh() -> Iterator[None]:
    """Each test its own child and restart count, and none left to the tests after."""
    def reset() -> None:
        thinking._process, thinking._failures = None, 0
        thinking._restarts.clear()
        thinking._rest_until = 0.0

    reset()
    yield
    reset()


def test_a_killed_child_is_started_again_and_its_moves_are_thought_once_more(
        fresh: None, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Seven moves in flight when the child is killed: one restart, one log line, every
    move answered in a fresh child, and the next moves think there too. Before issue 40
    each move in flight counted a failure: past three, every move went to the thread."""
    turn = Referee.new(_config(), policy=FaultPolicy.abort()).turn()
    assert turn is not None
    gates = [Gate(tmp_path) for _ in range(7)]

    async def main() -> list[Command]:
        moves = [asyncio.ensure_future(thinking.think(g, turn.view, turn.legal))
                 for g in gates]
        await asyncio.to_thread(until, lambda: started(tmp_path), "a move reaches the child")
        for pid in thinkers():
            os.kill(pid, signal.SIGKILL)
        (tmp_path / "open").touch()  # the fresh child thinks at once
        return await asyncio.gather(*moves)

    with caplog.at_level(logging.WARNING, logger=thinking.__name__):
        commands = asyncio.run(main())
    assert all(c in turn.legal for c in commands)
    assert thinking._failures == 1 and len(thinking._restarts) == 1
    assert len([r for r in caplog.records if "died" in r.getMessage()]) == 1
    where = [pid for g in gates for pid in g.pids]
    assert len(where) == 7 and os.getpid() not in where, where  # all in the fresh child
    later = Gate(tmp_path)
    asyncio.run(thinking.think(later, turn.view, turn.legal))
    assert later.pids and later.pids[0] != os.getpid()


def test_children_that_keep_dying_are_bounded_and_said_once(
        fresh: None, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Past MAX_RESTARTS deaths in RESTART_WINDOW seconds the moves think in the thread
    (a bot that kills its child each move cannot make the server spawn without end), and
    the bound is one log line."""
    turn = Referee.new(_config(), policy=FaultPolicy.abort()).turn()
    assert turn is not None
    (tmp_path / "open").touch()

    async def main() -> list[int]:
        pids = []
        for _ in range(thinking.MAX_RESTARTS + 3):
            gate = Gate(tmp_path)
            await thinking.think(gate, turn.view, turn.legal)  # the child is up
            for pid in thinkers():
                os.kill(pid, signal.SIGKILL)
            await asyncio.to_thread(until, lambda: thinking._process is None
                                    or thinking._process._broken, "the pool sees it")
            again = Gate(tmp_path)
            await thinking.think(again, turn.view, turn.legal)
            pids += again.pids
        return pids

    with caplog.at_level(logging.WARNING, logger=thinking.__name__):
        pids = asyncio.run(main())
    assert thinking._failures == thinking.MAX_RESTARTS + 1
    said = [r.getMessage() for r in caplog.records if "died" in r.getMessage()]
    assert len([m for m in said if "thread" in m]) == 1, said
    assert pids[-1] == os.getpid()  # resting: the thread thinks


def test_a_game_goes_on_in_a_fresh_child_after_a_kill(fresh: None, tmp_path: Path) -> None:
    """A web table of level-3 bots; its child is killed during the game: the game ends,
    its record audits, and a fresh child thought its later moves."""
    with LiveServer(tmp_path) as live:
        table, _ = bots_table(live, ["3", "3", "3"], rounds=2)
        until(lambda: len(table.events) > 10 and thinkers(), "the game is under way")
        first = thinkers()
        for pid in first:
            os.kill(pid, signal.SIGKILL)
        live.wait_over(table, GUARD)
        after = thinkers()
    assert after and not set(after) & set(first)
    assert thinking._failures == 1 and not table.faults
    assert audit_file(str(table.record)).status == OK


def _config() -> object:
    from xactika.protocol.notation.text import config_from_pairs
    return config_from_pairs({"players": "3", "rounds": "1", "seed": "5"}, defaults=True)
