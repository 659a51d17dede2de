"""Hostile input to the engine and the record readers (issue 11, section 4), each attack
reproduced as it was found and shown to do no harm now.

Framing (header values and lines of Unicode white space), the engine's own line limit,
bounded readers (header floods, /dev/zero, FIFOs, nesting), the reload kill window,
the ``--seat`` oracles and the confinement of ``load``/``record`` paths.
"""

from __future__ import annotations

import io
import os
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_protocol_hidden import command_for

from xactika.core import Config, RandomAgent, legal_actions
from xactika.core.bots.agents import self_play
from xactika.protocol.notation.text import format_event
from xactika.protocol.notation.untrusted import is_safe
from xactika.protocol.records import files
from xactika.protocol.records.files import RecordTooLarge, bounded_lines
from xactika.protocol.records.jsonl import read_jsonl
from xactika.protocol.records.textform import (
    MAX_HEADERS,
    MAX_LINE,
    RecordError,
    format_record,
    read_record,
)
from xactika.protocol.referee.sansio import FINAL_WORDS, RefereeSession
from xactika.protocol.trust.audit import UNREADABLE, audit_file

CLI = [sys.executable, "-m", "xactika.frontends.cli"]
ENGINE = [*CLI, "engine"]
CLOCK = "2026-01-01T00:00:00Z"
# every character str.splitlines() breaks on besides \n and \r, and other controls
BREAKERS = ["\u2028", "\u2029", "\x85", "\x1c", "\x1d", "\x1e", "\x0b", "\x0c", "\x00",
            "\x1b", "\x7f", "\x9b"]
UNICODE_BLANKS = ["\xa0", "\u3000", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f", "\x85",
                  "\u2028", "\u2029", "\u2007", "\u202f", " \xa0 ", "\t\u3000\t"]
XACTIKA_CARDS = [f"{a}{b}{c}{d}" for a in "123" for b in "123" for c in "123" for d in "123"]


def session(**kw: object) -> RefereeSession:
    return RefereeSession(clock=lambda: CLOCK, seeds=lambda: 7, nonces=lambda: "0" * 32,
                   **kw)  # type: ignore[arg-type]


def finals(out: list[str]) -> list[str]:
    return [o for o in out if o.split(" ", 1)[0] in FINAL_WORDS]


def limited() -> None:
    """A child that misbehaves runs out of memory at 1 GiB, not the test machine's."""
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def run(args: list[str], data: bytes = b"", cwd: Path | None = None,
        timeout: float = 30) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(args, input=data, capture_output=True, timeout=timeout, cwd=cwd,
                          preexec_fn=limited)


# --------------------------------------------------------------------------- framing


@pytest.mark.parametrize("ch", BREAKERS, ids=[f"U+{ord(c):04X}" for c in BREAKERS])
def test_a_header_value_cannot_forge_a_line_or_break_recording(tmp_path: Path,
                                                                 ch: str) -> None:
    s = session(record=tmp_path / "r.log")
    out = s.feed(f"header x a{ch}ok fake")
    assert len(out) == 1 and out[0].startswith("error usage header x: "), out
    assert is_safe(out[0]) and s.pending_headers == ()
    # the next games start and record as if the header had never been sent
    for seed in (1, 2):
        assert s.feed(f"newgame players=2 rounds=1 seed={seed}")[-1] == "ok newgame"
    text = "\n".join(s.feed("log"))
    assert not [ln for ln in text.splitlines() if ln.startswith("ok fake")]
    assert read_record(tmp_path / "r-2.log").events == s.log


def test_the_engine_process_prints_no_forged_line() -> None:
    """The issue's reproduction, through stdin and stdout, read the way Python reads."""
    script = "header x a\u2028ok fake\nnewgame players=2 rounds=1 seed=1\nlog\nquit\n"
    proc = run(ENGINE, script.encode())
    text = proc.stdout.decode()
    assert proc.returncode == 0 and proc.stderr == b""
    assert not [ln for ln in text.splitlines() if ln.startswith("ok fake")]
    assert len(text.splitlines()) == len(text.split("\n")) - 1  # no hidden line breaks
    assert [ln.split()[0] for ln in finals(text.splitlines())] == ["error", "ok", "ok", "ok"]


