"""Work spread over processes or a Ray cluster, results taken back in submission order.

``xactika audit -j N`` and ``--cluster ray[=ADDRESS]`` (audit and match) share this:
:func:`ordered` keeps a bounded window of jobs in flight and yields their results in the
order they were submitted, so output is the same as a serial run's and memory stays flat.
Ray is an optional extra (``pip install 'xactika[ray]'``); docs/SCALE.md.
"""

from __future__ import annotations

import concurrent.futures as cf
import socket
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")

INSTALL_HINT = ("Ray is not installed: pip install 'xactika[ray]' (or pip install ray) on "
                "the driver and on every node of the cluster")


class ClusterError(Exception):
    """A cluster that cannot be used: no Ray, a bad --cluster value, a node unfit."""


def parse_cluster(text: str) -> str | None:
    """``ray`` or ``ray=ADDRESS`` -> the address (None: local or RAY_ADDRESS)."""
    kind, eq, address = text.partition("=")
    if kind != "ray":
        raise ClusterError(f"--cluster {text!r}: expected ray or ray=ADDRESS "
                           "(ray=auto joins the cluster started on this machine)")
    if eq and not address:
        raise ClusterError("--cluster ray=: give the head's ADDRESS (host:port) or auto")
    return address or None


def import_ray() -> Any:
    """The ray module, or ClusterError that says how to install it."""
    try:
        import ray
    except ImportError:
        raise ClusterError(INSTALL_HINT) from None
    return ray


class RaySession:
    """Ray joined (or started) for one command; left as found when it was already up."""

    def __init__(self, address: str | None, num_cpus: int | None = None) -> None:
        self.ray = import_ray()
        _notices_to_stderr()
        reachable(address)
        self.owned = not self.ray.is_initialized()
        if self.owned:
            try:
                self.ray.init(address=address, num_cpus=None if address else num_cpus,
                              log_to_driver=False, include_dashboard=False,
                              logging_level="warning")
            except (ConnectionError, ValueError, RuntimeError) as exc:
                raise ClusterError(f"cannot join the Ray cluster at {address or 'local'}: "
                                   f"{exc}") from None

    def cpus(self) -> int:
        return max(1, int(self.ray.cluster_resources().get("CPU", 1)))

    def close(self) -> None:
        if self.owned:
            self.ray.shutdown()

    def __enter__(self) -> RaySession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def reachable(address: str | None, timeout: float = 5.0) -> None:
    """ClusterError at once for a head that does not answer (Ray itself retries for
    minutes before it gives up)."""
    if address is None or address == "auto" or "://" in address:
        return
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise ClusterError(f"--cluster ray={address}: expected HOST:PORT, auto, or ray://...")
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except OSError as exc:
        raise ClusterError(f"cannot reach the Ray head at {address}: "
                           f"{exc.strerror or exc}") from None


def _notices_to_stderr() -> None:
    """Ray prints its notices (a worker died, ...) to stdout, where they would break the
    table or --json; they go to stderr. Ray keeps no setting for it: its printer is
    wrapped, where this version of Ray has one."""
    try:
        from ray._private import worker
    except ImportError:
        return
    original = getattr(worker, "print_to_stdstream", None)
    if original is None or getattr(original, "_xactika", False):
        return

    def to_stderr(data: dict[str, Any], ignore_prefix: bool) -> None:
        original({**data, "is_err": True}, ignore_prefix)

    to_stderr._xactika = True  # type: ignore[attr-defined]
    worker.print_to_stdstream = to_stderr


class Backend(Generic[T, R]):
    """Runs ``fn(job)`` somewhere; ``submit`` returns a handle, ``result`` waits for it."""

    def submit(self, job: T) -> Any:
        raise NotImplementedError

    def result(self, handle: Any) -> R:
        raise NotImplementedError

    def close(self) -> None:
        pass


class ProcessBackend(Backend[T, R]):
    """``concurrent.futures.ProcessPoolExecutor`` with ``workers`` processes."""

    def __init__(self, fn: Callable[[T], R], workers: int) -> None:
        self.fn = fn
        self.pool = cf.ProcessPoolExecutor(workers)

    def submit(self, job: T) -> cf.Future[R]:
        return self.pool.submit(self.fn, job)

    def result(self, handle: cf.Future[R]) -> R:
        return handle.result()

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


class RayBackend(Backend[T, R]):
    """One Ray task a job (``fn`` must be importable on the workers)."""

    def __init__(self, fn: Callable[[T], R], session: RaySession) -> None:
        self.ray = session.ray
        self.task = self.ray.remote(fn)

    def submit(self, job: T) -> Any:
        return self.task.remote(job)

    def result(self, handle: Any) -> R:
        return self.ray.get(handle)

    def close(self) -> None:
        pass


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
