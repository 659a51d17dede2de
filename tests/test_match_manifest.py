"""A match's signed manifest (spec/TAMPER.md section 7): audit of a match folder catches a
deleted, added or replaced game, and ``--resume`` audits every record it keeps and plays
again any that fails, so forged records never reach the table."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from xactika.core.bots.agents import RandomAgent, self_play
from xactika.core.engine.api import Config, Event
from xactika.frontends.match import runner as match
from xactika.frontends.records import audit as audit_cli
from xactika.protocol.records.textform import format_record
from xactika.protocol.trust.manifest import MANIFEST_FILE, ManifestWriter, check_manifest
from xactika.protocol.trust.signing import Signer, default_signer, parse_sig_line
from xactika.protocol.trust.tamper import commit_config

ROOT = Path(__file__).resolve().parent.parent
KEY = Signer.generate()
OTHER = Signer.generate()


def game(seed: int) -> list[Event]:
    config = commit_config(Config(mode="bid", players=2, rounds=1, seed=seed))
    return self_play(config, [RandomAgent(seed), RandomAgent(seed + 1)])[1]


def signed(seed: int, record_id: str, key: Signer = KEY) -> str:
    return format_record([("seats", "a,b"), ("id", record_id)], game(seed), signer=key)


def make_match(folder: Path, games: int = 3, key: Signer = KEY) -> ManifestWriter:
    """A match folder as the runner leaves it: records in games/, each one pinned."""
    (folder / "games").mkdir(parents=True)
    manifest = ManifestWriter(folder / MANIFEST_FILE, key)
    for n in range(1, games + 1):
        record_id = f"{manifest.match_id}/g{n}"
        text = signed(n, record_id, key)
        (folder / "games" / f"g{n}.log").write_text(text, encoding="utf-8")
        sig = parse_sig_line(text.splitlines()[-1])
        manifest.add(f"games/g{n}.log", record_id, sig.events, sig.head)
    manifest.end()
    manifest.close()
    return manifest


def audit(capsys: pytest.CaptureFixture[str], *args: str, key: Signer = KEY) -> tuple[int, str]:
    code = audit_cli.main(["--strict", "--key", key.public.text, *args])
    return code, capsys.readouterr().out


def test_an_intact_match_folder_audits_clean(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    make_match(tmp_path / "m")
    code, out = audit(capsys, str(tmp_path / "m"))
    assert code == 0, out
    assert f"{tmp_path / 'm' / MANIFEST_FILE}: ok (verified" in out
    code, out = audit(capsys, "--manifest", str(tmp_path / "m" / MANIFEST_FILE))
    assert code == 0, out


def test_a_deleted_game_is_caught(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    make_match(tmp_path / "m")
    (tmp_path / "m" / "games" / "g2.log").unlink()
    code, out = audit(capsys, str(tmp_path / "m"))
    assert code == 1 and "games/g2.log: listed in the manifest but missing" in out


def test_an_added_game_is_caught(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    make_match(tmp_path / "m")
    # a genuine record signed by the same key, from another match
    (tmp_path / "m" / "games" / "g4.log").write_text(signed(9, "elsewhere/g4"), "utf-8")
    code, out = audit(capsys, str(tmp_path / "m"))
    assert code == 1 and "games/g4.log: not in the manifest: a game was added" in out


def test_a_replaced_game_is_caught(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    manifest = make_match(tmp_path / "m")
    # a genuine, correctly signed game of the same key and even the same id
    (tmp_path / "m" / "games" / "g2.log").write_text(signed(9, f"{manifest.match_id}/g2"),
                                                     "utf-8")
    code, out = audit(capsys, str(tmp_path / "m"))
    assert code == 1 and "games/g2.log: head" in out and "the game was replaced" in out


@pytest.mark.parametrize("edit", ["entry changed", "entry removed", "end removed",
                                  "entry from another match", "re-signed by another key"])
def test_a_forged_manifest_is_caught(edit: str, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "m"
    make_match(folder)
    path = folder / MANIFEST_FILE
    lines = path.read_text(encoding="utf-8").splitlines()
    if edit == "entry changed":
        lines[2] = lines[2].replace("events=", "events=1", 1)
    elif edit == "entry removed":  # with its game, so the folder agrees with it
        del lines[2]
        (folder / "games" / "g2.log").unlink()
    elif edit == "end removed":
        del lines[-1]
    elif edit == "entry from another match":
        make_match(tmp_path / "other")
        other = (tmp_path / "other" / MANIFEST_FILE).read_text(encoding="utf-8").splitlines()
        lines[2] = other[2]
        shutil.copy(tmp_path / "other" / "games" / "g2.log", folder / "games" / "g2.log")
    else:
        shutil.rmtree(folder)
        make_match(folder, key=OTHER)
        lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out = audit(capsys, str(folder))
    assert code == 1, out
    assert f"{path}: invalid" in out


# --------------------------------------------------------------------------- the runner


def example_bot(seed: int, name: str) -> list[str]:
    return ["--bot", f"name={name}",
            f"cmd={sys.executable} {ROOT / 'examples' / 'random_bot.py'} {seed}"]


SETTINGS = [*example_bot(3, "ex"), *example_bot(7, "ey"), "--players", "2", "--rounds", "2",
            "--deals", "2", "--seed", "5"]


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict, str]:
    code = match.main([*args, "--json", "--progress", "none"])
    captured = capsys.readouterr()
    return code, (json.loads(captured.out) if code == 0 else {}), captured.err


def forged(names: str, index: int, totals: str, winner: int) -> str:
    """A short hand-written record: the kind --resume counted before it audited records."""
    return (f"header seats {names}\nheader match.game {index}\n"
            "event 1 game-started game=xactika mode=bid players=2 rounds=2 dealer=0 seed=1\n"
            f"event 2 game-over totals={totals} winners={winner}\n")


def test_the_runner_signs_records_and_pins_them_in_its_manifest(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "m"
    code, result, _ = run(capsys, *SETTINGS, "--out", str(out))
    assert code == 0
    assert result["signer"] == default_signer().public.text
    check = check_manifest(out / MANIFEST_FILE)
    assert check.intact and check.ended and len(check.entries) == 4
    code, text = audit(capsys, str(out), key=default_signer())
    assert code == 0, text
    assert text.count("verified: signed by") == 5  # four games and the manifest


def honest_match(out: Path, capsys: pytest.CaptureFixture[str]) -> tuple[dict, list[Path]]:
    """A finished match in ``out``: its result and its records, in schedule order."""
    code, honest, _ = run(capsys, *SETTINGS, "--out", str(out))
    assert code == 0
    return honest, sorted((out / "games").glob("*.log"))


def test_resume_audits_every_record_and_plays_forged_ones_again(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "m"
    honest, games = honest_match(out, capsys)
    # the forger favours bot ex with two short records in place of two real games
    for path, index in ((games[0], 1), (games[3], 4)):
        names = next(ln for ln in path.read_text().splitlines()
                     if ln.startswith("header seats")).split()[2]
        ex = names.split(",").index("ex")
        totals = ",".join("60" if s == ex else "-60" for s in range(2))
        path.write_text(forged(names, index, totals, ex), encoding="utf-8")
    code, resumed, err = run(capsys, "--resume", "--out", str(out))
    assert code == 0
    rejected = resumed["rejected_on_resume"]
    assert len(rejected) == 2 and resumed["resumed_games"] == 2
    assert all("playing the game again" in r for r in rejected)
    assert err.count("--resume:") == 2 and games[0].name in err and games[3].name in err
    assert resumed["summary"] == honest["summary"]  # the table is the honest one
    assert (games[0].parent / (games[0].name + ".rejected")).exists()
    code, text = audit(capsys, str(out), key=default_signer())
    assert code == 0, text  # the replayed games superseded their entries


def test_resume_rejects_a_record_signed_by_another_key_and_a_moved_record(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, other = tmp_path / "m", tmp_path / "o"
    honest, games = honest_match(out, capsys)
    # a genuine, correctly signed record of the same seating moved from another match
    honest_match(other, capsys)
    shutil.copy(other / "games" / games[1].name, games[1])
    code, resumed, _ = run(capsys, "--resume", "--out", str(out))
    assert code == 0
    assert [r.split(":")[0] for r in resumed["rejected_on_resume"]] == [
        f"games/{games[1].name}"]
    assert resumed["summary"] == honest["summary"]


def test_resume_with_another_key_is_refused_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "m"
    assert run(capsys, *SETTINGS, "--deals", "1", "--out", str(out))[0] == 0
    key = tmp_path / "other.key"
    key.write_bytes(OTHER.pem())
    key.chmod(0o600)
    code, _, err = run(capsys, "--resume", "--out", str(out), "--key", str(key))
    refused = [line for line in err.splitlines() if MANIFEST_FILE in line]
    assert code == 2 and len(refused) == 1
    assert "continue with the key that started it" in refused[0]


def test_the_summary_counts_the_manifest_apart_from_the_games(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A 3-game match folder is 3 games and 1 manifest, not 4 logs of which 3 games."""
    make_match(tmp_path / "m")
    code, out = audit(capsys, str(tmp_path / "m"))
    assert code == 0, out
    assert "audited 3 logs and 1 manifest: 3 games (3 clean and complete, " in out
    code, out = audit(capsys, "--json", str(tmp_path / "m"))
    summary = json.loads(out)["summary"]
    assert (summary["logs"], summary["games"], summary["complete"], summary["manifests"]) \
        == (3, 3, 3, 1)
    assert summary["verified"] == 3 and summary["players"]["a"]["games"] == 3
    (tmp_path / "m" / "games" / "g2.log").unlink()  # a bad manifest still fails the run
    code, out = audit(capsys, str(tmp_path / "m"))
    assert code == 1 and "audited 2 logs and 1 manifest (1 invalid): 2 games" in out
