"""Hostile bots (tests/hostile/) against the match runner, with the sandbox on and off.

Each test plays the attack issue 11 describes and checks that it does no harm where the
runner promises so: a spy finds no deal, a saboteur stops nobody, a daemon holds nothing
of the runner's, a stderr flood leaves a capped file, a NUL in stderr breaks nothing.
Without the sandbox a bot can read the deals (the runner says so loudly); the spy test
checks that too, so the warning is not an empty one.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from xactika.frontends.match import runner as match
from xactika.frontends.match.sandbox import UNSANDBOXED, bwrap_works
from xactika.protocol.records.textform import read_record

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = ROOT / "tests" / "hostile"
FAULT_BOT = ROOT / "tests" / "bots" / "fault_bot.py"
WRAP = ROOT / "tests" / "matchbots" / "pgid_wrap.py"
EXAMPLE = ROOT / "examples" / "random_bot.py"
PY = sys.executable

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
BWRAP = pytest.mark.skipif(bwrap_works() is not None, reason=f"no sandbox: {bwrap_works()}")
SANDBOXES = ["none", pytest.param("bwrap", marks=BWRAP)]


def honest(seed: int = 1) -> list[str]:
    return ["--bot", "name=honest", f"cmd={PY} {EXAMPLE} {seed}"]


def hostile(name: str, *args: str, marker: Path | None = None) -> list[str]:
    cmd = f"{PY} {HOSTILE / f'{name}_bot.py'} {' '.join(args)}"
    if marker is not None:  # pgid_wrap.py marks every descendant, so tests can end them
        cmd = f"{PY} {WRAP} {marker} {cmd}"
    return ["--bot", f"name={name}", f"cmd={cmd}"]


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict, str]:
    code = match.main([*args, "--json", "--progress", "none"])
    captured = capsys.readouterr()
    return code, (json.loads(captured.out) if code == 0 else {}), captured.err


def marked(marker: Path) -> list[int]:
    """Live processes that carry pgid_wrap.py's marker for ``marker``."""
    tag = f"XACTIKA_TEST_GROUP={marker}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if tag in Path(f"/proc/{entry}/environ").read_bytes().split(b"\0"):
                stat = Path(f"/proc/{entry}/stat").read_text()
                if stat[stat.rindex(")") + 2] != "Z":
                    found.append(int(entry))
        except OSError:
            continue
    return found


def end_marked(marker: Path) -> None:
    for pid in marked(marker):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


GAME = ["--players", "2", "--rounds", "1", "--seed", "3", "--each", "move=2s", "startup=10s"]