@pytest.mark.parametrize("line", UNICODE_BLANKS, ids=repr)
def test_a_line_of_unicode_white_space_is_answered(line: str) -> None:
    s = session()
    out = s.feed(line)
    assert len(out) == 1 and out[0].startswith("error unknown "), out
    assert is_safe(out[0])
    # a pipelining controller stays in step: one final line per non-blank line
    s2 = session()
    answers = [s2.feed(x) for x in (line, "isready", " \t\r", line, "isready")]
    assert [len(finals(a)) for a in answers] == [1, 1, 0, 1, 1]


def test_unicode_white_space_does_not_separate_tokens() -> None:
    s = session()
    s.feed("newgame players=2 rounds=1 seed=1")
    assert s.feed("bid\u30001 2")[0].startswith("error unknown ")
    assert s.feed("bid 1\xa02")[0].startswith("error usage ")
    assert s.feed("bid\t1  2")[-1] == "ok bid"


# --------------------------------------------------------------------------- line limit


def preset_deals(players: int, rounds: int, with_rest: int) -> str:
    """A newgame line of preset deals; ``with_rest`` rounds also name an undealt card."""
    hands = "/".join(",".join(XACTIKA_CARDS[s * 8:(s + 1) * 8]) for s in range(players))
    deals = [hands + ("|" + XACTIKA_CARDS[80] if r < with_rest else "") for r in range(rounds)]
    return f"newgame players={players} deals=" + ";".join(deals)


@pytest.mark.parametrize("with_rest", [30, 36, 38, 39, 40, 44, 62])
def test_the_engine_writes_no_line_its_readers_refuse(tmp_path: Path, with_rest: int) -> None:
    """Before: game-started plus its h= token made a 65,5xx-byte record line."""
    line = preset_deals(10, 163, with_rest)
    assert len(line.encode()) <= MAX_LINE  # a legal input line
    s = session(files=tmp_path)
    s.feed("record r.log")
    out = s.feed(line)
    assert all(len(o.encode()) <= MAX_LINE for o in out)
    if out[-1].startswith("error "):
        assert out[-1].startswith("error toolong the game-started line would be longer")
        assert s.state.phase == "new" and not (tmp_path / "r.log").exists()
        return
    assert all(len(o.encode()) <= MAX_LINE for o in s.feed("log"))
    assert session(files=tmp_path).feed("load r.log")[-1] == "ok load"
    assert audit_file(str(tmp_path / "r.log")).status != UNREADABLE


def test_the_limit_is_reached_within_the_sizes_tried() -> None:
    """The parametrised sizes above straddle the limit: some are refused, some not."""
    answers = {w: session().feed(preset_deals(10, 163, w))[-1].split()[:2]
               for w in (30, 62)}
    assert answers == {30: ["ok", "newgame"], 62: ["error", "toolong"]}


# --------------------------------------------------------------------------- bounded readers


def test_header_lines_are_bounded(tmp_path: Path) -> None:
    """Before: 3,000 header lines of 60 KB were all kept (180 MB)."""
    s = session(files=tmp_path)
    value = "v" * 60_000
    answers = [s.feed(f"header k{i} {value}")[0] for i in range(300)]
    accepted = answers.count("ok header")
    assert 0 < accepted < 300
    assert all(a.startswith("error limit too many headers") for a in answers[accepted:])
    assert sum(len(v) for _, v in s.pending_headers) <= 512 * 1024
    small = session()
    assert [small.feed(f"header k{i} v")[0] for i in range(MAX_HEADERS)].count(
        "ok header") < MAX_HEADERS
    # the game starts, and its record (headers and all) reads back
    s.feed("record h.log")
    assert s.feed("newgame players=2 rounds=1 seed=1")[-1] == "ok newgame"
    assert session(files=tmp_path).feed("load h.log")[-1] == "ok load"


def test_a_record_with_too_many_headers_is_refused() -> None:
    text = "".join(f"header k{i} v\n" for i in range(MAX_HEADERS + 1))
    with pytest.raises(RecordError, match=f"line {MAX_HEADERS + 1}: a record holds at most"):
        read_record(io.StringIO(text + "event 1 game-started game=xactika\n"))


def test_bounded_lines_stop_at_the_byte_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    got = list(bounded_lines(io.BytesIO(b"x" * (MAX_LINE + 10) + b"\nnever read\n")))
    assert len(got) == 1 and len(got[0]) == MAX_LINE + 1  # one cut line, nothing after
    monkeypatch.setattr(files, "MAX_RECORD_BYTES", 1000)
    with pytest.raises(RecordTooLarge, match="line 101: a record holds at most 1000 bytes"):
        list(bounded_lines(io.BytesIO(b"#23456789\n" * 1000)))


