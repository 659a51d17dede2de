"""Where the server's stand-ins and built-in bots think: in worker processes, never on
the event loop.

A person's stand-in at level 5 searches for tens of milliseconds a move. On the event
loop that froze every table (issue 30); in a thread of the server it still competes with
the loop for Python's one interpreter lock, so a few tables of stand-ins slowed every
move of every table. So a stand-in's choice, and a built-in bot's at a web or lobby
table (frontends/web/transport.py), is made in a child process that all tables share
(a few on a machine with cores to spare): the agent, the seat's view and what is legal
go there (pickled), and the move comes back with the agent's new state (its random
number generator, what it learnt), which the server's copy takes over, so the agent
goes on exactly as if it had thought here. Should the child die (``kill -9``, out of
memory), a fresh one is started and the moves that were in flight are asked of it again,
each once (issue 40: counting a failure per move in flight, one death with seven moves
queued sent every later move into one thread of the server, for good); a move that fails
again, or a move when ``MAX_RESTARTS`` children were started within ``RESTART_WINDOW``
seconds, is made in a worker thread instead (one log line says so). A move that cannot
cross (its agent does not pickle) is made in the thread, and the child stays.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import threading
import time
from collections import deque
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from xactika.core.bots.agents import RandomAgent
from xactika.core.engine.api import Command, Legal
from xactika.core.engine.views import SeatView

log = logging.getLogger(__name__)

SWITCH_INTERVAL = 0.0005  # seconds: the loop takes the interpreter back from a thread

_process: ProcessPoolExecutor | None = None
_thread: ThreadPoolExecutor | None = None
_failures = 0  # children that died (each counted once, however many moves it held)
_restarts: deque[float] = deque()  # when the children that died were replaced
_rest_until = 0.0  # too many deaths: moves think in the thread until then (monotonic)
_lock = threading.Lock()  # the pool is shared by every loop of the process
MAX_RESTARTS = 5  # children started again within RESTART_WINDOW; past it, threads only
RESTART_WINDOW = 60.0  # seconds
MAX_WORKERS = 4  # thinking processes at most, however many cores
CHILD_NICE = 10  # the thinking processes' niceness: the server's loop goes first


def _choose(agent: Any, view: SeatView | None, legal: Legal,
            sent: float | None = None) -> tuple[Command | None, Any, Exception | None]:
    """In the child: the move (or the agent's own exception, which is the agent's
    failure, not the child's), and the agent as it stands after choosing it.

    A move that waited for the child (other tables' moves before it) thinks that much
    less: an agent that thinks to a budget (``think_ms``, the ``go``'s ``time=``) is
    given what is left of it since ``sent`` (``time.monotonic()``, the same clock in
    every process of the machine), so a queue never makes a bot overrun its clock."""
    budget = getattr(agent, "think_ms", None) if sent is not None else None
    if isinstance(budget, int | float) and sent is not None:
        agent.think_ms = max(1.0, budget - (time.monotonic() - sent) * 1000)
    try:
        return agent.choose(view, legal), agent, None
    except Exception as exc:
        return None, agent, exc
    finally:
        if isinstance(budget, int | float):
            agent.think_ms = budget  # the budget is the go's, not what this move had left


def _take_over(agent: Any, after: Any) -> None:
    """The server's stand-in becomes the child's copy after its choice."""
    if type(after) is type(agent) and hasattr(agent, "__dict__"):
        agent.__dict__.update(after.__dict__)


def _child() -> None:
    """In the child, first: yield the processor to the server when both want it (its
    loop answers people; a move a bot thinks can wait a few milliseconds), and exit with
    the server. A terminal's Ctrl-C reaches every process of the job: the server stops
    and ends its children, which ignore it (else each printed its traceback)."""
    with contextlib.suppress(OSError):
        os.nice(CHILD_NICE)
    with contextlib.suppress(ValueError, OSError):  # not in the main thread: nothing to do
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    _orphan_watch()


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
    with _lock:
        if _process is None:
            # spawn: a clean child of the server (not a fork of one with threads and
            # sockets, nor a forkserver that could outlive it), which ends with the server
            _process = ProcessPoolExecutor(workers(), initializer=_child,
                                           mp_context=multiprocessing.get_context("spawn"))
        return _process


def workers() -> int:
    """Children that think: a core for the event loop, the others up to ``MAX_WORKERS``
    (started only as moves queue up), one at least."""
    return max(1, min(MAX_WORKERS, (os.cpu_count() or 1) - 1))


def _in_thread() -> Executor:
    global _thread
    if _thread is None:
        _thread = ThreadPoolExecutor(1, thread_name_prefix="stand-in")
        sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL))
    return _thread


def _replace(broken: ProcessPoolExecutor, why: str) -> None:
    """The pool ``broken`` lost its child: the first move that finds out starts a fresh
    one (the others in flight find it started), unless ``MAX_RESTARTS`` were started
    within ``RESTART_WINDOW`` s; one log line either way."""
    global _process, _failures, _rest_until
    with _lock:
        if _process is not broken:
            return  # replaced already (by a move that failed first)
        _process, now = None, time.monotonic()
        _failures += 1
        while _restarts and now - _restarts[0] > RESTART_WINDOW:
            _restarts.popleft()
        if len(_restarts) < MAX_RESTARTS:
            _restarts.append(now)
            log.warning("the stand-ins' process died (%s): a fresh one thinks the moves "
                        "in flight again (%d started in the last %g s)", why,
                        len(_restarts), RESTART_WINDOW)
        else:
            _rest_until = _restarts[0] + RESTART_WINDOW
            log.warning("the stand-ins' process died (%s), %d deaths within %g s: moves "
                        "are thought in a thread of the server for %.0f s", why,
                        MAX_RESTARTS + 1, RESTART_WINDOW,
                        RESTART_WINDOW - (now - _restarts[0]))
    broken.shutdown(wait=False, cancel_futures=True)


def _resting() -> bool:
    """Too many children died lately: the thread thinks until the window has passed."""
    return time.monotonic() < _rest_until


async def think(agent: Any, view: SeatView | None, legal: Legal) -> Command:
    """A stand-in's or a built-in bot's choice, made in the child process (a thread if
    that fails); a random player's here, at once (its choice costs less than the trip).
    What the agent raises, this raises."""
    if isinstance(agent, RandomAgent):
        return agent.choose(view, legal)
    loop = asyncio.get_running_loop()
    for _ in range(2):  # the move, and once again in a fresh child if this one died
        if _resting():
            break
        pool = _pool()
        try:
            command, after, error = await loop.run_in_executor(pool, _choose, agent, view,
                                                               legal, time.monotonic())
        except BrokenProcessPool as exc:  # the child died: every move in flight is here
            _replace(pool, " ".join(str(exc).split())[:200])
            continue
        except Exception as exc:  # this move's agent does not cross: the child is fine
            log.warning("a move could not cross to the stand-ins' process (%s): it is "
                        "thought in a thread", " ".join(str(exc).split())[:200])
            break
        _take_over(agent, after)
        if error is not None or command is None:
            raise error or ValueError("the agent chose nothing")
        return command
    return await loop.run_in_executor(_in_thread(), agent.choose, view, legal)
