"""study/ratings.py (every pairing on one Plackett-Luce scale, the runner's model) and
study/bound.py (the fraction of the cheater's bound a bot reaches)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _study(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"study_{name}", ROOT / "study" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _result(path: Path, a: str, b: str, diffs: list[float], mode: str = "bid") -> Path:
    rows = [{"deal": d, "a": x, "b": 0.0, "diff": x} for d, x in enumerate(diffs)]
    summary = {"a": a, "b": b, "mode": mode, "format": "1v3", "players": 4, "seed": 1}
    path.write_text(json.dumps({"summary": summary, "rows": rows}))
    return path


def test_a_chain_of_pairings_is_ordered_on_one_scale(tmp_path: Path) -> None:
    ratings = _study("ratings")
    ab = _result(tmp_path / "ab.json", "top", "mid", [1.0] * 16 + [-1.0] * 4)
    bc = _result(tmp_path / "bc.json", "mid", "low", [0.5] * 16 + [-0.5] * 2 + [0.0] * 2)
    rated, counts = ratings.rate([ab, bc], "bid")
    mu = {r.name: r.mu for r in rated}
    assert mu["top"] > mu["mid"] > mu["low"]
    assert counts == {"top": 20, "mid": 40, "low": 20}
    # turned around, the order turns too: the sign of diff decides, not the file order
    ba = _result(tmp_path / "ba.json", "top", "mid", [-1.0] * 16 + [1.0] * 4)
    mu = {r.name: r.mu for r in ratings.rate([ba, bc], "bid")[0]}
    assert mu["mid"] > mu["top"]


def test_a_file_of_another_mode_is_one_error_line(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    win = _result(tmp_path / "win.json", "a", "b", [1.0], mode="win")
    assert _study("ratings").main([str(win), "--mode", "bid"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "mode win, not bid" in err


def test_the_bound_fraction_pairs_the_deals(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    bound = _study("bound")
    bot = _result(tmp_path / "bot.json", "strong", "heuristic", [0.5, 1.5, 0.0, 1.0])
    cheat = _result(tmp_path / "cheat.json", "cheater", "heuristic", [2.0, 3.0, 1.0, 2.0])
    assert bound.fraction(bound.paired(bot, cheat)) == pytest.approx(0.75 / 2.0)
    assert bound.main([str(bot), str(cheat), "--resamples", "200"]) == 0
    out = capsys.readouterr().out
    assert "deals 4" in out and "fraction 0.38" in out
    other = _result(tmp_path / "win.json", "cheater", "heuristic", [2.0], mode="win")
    assert bound.main([str(bot), str(other)]) == 2
    assert "differ in mode" in capsys.readouterr().err


def test_the_paired_difference_of_two_variants(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    bound = _study("bound")
    new = _result(tmp_path / "new.json", "plan", "heuristic", [1.0, 0.5, 0.0, 1.5])
    old = _result(tmp_path / "old.json", "strong", "heuristic", [0.5, 0.5, -0.5, 1.0])
    mean, lo, hi = bound.difference(bound.paired(new, old))
    assert mean == pytest.approx(0.375) and lo < mean < hi
    assert bound.main(["--difference", str(new), str(old)]) == 0
    assert "paired difference +0.375" in capsys.readouterr().out


def test_a_variant_is_built_with_its_options_and_a_bad_one_is_one_line(
        capsys: pytest.CaptureFixture[str]) -> None:
    run = _study("run_study")
    agent = run.build("plan,exact=2,bid=1", 1, 100.0)
    assert (agent.planner.exact, agent.plan_bid) == (2, True)
    assert run.build("strong,bid_z=1.5", 1, 100.0).bid_z == 1.5
    for bad in ("strong,foo", "strong,bid_z=x", "strong,nosuch=1", "nosuch"):
        with pytest.raises(SystemExit) as exit_:
            run.main(["--a", bad, "--deals", "1"])
        assert exit_.value.code == 2
        err = capsys.readouterr().err
        errors = [line for line in err.splitlines() if "error:" in line]  # after usage
        assert len(errors) == 1 and f"bad bot {bad!r}" in errors[0]


def test_ismcts_study_plays_play_to_lose_and_refuses_to_join_another_mode(
        tmp_path: Path) -> None:
    """``--mode lose`` scores minus the tricks: the two sides' tricks a hand add up to the 8
    tricks over 2 seats each, so their points sum to -4; a bid-mode file cannot be joined."""
    pytest.importorskip("pyspiel")
    out = tmp_path / "lose.json"
    script = str(ROOT / "study" / "ismcts_study.py")
    done = subprocess.run([sys.executable, script, "--mode", "lose", "--deals", "1",
                           "--think-ms", "5", "--out", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    summary = json.loads(out.read_text())["summary"]
    assert summary["mode"] == "lose" and summary["deals"] == 1
    assert summary["a_points_per_hand"] + summary["b_points_per_hand"] == pytest.approx(-4)
    assert summary["a_points_per_hand"] <= 0 and summary["b_points_per_hand"] <= 0
    bid = _result(tmp_path / "bid.json", "strong", "openspiel-ismcts", [0.5])
    refused = subprocess.run([sys.executable, script, "--mode", "lose", "--deals", "1",
                              "--first", "1", "--think-ms", "5", "--join", str(bid)],
                             capture_output=True, text=True, timeout=300)
    assert refused.returncode == 2
    assert "another mode" in refused.stderr.strip().splitlines()[-1]
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    unread = subprocess.run([sys.executable, script, "--deals", "1", "--join", str(broken)],
                            capture_output=True, text=True, timeout=300)
    assert unread.returncode == 2
    assert "cannot read" in unread.stderr.strip().splitlines()[-1]
