"""Where the server's stand-ins think: in a worker process, never on the event loop.

A person's stand-in at level 5 searches for tens of milliseconds a move. On the event
loop that froze every table (issue 30); in a thread of the server it still competes with
the loop for Python's one interpreter lock, so a few tables of stand-ins slowed every
move of every table. So a stand-in's choice is made in one child process that all tables
share: the agent, the seat's view and what is legal go there (pickled), and the move
comes back with the agent's new state (its random number generator, what it learnt),
which the server's copy takes over, so the stand-in goes on exactly as if it had thought
here. Should the child die or anything fail to cross, the choice is made in a worker
thread instead, and the next one tries a fresh child.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import multiprocessing.connection
import os
import sys
import threading
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any

from xactika.core.bots.agents import RandomAgent
from xactika.core.engine.api import Command, Legal
from xactika.core.engine.views import SeatView

log = logging.getLogger(__name__)

SWITCH_INTERVAL = 0.0005  # seconds: the loop takes the interpreter back from a thread

_process: ProcessPoolExecutor | None = None
_thread: ThreadPoolExecutor | None = None
_failures = 0  # children that failed; past MAX_FAILURES, threads only
MAX_FAILURES = 3


def _choose(agent: Any, view: SeatView, legal: Legal) -> tuple[Command, Any]:
    """In the child: the move, and the agent as it stands after choosing it."""
    return agent.choose(view, legal), agent


def _take_over(agent: Any, after: Any) -> None:
    """The server's stand-in becomes the child's copy after its choice."""
    if type(after) is type(agent) and hasattr(agent, "__dict__"):
        agent.__dict__.update(after.__dict__)


def _orphan_watch() -> None:
    """In the child: exit as soon as the server is gone, however it went (``kill -9``
    included), so that no stand-in process outlives its server."""
    parent = multiprocessing.parent_process()
    if parent is None or parent.sentinel is None:
        return

    def watch() -> None:
        multiprocessing.connection.wait([parent.sentinel])
        os._exit(0)

    threading.Thread(target=watch, name="orphan-watch", daemon=True).start()


def _pool() -> ProcessPoolExecutor:
    global _process
    if _process is None:
        # spawn: a clean child of the server (not a fork of one with threads and sockets,
        # nor a forkserver that could outlive it), which ends when the server does
        _process = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"),
                                       initializer=_orphan_watch)
    return _process


def _in_thread() -> Executor:
    global _thread
    if _thread is None:
        _thread = ThreadPoolExecutor(1, thread_name_prefix="stand-in")
        sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL))
    return _thread


async def think(agent: Any, view: SeatView, legal: Legal) -> Command:
    """A stand-in's choice, made in the child process (a thread if that fails); a random
    player's here, at once (its choice costs less than the trip)."""
    global _process, _failures
    if isinstance(agent, RandomAgent):
        return agent.choose(view, legal)
    loop = asyncio.get_running_loop()
    if _failures >= MAX_FAILURES:
        return await loop.run_in_executor(_in_thread(), agent.choose, view, legal)
    try:
        command, after = await loop.run_in_executor(_pool(), _choose, agent, view, legal)
    except Exception as exc:  # a dead child, something that does not pickle
        _failures += 1
        log.warning("the stand-ins' process failed (%s): this move is thought in a thread%s",
                    " ".join(str(exc).split())[:200],
                    "; from now on every move" if _failures >= MAX_FAILURES else "")
        broken, _process = _process, None
        if broken is not None:
            broken.shutdown(wait=False, cancel_futures=True)
        return await loop.run_in_executor(_in_thread(), agent.choose, view, legal)
    _take_over(agent, after)
    return command
