"""What ``xactika match`` prints and keeps (issue 26): faults with their reasons, the
sequential test's line, a table that fits 80 columns, results.json's faults and the
one file of all the games."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from xactika.frontends.match import runner as match
from xactika.frontends.match.report import (
    Progress,
    fit_title,
    report,
    score_line,
    sprt_note,
)
from xactika.frontends.match.stats import Sprt
from xactika.frontends.match.tournament import (
    Fault,
    GameResult,
    GameSpec,
    MatchError,
    schedule,
    summarize,
)
from xactika.frontends.records import audit
from xactika.protocol.records.games import read_games
from xactika.protocol.records.textform import read_record

ROOT = Path(__file__).resolve().parent.parent
FAULT_BOT = ROOT / "tests" / "bots" / "fault_bot.py"
PY = sys.executable


def won_by(plan: list[GameSpec], bot: int) -> dict[int, GameResult]:
    out = {}
    for g in plan:
        totals = [0] * len(g.seats)
        seat = g.seats.index(bot)
        totals[seat] = 10
        out[g.index] = GameResult(g, tuple(totals), (seat,), 2, (), False)
    return out


class Settings:
    game, mode, players, rounds, seed = "xactika", "bid", 4, 8, None

    def __init__(self, plan: list[GameSpec]) -> None:
        self.plan = plan
        self.bots: list[object] = []

    def schedule(self) -> list[GameSpec]:
        return self.plan


@pytest.mark.parametrize("names", [["random", "heuristic", "strong-3"],
                                   ["random", "heuristic"],
                                   ["a-bot-name-of-17c", "heuristic", "x"]])
def test_the_table_fits_80_columns(names: list[str]) -> None:
    plan = schedule(len(names), 4, 5)
    results = won_by(plan, 1)
    for g in plan[::3]:  # some variety, so intervals have width and signs
        results[g.index] = GameResult(g, (-12, 3, -7, 11), (3,), 8, (), False)
    summary = summarize(results, plan, names)
    text = report(summary, Settings(plan), {"normal": len(plan)}, None)  # type: ignore[arg-type]
    wide = [line for line in text.splitlines() if len(line) > 80]
    assert wide == []
    assert "points/hand" in text and "(under each mean, its 95% interval)" in text


@pytest.mark.parametrize("seed", [2**255 + 1, 5])
def test_a_four_bot_matchs_notes_fit_80_columns(seed: int) -> None:
    """Issue 34: ``seeds: ... withheld from the bots until now ...`` wrapped at 80."""
    names = ["random", "heuristic", "strong", "rnd2"]
    plan = schedule(4, 4, 2)
    settings = Settings(plan)
    settings.seed = seed
    text = report(summarize(won_by(plan, 2), plan, names), settings,  # type: ignore[arg-type]
                  {"normal": len(plan)}, None)
    assert [line for line in text.splitlines() if len(line) > 80] == []
    assert "withheld from the bots\n  until now, are revealed in results.json" in text


def test_the_live_score_fits_the_terminal_and_keeps_every_number() -> None:
    """Issue 34: a 4-bot match's bar title was cut at 80 columns, the last bots' scores
    with it."""
    names = ["random", "heuristic", "strong", "a-bot-name-of-17c"]
    plan = schedule(4, 4, 3)
    results = won_by(plan, 3)
    score = score_line(summarize(results, plan, names))
    fault = "; last fault: d00002-t1-r3 seat 2 (heuristic) timeout"
    assert fit_title(score, fault, 200) == f"score (points/hand): {score}{fault}"
    for width in (79, 60, 50):
        title = fit_title(score, fault, width)
        assert len(title) <= width, title
        means = [m for m in title.split() if m[0] in "+-" and m[1:2].isdigit()]
        assert len(means) == 4 and "(3 deals)" in title, title


def test_a_fault_shows_its_reason_on_the_game_line_and_under_the_table() -> None:
    g = GameSpec(3, 2, 0, 1, (1, 0))
    detail = "bot 'b' exited with code 3 while answering 'go play'; its stderr ends: dying\x1b[2J"
    res = GameResult(g, (5, -2), (0,), 8, (Fault(1, "crash", detail),), False)
    out = io.StringIO()
    Progress(4, out).game(res, ["a", "b"], "a +0.1, b -0.1 (1 deal)")
    line = out.getvalue()
    assert line.startswith("game 1/4 d00002-t0-r1 b=5 a=-2 [crash] {seat 1 (a) crash: bot 'b' "
                           "exited with code 3 while answering 'go play'; its stderr ends: dying")
    assert "\x1b" not in line and "\\x1b[2J" in line  # a bot's bytes never drive the terminal
    faults = match.fault_list([res], ["a", "b"])
    assert faults == [{"game": "d00002-t0-r1", "seat": 1, "bot": "a", "reason": "crash",
                       "detail": detail}]
    plan = schedule(2, 2, 1)
    summary = summarize(won_by(plan, 0), plan, ["a", "b"])
    text = report(summary, Settings(plan), {"crash": 1}, None, faults)  # type: ignore[arg-type]
    assert "faults (1, all in results.json" in text
    assert "  d00002-t0-r1 seat 1 (a) crash: bot 'b' exited with code 3" in text
    assert "\x1b" not in text


def test_one_deal_is_one_deal() -> None:
    plan = schedule(2, 2, 2)
    results = won_by(plan, 0)
    assert score_line(summarize(results, plan, ["a", "b"], upto=1)).endswith("(1 deal)")
    assert score_line(summarize(results, plan, ["a", "b"])).endswith("(2 deals)")


def test_the_sprt_line_says_it_has_not_started_before_its_first_look() -> None:
    test = Sprt(0, 0.5)
    info = {"a": "random", "b": "heuristic", "d0": 0.0, "d1": 0.5, "llr": -8.05,
            "bounds": [test.lower, test.upper], "verdict": None, "deals": 3,
            "min_deals": test.min_samples}
    line = sprt_note(info)
    assert line is not None and "not settled" not in line and "-8.05" not in line
    assert "not started: the test looks from deal 10 on, and the match counted 3 complete " \
           "deals" in line
    settled = sprt_note({**info, "deals": 12, "llr": 1.5})
    assert settled is not None and "not settled after 12 deals, LLR 1.50 in (-2.94, 2.94)" \
        in settled


@pytest.mark.parametrize(("spec", "message"), [
    ("random,heuristic,1,0", "D0 (1) must be below D1 (0)"),
    ("random,heuristic,0.5,0.5", "D0 (0.5) must be below D1 (0.5)"),
    ("random,heuristic,nan,1", "D0 and D1 must be numbers"),
    ("random,heuristic,0", "expected A,B,D0,D1"),
])
def test_a_backwards_or_broken_sprt_is_refused(spec: str, message: str) -> None:
    with pytest.raises(MatchError, match=message.replace("(", r"\(").replace(")", r"\)")):
        match.parse_sprt(spec, ["random", "heuristic"], 0.05, 0.05)


@pytest.mark.parametrize("spec", ["random,heuristic,1,0", "random,nobody,0,1",
                                  "random,heuristic,x,1"])
def test_a_bad_sprt_leaves_no_match_folder(spec: str, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    code = match.main(["--bot", "random", "--bot", "heuristic", "--players", "2",
                       "--sprt", spec, "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("xactika match: ") and err.count("\n") == 1
    assert not out.exists()


def test_faults_and_every_game_are_kept_in_one_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code = match.main(["--bot", "name=crasher", f"cmd={PY} {FAULT_BOT} crash-mid",
                       "--bot", "name=ok", f"cmd={PY} {FAULT_BOT} none",
                       "--players", "2", "--rounds", "1", "--deals", "2", "--seed", "4",
                       "--sandbox", "none", "--progress", "lines", "--out", str(out)])
    text = capsys.readouterr().out
    assert code == 0
    assert text.count("[crash] {seat ") == 4
    assert "(crasher) crash: bot 'crasher' exited with code " in text
    result = json.loads((out / "results.json").read_text())
    assert [f["bot"] for f in result["faults"]] == ["crasher"] * 4
    assert {f["reason"] for f in result["faults"]} == {"crash"}
    assert result["games_file"] == "all-games.txt"
    # the games file: every record, in schedule order, byte for byte
    logs = sorted((out / "games").glob("*.log"))
    parts = list(read_games(out / "all-games.txt"))
    assert [p.name for p in parts] == [f"games/{p.name}" for p in logs]
    assert [p.data for p in parts] == [p.read_bytes() for p in logs]
    assert [p.read().headers for p in parts] == [read_record(p).headers for p in logs]
    # audit: each record verifies, as its own file does
    key = result["signer"]
    buf = io.StringIO()
    assert audit.run([str(out / "all-games.txt")], buf, strict=True,
                     trusted=audit.trusted_keys([key], [])) == 0
    lines = buf.getvalue().splitlines()
    assert sum(1 for ln in lines if ": ok (" in ln and "verified: signed by" in ln) == 4
    assert f"{out / 'all-games.txt'}[games/d00001-t0-r0.log]: ok (" in buf.getvalue()


def test_on_a_terminal_the_bar_shows_the_last_fault(tmp_path: Path) -> None:
    pexpect = pytest.importorskip("pexpect")
    child = pexpect.spawn(
        PY, ["-m", "xactika.frontends.cli", "match", "--bot", "name=crasher",
             f"cmd={PY} {FAULT_BOT} crash-mid", "--bot", "random", "--players", "2",
             "--rounds", "1", "--deals", "2", "--seed", "1", "--sandbox", "none",
             "--out", str(tmp_path / "out")],
        dimensions=(24, 200), timeout=60, encoding="utf-8",
    )
    child.expect(r"last fault: d00001-t0-r0 seat 0 \(crasher\) crash: bot 'crasher' exited")
    child.expect(r"games, 4 faults 100\.0%")
    child.expect("faults \\(4, all in results.json")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
