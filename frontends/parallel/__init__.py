"""Work spread over processes or a Ray cluster, behind one interface (docs/SCALE.md).

``xactika audit -j N`` and ``--cluster ray``, ``xactika match --concurrency N`` and
``--cluster ray``, and the study's ``--procs``/``--cluster`` all go through a
:class:`Backend`: :class:`ProcessBackend` (forked workers here) or :class:`RayBackend`
(one Ray task a job); :func:`ordered` takes results back in submission order with a
bounded number of jobs in flight.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from xactika.frontends.parallel.base import (
    Backend,
    ClusterError,
    R,
    Stopped,
    T,
    batches,
    ordered,
)
from xactika.frontends.parallel.processes import ProcessBackend
from xactika.frontends.parallel.raypool import (
    RayBackend,
    RaySession,
    import_ray,
    parse_cluster,
    reachable,
)

__all__ = ["Backend", "ClusterError", "ProcessBackend", "RayBackend", "RaySession",
           "Stopped", "batches", "import_ray", "map_ordered", "ordered", "parse_cluster",
           "reachable"]


def map_ordered(fn: Callable[[T], R], jobs: Iterable[T], *, procs: int,
                cluster: str | None = None, per_worker: int = 2) -> Iterator[R]:
    """``fn`` of each job in ``procs`` processes, or on Ray with ``cluster`` (``ray`` or
    ``ray=ADDRESS``), results in the jobs' order, ``per_worker`` jobs a worker in flight.

    ClusterError (a bad ``cluster``, no Ray) comes from the first ``next()``."""
    if cluster is not None:
        with RaySession(parse_cluster(cluster)) as session:
            yield from ordered(jobs, RayBackend(fn, session), per_worker * session.cpus())
        return
    backend: ProcessBackend[T, R] = ProcessBackend(fn, procs)
    try:
        yield from ordered(jobs, backend, per_worker * procs)
    finally:
        backend.close()