def test_deeply_nested_jsonl_is_refused_without_recursing() -> None:
    line = '{"type":"header","key":"a","value":' + "[" * 30_000 + "]" * 30_000 + "}\n"
    with pytest.raises(RecordError, match="line 1: JSON nested deeper than"):
        read_jsonl([line.encode()])


@pytest.fixture
def odd_files(tmp_path: Path) -> Iterator[Path]:
    """A files folder holding a FIFO, a link to /dev/zero, and a deeply nested JSONL."""
    os.mkfifo(tmp_path / "fifo")
    os.symlink("/dev/zero", tmp_path / "zero")
    (tmp_path / "deep.jsonl").write_text(
        '{"type":"header","key":"a","value":' + "[" * 30_000 + "]" * 30_000 + "}\n")
    yield tmp_path


@pytest.mark.parametrize("target,reason", [
    ("fifo", "error record cannot read 'fifo': not a regular file but a FIFO"),
    ("zero", "error record cannot read 'zero': not a regular file but a symbolic link"),
    ("/dev/zero", "error path load '/dev/zero': absolute paths are refused"),
])
def test_load_never_hangs_or_fills_memory(odd_files: Path, target: str, reason: str) -> None:
    """Before: load of a FIFO hung the engine, /dev/zero ended in MemoryError. A hang is
    the engine answering nothing: run's timeout, a guard only, fails the test then."""
    proc = run([*ENGINE, "--files", str(odd_files)], f"load {target}\nisready\n".encode(),
               timeout=60)
    lines = proc.stdout.decode().splitlines()
    assert proc.returncode == 0 and proc.stderr == b""
    assert lines[0].startswith(reason) and lines[1:] == ["readyok"]  # answered, and went on


@pytest.mark.parametrize("args,reason", [
    (["convert", "/dev/zero", "--to", "jsonl"], "not a regular file but a device"),
    (["replay", "/dev/zero"], "not a regular file but a device"),
    (["convert", "{d}/fifo", "--to", "jsonl"], "not a regular file but a FIFO"),
    (["replay", "{d}/fifo"], "not a regular file but a FIFO"),
    (["convert", "{d}/deep.jsonl", "--to", "text"], "JSON nested deeper than 16"),
    (["replay", "{d}/deep.jsonl"], "JSON nested deeper than 16"),
    (["convert", "-", "--to", "jsonl"], "line is longer than 65536 bytes"),
], ids=lambda a: " ".join(a) if isinstance(a, list) else "")
def test_readers_answer_one_error_line(odd_files: Path, args: list[str], reason: str) -> None:
    """Before: MemoryError, RecursionError tracebacks, or a hang on the FIFO."""
    args = [a.format(d=odd_files) for a in args]
    stdin = b"\0" * (1 << 20) if "-" in args else b""  # /dev/zero through a pipe
    proc = run([*CLI, *args], stdin, timeout=20)
    err = proc.stderr.decode().splitlines()
    assert proc.returncode == 2 and len(err) == 1 and reason in err[0], proc.stderr[-300:]


def test_audit_refuses_a_fifo_at_once(odd_files: Path) -> None:
    proc = run([*CLI, "audit", str(odd_files / "fifo")], timeout=20)
    assert proc.returncode == 2 and b"not a regular file but a FIFO" in proc.stdout


# --------------------------------------------------------------------------- kill window


def long_record(path: Path, events: int = 400) -> bytes:
    config = Config(mode="bid", players=6, rounds=12, seed=5)
    _, log = self_play(config, [RandomAgent(s) for s in range(6)])
    path.write_text(format_record({"seats": "a,b,c,d,e,f"}, log[:events]))
    return path.read_bytes()


