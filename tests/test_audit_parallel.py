"""``audit -j N``: record files named one by one go to the workers in batches, several at
once. Each path was once its own job, waited for before the next was sent, so -j 2 ran
no faster than -j 1 (it was slower)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from xactika.core.bots.agents import RandomAgent, self_play
from xactika.core.engine.api import Config
from xactika.frontends.parallel import Backend
from xactika.frontends.records.audit import BATCH, Job, Pool, audit_job, reports
from xactika.protocol.records.textform import format_record
from xactika.protocol.trust.audit import LogReport
from xactika.protocol.trust.tamper import commit_config


class Recording(Backend[Job, list[LogReport]]):
    """Runs jobs in this process, noting how many were in flight at once."""

    def __init__(self) -> None:
        self.sizes: list[int] = []
        self.waiting: list[Job] = []
        self.most_in_flight = 0

    def submit(self, job: Job) -> Any:
        self.sizes.append(len(job[0]))
        self.waiting.append(job)
        self.most_in_flight = max(self.most_in_flight, len(self.waiting))
        return job

    def result(self, handle: Any) -> list[LogReport]:
        self.waiting.remove(handle)
        return audit_job(handle)


def test_paths_named_one_by_one_are_batched_and_overlap(tmp_path: Path) -> None:
    paths = []
    for i in range(2 * BATCH + 3):
        config = commit_config(Config(mode="bid", players=2, rounds=1, seed=i))
        _, events = self_play(config, [RandomAgent(i), RandomAgent(i + 1)])
        path = tmp_path / f"g{i:03d}.log"
        path.write_text(format_record([("game", "xactika")], events), encoding="utf-8")
        paths.append(str(path))
    backend = Recording()
    got = list(reports(paths, pool=Pool(backend, window=4, ship=False)))
    assert [r.file for r in got] == paths  # reported in input order
    assert backend.sizes == [BATCH, BATCH, 3]
    assert backend.most_in_flight == 3  # all three batches sent before the first answer
    serial = list(reports(paths))
    assert [(r.file, r.status, r.head) for r in got] == [(r.file, r.status, r.head)
                                                          for r in serial]
