"""Red team of issue 11 after its fixes: attacks that got past a stated guarantee.

Each test replays one attack that did harm on the code as it was and checks that it now
does none; the tries and harms before and after are in the test's docstring.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from xactika.core import Config, RandomAgent
from xactika.core.bots.agents import self_play
from xactika.frontends.match import runner as match
from xactika.frontends.match.sandbox import bwrap_works, choose
from xactika.frontends.records import audit as audit_cli
from xactika.protocol.records.jsonl import read_jsonl, text_to_jsonl
from xactika.protocol.records.textform import RecordError, format_record
from xactika.protocol.trust.audit import VERIFIED, audit_lines
from xactika.protocol.trust.signing import Signer, write_key
from xactika.protocol.trust.tamper import commit_config

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = ROOT / "tests" / "hostile"
EXAMPLE = ROOT / "examples" / "random_bot.py"
PY = sys.executable
GAME = ["--players", "2", "--rounds", "1", "--seed", "3", "--each", "move=2s", "startup=10s"]

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")
BWRAP = pytest.mark.skipif(bwrap_works() is not None, reason=f"no sandbox: {bwrap_works()}")


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict, str]:
    code = match.main([*args, "--json", "--progress", "none"])
    captured = capsys.readouterr()
    return code, (json.loads(captured.out) if code == 0 else {}), captured.err


# --------------------------------------------------------------------------- capabilities


@BWRAP
def test_a_sandboxed_bot_cannot_unmount_the_cover_or_remount_its_folder_writable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Run by root, bubblewrap kept every capability but one: the bot unmounted the tmpfs
    over the match folder and read deals.txt, and remounted its "read-only" folder (the
    engine's own sources, for a bot of ours) writable. Before: 1/1 runs leaked the deals
    and planted a file. After (--cap-drop ALL): 0/1."""
    home = tmp_path / "bot"
    home.mkdir()
    for name in ("mount_bot.py", "common.py"):
        shutil.copy(HOSTILE / name, home / name)
    out = home / "out"  # the worst case: the match folder inside the bot's own folder
    code, _, _ = run(["--bot", "name=honest", f"cmd={PY} {EXAMPLE} 1",
                      "--bot", "name=mount", f"cmd={PY} {home / 'mount_bot.py'} {out} "
                      f"{out / 'deals.txt'}",
                      "--out", str(out), "--deals", "1", "--sandbox", "bwrap", *GAME], capsys)
    assert code == 0
    seen = (out / "stderr" / "mount.txt").read_text()
    assert "mount: tried" in seen
    assert "LEAKED" not in seen and "WROTE" not in seen, seen
    assert not (home / "planted.txt").exists()


# --------------------------------------------------------------------------- the REPL's key


@BWRAP
def test_a_repl_cmd_seat_cannot_read_the_key_that_signs_saves(tmp_path: Path) -> None:
    """``xactika play --seat 1=cmd:PROG --key K``: the match runner hides its key from
    bots, the REPL hid only ``--load``; a bot kept beside the key (its folder is mounted
    read-only) printed the private key. Before: 1/1 read it. After: 0/1."""
    from xactika.frontends.repl import play
    from xactika.frontends.repl.play import CMD, SeatSpec
    from xactika.protocol.trust.signing import write_key

    key = tmp_path / "key.pem"
    write_key(key)
    spy = tmp_path / "spy.sh"
    spy.write_text(f"#!/bin/sh\ncat {key}\necho spy ran >&2\n")
    spy.chmod(0o755)
    args = play.build_parser().parse_args(
        ["--seat", f"2=cmd:{spy}", "--key", str(key), "--sandbox", "bwrap"])
    box = play._sandbox(args, [SeatSpec(CMD, str(spy))])
    launch = box.launch([str(spy)])
    try:
        done = subprocess.run(launch.argv, env=launch.env, preexec_fn=launch.preexec,
                              capture_output=True, text=True, timeout=30, check=False)
    finally:
        launch.close()
    assert "spy ran" in done.stderr
    assert "PRIVATE KEY" not in done.stdout, done.stdout


# --------------------------------------------------------------------------- a bot in ~


def _run_launched(argv: list[str]) -> subprocess.CompletedProcess[str]:
    launch = choose("bwrap").launch(argv)
    try:
        return subprocess.run(launch.argv, env=launch.env, preexec_fn=launch.preexec,
                              capture_output=True, text=True, timeout=30, check=False)
    finally:
        launch.close()


@BWRAP
def test_a_bot_kept_in_the_home_folder_does_not_see_the_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--bot cmd=python3 ~/bot.py``: the folder of a bot's file is mounted whole, so a
    bot kept in the home folder read ``~/.ssh`` and every key and project there (spec
    MATCH.md's table said it cannot). Before: 2/2 commands (the script, ``sh script``)
    read the key. After: 0/2; the file itself is still mounted and runs."""
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("SECRET KEY\n")
    bot = home / "bot.sh"
    bot.write_text(f"#!/bin/sh\ncat {home}/.ssh/id_ed25519\necho bot ran\n")
    bot.chmod(0o755)
    monkeypatch.setenv("HOME", str(home))
    for argv in ([str(bot)], ["sh", str(bot)]):
        done = _run_launched(argv)
        assert "bot ran" in done.stdout, done.stderr
        assert "SECRET" not in done.stdout, argv


# --------------------------------------------------------------------------- collusion

SEND = """\
import fcntl, os, sys, time
fd = os.open(os.path.abspath(__file__), os.O_RDONLY)
for i, b in enumerate(sys.argv[1].encode()):  # byte i as a read lock at 1000*i + b
    fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB, 1, 1000 * i + b)
