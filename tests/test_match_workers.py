"""--concurrency N > 1 plays games in worker processes (frontends/parallel/processes.py): the
same games as one at a time, kept bots quit at the end from every worker, nothing left."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_match import bot_args, bot_row, fault_bot, records, run, survivors

from xactika.frontends.match import runner


def played(out: Path) -> list[tuple[str, object, tuple[object, ...], object]]:
    """Each game's deal and moves (the commitment's nonce is fresh in every run)."""
    return [(r.header("match.game"), r.events[0].config.seed, tuple(r.events[1:-1]),
             r.events[-1].totals) for r in records(out)]


def test_two_workers_play_the_games_one_runner_plays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pgids = tmp_path / "pgids"
    pgids.mkdir()
    forked: list[int] = []
    real = runner.game_workers

    def counted(match: runner.Runner, n: int) -> runner.ProcessBackend[object, object]:
        forked.append(n)
        return real(match, n)  # type: ignore[return-value]

    monkeypatch.setattr(runner, "game_workers", counted)
    common = [*bot_args(fault_bot(pgids, "none", "a"), fault_bot(pgids, "none", "b")),
              "--players", "3", "--rounds", "2", "--deals", "3", "--seed", "4"]
    code, one = run([*common, "--concurrency", "1", "--out", str(tmp_path / "one")], capsys)
    assert code == 0 and forked == []
    code, two = run([*common, "--concurrency", "2", "--out", str(tmp_path / "two")], capsys)
    assert code == 0 and forked == [2]
    assert two["summary"] == one["summary"]
    assert played(tmp_path / "two") == played(tmp_path / "one")
    assert len(played(tmp_path / "one")) == one["summary"]["games"] > 1
    assert survivors(pgids) == []


def test_kept_bots_of_every_worker_are_quit_at_the_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pgids = tmp_path / "pgids"
    pgids.mkdir()
    code, result = run(
        [*bot_args(fault_bot(pgids, "none", "keep"), fault_bot(pgids, "ignore-quit", "deaf")),
         "--each", "restart=off", "move=2s", "--players", "2", "--rounds", "1",
         "--deals", "4", "--seed", "6", "--quit-grace", "300ms", "--concurrency", "2",
         "--out", str(tmp_path / "o")],
        capsys,
    )
    assert code == 0
    assert result["terminations"] == {"normal": result["summary"]["games"]}
    started: dict[str, set[int]] = {}
    for f in pgids.glob("*.pgid"):
        started.setdefault(f.read_text().split()[-1], set()).add(int(f.stem))
    # a worker keeps its own: each bot starts at most once per worker, never per game
    assert 1 <= len(started["none"]) <= 2 and 1 <= len(started["ignore-quit"]) <= 2
    # every worker that kept the deaf bot reports it, and its group is gone
    assert result["ignored_quit_at_end"] == ["deaf"] * len(started["ignore-quit"])
    assert bot_row(result, "deaf")["forfeits"] == 0
    assert survivors(pgids) == []
