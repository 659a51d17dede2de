"""``xactika audit``: clean logs pass, every problem is named by file and line."""

from __future__ import annotations

import json
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest

from xactika.core import Config, GameOver, RandomAgent
from xactika.core.bots.agents import self_play
from xactika.frontends.records import audit as audit_cli
from xactika.protocol.records.textform import format_record, read_record
from xactika.protocol.trust.audit import INVALID, OK, UNFINISHED, UNREADABLE, audit_file
from xactika.protocol.trust.tamper import commit_config, sign_record

XACTIKA = [sys.executable, "-m", "xactika.frontends.cli"]


def write_game(path: Path, config: Config, *, sign: bool = True, commit: bool = True,
               headers: list[tuple[str, str]] | None = None) -> list[str]:
    if commit:
        config = commit_config(config)
    _, events = self_play(config, [RandomAgent(s + 1) for s in range(config.players)])
    heads = headers if headers is not None else [
        ("game", config.game), ("mode", config.mode), ("players", str(config.players)),
        ("seats", ",".join(f"p{s}" for s in range(config.players)))]
    text = format_record(heads, events, sign=sign)
    path.write_text(text, encoding="utf-8")
    return text.splitlines()


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = audit_cli.main(list(args))
    return code, capsys.readouterr().out


@pytest.mark.parametrize(
    "options",
    [["--mode", "win"], ["--mode", "lose", "--players", "3"], ["--mode", "bid"],
     ["--game", "dix"], ["--game", "dix", "--mode", "nodraw"]],
    ids=["win", "lose", "bid", "dix", "dix-nodraw"],
)
def test_selfplay_records_audit_clean(tmp_path: Path, options: list[str]) -> None:
    path = tmp_path / "g.log"
    done = subprocess.run([*XACTIKA, "selfplay", "--seed", "3", "--quiet", "--record",
                           str(path), *options], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    result = subprocess.run([*XACTIKA, "audit", str(path)], capture_output=True, text=True,
                            check=False)
    assert result.returncode == 0, result.stdout
    assert f"{path}: ok (" in result.stdout and "chained, committed" in result.stdout
    report = audit_file(str(path))
    assert report.status == OK and report.complete and report.signed and report.committed


@pytest.mark.slow
def test_match_records_audit_clean(tmp_path: Path) -> None:
    out = tmp_path / "m"
    done = subprocess.run(
        [*XACTIKA, "match", "--bot", "random", "--bot", "heuristic", "--players", "2",
         "--rounds", "1", "--deals", "2", "--seed", "3", "--out", str(out),
         "--progress", "none"], capture_output=True, text=True, check=False, timeout=120)
    assert done.returncode == 0, done.stderr
    logs = sorted(str(p) for p in out.rglob("*.log"))
    assert len(logs) == 4
    result = subprocess.run([*XACTIKA, "audit", "--json", *logs], capture_output=True,
                            text=True, check=False)
    report = json.loads(result.stdout)
    assert result.returncode == 0, result.stdout
    assert [r["status"] for r in report["logs"]] == [OK] * 4
    assert all(r["signed"] for r in report["logs"])


def test_summary_totals_players_over_logs(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                          ) -> None:
    paths = []
    for seed in range(3):
        path = tmp_path / f"g{seed}.log"
        write_game(path, Config(mode="win", players=3, rounds=1, seed=seed),
                   headers=[("seats", "ann,bob,cy")])
        paths.append(str(path))
    code, out = run(capsys, "--json", *paths)
    assert code == 0
    report = json.loads(out)
    expected = {"ann": [0, 0], "bob": [0, 0], "cy": [0, 0]}
    events = rounds = 0
    for p in paths:
        record = read_record(p)
        over = record.events[-1]
        assert isinstance(over, GameOver)
        events += len(record.events)
        rounds += 1
        for seat, name in enumerate(("ann", "bob", "cy")):
            expected[name][0] += over.totals[seat]
            expected[name][1] += seat in over.winners
    players = report["summary"]["players"]
    assert {n: [p["points"], p["wins"]] for n, p in players.items()} == expected
    assert report["summary"]["games"] == 3 and report["summary"]["events"] == events
    assert report["summary"]["rounds"] == rounds and report["exit"] == 0


def test_an_edited_bid_is_named_as_the_bid_events_and_the_rounds_still_counted(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 34: an edited bid read ``bid is 3 where the rules give 7`` (the 7 was the
    edited event, not the rules), and the invalid record's summary said ``0 rounds``."""
    path = tmp_path / "g.log"
    lines = write_game(path, Config(mode="bid", players=3, rounds=2, seed=5), sign=False)
    at = next(i for i, ln in enumerate(lines) if " bid seat=1 " in ln)
    was = int(lines[at].split("bid=")[1].split()[0])
    edited = 8 if was != 8 else 7
    lines[at] = lines[at].replace(f" bid={was}", f" bid={edited}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out = run(capsys, str(path))
    assert code == 1
    assert f"seat 1's bid is {was} where its bid event says {edited}" in out
    assert "where the rules give" not in out.split("bid is")[1].split(";")[0]
    assert f"{path}: invalid (xactika bid, 3 players, 2 rounds, " in out
    assert ", 0 rounds" not in out


def test_a_violation_is_named_and_the_chain_still_checked(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "g.log"
    lines = write_game(path, Config(mode="bid", players=4, rounds=2, seed=8))
    bid = next(i for i, ln in enumerate(lines) if " bid seat=" in ln)
    # a forger who re-signs: the chain holds, the rules catch the bad seat
    lines[bid] = lines[bid].replace(" bid seat=1", " bid seat=2")
    lines = sign_record("\n".join(lines)).splitlines()
    # ... and a later line changed without re-signing: the chain catches that one
    later = len(lines) - 3
    lines[later] = lines[later].replace("event", "event ", 1)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out = run(capsys, str(path))
    assert code == 1
    problems = [ln for ln in out.splitlines() if ln.startswith(f"{path}:")]
    assert problems[0].startswith(f"{path}:{bid + 1}: illegal bid ")
    assert "by seat 2: " in problems[0]
    assert "seat 1 bids next" in problems[0]
    assert problems[1] == (f"{path}:{later + 1}: hash chain broken at this line: it, or a line "
                           "or header before it, was changed, removed, added or moved")
    assert "events not judged after the first violation" in out
    assert "head:" not in out  # a broken chain has no head to publish
    assert audit_file(str(path)).status == INVALID


def test_headers_must_agree_with_game_started(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "g.log"
    lines = write_game(path, Config(mode="bid", players=4, rounds=1, seed=8),
                       headers=[("game", "xactika"), ("mode", "win"), ("seats", "a,b,c"),
                                ("seed", "8")])
    started = next(i for i, ln in enumerate(lines) if "game-started" in ln) + 1
    code, out = run(capsys, str(path))
    assert code == 1
    assert (f"{path}:{started}: header mode (line 3) says 'win' but game-started says "
            "mode=bid") in out
    assert (f"{path}:{started}: header seats (line 4) names 3 seats but game-started has "
            "players=4") in out
    assert "header seed" not in out and "header game" not in out


def test_unsigned_uncommitted_records_audit_with_notes(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    path = tmp_path / "old.log"
    lines = write_game(path, Config(mode="lose", players=3, rounds=1, seed=4), sign=False,
                       commit=False)
    first = next(i for i, ln in enumerate(lines) if ln.startswith("event")) + 1
    code, out = run(capsys, str(path))
    assert code == 0 and "ok (" in out and "no hash chain, no commitment" in out
    report = audit_file(str(path))
    assert report.notes == ["unsigned: the record carries no hash chain",
                            "no commitment: the deals' seed was not committed",
                            "no signature: no key vouches for this record, so anyone could "
                            "have rewritten it with its chain"]
    code, out = run(capsys, "--strict", str(path))
    assert code == 1
    assert f"{path}:{first}: unsigned: the record carries no hash chain (--strict)" in out
    assert f"{path}:{first}: no commitment: the deals' seed was not committed (--strict)" in out


def test_unfinished_records_are_reported_never_complete(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "cut.log"
    lines = write_game(path, Config(mode="bid", players=4, rounds=2, seed=5))
    play = max(i for i, ln in enumerate(lines) if " play seat=" in ln and "trick" not in ln)
    path.write_text("\n".join(lines[: play - 6]) + "\n", encoding="utf-8")
    code, out = run(capsys, str(path))
    assert code == 1
    assert f"{path}:{play - 6}: unfinished: the record ends in round 2 with seat" in out
    report = audit_file(str(path))
    assert report.status == UNFINISHED and not report.complete
    # only headers: unfinished too
    heads = tmp_path / "heads.log"
    heads.write_text("header record 1\nheader game xactika\n", encoding="utf-8")
    assert audit_file(str(heads)).status == UNFINISHED


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"", "x1: not a record: no header or event lines"),
        (b"\x89PNG\r\n\x1a\n", ":1: invalid UTF-8 at byte 0 of the line"),
        (b"hello world\n", ":1: not a record: expected a header or event line, not 'hello'"),
        (b"header game xactika\nheader who \xff\n", ":2: invalid UTF-8 at byte 11"),
        (b"header game " + b"x" * 70000 + b"\n", ":1: line is longer than 65536 bytes"),
    ],
    ids=["empty", "binary", "text", "utf8", "long"],
)
def test_unreadable_input_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                  content: bytes, reason: str) -> None:
    path = tmp_path / "x1"
    path.write_bytes(content)
    code, out = run(capsys, str(path))
    assert code == 2
    assert reason in out
    assert audit_file(str(path)).status == UNREADABLE


def test_missing_files_and_mixed_results(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.log"
    write_game(good, Config(mode="win", players=2, rounds=1, seed=1))
    missing = tmp_path / "missing.log"
    empty = tmp_path / "empty"
    empty.mkdir()
    code, out = run(capsys, str(good), str(missing), str(empty))
    assert code == 2
    assert f"{missing}: cannot read" in out and "No such file" in out
    assert ":0:" not in out  # issue 41: the file as a whole has no line number
    assert f"{empty}: a directory with no record files (*.log, *.rec, *.jsonl, " in out
    assert f"{good}: ok (" in out
    # the JSON report carries the same facts
    code, out = run(capsys, "--json", str(good), str(missing))
    report = json.loads(out)
    assert code == 2 and report["exit"] == 2
    assert [r["status"] for r in report["logs"]] == [OK, UNREADABLE]
    assert report["logs"][1]["problems"][0]["line"] == 0


def test_audit_streams_in_constant_memory(tmp_path: Path) -> None:
    """A 10 MB record (padding comments) is never held in memory at once."""
    path = tmp_path / "big.log"
    lines = write_game(path, Config(mode="bid", players=4, rounds=1, seed=2))
    pad = "# " + "x" * 98 + "\n"
    with path.open("w", encoding="utf-8") as fh:
        for line in lines:
            fh.write(line + "\n")
            if line.startswith("event"):
                fh.write(pad * 2500)
    assert path.stat().st_size > 10_000_000
    tracemalloc.start()
    try:
        report = audit_file(str(path))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert report.status == OK and report.lines > 100_000
    assert peak < 2_000_000, peak


def test_a_directory_stands_for_its_records(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "games" / "b").mkdir(parents=True)
    write_game(tmp_path / "games" / "2.log", Config(mode="win", players=2, rounds=1, seed=1))
    write_game(tmp_path / "games" / "b" / "1.rec", Config(mode="win", players=2, rounds=1,
                                                          seed=2))
    (tmp_path / "games" / "notes.txt").write_text("not a record", encoding="utf-8")
    code, out = run(capsys, "--json", str(tmp_path / "games"))
    report = json.loads(out)
    assert code == 0
    assert [r["file"] for r in report["logs"]] == [str(tmp_path / "games" / "2.log"),
                                                   str(tmp_path / "games" / "b" / "1.rec")]


def test_a_seats_view_is_not_mistaken_for_a_forgery(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    from xactika.core.engine.views import visible

    config = commit_config(Config(mode="win", players=3, rounds=1, seed=6))
    _, events = self_play(config, [RandomAgent(s) for s in range(3)])
    path = tmp_path / "seat1.log"
    path.write_text(format_record([], [visible(e, 1) for e in events]), encoding="utf-8")
    code, out = run(capsys, str(path))
    assert code == 1
    assert "game-started has no seed= and no deals=: this is one seat's view of the game" in out


def test_a_directory_of_jsonl_records_and_repl_saves_is_audited(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every reader takes either form: a folder of JSONL records, or of saves named as
    the player liked, is audited; other files there are left alone."""
    from xactika.protocol.records.jsonl import text_to_jsonl

    texts = []
    for seed in (1, 2, 3):  # three games: copies of one would be counted once (TAMPER.md)
        path = tmp_path / f"text{seed}.log"
        write_game(path, Config(mode="win", players=2, rounds=1, seed=seed))
        texts.append(path.read_text(encoding="utf-8"))
    text = tmp_path / "text1.log"
    folder = tmp_path / "games"
    folder.mkdir()
    (folder / "a.jsonl").write_text(text_to_jsonl(texts[0].splitlines()), encoding="utf-8")
    (folder / "my game").write_text(texts[1], encoding="utf-8")
    (folder / "b.json").write_text(text_to_jsonl(texts[2].splitlines()), encoding="utf-8")
    (folder / "notes.txt").write_text("not a record\n", encoding="utf-8")
    (folder / ".x.tmp").write_text(text.read_text(encoding="utf-8"), encoding="utf-8")
    (folder / "c.log.rejected").write_text(text.read_text(encoding="utf-8"), encoding="utf-8")
    code, out = run(capsys, str(folder))
    assert code == 0, out
    assert f"{folder / 'a.jsonl'}: ok (" in out
    assert f"{folder / 'b.json'}: ok (" in out
    assert f"{folder / 'my game'}: ok (" in out
    assert "notes.txt" not in out and ".x.tmp" not in out and "rejected" not in out
    assert "audited 3 logs" in out


def test_each_seat_of_a_shared_name_is_a_game_of_its_own(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two bots on four seats over two games: each plays 2 games (issue 41: a 100-game
    match read 200) on 4 seats (issue 34: a match's two heuristic seats read ``heuristic
    1 game 1 win -1 points``, both seats' points summed and a win for either); a win is a
    seat that won, points are each seat's."""
    paths = []
    expected = {"ann": [2, 0, 0, 0], "bob": [2, 0, 0, 0]}  # games, seats, wins, points
    for seed in range(2):
        path = tmp_path / f"g{seed}.log"
        write_game(path, Config(mode="bid", players=4, rounds=1, seed=seed),
                   headers=[("seats", "ann,bob,ann,bob")])
        paths.append(str(path))
        over = read_record(path).events[-1]
        assert isinstance(over, GameOver)
        for name, seats in (("ann", (0, 2)), ("bob", (1, 3))):
            expected[name][1] += 2
            expected[name][2] += sum(s in over.winners for s in seats)
            expected[name][3] += sum(over.totals[s] for s in seats)
    code, out = run(capsys, "--json", *paths)
    players = json.loads(out)["summary"]["players"]
    assert {n: [p["games"], p["seats"], p["wins"], p["points"]]
            for n, p in players.items()} == expected
    assert code == 0
    code, out = run(capsys, *paths)
    assert "audited 2 logs: 2 games" in out
    assert out.splitlines()[-3].split() == ["player", "games", "seats", "wins", "points"]
    assert [line.split()[:3] for line in out.splitlines()[-2:]] == [["ann", "2", "4"],
                                                                     ["bob", "2", "4"]]


def test_a_record_signed_by_your_own_key_says_so(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    from xactika.protocol.trust.signing import Signer, default_key_path, default_signer

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    mine, theirs = default_signer(), Signer.generate()
    config = commit_config(Config(mode="win", players=2, rounds=1, seed=3))
    _, events = self_play(config, [RandomAgent(1), RandomAgent(2)])
    for name, key in (("mine.log", mine), ("theirs.log", theirs)):
        (tmp_path / name).write_text(format_record([("seats", "a,b")], events, signer=key),
                                     encoding="utf-8")
    code, out = run(capsys, str(tmp_path / "mine.log"), str(tmp_path / "theirs.log"))
    assert code == 0
    mine_line, theirs_line = (ln for ln in out.splitlines() if ": ok (" in ln)
    assert f"signed by your own key {mine.public.fingerprint}, not verified: " \
        f"--key {default_key_path()}.pub trusts it" in mine_line
    assert f"signer unknown: {theirs.public.fingerprint}" in theirs_line
