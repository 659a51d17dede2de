"""Jobs run as Ray tasks: ``--cluster ray[=ADDRESS]`` of audit, match and the study.

A task is sent only what its own job holds, plus one ``shared`` object put in Ray's
object store once (the match's settings, never its deals: frontends/match/cluster.py).
A task whose worker or node dies can be run again (``reruns``); its first attempt left
nothing behind on the driver. Ray is an optional extra (``pip install 'xactika[ray]'``);
docs/SCALE.md.
"""

from __future__ import annotations

import logging
import socket
import threading
from collections.abc import Callable
from typing import Any

from xactika.frontends.parallel.base import POLL, Backend, ClusterError, R, Stopped, T

AUTH_LOGGER = "ray._private.authentication.authentication_token_setup"
INSTALL_HINT = ("Ray is not installed: pip install 'xactika[ray]' (or pip install ray) on "
                "the driver and on every node of the cluster")


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
        _quiet_auth_notice()
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


class _AuthOn(logging.Filter):
    """Drops Ray's notice that token authentication is on (the default), printed at
    every match; its warning that authentication is off still shows."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("Token authentication is enabled")


def _quiet_auth_notice() -> None:
    logger = logging.getLogger(AUTH_LOGGER)
    if not any(isinstance(f, _AuthOn) for f in logger.filters):
        logger.addFilter(_AuthOn())


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


class RayBackend(Backend[T, R]):
    """One Ray task a job: ``fn(job)``, or ``fn(shared, job)`` with a ``shared`` object.

    ``fn`` must be importable on the workers. ``options`` go to ``ray.remote`` (none:
    Ray's defaults). A job whose worker or node died is run again up to ``reruns``
    times, ``on_rerun(job)`` told each time; then ClusterError, naming ``what(job)``.
    """

    def __init__(self, fn: Callable[..., R], session: RaySession, *, shared: Any = None,
                 options: dict[str, Any] | None = None, reruns: int = 0,
                 on_rerun: Callable[[T], None] | None = None,
                 what: Callable[[T], str] = lambda job: "a task",
                 stop: threading.Event | None = None) -> None:
        self.ray = session.ray
        self.task = self.ray.remote(**options)(fn) if options else self.ray.remote(fn)
        self.shared = None if shared is None else self.ray.put(shared)
        self.reruns = reruns
        self.on_rerun = on_rerun
        self.what = what
        self.stop = stop
        exceptions = self.ray.exceptions
        self.lost = (exceptions.WorkerCrashedError, exceptions.NodeDiedError,
                     exceptions.ObjectLostError, exceptions.OwnerDiedError)

    def _send(self, job: T) -> Any:
        return self.task.remote(job) if self.shared is None else \
            self.task.remote(self.shared, job)

    def submit(self, job: T) -> list[Any]:
        return [job, self._send(job)]

    def result(self, handle: list[Any]) -> R:
        job = handle[0]
        for attempt in range(self.reruns + 1):
            if attempt:
                if self.on_rerun is not None:
                    self.on_rerun(job)
                handle[1] = self._send(job)
            try:
                return self._wait(handle[1])
            except self.lost as exc:
                if attempt == self.reruns:
                    if not self.reruns:
                        raise
                    raise ClusterError(f"{self.what(job)}: its worker died on "
                                       f"{self.reruns + 1} tries ({type(exc).__name__})"
                                       ) from None
        raise AssertionError("unreachable")

    def _wait(self, ref: Any) -> R:
        if self.stop is None:
            done: R = self.ray.get(ref)
            return done
        while True:
            if self.stop.is_set():
                self.ray.cancel(ref, force=True)
                raise Stopped
            ready, _ = self.ray.wait([ref], timeout=POLL)
            if ready:
                found: R = self.ray.get(ref)
                return found
