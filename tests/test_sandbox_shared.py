"""Bots kept in shared folders (issue 25, items 3 and 4): ``/tmp``, the runner's temporary
folder, a home. Such a folder is never bound whole: the bot gets its own files only, and
the other seats' private folders lie in a runner-owned 0700 folder it cannot see.

Before the fix, with bubblewrap, a spy kept in ``/tmp``, ``$TMPDIR``, ``/var/tmp``,
``/dev/shm`` or ``dir=$HOME`` (8 ways, 4 games each) read the other seat's diary, other
programs' temporary files or ``~/.ssh`` in 28 of 32 games; ``/dev/shm``, ``/tmp``, ``/``
and ``/dev`` were unbounded writable tmpfs, ``/proc/stat`` showed the other seats
compute, and ``/proc/self/mountinfo`` named the hidden match folder and key. After: 0 of
32, and each is bounded, read-only, still or absent.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from xactika.frontends.match import runner as match
from xactika.frontends.match.sandbox import UNSANDBOXED, bwrap_works, choose, limits_from

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = ROOT / "tests" / "hostile"
SPY = HOSTILE / "shared_spy_bot.py"
PY = sys.executable
GAME = ["--players", "2", "--rounds", "1", "--seed", "3", "--each", "move=5s", "startup=20s",
        "--deals", "2", "--progress", "none", "--json"]

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="bwrap, /proc")
BWRAP = pytest.mark.skipif(bwrap_works() is not None, reason=f"no sandbox: {bwrap_works()}")
SANDBOXES = ["none", pytest.param("bwrap", marks=BWRAP)]


def diary() -> list[str]:
    """The victim: an honest bot that keeps what it hears, its hand too, in $TMPDIR."""
    return ["--bot", "name=diary", f"cmd={PY} {HOSTILE / 'diary_bot.py'}"]


def spy_seen(capsys: pytest.CaptureFixture[str], out: Path, spy: list[str],
             sandbox: str) -> tuple[str, dict, str]:
    code = match.main([*diary(), "--bot", "name=spy", *spy, "--out", str(out),
                       "--sandbox", sandbox, *GAME])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    seen = (out / "stderr" / "spy.txt").read_text()
    assert seen.count("spy: looked at") >= 4  # it ran, in every game
    return seen, json.loads(captured.out), captured.err


@pytest.fixture
def tempdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The runner's temporary folder, where it keeps the seats' private folders."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    yield folder


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_a_bot_in_the_runners_temporary_folder_reads_no_other_seat(
        sandbox: str, tempdir: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    bot = tempdir / "bot.py"
    shutil.copy(SPY, bot)
    seen, result, err = spy_seen(capsys, tmp_path / "out", [f"cmd={PY} {bot}"], sandbox)
    if sandbox == "none":  # the attack is real, hence the warning
        assert "LEAKED" in seen and "diary.txt" in seen
        assert result["warnings"] == [UNSANDBOXED] and UNSANDBOXED in err
    else:
        assert "LEAKED" not in seen, seen


@BWRAP
@pytest.mark.parametrize("how", ["cmd", "dir"])
def test_a_bot_in_tmp_itself_sees_only_its_own_file(
        how: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fd, bot = tempfile.mkstemp(prefix="xactika-test-spy-", suffix=".py", dir="/tmp")
    secret_fd, secret = tempfile.mkstemp(prefix="xactika-test-secret-", dir="/tmp")
    try:
        os.write(fd, SPY.read_bytes())
        os.write(secret_fd, b"another program's temporary file\n")
        os.close(fd)
        os.close(secret_fd)
        spy = [f"cmd={PY} {bot} look={secret}"] if how == "cmd" else \
            [f"cmd={PY} {os.path.basename(bot)} look={secret}", "dir=/tmp"]
        seen, _, _ = spy_seen(capsys, tmp_path / "out", spy, "bwrap")
    finally:
        os.unlink(bot)
        os.unlink(secret)
    assert "LEAKED" not in seen, seen


@BWRAP
@pytest.mark.parametrize("how", ["dir=HOME", "dir=. in HOME", "cmd=HOME/bot.py"])
def test_a_bot_in_a_home_never_sees_the_home(
        how: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    key = home / ".ssh" / "id_ed25519"
    key.write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    shutil.copy(SPY, home / "bot.py")
    monkeypatch.setenv("HOME", str(home))
    if how == "dir=. in HOME":
        monkeypatch.chdir(home)
    spy = {"dir=HOME": [f"cmd={PY} bot.py look={key}", f"dir={home}"],
           "dir=. in HOME": [f"cmd={PY} bot.py look={key}", "dir=."],
           "cmd=HOME/bot.py": [f"cmd={PY} {home / 'bot.py'} look={key}"]}[how]
    seen, _, _ = spy_seen(capsys, tmp_path / "out", spy, "bwrap")
    assert "LEAKED" not in seen, seen


def run_inside(script: str, **limits: str) -> subprocess.CompletedProcess[str]:
    launch = choose("bwrap", limits_from(limits)).launch([PY, "-c", script])
    try:
        return subprocess.run(launch.argv, cwd=launch.cwd, env=launch.env,
                              preexec_fn=launch.preexec, capture_output=True, text=True,
                              timeout=60, check=False)
    finally:
        launch.close()


PROBE = """
import os, json
def size(p):
    s = os.statvfs(p)
    return s.f_blocks * s.f_frsize
