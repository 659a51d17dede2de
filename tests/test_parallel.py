"""frontends/parallel/: the forked process backend every -j and --concurrency runs on."""

from __future__ import annotations

import os
import threading
import time

import pytest

from xactika.frontends.parallel import ProcessBackend, Stopped, map_ordered, ordered


def square_or_fail(n: int) -> int:
    if n < 0:
        raise ValueError(f"negative {n}")
    if n == 999:
        os._exit(3)  # the worker dies mid-job
    return n * n


def test_results_come_back_in_submission_order_and_errors_where_asked() -> None:
    assert list(map_ordered(square_or_fail, range(20), procs=3)) == [n * n for n in range(20)]
    backend: ProcessBackend[int, int] = ProcessBackend(square_or_fail, 2)
    try:
        handles = [backend.submit(n) for n in (2, -1, 3)]
        assert backend.result(handles[0]) == 4
        with pytest.raises(ValueError, match="negative -1"):
            backend.result(handles[1])
        assert backend.result(handles[2]) == 9  # the worker lives on after an error
    finally:
        backend.close()


def test_a_worker_that_dies_fails_its_job_and_the_last_one_fails_the_queue() -> None:
    backend: ProcessBackend[int, int] = ProcessBackend(square_or_fail, 1)
    try:
        dead, queued = backend.submit(999), backend.submit(5)
        with pytest.raises(RuntimeError, match="died"):
            dead.result(timeout=30)
        with pytest.raises(RuntimeError, match="died"):
            queued.result(timeout=30)  # no worker left: it fails rather than hangs
    finally:
        backend.close()


def test_state_lives_in_each_worker_and_answers_at_close() -> None:
    seen: list[int] = []

    def remember(n: int) -> int:
        seen.append(n)  # the worker's own copy of the list
        return len(seen)

    backend: ProcessBackend[int, int] = ProcessBackend(remember, 1,
                                                       finish=lambda: list(seen))
    assert list(ordered(range(4), backend, window=2)) == [1, 2, 3, 4]
    backend.close()
    assert backend.finished == [[0, 1, 2, 3]] and seen == []


def test_a_set_stop_flag_ends_the_wait_at_once() -> None:
    stop = threading.Event()
    backend: ProcessBackend[float, None] = ProcessBackend(time.sleep, 1, stop=stop)
    try:
        handle = backend.submit(60.0)
        stop.set()
        with pytest.raises(Stopped):
            backend.result(handle)
    finally:
        backend.kill()
