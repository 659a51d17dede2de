"""``--cluster ray`` and ``audit -j N``: the same output as a serial, local run.

One local Ray instance (``ray.init(num_cpus=2)``) serves the whole module and is shut down
at its end. CI installs the ``[ray]`` extra, so these run there; ``importorskip`` only
spares a developer without it the Ray tests (the -j and no-Ray tests always run).
"""

from __future__ import annotations

import io
import json
import os
import pickle
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from xactika.core import Config, RandomAgent
from xactika.core.bots.agents import self_play
from xactika.frontends.match import runner as match
from xactika.frontends.match.tournament import GameSpec, deal_seed
from xactika.frontends.records import audit
from xactika.protocol.records.textform import format_record
from xactika.protocol.trust.tamper import commit_config

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
EXAMPLE = ROOT / "examples" / "random_bot.py"
KILLER = ROOT / "tests" / "matchbots" / "kill_worker_bot.py"


@pytest.fixture(scope="module")
def ray() -> Iterator[Any]:
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             logging_level="warning")
    try:
        yield ray
    finally:
        ray.shutdown()


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """Clean records, a broken one, a missing one and a folder: every exit reason."""
    folder = tmp_path_factory.mktemp("logs")
    for seed in range(40):
        config = commit_config(Config(mode="bid", players=4, rounds=2, seed=seed))
        _, events = self_play(config, [RandomAgent(seed * 10 + s) for s in range(4)])
        headers = [("game", "xactika"), ("mode", "bid"), ("players", "4"),
                   ("seats", "a,b,c,d")]
        (folder / f"g{seed:03d}.log").write_text(format_record(headers, events),
                                                 encoding="utf-8")
    text = (folder / "g007.log").read_text(encoding="utf-8")
    (folder / "g007.log").write_text(text.replace("event play 1", "event play 2", 1),
                                     encoding="utf-8")
    (folder / "g020.log").write_text("not a record\n", encoding="utf-8")
    return [str(folder), str(folder / "missing.log")]


