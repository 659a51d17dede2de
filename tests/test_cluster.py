"""``--cluster ray`` and ``audit -j N``: the same output as a serial, local run.

One local Ray instance (``ray.init(num_cpus=2)``) serves the whole module and is shut down
at its end. CI installs the ``[ray]`` extra, so these run there; ``importorskip`` only
spares a developer without it the Ray tests (the -j and no-Ray tests always run).
"""

from __future__ import annotations

import json
import os
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
