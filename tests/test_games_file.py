"""Games files (spec/RECORDS.md): many records in one file, read by every record reader.

The records are kept byte for byte after their separators, so each one audits (chain,
signature) as its own file does, and a problem is reported at its line in the games file.
"""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from xactika.core import Config, RandomAgent
from xactika.core.bots.agents import self_play
from xactika.frontends.records import audit, convert, replay
from xactika.protocol.records.games import (
    games_text,
    read_games,
    split_games,
    write_games_file,
)
from xactika.protocol.records.textform import RecordError, format_record, read_record
from xactika.protocol.trust.signing import Signer
from xactika.protocol.trust.tamper import commit_config

SIGNER = Signer.generate()
CONFIGS = [commit_config(Config(mode="bid", players=2, rounds=1, seed=s)) for s in (1, 2)]
CONFIGS.append(commit_config(Config(game="dix", mode="draw", players=2, seed=3)))


def record(config: Config, name: str) -> str:
    _, events = self_play(config, [RandomAgent(s) for s in range(config.players)])
    return format_record([("game", config.game), ("seats", "ann,bob"), ("id", name)], events,
                         signer=SIGNER)


@pytest.fixture
def games(tmp_path: Path) -> tuple[Path, list[Path]]:
    """Three record files and the games file written from them."""
    files = []
    for n, config in enumerate(CONFIGS, 1):
        path = tmp_path / "games" / f"g{n}.log"
        path.parent.mkdir(exist_ok=True)
        path.write_text(record(config, f"m/g{n}"), encoding="utf-8")
        files.append(path)
    target = tmp_path / "all-games.txt"
    assert write_games_file(target, [(f"games/{p.name}", p) for p in files]) == 3
    return target, files


def run_audit(paths: list[str], jobs: int = 1) -> tuple[int, str]:
    out = io.StringIO()
    pool = None
    if jobs > 1:
        pool = audit.Pool(audit.ProcessBackend(audit.audit_job, jobs), 4 * jobs, ship=False)
    try:
        code = audit.run(paths, out, strict=True, trusted={SIGNER.public}, pool=pool)
    finally:
        if pool is not None:
            pool.close()
    return code, out.getvalue()


def test_each_record_is_kept_byte_for_byte_after_its_separator(
    games: tuple[Path, list[Path]]
) -> None:
    target, files = games
    text = target.read_text(encoding="utf-8")
    assert text == "".join(f"record games/{p.name}\n" + p.read_text(encoding="utf-8")
                           for p in files)
    parts = list(read_games(target))
    assert [p.name for p in parts] == ["games/g1.log", "games/g2.log", "games/g3.log"]
    assert [p.data for p in parts] == [p.read_bytes() for p in files]
    lines = text.splitlines()
    assert [lines[p.line - 1] for p in parts] == [f"record {p.name}" for p in parts]
    assert [p.read() for p in parts] == [read_record(f) for f in files]


@pytest.mark.parametrize("jobs", [1, 2])
def test_audit_checks_every_record_as_its_own_file(games: tuple[Path, list[Path]],
                                                   jobs: int) -> None:
    target, files = games
    code, out = run_audit([str(target)], jobs)
    assert code == 0
    for f in files:
        assert f"{target}[games/{f.name}]: ok (" in out
    assert out.count("verified: signed by") == 3
    _, alone = run_audit([str(f) for f in files])
    assert alone.count("verified: signed by") == 3
    # the same heads as the files audited one by one
    heads = [ln.split()[-1] for ln in out.splitlines() if ln.strip().startswith("head:")]
    assert heads == [ln.split()[-1] for ln in alone.splitlines()
                     if ln.strip().startswith("head:")]


def test_a_tampered_record_is_reported_at_its_line_in_the_games_file(
    games: tuple[Path, list[Path]]
) -> None:
    target, _ = games
    lines = target.read_text(encoding="utf-8").splitlines(keepends=True)
    second = list(read_games(target))[1]
    n = next(i for i in range(second.line, len(lines)) if " play seat=" in lines[i]) + 1
    lines[n - 1] = lines[n - 1].replace("seat=", "seat= ", 1).replace("h=", "h=0", 1)
    target.write_text("".join(lines), encoding="utf-8")
    code, out = run_audit([str(target)])
    assert code == 1
    problems = [ln for ln in out.splitlines() if ln.startswith(f"{target}[games/g2.log]:")
                and ": ok (" not in ln and "INVALID" not in ln.upper()]
    assert problems and problems[0].startswith(f"{target}[games/g2.log]:{n}: ")
    assert f"{target}[games/g1.log]: ok (" in out and f"{target}[games/g3.log]: ok (" in out


def test_separator_errors_are_one_clear_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("# a comment\nheader game xactika\nrecord x\n", encoding="utf-8")
    with pytest.raises(RecordError, match=r"^line 2: a games file starts each record"):
        list(split_games(io.BytesIO(bad.read_bytes())))
    code, out = run_audit([str(bad)])  # not a games file: a record that does not read
    assert code == 1 and f"{bad}:3: expected a header or event line, not 'record'" in out
    noname = io.BytesIO(b"record x\nheader a b\nrecord \n")
    with pytest.raises(RecordError, match=r"^line 3: bad record name ''"):
        list(split_games(noname))
    extra = io.BytesIO(b'{"type":"record","name":"x","note":1}\n')
    with pytest.raises(RecordError, match=r"^line 1: a record separator holds"):
        list(split_games(extra))
    for jsonl in (False, True):  # one record's reader says what it was given
        text = games_text([("one", record(CONFIGS[0], "a"))])
        if jsonl:
            text = convert.convert_games(split_games(io.BytesIO(text.encode())), "jsonl")
        with pytest.raises(RecordError, match=r"^line 1: a games file, several records in"):
            read_record(io.StringIO(text))


def test_convert_turns_a_games_file_around_losing_nothing(
    games: tuple[Path, list[Path]], tmp_path: Path
) -> None:
    target, _ = games
    jsonl = tmp_path / "all.jsonl"
    back = tmp_path / "back.txt"
    assert convert.main([str(target), "--to", "jsonl", "-o", str(jsonl)]) == 0
    assert jsonl.read_text(encoding="utf-8").startswith(
        '{"type":"record","name":"games/g1.log"}\n{"type":"header"')
    assert convert.main([str(jsonl), "--to", "text", "-o", str(back)]) == 0
    assert back.read_bytes() == target.read_bytes()
    code, out = run_audit([str(jsonl)])
    assert code == 0 and out.count("verified: signed by") == 3


def test_replay_picks_one_record_by_number_or_name(games: tuple[Path, list[Path]]) -> None:
    target, files = games
    third = replay.load(str(target), "3")
    assert third.events == replay.load(str(files[2])).events
    assert replay.load(str(target), "games/g2.log").events == replay.load(str(files[1])).events
    with pytest.raises(RecordError, match="choose one with --record"):
        replay.load(str(target))
    with pytest.raises(RecordError, match="no record '9': give a number from 1 to 3"):
        replay.load(str(target), "9")
    with pytest.raises(RecordError, match="this is a single record"):
        replay.load(str(files[0]), "1")
    cli = [sys.executable, "-m", "xactika.frontends.cli", "replay", str(target)]
    done = subprocess.run([*cli, "--record", "3", "--keys", "G"], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "dix" in done.stdout or "scores so far" in done.stdout
    done = subprocess.run(cli, capture_output=True, text=True, check=False)
    assert done.returncode == 2 and "--record" in done.stderr and "Traceback" not in done.stderr