def writes(p):
    try:
        with open(p, "wb") as fh:
            fh.write(bytes(9 << 20))
        return True
    except OSError:
        return False
print(json.dumps({"tmp": size("/tmp"), "shm": size("/dev/shm"),
    "big_tmp": writes("/tmp/big"), "root": writes("/x"), "dev": writes("/dev/x"),
    "stat": open("/proc/stat").read(), "loadavg": open("/proc/loadavg").read(),
    "cpus": os.cpu_count()}))
"""


@BWRAP
def test_tmp_and_shm_are_small_and_the_rest_read_only() -> None:
    done = run_inside(PROBE, tmp="8M")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["tmp"] == 8 << 20 and found["shm"] <= 8 << 20
    assert not found["big_tmp"]  # 9M into an 8M /tmp: no space
    assert not found["root"] and not found["dev"]


@BWRAP
def test_proc_shows_no_other_seat_computing() -> None:
    found = json.loads(run_inside(PROBE).stdout)
    assert found["loadavg"] == "0.00 0.00 0.00 1/1 1\n"
    counters = [line.split()[1:] for line in found["stat"].splitlines()
                if line.startswith("cpu")]
    assert counters and all(set(c) == {"0"} for c in counters)
    assert found["cpus"] == os.cpu_count()  # programs still count the CPUs


@BWRAP
def test_a_hidden_folder_or_key_in_the_bots_folder_is_absent_not_an_empty_mount(
        tmp_path: Path) -> None:
    """The match folder or key inside a bot's folder was hidden by an empty mount, and
    ``/proc/self/mountinfo`` named it: the bot learnt where they lie. Now it is not there."""
    home = tmp_path / "bot"
    (home / "out").mkdir(parents=True)
    (home / "out" / "deals.txt").write_text("deal 1 ...\n")
    key = home / "cfg" / "referee.key"
    key.parent.mkdir()
    key.write_text("private\n")
    (home / "cfg" / "referee.key.pub").write_text("public\n")
    (home / "notes.txt").write_text("mine\n")
    script = """
import json, os
points = [line.split()[4] for line in open("/proc/self/mountinfo")]
try:
    open("planted.txt", "w").write("x")
    planted = True
except OSError:
    planted = False
print(json.dumps({"points": points, "here": sorted(os.listdir(".")),
                  "cfg": sorted(os.listdir("cfg")), "notes": open("notes.txt").read(),
                  "planted": planted}))
"""
    box = choose("bwrap", hide=[home / "out", key])
    launch = box.launch([PY, "-c", script], cwd=home)
    try:
        done = subprocess.run(launch.argv, cwd=launch.cwd, env=launch.env,
                              preexec_fn=launch.preexec, capture_output=True, text=True,
                              timeout=60, check=False)
    finally:
        launch.close()
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert not [p for p in found["points"] if p.startswith(str(home / "out")) or
                p == str(key)], found["points"]
    assert found["here"] == ["cfg", "notes.txt"] and found["cfg"] == ["referee.key.pub"]
    assert found["notes"] == "mine\n" and not found["planted"]