def test_reload_never_truncates_the_record(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """At every moment the rewrite could be killed (every fsync), the record is whole.

    Before: the record was opened with "w" and rewritten in place, so a kill during
    ``load F`` in an engine restarted with ``--record F --fsync`` lost events (14/20).
    """
    path = tmp_path / "F.log"
    original = long_record(path)
    inode = path.stat().st_ino
    seen: list[int] = []
    real_fsync = os.fsync

    def watching(fd: int) -> None:
        real_fsync(fd)
        now = path.read_bytes()  # what a kill -9 here would leave
        assert now == original or read_record(path).events[:400] == read_record(
            io.StringIO(original.decode())).events
        seen.append(len(now))

    monkeypatch.setattr(os, "fsync", watching)
    s = RefereeSession(files=tmp_path, record=path, fsync=True)
    assert s.feed("load F.log")[-1] == "ok load"
    assert len(seen) >= 2 and seen[0] == len(original)  # the old file until the rename
    assert path.stat().st_ino != inode  # replaced by rename, not rewritten
    assert [p.name for p in tmp_path.iterdir()] == ["F.log"]  # no temporary file left


def test_kill_9_during_reload_loses_nothing(tmp_path: Path) -> None:
    path = tmp_path / "F.log"
    original = long_record(path, 3000)
    want = read_record(path).events
    for delay in (0.0, 0.05, 0.1, 0.2, 0.3, 0.45, 0.6, 0.8):
        path.write_bytes(original)
        proc = subprocess.Popen([*ENGINE, "--files", str(tmp_path), "--record", str(path),
                                 "--fsync"], stdin=subprocess.PIPE,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        assert proc.stdin is not None
        proc.stdin.write(b"load F.log\n")
        proc.stdin.flush()
        time.sleep(0.25 + delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        assert read_record(path).events == want, delay


# --------------------------------------------------------------------------- --seat oracles


def seat_and_referee(seed: int, newgame: str) -> tuple[RefereeSession, RefereeSession]:
    seat = RefereeSession(seat=0, seeds=lambda: seed, nonces=lambda: "0" * 32)
    ref = RefereeSession(seeds=lambda: seed, nonces=lambda: "0" * 32)
    for s in (seat, ref):
        assert s.feed(newgame)[-1] == "ok newgame"
    return seat, ref


def test_81_probes_learn_nothing_of_a_hidden_hand() -> None:
    """Before: 'play 1 <card> <wrong call>' answered 'call' for a card in the hand and
    'card' otherwise: 81 probes rebuilt seat 1's hand."""
    seat, ref = seat_and_referee(7, "newgame players=2 rounds=1")
    for s in (seat, ref):
        s.feed("bid 1 3")
        s.feed("bid 0 4")
    assert ref.state.to_act == 1 and not ref.state.trick  # seat 1 leads
    hand = {str(c) for c in ref.state.hands[1]}
    answers = set()
    for card in XACTIKA_CARDS:
        wrong = "2ba" if card[0] == "1" else "1ba"  # never the card's own ball count
        for probe in (f"play 1 {card} {wrong}", f"play 1 {card}"):
            answers.add(tuple(seat.feed(probe)))
    assert answers == {("error illegal seat 1 may not do that now (the reason is hidden "
                        "in seat 0's view)",)}
    assert hand and seat.log == ref.log  # nothing was played


def test_a_move_out_of_turn_gets_the_same_answer() -> None:
    seat, ref = seat_and_referee(3, "newgame players=3 rounds=1")
    card = str(ref.state.hands[2][0])
    # during the bidding, a card in seat 2's hand and one elsewhere: the same line
    assert seat.feed(f"play 2 {card} 1ba") == seat.feed("play 2 3333 1ba")
    assert seat.feed("bid 2 1") == seat.feed(f"play 2 {card}")


def pipe_events(seat: RefereeSession, ref: RefereeSession, until: type, *,
                owed: bool) -> Iterator[object]:
    """Send the referee's actions to the seat session as event lines, as a controller
    piping moves would, leaving the derived events owed; yield derived ``until`` events."""
    while not ref.state.over:
        legal = legal_actions(ref.state)
        cmd = next(iter(legal.commands()))
        n = len(ref.log)
        rules = ref.state.rules
        assert ref.feed(command_for(ref.state, cmd))[-1].startswith("ok ")
        new = ref.log[n:]
        assert seat.feed(format_event(new[0], rules))[-1] == "ok event"
        for e in new[1:]:
            if isinstance(e, until):
                yield e
                return
            if owed:
                assert seat.feed(format_event(e, rules))[-1] == "ok event"


def test_event_errors_do_not_show_the_next_deal() -> None:
    """Before: an own-seat event where the next deal was owed answered 'expected
    Dealt(... hands=<both hands> ...)', unredacted because the submitted seat was 0."""
    from xactika.core.engine.api import Dealt

    seat, ref = seat_and_referee(9, "newgame players=2 rounds=2")
    deal = next(e for e in pipe_events(seat, ref, Dealt, owed=True)
                if isinstance(e, Dealt))
    hidden = {str(c) for c in deal.hands[1]} | {str(c) for c in deal.aside or ()}
    for probe in (f"event {deal.seq} bid seat=0 bid=0", f"event {deal.seq} bid seat=1 bid=0",
                  f"event {deal.seq} trick-won seat=0 trick=1"):
        out = seat.feed(probe)
        assert len(out) == 1 and out[0].startswith(("error event ", "error illegal ")), out
        assert not [c for c in hidden if c in out[0]], out[0]
    # the owed deal as the seat sees it, hidden hands as '?', stands for the real one
    shown = seat.feed("log")
    mine = format_event(Dealt(deal.seq, deal.round, deal.dealer,
                              (deal.hands[0], None), None, deal.turned), ref.state.rules)
    assert seat.feed(mine)[-1] == "ok event"
    assert seat.feed("log") == shown


def test_event_errors_do_not_show_the_other_dix_draw() -> None:
    """Before: 'event N draw seat=0 card=2S' answered 'expected Drew(seat=1 card=5S)'."""
    from xactika.core.games.dix import Drew

    seat, ref = seat_and_referee(4, "newgame game=dix mode=draw players=2")
    other = None
    rules = ref.state.rules
    for draw in pipe_events(seat, ref, Drew, owed=True):
        assert isinstance(draw, Drew)
        if draw.seat == 0:  # our own draw first: confirm it, and find the other's
            assert seat.feed(format_event(draw, rules))[-1] == "ok event"
            other = ref.log[draw.seq]  # seq is 1-based: this is the event after it
        else:
            other = draw
    assert isinstance(other, Drew) and other.seat == 1
    answers = {tuple(seat.feed(f"event {other.seq} draw seat={s} card={c}"))
               for s in (0, 1) for c in ("2S", "AH", str(other.card))}
    assert not [a for a in answers if str(other.card) in a[0] and "card=" + str(
        other.card) in a[0].split("expected")[-1]]
    # seat 1's draw with any card agrees with what seat 0 sees: accepted, log unchanged
    assert len({a for a in answers if a[0] == "ok event"}) <= 1


# --------------------------------------------------------------------------- paths


@pytest.fixture
def jail(tmp_path: Path) -> Path:
    (tmp_path / "files" / "sub").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.log").write_text("header record 1\n")
    os.symlink(tmp_path / "outside", tmp_path / "files" / "link")
    os.symlink(tmp_path / "outside" / "secret.log", tmp_path / "files" / "secret.log")
    return tmp_path


@pytest.mark.parametrize("command", [
    "record {root}/outside/evil.log", "record ../outside/evil.log",
    "record link/evil.log", "record sub/../../outside/evil.log",
    "load {root}/outside/secret.log", "load ../outside/secret.log", "load link/secret.log",
    "load secret.log", "load /etc/passwd", "record a\x1bb.log", "record sub/",
])
def test_paths_stay_inside_the_files_folder(jail: Path, command: str) -> None:
    s = session(files=jail / "files")
    out = s.feed(command.format(root=jail))
    assert len(out) == 1 and out[0].startswith(("error path ", "error record ")), out
    assert "line " not in out[0]  # nothing outside was read
    assert s.feed("newgame players=2 rounds=1 seed=1")[-1] == "ok newgame"
    assert sorted(p.name for p in (jail / "outside").iterdir()) == ["secret.log"]


def test_without_files_no_path_command_is_taken(tmp_path: Path) -> None:
    s = session()
    for command in ("load game.log", f"record {tmp_path}/x.log", "record x.log"):
        assert s.feed(command)[0].startswith("error path load and record are off")
    assert list(tmp_path.iterdir()) == []


def test_inside_the_files_folder_record_and_load_work(jail: Path) -> None:
    s = session(files=jail / "files")
    assert s.feed("record sub/game.log") == ["ok record"]
    s.feed("newgame players=2 rounds=1 seed=3")
    t = session(files=jail / "files")
    assert t.feed("load ./sub/game.log")[-1] == "ok load"
    assert t.log == s.log


def test_engine_files_option_must_name_a_folder(tmp_path: Path) -> None:
    proc = run([*ENGINE, "--files", str(tmp_path / "missing")])
    assert proc.returncode == 2 and b"--files" in proc.stderr