# --------------------------------------------------------------------------- the spy


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_the_spy_finds_the_deals_only_without_the_sandbox(
    sandbox: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the worst case: the match folder inside the bot's own folder, its path on the cmd
    home = tmp_path / "bot"
    old = home / "runs" / "last-week"  # an earlier match kept in the bot's folder
    old.mkdir(parents=True)
    (old / "match.json").write_text("{}\n")
    (old / "deals.txt").write_text("deal 1 1111,1112\n")
    out = home / "out"
    deals = out / "deals.txt"
    code, result, err = run([*honest(), *hostile("spy", str(deals), str(old / "deals.txt")),
                             "--out", str(out), "--deals", "1", "--sandbox", sandbox, *GAME],
                            capsys)
    assert code == 0
    seen = (out / "stderr" / "spy.txt").read_text()
    assert "spy: looked at" in seen  # it ran, twice
    if sandbox == "none":
        assert "LEAKED" in seen and "last-week" in seen  # the attack is real: the warning
        assert result["warnings"] == [UNSANDBOXED] and UNSANDBOXED in err
    else:
        assert "LEAKED" not in seen, seen
        assert result["warnings"] == [] and result["sandbox"] == "bwrap"


def test_an_unsandboxed_match_says_so_in_its_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = ["--bot", "name=other", f"cmd={PY} {EXAMPLE} 2"]
    code = match.main([*honest(1), *other, "--out", str(tmp_path / "out"), "--deals", "1",
                       "--sandbox", "none", "--progress", "none", *GAME])
    printed = capsys.readouterr().out
    assert code == 0
    assert printed.splitlines()[0].startswith(f"xactika match: WARNING {UNSANDBOXED}")
    assert f"WARNING {UNSANDBOXED}" in printed.splitlines()[-1]


# --------------------------------------------------------------------------- SIGSTOP


@BWRAP
def test_the_sigstop_bot_stops_nobody_in_the_sandbox(tmp_path: Path) -> None:
    out = tmp_path / "out"
    cmd = [PY, "-m", "xactika.frontends.cli", "match", *honest(), *hostile("sigstop"),
           "--out", str(out), "--deals", "2", "--sandbox", "bwrap", "--json",
           "--progress", "none", *GAME]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        stdout, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:  # it hung: let it go, then fail
            os.kill(proc.pid, signal.SIGCONT)
            proc.kill()
    assert proc.returncode == 0, err
    result = json.loads(stdout)
    assert result["terminations"] == {"normal": 4}
    row = next(b for b in result["summary"]["bots"] if b["name"] == "honest")
    assert row["faults"] == 0
    said = (out / "stderr" / "sigstop.txt").read_text()
    assert "sigstop:" in said and "STOPPED" not in said


# --------------------------------------------------------------------------- daemons


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_a_daemon_holding_the_pipes_costs_the_runner_no_thread_and_no_descriptor(
    sandbox: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    marker = tmp_path / "marker"
    marker.mkdir()
    fds = len(os.listdir("/proc/self/fd"))
    threads = threading.active_count()
    try:
        started = time.monotonic()
        code, result, _ = run([*honest(), *hostile("daemon", "60", marker=marker),
                               "--out", str(tmp_path / "out"), "--deals", "5",
                               "--sandbox", sandbox, *GAME], capsys)
        took = time.monotonic() - started
        assert code == 0 and result["terminations"] == {"normal": 10}
        if sandbox == "none":
            assert marked(marker), "the daemons escaped the group (the attack is real)"
        else:
            assert marked(marker) == []  # they died with the sandbox's PID namespace
        # the runner's own threads (one spawner, at most) and descriptors are as before
        assert threading.active_count() <= threads + 1
        assert len(os.listdir("/proc/self/fd")) <= fds + 1
        assert took < 10 * 2.0 + 5  # no second lost per game waiting on the daemon's pipe
    finally:
        end_marked(marker)


# --------------------------------------------------------------------------- stderr


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_a_stderr_flood_leaves_a_capped_file_that_says_what_was_cut(
    sandbox: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code, result, _ = run([*honest(), *hostile("flood", "50"), "--out", str(out),
                           "--deals", "1", "--sandbox", sandbox, "--stderr-keep", "16K",
                           *GAME], capsys)
    assert code == 0 and result["terminations"] == {"normal": 2}
    data = (out / "stderr" / "flood.txt").read_bytes()
    assert len(data) < 2 * (2 * 16 * 1024 + 100)  # two processes, head and tail each
    assert data.count(b"FLOOD-START") == 2 and data.count(b"FLOOD-END") == 2
    assert data.count(b"MB cut ...]") == 2  # "[... 52.4 MB cut ...]"


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_a_nul_in_a_crashing_bots_stderr_is_escaped_and_resume_survives(
    sandbox: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    bad = ["--bot", "name=nul", f"cmd={PY} {FAULT_BOT} stderr-nul"]
    args = [*honest(), *bad, "--out", str(out), "--deals", "1", "--sandbox", sandbox, *GAME]
    code, result, err = run(args, capsys)
    assert code == 0, err
    assert result["terminations"] == {"crash": 2}
    for path in sorted((out / "games").glob("*.log")):
        fault = dict(read_record(path).headers)["fault"]
        assert "a NUL \\x00 and an ESC \\x1b[2J here" in fault
        assert "\x00" not in path.read_text() and "\x1b" not in path.read_text()
    code, again, err = run([*args, "--resume"], capsys)
    assert code == 0, err
    assert again["resumed_games"] == 2 and again["terminations"] == {"crash": 2}


# --------------------------------------------------------------------------- the REPL


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_the_repl_reports_a_seat_that_closed_its_input_once_and_plays_on(sandbox: str) -> None:
    from xactika.core.engine.api import Bid
    from xactika.core.games.xactika import SHAPE_TOKENS
    from xactika.frontends.repl import play
    from xactika.frontends.repl.render import PLAIN

    args = play.build_parser().parse_args(
        ["--players", "2", "--rounds", "2", "--seed", "5", "--mode", "bid", "--move-timeout",
         "1", "--sandbox", sandbox, "--seat", f"2=cmd:{PY} {FAULT_BOT} close-stdin"])
    session = play.setup(args, PLAIN)
    said = list(session.advance())
    try:
        while not session.over:
            seat = session.human_to_act
            assert seat is not None
            found = session.hint(seat)
            assert found is not None
            command = found[0]
            if isinstance(command, Bid):
                line = f"bid {command.bid}"
            else:
                pos = session.shown_hand(seat).index(command.card) + 1
                call = "" if command.call is None else f" {SHAPE_TOKENS[command.call.shape]}"
                line = f"play {pos}{call}"
            reply = session.handle(line)
            assert reply.moved, reply.text
            said += reply.text.splitlines()
    finally:
        session.close()
    text = " ".join(" ".join(said).split())  # lines are wrapped to the terminal
    assert text.count("faulted") == 1, text
    assert "faulted (closed-stdin: " in text and "a random bot takes over the seat" in text
    assert "internal error" not in text


# --------------------------------------------------------------------------- limits, wipe


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_a_kept_process_finds_its_private_directory_empty_at_every_game(
    sandbox: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code, result, _ = run([*honest(), *hostile("keeper"), "--out", str(out), "--deals", "2",
                           "--each", "restart=off", "--sandbox", sandbox, *GAME], capsys)
    assert code == 0 and result["terminations"] == {"normal": 4}
    said = (out / "stderr" / "keeper.txt").read_text()
    assert said.count("keeper: nothing kept") == 4 and "KEPT" not in said


@pytest.mark.parametrize("sandbox", SANDBOXES)
@pytest.mark.parametrize(("limits", "script", "why"), [
    ({"cpu": "1"}, "while True: pass", "killed by signal SIGXCPU"),
    # Python ignores SIGXFSZ: the write fails instead
    ({"fsize": "1M"}, "open('big', 'wb').write(bytes(2 << 20))", "File too large"),
    ({"memory": "200M"}, "x = bytearray(400 << 20)", "MemoryError"),
])
def test_limits_end_a_bot_that_spins_or_writes_without_end(
    sandbox: str, limits: dict[str, str], script: str, why: str
) -> None:
    from xactika.frontends.match.sandbox import choose, limits_from
    from xactika.protocol.player.process import BotCrashed, PlayerProcess

    box = choose(sandbox, limits_from(limits))
    code = f"import os\nos.chdir(os.environ['TMPDIR'])\n{script}\n"
    player = PlayerProcess([PY, "-c", code], sandbox=box, startup_timeout=20)
    with pytest.raises(BotCrashed, match=why):
        player.start()


def test_private_directories_of_a_killed_runner_are_swept_by_the_next(tmp_path: Path) -> None:
    from xactika.frontends.match.sandbox import PRIVATE_PREFIX, Sandbox

    dead = subprocess.Popen([PY, "-c", "pass"])
    dead.wait()  # a runner that died (SIGKILL leaves its bots' folders behind)
    left = tmp_path / f"{PRIVATE_PREFIX}{dead.pid}-abc"
    (left / "sub").mkdir(parents=True)
    (left / "sub" / "kept").write_text("what it saw\n")
    (left / "sub").chmod(0o500)  # a bot may make its folders read-only
    alive = tmp_path / f"{PRIVATE_PREFIX}{os.getpid()}-xyz"
    alive.mkdir()
    launch = Sandbox("none", base=str(tmp_path)).launch([PY, "-c", "pass"])
    try:
        assert not left.exists() and alive.exists()
        # a seat's folder lies in the runner's own folder, which no other user may enter
        parent = Path(launch.private).parent
        assert parent.name.startswith(f"{PRIVATE_PREFIX}{os.getpid()}-")
        assert parent.parent == tmp_path and parent.stat().st_mode & 0o777 == 0o700
    finally:
        launch.close()
    assert not Path(launch.private).exists()
