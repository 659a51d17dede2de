"""What one record cannot show alone (issue 25, items 1, 2 and 4): a match folder whose
manifest was deleted, a record under another game's name or from another match, copies
of a verified record, and file names made to rewrite the terminal.

Before the fix, in ``xactika audit --strict --key``: 9 of 9 edits of a match folder
without its manifest passed (exit 0); 12 of 12 ways of auditing copies counted them again
(exit 0, or the players' table inflated). After: 0 and 0.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from xactika.frontends.match import runner as match
from xactika.frontends.records import audit as audit_cli
from xactika.protocol.trust.signing import default_signer

GAME = "games/d0000{}-t0-r{}.log"
GAMES = 6  # 3 deals, 2 seatings


def _match(out: Path) -> None:
    assert match.main(["--bot", "random", "--bot", "heuristic", "--players", "2",
                       "--rounds", "1", "--deals", "3", "--out", str(out),
                       "--progress", "none", "--sandbox", "none"]) == 0


@pytest.fixture(scope="module")
def matches(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two honest match folders signed by the default key: this one and another."""
    base = tmp_path_factory.mktemp("matches")
    _match(base / "m")
    _match(base / "other")
    return base / "m", base / "other"


@pytest.fixture
def m(matches: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    capsys.readouterr()  # the runner's output
    shutil.copytree(matches[0], tmp_path / "m")
    return tmp_path / "m"


def audit(capsys: pytest.CaptureFixture[str], *args: str,
          strict: bool = True) -> tuple[int, str]:
    key = ["--strict", "--key", default_signer().public.text] if strict else []
    code = audit_cli.main([*key, *args])
    return code, capsys.readouterr().out


def audit_json(capsys: pytest.CaptureFixture[str], *args: str,
               strict: bool = True) -> tuple[int, dict]:
    code, out = audit(capsys, "--json", *args, strict=strict)
    return code, json.loads(out)


# --------------------------------------------------------------------------- item 1


def _rm(m: Path, name: str) -> None:
    (m / name).unlink()


EDITS = {
    "the issue's: a game replaced by a copy of another": lambda m: (
        _rm(m, GAME.format(1, 0)), shutil.copy(m / GAME.format(2, 0), m / GAME.format(1, 0))),
    "nothing else": lambda m: None,
    "a game deleted": lambda m: _rm(m, GAME.format(3, 1)),
    "match.json and results.json deleted too": lambda m: (
        _rm(m, "match.json"), _rm(m, "results.json"), _rm(m, GAME.format(2, 1))),
}


@pytest.mark.parametrize("target", ["m", "m/games"])
@pytest.mark.parametrize("edit", EDITS)
def test_a_match_folder_without_its_manifest_fails_strict_in_one_line(
        m: Path, capsys: pytest.CaptureFixture[str], edit: str, target: str) -> None:
    _rm(m, "manifest.txt")
    EDITS[edit](m)
    code, out = audit(capsys, "-q", str(m.parent / target))
    said = [line for line in out.splitlines() if "manifest.txt: missing" in line]
    assert code == 1
    assert said == [f"{m / 'manifest.txt'}: missing: a match folder without its "
                    "manifest shows nothing of games deleted, added or replaced (--strict)"]
    assert "manifest.txt:0:" not in out


@pytest.mark.parametrize("target", ["m", "m/games", "."])
def test_without_its_manifest_a_folder_fails_the_plain_audit_too(
        m: Path, capsys: pytest.CaptureFixture[str], target: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 41: plain ``audit m`` of a folder whose manifest and a game were deleted
    exited 0 (a warning), so ``audit m && publish`` published it."""
    _rm(m, "manifest.txt")
    _rm(m, GAME.format(3, 1))
    monkeypatch.chdir(m / "games" if target == "." else m.parent)
    code, out = audit(capsys, target, strict=False)
    assert code == 1
    folder = {"m": "m", "m/games": "m", ".": ".."}[target]
    assert f"{os.path.join(folder, 'manifest.txt')}: missing: a match folder without its " \
           "manifest shows nothing of games deleted, added or replaced (--manifest-gone if " \
           "it is known to be lost)" in out.splitlines()
    code, report = audit_json(capsys, target, strict=False)
    assert code == 1 and report["exit"] == 1 and report["summary"]["missing_manifests"] == 1


@pytest.mark.parametrize("target", ["m", "m/games", "."])
def test_a_manifest_known_to_be_gone_is_warned_of(
        m: Path, capsys: pytest.CaptureFixture[str], target: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 34: plain ``audit m`` said ``0 problems`` of a folder whose manifest and a
    game were deleted, without a word of the manifest; ``--manifest-gone`` (the auditor
    knows it is lost) makes that a warning, and the audit passes (issue 41)."""
    _rm(m, "manifest.txt")
    _rm(m, GAME.format(3, 1))
    monkeypatch.chdir(m / "games" if target == "." else m.parent)
    code, out = audit(capsys, "--manifest-gone", target, strict=False)
    assert code == 0  # a warning: the auditor says the manifest is known to be gone
    lines = out.splitlines()
    folder = {"m": "m", "m/games": "m", ".": ".."}[target]
    at = lines.index(f"{os.path.join(folder, 'manifest.txt')}: missing")
    assert lines[at + 1] == ("  note: warning: a match folder without its manifest shows "
                             "nothing of games deleted, added or replaced (--manifest-gone)")
    assert any(line.startswith(f"audited {GAMES - 1} logs, 1 manifest missing: ")
               for line in lines)
    code, report = audit_json(capsys, "--manifest-gone", target, strict=False)
    assert code == 0 and report["summary"]["logs"] == GAMES - 1
    assert report["summary"]["missing_manifests"] == 1


@pytest.mark.parametrize("target", ["m/games", "."])
def test_the_games_folder_is_checked_against_the_manifest_above(
        m: Path, capsys: pytest.CaptureFixture[str], target: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    _rm(m, GAME.format(3, 1))
    monkeypatch.chdir(m / "games" if target == "." else m.parent)
    code, out = audit(capsys, "-q", target)
    assert code == 1
    assert f"{GAME.format(3, 1)}: listed in the manifest but missing: a game was deleted" in out


def test_a_record_under_another_games_name_is_caught_by_its_id(
        m: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _rm(m, "manifest.txt")
    one, two = m / GAME.format(1, 0), m / GAME.format(1, 1)
    one.rename(m / "swap")
    two.rename(one)
    (m / "swap").rename(two)
    code, out = audit(capsys, "-q", str(m))
    assert code == 1
    assert f"{one}: its id names game d00001-t0-r1, not this file" in out
    assert f"{two}: its id names game d00001-t0-r0, not this file" in out


@pytest.mark.parametrize("manifest", [True, False])
def test_a_record_of_another_match_is_caught_by_its_id(
        m: Path, matches: tuple[Path, Path], capsys: pytest.CaptureFixture[str],
        manifest: bool) -> None:
    if not manifest:
        _rm(m, "manifest.txt")
    # the same game of another match by the same key: a valid name, a valid signature
    shutil.copy(matches[1] / GAME.format(3, 0), m / GAME.format(3, 0))
    code, report = audit_json(capsys, str(m))
    bad = next(r for r in report["logs"] if r["file"] == str(m / GAME.format(3, 0)))
    assert code == 1 and bad["status"] == "invalid"
    assert any("its id names match" in p["reason"] for p in bad["problems"])
    players = report["summary"]["players"]
    assert {p["games"] for p in players.values()} == {GAMES - 1}  # not counted


# --------------------------------------------------------------------------- item 2


def _copies(m: Path, n: int, folder: Path | None = None) -> None:
    for i in range(n):
        shutil.copy(m / GAME.format(2, 0), (folder or m / "games") / f"copy{i}.log")


@pytest.mark.parametrize("copies", [1, 3])
@pytest.mark.parametrize("how", ["games folder", "file list", "match folder",
                                 "two folders", "no manifest"])
def test_copies_of_a_signed_record_count_once(
        m: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], how: str,
        copies: int) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    _copies(m, copies, elsewhere if how == "two folders" else None)
    if how == "no manifest":
        _rm(m, "manifest.txt")
    games = sorted(str(p) for p in (m / "games").iterdir())
    args = {"games folder": [str(m / "games")], "file list": games,
            "match folder": [str(m)], "two folders": [str(m / "games"), str(elsewhere)],
            "no manifest": [str(m)]}[how]
    code, report = audit_json(capsys, *args)
    summary = report["summary"]
    assert code == 1
    assert summary["copies"] == copies and summary["games"] == GAMES
    assert {p["games"] for p in summary["players"].values()} == {GAMES}
    assert sum(p["wins"] for p in summary["players"].values()) <= GAMES * 2
    copied = [r for r in report["logs"] if r["copy_of"] is not None]
    assert len(copied) == copies
    assert all(r["copy_of"].endswith(GAME.format(2, 0)) for r in copied)
    # the text summary says so, and its players' table counts each game once
    code, out = audit(capsys, *args)
    assert code == 1
    assert f"{copies} cop{'y' if copies == 1 else 'ies'} of a game, counted once" in out
    table = out.split("player")[-1].splitlines()[1:]
    assert [int(row.split()[1]) for row in table] == [GAMES, GAMES]


def test_a_copy_named_freely_outside_a_match_is_still_a_copy(
        m: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("a.log", "b.log"):
        shutil.copy(m / GAME.format(2, 0), tmp_path / name)
    code, report = audit_json(capsys, str(tmp_path / "a.log"), str(tmp_path / "b.log"))
    second = report["logs"][1]
    assert code == 1 and second["copy_of"] == str(tmp_path / "a.log")
    assert "a copy of" in second["problems"][0]["reason"]
    assert report["summary"]["games"] == 1 and report["summary"]["copies"] == 1


def test_the_same_file_named_twice_or_hard_linked_is_one_game_not_a_copy(
        m: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = m / GAME.format(2, 0)
    os.link(record, tmp_path / "link.log")
    code, report = audit_json(capsys, str(record), str(record), str(tmp_path / "link.log"))
    assert code == 0 and report["summary"]["logs"] == 1 and report["summary"]["copies"] == 0


def test_a_match_folder_and_its_games_named_together_are_audited_once(
        m: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, report = audit_json(capsys, str(m), str(m / "games"), str(m / GAME.format(1, 0)))
    assert code == 0 and report["summary"]["logs"] == GAMES
    assert report["summary"]["manifests"] == 1


# --------------------------------------------------------------------------- item 4


@pytest.mark.parametrize("strict", [True, False])
def test_file_names_cannot_rewrite_the_terminal(
        m: Path, capsys: pytest.CaptureFixture[str], strict: bool) -> None:
    evil = "x\x1b[2K\r\x1b[1Aclean.log"
    shutil.copy(m / GAME.format(2, 0), m / "games" / evil)
    for target in (str(m / "games" / evil), str(m)):
        code, out = audit(capsys, target, strict=strict)
        assert code == 1 and "\x1b" not in out and "\r" not in out
        assert "x\\x1b[2K\\x0d\\x1b[1Aclean.log" in out
    assert "not in the manifest: a game was added" in out
