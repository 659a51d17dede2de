"""Issue 42: ``arena run --cluster ray`` plays the games as Ray tasks (as ``match --cluster
ray`` does): the records signed here, the standings what the records say, the arena
audited. One local Ray (``ray.init(num_cpus=2)``) for the module, as tests/test_cluster.py
starts it; ``importorskip`` spares a developer without the ``[ray]`` extra (CI has it)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from arenakit import arena_cli, games, make_arena, records, standings_json

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "random_bot.py"


@pytest.fixture(scope="module")
def ray() -> Iterator[Any]:
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             logging_level="warning")
    try:
        yield ray
    finally:
        ray.shutdown()


def test_a_season_on_ray_is_recorded_and_audited_here(
        ray: Any, tmp_path: Path, arena_db: str | None,
        capsys: pytest.CaptureFixture[str]) -> None:
    folder = make_arena(capsys, tmp_path / "a", arena_db,
                        [("ann", "alice", "random"), ("bea", "bob", "heuristic")])
    # a program that says who started it: on a cluster, a Ray worker
    parents = tmp_path / "parents.txt"
    wrapper = tmp_path / "who.sh"
    wrapper.write_text(f'tr "\\0" " " < /proc/$PPID/cmdline >> {parents}; echo >> {parents}\n'
                       f"exec {sys.executable} {EXAMPLE} 1\n", encoding="utf-8")
    rc, _, err = arena_cli(capsys, "add", str(folder), "cid", "--owner", "carol", "--", "sh",
                           str(wrapper))
    assert rc == 0, err
    rc, out, err = arena_cli(capsys, "run", str(folder), "--cluster", "ray", "--games", "12",
                             "--sandbox", "none")
    assert rc == 0, err
    assert "12 games" in out and "on Ray: 1 node, 2 CPUs" in err
    assert len(games(folder)) == 12 == len(records(folder))
    started = parents.read_text(encoding="utf-8").splitlines()
    assert started and all("ray::" in line for line in started), started
    assert standings_json(capsys, folder) == standings_json(capsys, folder, records=True)
    audit = subprocess.run([sys.executable, "-m", "xactika.frontends.cli", "audit", "--strict",
                            "--key", str(folder / "arena.key.pub"), str(folder)],
                           capture_output=True, text=True)
    assert audit.returncode == 0 and "12 verified" in audit.stdout, audit.stdout


def test_cluster_and_listen_together_are_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = make_arena(capsys, tmp_path / "a", None, [])
    rc, out, err = arena_cli(capsys, "run", str(folder), "--cluster", "ray", "--listen",
                             "127.0.0.1:0", "--games", "1")
    assert rc == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "--listen or --cluster" in err
