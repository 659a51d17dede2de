"""The one interface every parallel run goes through: submit a job, wait for its result.

A backend runs ``fn(job)`` somewhere (processes here: processes.py; Ray tasks:
raypool.py). :func:`ordered` keeps a bounded window of jobs in flight and yields their
results in submission order, so output is the same as a serial run's and memory stays
flat; the match runner instead waits on each game in its own thread, as games finish.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any, Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")

POLL = 0.25  # seconds between looks at the stop flag while a job runs


class ClusterError(Exception):
    """A cluster that cannot be used: no Ray, a bad --cluster value, a node unfit."""


class Stopped(Exception):
    """The run is being stopped (the backend's ``stop`` flag is set): the job is dropped."""


class Backend(Generic[T, R]):
    """Runs ``fn(job)`` somewhere; ``submit`` returns a handle, ``result`` waits for it.

    ``result`` raises the job's own exception, or :class:`Stopped` once ``stop`` is set.
    """

    stop: threading.Event | None = None

    def submit(self, job: T) -> Any:
        raise NotImplementedError

    def result(self, handle: Any) -> R:
        raise NotImplementedError

    def run(self, job: T) -> R:
        """``job`` run there and waited for (the match runner calls it in a thread a game)."""
        return self.result(self.submit(job))

    def close(self) -> None:
        pass

    def kill(self) -> None:
        """Stop at once, whatever is running (Ctrl-C); ``close`` by default."""
        self.close()


def ordered(jobs: Iterable[T], backend: Backend[T, R], window: int) -> Iterator[R]:
    """Each job's result, in the jobs' order, with at most ``window`` jobs in flight."""
    pending: deque[Any] = deque()
    for job in jobs:
        pending.append(backend.submit(job))
        if len(pending) >= window:
            yield backend.result(pending.popleft())
    while pending:
        yield backend.result(pending.popleft())


def batches(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """``items`` cut into lists of ``size`` (the last may be shorter)."""
    batch: list[T] = []
    for item in items:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch
