"""Jobs run in worker processes on this machine: ``audit -j N``, ``match --concurrency N``.

In threads, Python work holds the GIL, so two games at once ran no faster than one
(issue 15). The workers are forked, not spawned: they start in milliseconds and ``fn``
may be a bound method whose object lives on in each worker between its jobs (the match
keeps its ``restart=off`` bots there); only jobs and results are pickled. One feeder
thread a worker hands it the queued jobs one at a time.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing as mp
import os
import pickle
import queue
import signal
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from xactika.frontends.parallel.base import POLL, Backend, R, Stopped, T

Worker = tuple[mp.process.BaseProcess, Connection]


def _serve(conn: Connection, fn: Callable[[Any], Any], finish: Callable[[], Any] | None,
           cleanup: Callable[[], None] | None) -> None:
    """A worker's loop: ("job", job) -> fn(job), ("close", None) -> finish(), then quit."""
    def stop(signum: int, frame: object) -> None:
        if cleanup is not None:
            cleanup()
        os._exit(1)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the driver decides; it stops us
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    while True:
        try:
            op, arg = conn.recv()
        except EOFError:  # the driver is gone
            op, arg = "close", None
        try:
            if op == "job":
                answer: Any = ("ok", fn(arg))
            else:
                answer = ("ok", finish() if finish is not None else None)
        except Exception as exc:  # the driver raises it where the result is asked for
            answer = ("error", _portable(exc))
        if op != "job" and cleanup is not None:
            cleanup()
        try:
            conn.send(answer)
        except OSError:
            pass
        if op != "job":
            return


def _portable(exc: Exception) -> Exception:
    """``exc`` if it survives pickling (some take keyword-only arguments), else its words."""
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:
        return RuntimeError(f"{type(exc).__name__}: {exc}")
    return exc


class ProcessBackend(Backend[T, R]):
    """``workers`` processes, forked now, each running ``fn(job)`` one job at a time.

    ``finish`` runs in each worker when the backend is closed and its answers come back
    from :meth:`close`; ``cleanup`` runs there as the worker ends, closed or killed.
    ``stop``: when set, :meth:`result` gives up waiting with :class:`Stopped`.
    """

    def __init__(self, fn: Callable[[T], R], workers: int, *,
                 stop: threading.Event | None = None,
                 finish: Callable[[], Any] | None = None,
                 cleanup: Callable[[], None] | None = None) -> None:
        self.stop = stop
        self.finished: list[Any] = []  # each worker's finish() answer, once closed
        self._jobs: queue.SimpleQueue[tuple[T, cf.Future[R]] | None] = queue.SimpleQueue()
        self._busy = 0
        self._live = workers
        self._lock = threading.Lock()
        self._workers: list[Worker] = []
        self._closed = False
        ctx = mp.get_context("fork")  # no re-import, no pickled fn: starts in ms
        for _ in range(workers):
            ours, theirs = ctx.Pipe()
            proc = ctx.Process(target=_serve, args=(theirs, fn, finish, cleanup), daemon=True)
            proc.start()
            theirs.close()
            self._workers.append((proc, ours))
        self._feeders = [threading.Thread(target=self._feed, args=(w,), daemon=True,
                                          name="worker-feed") for w in self._workers]
        for feeder in self._feeders:
            feeder.start()

    def _feed(self, worker: Worker) -> None:
        """Hand ``worker`` the queued jobs one at a time until the backend closes."""
        proc, conn = worker
        while True:
            item = self._jobs.get()
            if item is None:
                return
            job, future = item
            if not future.set_running_or_notify_cancel():
                continue
            with self._lock:
                self._busy += 1
            try:
                conn.send(("job", job))
                while not conn.poll(POLL):
                    if not proc.is_alive():
                        raise EOFError
                status, value = conn.recv()
            except (OSError, EOFError):
                future.set_exception(RuntimeError(
                    f"a worker process died (exit code {proc.exitcode})"))
                self._lost()
                return  # this worker is gone; the others take the queue
            finally:
                with self._lock:
                    self._busy -= 1
            if status == "error":
                future.set_exception(value)
            else:
                future.set_result(value)

    def _lost(self) -> None:
        """A worker died: with none left, every job still queued fails now."""
        with self._lock:
            self._live -= 1
            if self._live > 0:
                return
        self._drop(RuntimeError("every worker process died"))

    def _drop(self, why: Exception | None) -> None:
        """Fail (or cancel, without ``why``) every job not yet started."""
        while True:
            try:
                item = self._jobs.get_nowait()
            except queue.Empty:
                return
            if item is not None and item[1].set_running_or_notify_cancel():
                if why is None:
                    item[1].set_exception(Stopped())
                else:
                    item[1].set_exception(why)

    def submit(self, job: T) -> cf.Future[R]:
        future: cf.Future[R] = cf.Future()
        with self._lock:
            live = self._live > 0 and not self._closed
        if not live:
            future.set_exception(RuntimeError("the worker processes are gone"))
            return future
        self._jobs.put((job, future))
        return future

    def result(self, handle: cf.Future[R]) -> R:
        while True:
            if self.stop is not None and self.stop.is_set():
                raise Stopped
            try:
                return handle.result(timeout=POLL if self.stop is not None else None)
            except cf.TimeoutError:
                continue

    def close(self) -> None:
        """Run ``finish`` in every worker once its jobs are done (answers in
        :attr:`finished`), then let them quit; with jobs still running (an error stopped
        the caller) kill them instead."""
        if self._closed:
            return
        with self._lock:
            busy = self._busy
        if busy:
            self.kill()
            return
        for _ in self._feeders:
            self._jobs.put(None)
        for feeder in self._feeders:
            feeder.join()
        for proc, conn in self._workers:
            try:
                conn.send(("close", None))
                status, value = conn.recv()
                if status == "ok":
                    self.finished.append(value)
            except (OSError, EOFError):
                pass
            proc.join(5.0)
        self.kill()

    def kill(self) -> None:
        """Stop every worker now; each runs ``cleanup`` on the way out."""
        with self._lock:
            self._closed = True
        self._drop(None)
        for proc, _ in self._workers:
            if proc.is_alive():
                proc.terminate()
        for proc, _ in self._workers:
            proc.join(5.0)
            if proc.is_alive():
                proc.kill()
                proc.join()
        for _ in self._feeders:
            self._jobs.put(None)
        for feeder in self._feeders:
            feeder.join(5.0)
        for _, conn in self._workers:
            conn.close()