def audit_out(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = audit.main(args)
    return code, capsys.readouterr().out


@pytest.mark.parametrize("flags", [[], ["--json"], ["--quiet"]])
def test_audit_in_processes_prints_what_a_serial_audit_prints(
        logs: list[str], flags: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    serial = audit_out([*logs, *flags], capsys)
    assert serial[0] == 2 and "invalid" in audit_out(logs[:1], capsys)[1]
    assert audit_out([*logs, *flags, "-j", "3"], capsys) == serial


def test_audit_on_ray_prints_what_a_serial_audit_prints(
        ray: Any, logs: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    for flags in ([], ["--json"]):
        serial = audit_out([*logs, *flags], capsys)
        assert audit_out([*logs, *flags, "--cluster", "ray"], capsys) == serial
    assert audit_out([logs[0], "--cluster", "ray"], capsys) == audit_out(logs[:1], capsys)


def bots(*cmds: str) -> list[str]:
    out: list[str] = []
    for n, cmd in enumerate(cmds):
        out += ["--bot", f"name=b{n}", f"cmd={cmd}"]
    return out


def play(args: list[str], out: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = match.main([*args, "--out", str(out), "--progress", "none"])
    return code, capsys.readouterr().out


MATCH = ["--deals", "3", "--seed", "5", "--rounds", "2"]


def test_a_match_on_ray_prints_the_local_table_byte_for_byte(
        ray: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = [*bots(f"{PY} {EXAMPLE} 1", f"{PY} {EXAMPLE} 2"), *MATCH]
    local = play(args, tmp_path / "local", capsys)
    remote = play([*args, "--cluster", "ray"], tmp_path / "ray", capsys)
    assert local[0] == 0 and "6 games on 3 complete deals" in local[1]
    assert remote == local
    result = json.loads((tmp_path / "ray" / "results.json").read_text(encoding="utf-8"))
    assert result["cluster"]["reruns"] == []
    # the records were signed and pinned on the driver: the folder audits clean
    code, text = audit_out([str(tmp_path / "ray"), "--quiet"], capsys)
    assert (code, text) == (0, "")


def test_a_killed_worker_s_game_is_played_again_once_and_counted_once(
        ray: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    marker = tmp_path / "killed-once"
    args = [*bots(f"{PY} {KILLER} {marker} 1", f"{PY} {EXAMPLE} 2"), *MATCH,
            "--sandbox", "none"]
    remote = play([*args, "--cluster", "ray"], tmp_path / "ray", capsys)
    assert marker.exists()  # a worker was killed
    result = json.loads((tmp_path / "ray" / "results.json").read_text(encoding="utf-8"))
    assert len(result["cluster"]["reruns"]) == 1
    assert result["terminations"] == {"normal": 6}
    local = play(args, tmp_path / "local", capsys)  # the marker is there: no kill
    assert remote == local and remote[0] == 0
    manifest = (tmp_path / "ray" / "manifest.txt").read_text(encoding="utf-8")
    assert manifest.count("games/") == 6 == len(list((tmp_path / "ray" / "games").iterdir()))
    assert audit_out([str(tmp_path / "ray"), "--quiet"], capsys) == (0, "")


def test_a_bot_missing_on_a_node_stops_the_match_before_any_game(
        ray: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    # the program is on the driver's PATH only: the workers started before it was added
    here = tmp_path / "bin"
    here.mkdir()
    program = here / "only-on-the-driver"
    program.write_text(f"#!/bin/sh\nexec {PY} {EXAMPLE} 1\n", encoding="utf-8")
    program.chmod(0o755)
    monkeypatch.setenv("PATH", f"{here}{os.pathsep}{os.environ['PATH']}")
    args = [*bots("only-on-the-driver", f"{PY} {EXAMPLE} 2"), *MATCH, "--cluster", "ray"]
    code = match.main([*args, "--out", str(tmp_path / "m"), "--progress", "none"])
    err = capsys.readouterr().err
    assert code == 2
    assert "cannot start on every node" in err and "'only-on-the-driver'" in err
    assert not (tmp_path / "m" / "games").exists() or not any((tmp_path / "m" / "games").iterdir())


def test_without_ray_the_cluster_flag_says_how_to_install_it_and_exits_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray raises ImportError
    args = [*bots(f"{PY} {EXAMPLE} 1", f"{PY} {EXAMPLE} 2"), *MATCH, "--cluster", "ray"]
    assert match.main([*args, "--out", str(tmp_path / "m")]) == 2
    err = capsys.readouterr().err
    assert "pip install 'xactika[ray]'" in err and err.count("\n") == 1
    assert not (tmp_path / "m").exists()  # nothing made before the error
    assert audit.main([str(tmp_path), "--cluster", "ray"]) == 2
    assert "pip install 'xactika[ray]'" in capsys.readouterr().err


@pytest.mark.parametrize(("bad", "said"), [
    ("dask", "--cluster 'dask': expected ray"), ("ray=", "--cluster ray=: give"),
    ("ray=nohost", "--cluster ray=nohost: expected HOST:PORT"),
    ("ray=127.0.0.1:1", "cannot reach the Ray head at 127.0.0.1:1: Connection refused"),
])
def test_a_bad_cluster_value_is_one_clear_line_and_makes_nothing(
        bad: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    if bad.startswith("ray=") and bad != "ray=":
        pytest.importorskip("ray")  # without Ray the install hint comes first
    args = [*bots(f"{PY} {EXAMPLE} 1", f"{PY} {EXAMPLE} 2"), *MATCH, "--cluster", bad]
    assert match.main([*args, "--out", str(tmp_path / "m")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"xactika match: {said}") and err.count("\n") == 1
    assert not (tmp_path / "m").exists()
    assert audit.main([str(tmp_path), "--cluster", bad]) == 2
    assert said in capsys.readouterr().err


def test_resume_after_the_driver_is_killed_gives_the_local_table(
        ray: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    address = ray.get_runtime_context().gcs_address  # the driver joins the module's Ray
    args = [*bots(f"{PY} {EXAMPLE} 1", f"{PY} {EXAMPLE} 2"), "--deals", "6", "--seed", "5",
            "--rounds", "2", "--progress", "none"]
    out = tmp_path / "ray"
    driver = subprocess.Popen([PY, "-m", "xactika.frontends.cli", "match", *args, "--out",
                               str(out), "--cluster", f"ray={address}"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while len(list((out / "games").glob("*.log"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    driver.send_signal(signal.SIGKILL)
    driver.wait()
    kept = len(list((out / "games").glob("*.log")))
    assert 2 <= kept < 12 and not (out / "results.json").exists()
    resumed = play(["--resume", "--cluster", "ray"], out, capsys)
    result = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert result["resumed_games"] >= kept - 1  # the newest may have been set aside
    assert result["terminations"] == {"normal": 12}
    local = play(args[:-2], tmp_path / "local", capsys)
    assert resumed == local and local[0] == 0


FAULT_BOT = ROOT / "tests" / "bots" / "fault_bot.py"


def test_a_ray_task_is_sent_its_own_deal_and_nothing_that_derives_the_others(
        ray: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A hostile bot on a worker can read what its task was sent (the object store, the
    task's arguments): that must hold its own deal's seed only, never another deal's nor
    the match seed they are all derived from (issue 25)."""
    sent: list[tuple[Any, ...]] = []  # each task's arguments, and what was put once
    put: list[Any] = []
    real_put, real_remote = ray.put, ray.remote

    class Spy:
        def __init__(self, fn: Any) -> None:
            self.fn = fn

        def remote(self, *args: Any) -> Any:
            sent.append(args)
            return self.fn.remote(*args)

        def options(self, **kw: Any) -> Spy:
            return Spy(self.fn.options(**kw))

    def remote(*args: Any, **kw: Any) -> Any:
        if len(args) == 1 and callable(args[0]) and not kw:
            return Spy(real_remote(args[0]))
        made = real_remote(*args, **kw)
        return lambda fn: Spy(made(fn))

    def put_spy(value: Any, **kw: Any) -> Any:
        put.append(value)
        return real_put(value, **kw)

    monkeypatch.setattr(ray, "remote", remote)
    monkeypatch.setattr(ray, "put", put_spy)
    seed = 918273645546372819  # distinct from every other number a task is sent
    args = [*bots(f"{PY} {FAULT_BOT} illegal", f"{PY} {EXAMPLE} 2"), "--deals", "3",
            "--seed", str(seed), "--rounds", "2", "--sandbox", "none"]
    remote_run = play([*args, "--cluster", "ray"], tmp_path / "ray", capsys)
    monkeypatch.undo()
    # the fallback that finishes the faulted games plays as it does here
    assert remote_run == play(args, tmp_path / "local", capsys) and remote_run[0] == 0
    deal_seeds = {d: deal_seed(seed, d) for d in range(1, 4)}
    tasks = 0
    for args_sent in sent:
        found = _sent_objects((args_sent, put), ray.ObjectRef)
        games = {o.deal for o in found if isinstance(o, GameSpec)}
        assert seed not in found
        if not games:  # the node check: no deal at all
            assert not set(deal_seeds.values()) & set(found)
            continue
        tasks += 1
        assert len(games) == 1
        (own,) = games
        assert deal_seeds[own] in found
        assert not {s for d, s in deal_seeds.items() if d != own} & set(found)
    assert tasks == 6


def _sent_objects(value: Any, skip: type) -> list[Any]:
    """Every object pickling ``value`` reaches (what a task receives), ``skip`` left out."""
    seen: list[Any] = []

    class Walk(pickle.Pickler):
        def persistent_id(self, obj: Any) -> Any:
            if isinstance(obj, skip):
                return "skipped"
            if isinstance(obj, int | str | GameSpec):
                seen.append(obj)
            return None

    Walk(io.BytesIO()).dump(value)
    return seen