print("sent", flush=True)
sys.stdin.read()
"""
RECEIVE = """\
import fcntl, os, struct, sys
fd = os.open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "send.py"), os.O_RDONLY)
out = []
for i in range(64):
    asked = struct.pack("hhqqi4x", fcntl.F_WRLCK, 0, 1000 * i, 1000, 0)
    kind, _, start, _, _ = struct.unpack("hhqqi4x", fcntl.fcntl(fd, fcntl.F_GETLK, asked))
    if kind == fcntl.F_UNLCK:
        break
    out.append(start - 1000 * i)
print(bytes(out).decode())
"""


@BWRAP
def test_two_sandboxed_seats_of_one_bot_can_still_pass_a_hand_between_them(
    tmp_path: Path,
) -> None:
    """A limit, not a fix: the sandbox cuts files, network, signals and IPC between bots,
    but two processes that share any read-only file (the bot's own folder, Python) can
    signal through POSIX record locks on it, F_GETLK showing one the other's locks. A bot
    in two seats of a game can so see both hands: spec/MATCH.md says so. 1/1 hands
    passed; this test checks that the spec's warning is not an empty one."""
    (tmp_path / "send.py").write_text(SEND)
    (tmp_path / "receive.py").write_text(RECEIVE)
    box = choose("bwrap")
    hand = "hand=2112,2121,1123,3211,2313,2322,2331,3312"
    sender = box.launch([PY, str(tmp_path / "send.py"), hand])
    receiver = box.launch([PY, str(tmp_path / "receive.py")])
    proc = subprocess.Popen(sender.argv, env=sender.env, preexec_fn=sender.preexec,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "sent\n"
        done = subprocess.run(receiver.argv, env=receiver.env, preexec_fn=receiver.preexec,
                              capture_output=True, text=True, timeout=30, check=False)
    finally:
        proc.kill()
        proc.wait()
        sender.close()
        receiver.close()
    assert done.stdout.strip() == hand, done.stderr


# --------------------------------------------------------------------------- JSONL


def _signed_jsonl() -> tuple[Signer, str]:
    config = commit_config(Config(mode="bid", players=2, rounds=1, seed=5))
    _, events = self_play(config, [RandomAgent(1), RandomAgent(2)])
    key = Signer.generate()
    text = format_record([("game", "xactika"), ("seats", "ann,bob")], events, signer=key)
    return key, text_to_jsonl(text.splitlines())


def test_a_jsonl_object_with_a_key_twice_is_refused_not_verified() -> None:
    """A forger adds ``"card":"3333"`` before each play's own ``card``: Python's reader
    keeps the last, so the chain and signature held and audit said ``verified``, while a
    reader that keeps the first (several do) sees other cards. Before: 1/1 verified.
    After: refused at its line; the honest JSONL still verified."""
    key, jsonl = _signed_jsonl()
    honest = audit_lines(jsonl.splitlines(), "g.jsonl", trusted={key.public})
    assert honest.signature == VERIFIED
    forged = jsonl.replace('{"type":"play",', '{"type":"play","card":"3333",')
    assert forged != jsonl
    report = audit_lines(forged.splitlines(), "g.jsonl", trusted={key.public})
    assert report.signature != VERIFIED
    assert any("appears twice" in p.reason for p in report.problems), report.problems
    with pytest.raises(RecordError, match="appears twice"):
        read_jsonl(forged.splitlines())
    with pytest.raises(RecordError, match="NaN is not a JSON value"):
        read_jsonl(jsonl.replace('"seq":3,', '"seq":3,"x":NaN,').splitlines())


# --------------------------------------------------------------------------- re-rolls


def test_a_game_played_again_on_resume_is_named_by_the_audit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A re-roll: whoever can write the match folder breaks a record it dislikes, and
    ``--resume`` sets it aside and plays the game again. The manifest keeps both entries,
    signed, but the audit said nothing of it. Before: 1/1 re-rolled game unmentioned
    (plain and --json). After: a note names the file and how often it was played.

    A limit, stated in spec/TAMPER.md: cutting the manifest back to the earlier ``end``
    line and putting the first record back audits clean; only an end line published
    when the run finished tells the two apart."""
    key = tmp_path / "key.pem"
    write_key(key)
    out = tmp_path / "m"
    bots = ["--bot", "name=a", f"cmd={PY} {EXAMPLE} 1", "--bot", "name=b", f"cmd={PY} {EXAMPLE} 2"]
    flags = ["--key", str(key), "--sandbox", "none", "--progress", "none"]
    assert match.main([*bots, "--out", str(out), "--deals", "1", *flags, *GAME]) == 0
    first = out / "games" / "d00001-t0-r0.log"
    kept = first.read_text()
    manifest = (out / "manifest.txt").read_text()
    first.write_text(kept.replace("header seats a,b", "header seats b,a"))
    assert match.main(["--resume", "--out", str(out), *flags]) == 0
    capsys.readouterr()
    assert audit_cli.main(["--strict", "--key", f"{key}.pub", str(out)]) == 0
    said = capsys.readouterr().out
    assert "games/d00001-t0-r0.log: played 2 times" in said, said
    # the limit: the earlier manifest and record, put back, pass
    (out / "manifest.txt").write_text(manifest)
    first.write_text(kept)
    assert audit_cli.main(["--strict", "--key", f"{key}.pub", str(out)]) == 0
    assert "played 2 times" not in capsys.readouterr().out


# --------------------------------------------------------------------------- keyrings


def _forget(name: str) -> None:
    """Invalidate the key ``name`` in this user's keyring, if a bot left one."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    found = libc.syscall(250, 10, ctypes.c_long(-4), b"user", name.encode(), 0)
    if found > 0:
        libc.syscall(250, 21, ctypes.c_long(found))  # KEYCTL_INVALIDATE


@BWRAP
@pytest.mark.skipif(os.uname().machine != "x86_64", reason="the bot uses x86_64 syscalls")
def test_a_sandboxed_bot_cannot_carry_a_note_to_the_next_seating_in_a_keyring(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The private folder is new each game, but the kernel's user keyring is one per user:
    a bot stored a note there in one seating and read it in the rotated seating of the
    same deal (fresh process, fresh folder). Before: 1/1 remembered (2 seatings). After
    (a user namespace, where the kernel allows one): 0/1."""
    name = f"xactika-redteam-{os.getpid()}-{tmp_path.name}"
    out = tmp_path / "out"
    try:
        code, _, _ = run(["--bot", "name=honest", f"cmd={PY} {EXAMPLE} 1",
                          "--bot", "name=keyring", f"cmd={PY} {HOSTILE / 'keyring_bot.py'} {name}",
                          "--out", str(out), "--deals", "1", "--sandbox", "bwrap", *GAME],
                         capsys)
    finally:
        _forget(name)
    assert code == 0
    seen = (out / "stderr" / "keyring.txt").read_text()
    assert seen.count("keyring: tried") == 2, seen  # both seatings ran
    assert "REMEMBERED" not in seen, seen


# --------------------------------------------------------------------------- engine --seat


def _engine(*args: str) -> tuple[subprocess.Popen[str], Callable[[str], list[str]]]:
    proc = subprocess.Popen([PY, "-m", "xactika.frontends.cli", "engine", *args],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def send(line: str) -> list[str]:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(line + "\n")
        proc.stdin.flush()
        out = []
        while not out or not out[-1].startswith(("ok", "error")):
            out.append(proc.stdout.readline().rstrip("\n"))
        return out

    return proc, send


def test_engine_seat_view_cannot_be_left_with_view_all() -> None:
    """``xactika engine --seat 0`` promises a controller learns nothing seat 0 may not
    know, but ``view all`` switched to the omniscient view: every hand at once. Before:
    1/1 tries showed seat 1's hand. After: ``error locked``, the view unchanged."""
    proc, send = _engine("--seat", "0")
    try:
        send("newgame players=2 rounds=1 mode=bid")
        assert send("view all")[-1].startswith("error locked ")
        assert send("view 1")[-1].startswith("error locked ")
        assert send("view 0") == ["ok view"]
        shown = send("show")
        assert "state seat=1 cards=8 hand=? " in "\n".join(shown) + " ", shown
    finally:
        proc.kill()
        proc.wait()


def test_engine_seat_view_cannot_roll_back_to_probe_another_hand(tmp_path: Path) -> None:
    """In ``--seat 0 --files DIR`` a refused move of seat 1 gets one redacted answer, but
    a legal one is played: the controller saved the game (``record``, ``record off``),
    tried seat 1's leads card by card, and after each success ``load``-ed the save and
    went on. Before: seat 1's whole hand (8/8 cards) in under 1000 probes. After:
    ``load`` is refused in a locked seat view, so one card, the move really played."""
    import itertools

    proc, send = _engine("--seat", "0", "--files", str(tmp_path))
    found = []
    try:
        send("newgame players=2 rounds=1 mode=bid")
        send("bid 1 0")
        send("bid 0 0")
        assert send("record save.log") == ["ok record"]
        assert send("record off") == ["ok record"]
        calls = [f"{n}{s}" for n in "123" for s in ("ba", "cu", "co", "st")]
        for card in ("".join(t) for t in itertools.product("123", repeat=4)):
            answers = [send(f"play 1 {card} {call}")[-1] for call in calls]
            if any(a == "ok play" for a in answers):
                found.append(card)
                if not send("load save.log")[-1] == "ok load":
                    break
            assert all(a == "ok play" or a.startswith("error illegal ") for a in answers)
        assert send("load save.log")[-1].startswith("error locked ")
    finally:
        proc.kill()
        proc.wait()
    assert len(found) == 1, found
