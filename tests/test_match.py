"""``xactika match``: faults end in named reasons, nothing survives, duplicates cancel luck.

Bots are real processes: the protocol's fault bot (tests/bots/fault_bot.py), the example
bots, and ``xactika bot random``. Every bot is started through tests/matchbots/
pgid_wrap.py, which notes its process group, so the tests can scan /proc for survivors.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from netkit import until

from xactika.core.engine.check import command_of
from xactika.frontends.match import runner as match
from xactika.frontends.match.sandbox import bwrap_works
from xactika.frontends.match.tournament import GameSpec, result_from_record
from xactika.protocol.records.assemble import read_think
from xactika.protocol.records.textform import read_record

ROOT = Path(__file__).resolve().parent.parent
FAULT_BOT = ROOT / "tests" / "bots" / "fault_bot.py"
WRAP = ROOT / "tests" / "matchbots" / "pgid_wrap.py"
PY = sys.executable

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def wrapped(pgids: Path, cmd: str) -> str:
    return f"{PY} {WRAP} {pgids} {cmd}"


def fault_bot(pgids: Path, fault: str, name: str | None = None) -> list[str]:
    return [f"name={name or fault}", f"cmd={wrapped(pgids, f'{PY} {FAULT_BOT} {fault}')}"]


def random_bot(pgids: Path, seed: int = 1, name: str = "rnd") -> list[str]:
    return [f"name={name}",
            f"cmd={wrapped(pgids, f'{PY} -m xactika.frontends.cli bot random --seed {seed}')}"]


def example_bot(pgids: Path, seed: int, name: str = "ex") -> list[str]:
    """The standard-library example bot: seeded, and quicker to start than the package."""
    script = ROOT / "examples" / "random_bot.py"
    return [f"name={name}", f"cmd={wrapped(pgids, f'{PY} {script} {seed}')}"]


def bot_args(*bots: list[str]) -> list[str]:
    out: list[str] = []
    for b in bots:
        out += ["--bot", *b]
    return out


def hung_children(pgids: Path) -> list[int]:
    """The ``sleep 300`` children of fault bots hung at their ``timeout`` (tests/bots/
    fault_bot.py), found by the marker pgid_wrap.py puts in their environment."""
    marker = f"XACTIKA_TEST_GROUP={pgids}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and (entry / "cmdline").read_bytes() == b"sleep\x00300\x00" \
                    and marker in (entry / "environ").read_bytes().split(b"\0"):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def survivors(pgids: Path, wait: float = 3.0, sandbox: str = "none") -> list[str]:
    """Live (non-zombie) processes in any group the runner started, or (sandboxed, where
    the bots cannot write the group files) carrying the marker pgid_wrap.py sets."""
    groups = {int(p.stem) for p in pgids.glob("*.pgid")}
    assert groups or sandbox != "none", "no bot was started"
    marker = f"XACTIKA_TEST_GROUP={pgids}".encode()
    deadline = time.monotonic() + wait
    while True:
        alive = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                stat = (entry / "stat").read_text()
                environ = (entry / "environ").read_bytes().split(b"\0")
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2:].split()
            state, pgrp = fields[0], int(fields[2])
            if (pgrp in groups or marker in environ) and state != "Z":
                alive.append(f"pid {entry.name} group {pgrp} state {state}")
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.1)


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict]:
    """The runner's JSON result; without a sandbox unless ``args`` name one (the group
    files of pgid_wrap.py can only be written outside it)."""
    if "--sandbox" not in args:
        args = [*args, "--sandbox", "none"]
    code = match.main([*args, "--json", "--progress", "none"])
    out = capsys.readouterr().out
    return code, (json.loads(out) if code == 0 else {})


def records(out: Path) -> list:
    return [read_record(p) for p in sorted((out / "games").glob("*.log"))]


def bot_row(result: dict, name: str) -> dict:
    return next(b for b in result["summary"]["bots"] if b["name"] == name)


# --------------------------------------------------------------------------- faults

FAULTS = [
    ("crash-start", "crash-startup"),
    ("crash-mid", "crash"),
    ("timeout", "timeout"),
    ("slow", "slow"),
    ("garbage", "garbage"),
    ("illegal", "illegal-move"),
    ("flood", "flood"),
    ("invalid-utf8", "invalid-utf8"),
    ("close-stdout", "closed-stdout"),
    ("double", "extra-answer"),
    ("stale", "extra-answer"),
    ("ignore-quit", "ignored-quit"),
]


SANDBOXES = ["none", pytest.param("bwrap", marks=pytest.mark.skipif(
    bwrap_works() is not None, reason=f"no sandbox here: {bwrap_works()}"))]


@pytest.mark.parametrize("sandbox", SANDBOXES)
@pytest.mark.parametrize(("fault", "reason"), FAULTS)
def test_a_faulty_bot_gets_its_reason_the_match_goes_on_and_nothing_survives(
    fault: str, reason: str, sandbox: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pgids = tmp_path / "pgids"
    pgids.mkdir()
    out = tmp_path / "out"
    code, result = run(
        [*bot_args(random_bot(pgids), fault_bot(pgids, fault)),
         "--each", "move=300ms", "startup=5s", "--players", "2", "--rounds", "1",
         "--deals", "1", "--seed", "4", "--quit-grace", "300ms", "--out", str(out),
         "--sandbox", sandbox],
        capsys,
    )
    assert code == 0
    recs = records(out)
    assert len(recs) == 2  # one deal, both seatings
    for rec in recs:
        seat = rec.header("seats").split(",").index(fault)
        assert rec.header("termination") == reason
        faults = [v for k, v in rec.headers if k == "fault"]
        assert faults and faults[0].startswith(f"{seat} {reason}")
        assert rec.events[-1].winners  # the game was played to its end
        # each answer's time: every one of rnd's; the faulty seat's only up to its fault
        # (a stand-in's moves are not its player's), all of them where only quit failed
        think = read_think(rec.headers, rec.events)
        own = {n: [e.seq for e in rec.events if (c := command_of(e)) is not None
                   and c.seat == n] for n in (0, 1)}
        assert all(q in think for q in own[1 - seat])
        assert all(q in think for q in own[seat]) == (reason == "ignored-quit")
    assert result["terminations"] == {reason: 2}
    bad, rnd = bot_row(result, fault), bot_row(result, "rnd")
    assert bad["faults"] == 2 and rnd["faults"] == 0
    if reason == "ignored-quit":
        # the game was over when quit came: its result stands (spec/MATCH.md)
        assert bad["forfeits"] == 0
        wins = {"rnd": 0.0, fault: 0.0}
        for rec in recs:
            names = rec.header("seats").split(",")
            over = rec.events[-1]
            for w in over.winners:
                wins[names[w]] += 1 / len(over.winners) / 2
        assert bad["win_share"]["mean"] == pytest.approx(wins[fault])
        assert rnd["win_share"]["mean"] == pytest.approx(wins["rnd"])
    else:
        # a forfeit: no share of the win, last place, charged the worst total
        assert bad["forfeits"] == 2
        assert bad["win_share"]["mean"] == 0.0 and bad["mean_rank"]["mean"] == 2.0
        assert rnd["win_share"]["mean"] == 1.0 and rnd["mean_rank"]["mean"] == 1.0
        worst = sum(min(r.events[-1].totals) for r in recs) / 2
        assert bad["points_per_hand"]["mean"] == pytest.approx(worst)
    assert survivors(pgids, sandbox=sandbox) == []


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_a_bot_that_never_answers_hello_times_out_at_start_up(
    sandbox: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pgids = tmp_path / "pgids"
    pgids.mkdir()
    script = ROOT / "tests" / "matchbots" / "mute_bot.py"
    mute = ["name=mute", "startup=300ms", f"cmd={wrapped(pgids, f'{PY} {script}')}"]
    code, result = run([*bot_args(example_bot(pgids, 1), mute), "--players", "2", "--rounds",
                        "1", "--deals", "1", "--seed", "1", "--out", str(tmp_path / "out"),
                        "--sandbox", sandbox], capsys)
    assert code == 0
    assert result["terminations"] == {"timeout-startup": 2}
    assert bot_row(result, "mute")["forfeits"] == 2
    assert survivors(pgids, sandbox=sandbox) == []


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_ctrl_c_and_sigterm_leave_no_process(sandbox: str, tmp_path: Path) -> None:
    for sig in (signal.SIGINT, signal.SIGTERM):
        pgids = tmp_path / f"pgids{sig}"
        pgids.mkdir()
        out = tmp_path / f"out{sig}"
        # bots that hang at their third answer, with a child process, and a long limit
        cmd = [PY, "-m", "xactika.frontends.cli", "match",
               *bot_args(fault_bot(pgids, "timeout", "a"), fault_bot(pgids, "timeout", "b")),
               "--each", "move=30s", "--players", "2", "--deals", "3", "--seed", "1",
               "--concurrency", "2", "--progress", "none", "--out", str(out),
               "--sandbox", sandbox]
        # Ctrl-C as at a terminal: a test run started in the background (`cmd &` in a
        # script) would pass SIGINT on ignored, and an ignored SIGINT stays ignored
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        # both games under way, each with a bot hung at its third answer and its child
        until(lambda pgids=pgids: len(hung_children(pgids)) >= 2,  # type: ignore[misc]
              "the bots hang, each with its child", 60)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=20)
        assert proc.returncode == 130, err
        assert "--resume" in err and "Traceback" not in err
        assert survivors(pgids, sandbox=sandbox) == []
        assert list((out / "games").glob("*.log")) == []  # no game finished, none faked


# --------------------------------------------------------------------------- duplicate deals


def test_identical_bots_score_identically_over_rotated_seats(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pgids = tmp_path / "pgids"
    pgids.mkdir()
    out = tmp_path / "out"
    code, result = run(
        [*bot_args(fault_bot(pgids, "none", "a"), fault_bot(pgids, "none", "b")),
         "--players", "4", "--rounds", "2", "--deals", "2", "--seed", "9",
         "--concurrency", "2", "--out", str(out)],
        capsys,
    )
    assert code == 0
    a, b = bot_row(result, "a"), bot_row(result, "b")
    for key in ("points_per_hand", "win_share", "mean_rank"):
        assert a[key]["mean"] == b[key]["mean"]
    pair = result["summary"]["pairs"][0]
    assert pair["points_per_hand"]["mean"] == 0 and pair["points_per_hand"]["hi"] == 0
    # per deal, what a scored from each seat b scored from the same seat
    by_deal: dict[str, dict[str, list[int]]] = {}
    for rec in records(out):
        names = rec.header("seats").split(",")
        totals = rec.events[-1].totals
        deal = by_deal.setdefault(rec.header("match.deal"), {"a": [0] * 4, "b": [0] * 4})
        for seat, name in enumerate(names):
            deal[name][seat] += totals[seat]
    assert len(by_deal) == 2
    for deal in by_deal.values():
        assert deal["a"] == deal["b"]
        assert len(set(deal["a"])) > 1  # the seats did hold different luck
    assert survivors(pgids) == []


def test_deal_file_written_and_read_back_plays_the_same_games(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pgids = tmp_path / "pgids"
    pgids.mkdir()
    bots = bot_args(fault_bot(pgids, "none", "a"), example_bot(pgids, 5))
    deals = tmp_path / "deals.txt"
    common = ["--players", "3", "--rounds", "2", "--mode", "win"]
    code, first = run([*bots, *common, "--deals", "2", "--seed", "77",
                       "--write-deals", str(deals), "--out", str(tmp_path / "one")], capsys)
    assert code == 0
    code, second = run([*bots, "--mode", "win", "--deal-file", str(deals),
                        "--out", str(tmp_path / "two")], capsys)
    assert code == 0
    assert first["summary"] == second["summary"]
    one = [r.events[1].hands for r in records(tmp_path / "one")]
    two = [r.events[1].hands for r in records(tmp_path / "two")]
    assert one == two
    assert records(tmp_path / "two")[0].events[0].config.deals is not None


# --------------------------------------------------------------------------- resume


def test_resume_after_killing_the_runner_gives_the_same_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pgids = tmp_path / "pgids"
    pgids.mkdir()
    script = ROOT / "examples" / "random_bot.sh"
    shell = ["name=sh", f"cmd={wrapped(pgids, f'sh {script} 7')}"]
    settings = [*bot_args(example_bot(pgids, 3), shell), "--players", "2", "--rounds", "2",
                "--deals", "5", "--seed", "5"]
    code, whole = run([*settings, "--out", str(tmp_path / "whole")], capsys)
    assert code == 0
    out = tmp_path / "cut"
    proc = subprocess.Popen([PY, "-m", "xactika.frontends.cli", "match", *settings,
                             "--progress", "none", "--out", str(out), "--sandbox", "none"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while len(list((out / "games").glob("*.log"))) < 3 and time.monotonic() < deadline:
        time.sleep(0.02)
    proc.kill()  # SIGKILL: no cleanup at all; records must still be whole
    proc.wait()
    done = len(list((out / "games").glob("*.log")))
    assert 0 < done < 10
    code, resumed = run(["--resume", "--out", str(out)], capsys)
    assert code == 0
    assert resumed["resumed_games"] == done
    assert resumed["summary"] == whole["summary"]
    assert resumed["terminations"] == whole["terminations"] == {"normal": 10}


# --------------------------------------------------------------------------- sequential test


def test_sprt_stops_once_the_difference_is_settled(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pgids = tmp_path / "pgids"
    pgids.mkdir()
    code, result = run(
        [*bot_args(fault_bot(pgids, "none", "good"), fault_bot(pgids, "crash-start", "bad")),
         "--players", "2", "--rounds", "1", "--deals", "200", "--seed", "5",
         "--concurrency", "2", "--sprt", "good,bad,0,0.5", "--out", str(tmp_path / "out")],
        capsys,
    )
    assert code == 0
    sprt = result["sprt"]
    assert sprt["verdict"] == "H1"
    deals = sprt["deals"]
    assert 10 <= deals < 100 and result["summary"]["deals"] == deals  # counted up to the stop
    assert sprt["llr"] >= sprt["bounds"][1]
    played = len(list((tmp_path / "out" / "games").glob("*.log")))
    # beyond the counted deals: the two games in flight at the stop, and at most one game
    # a worker of a later deal that finished before an earlier deal's last game (two
    # seatings of one deal never run at once, so a deal's second game can finish last)
    assert played <= 2 * deals + 4
    pair = result["summary"]["pairs"][0]
    assert pair["points_per_hand"]["lo"] > 0


# --------------------------------------------------------------------------- the CLI


def test_match_with_the_shell_example_bot_and_a_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code = match.main(["--bot", "name=sh", f"cmd=sh {ROOT / 'examples/random_bot.sh'} 3",
                       "--bot", "random", "--bot", "name=py", f"cmd={PY} random_bot.py",
                       f"dir={ROOT / 'examples'}",
                       "--players", "3", "--rounds", "1", "--deals", "2", "--seed", "2",
                       "--progress", "lines", "--out", str(out)])
    text = capsys.readouterr().out
    assert code == 0
    assert text.count("[normal]") == 6
    assert "(under each mean, its 95% interval)" in text and "sh - random" in text
    assert len(records(out)) == 6
    saved = json.loads((out / "results.json").read_text())
    assert saved["terminations"] == {"normal": 6}
    for rec in records(out):
        assert rec.header("termination") == "normal"
        cost = dict(w.partition("=")[::2] for w in (rec.header("runner.cost") or "").split())
        moves = sum(type(e).__name__ in ("BidMade", "Led", "Played") for e in rec.events)
        assert cost["decisions"] == str(moves) and cost["latency"].endswith("us"), cost
        game = GameSpec(int(rec.header("match.game")), int(rec.header("match.deal")), 0, 0,
                        (0, 1, 2))
        assert result_from_record(rec, game).hands == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "no bots"),
        (["--bot", "name=a"], "has no cmd="),
        (["--bot", "nosuchbot"], "unknown built-in bot 'nosuchbot'"),
        (["--bot", "random", "--bot", "random"], "two bots are named 'random'"),
        (["--bot", "random", "wat=1"], "unknown bot option 'wat'"),
        (["--bot", "random", "move=fast"], "bad move time 'fast'"),
        (["--bot", "random", "--players", "11"], "2 to 10 players"),
        (["--bot", "random", "--mode", "blitz"], "unknown mode 'blitz'"),
        (["--bot", "random", "--bot", "strong", "--sprt", "random,x,0,1"],
         "--sprt names 'x'"),
        (["--bot", "random", "--bot", "strong", "--concurrency", "0"],
         "--concurrency must be at least 1"),
        (["--bot", "random"], "one bot (random): a match needs two or more"),
        (["--resume"], "does not exist"),
        (["--bot", "name=a", "cmd=no-such-program --x"], "cannot run 'no-such-program'"),
    ],
)
def test_bad_options_get_one_clear_line(
    args: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = match.main([*args, "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2
    assert message in err and err.startswith("xactika match: ") and err.count("\n") == 1


def test_an_existing_match_is_not_overwritten(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    args = ["--bot", "random", "--bot", "strong", "--players", "2", "--rounds", "1",
            "--deals", "1", "--progress", "none", "--out", str(out)]
    assert match.main(args) == 0
    capsys.readouterr()
    assert match.main(args) == 2
    assert "already holds a match" in capsys.readouterr().err
    assert match.main([*args, "--resume", "--seed", "999"]) == 2
    assert "differ" in capsys.readouterr().err


def test_resume_with_more_deals_extends_a_seeded_match(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pgids = tmp_path / "pgids"
    pgids.mkdir()
    bots = bot_args(fault_bot(pgids, "none", "a"), example_bot(pgids, 2))
    common = ["--players", "2", "--rounds", "1", "--seed", "8"]
    code, whole = run([*bots, *common, "--deals", "3", "--out", str(tmp_path / "whole")],
                      capsys)
    assert code == 0
    out = tmp_path / "grown"
    code, _ = run([*bots, *common, "--deals", "2", "--out", str(out)], capsys)
    assert code == 0
    code, grown = run(["--resume", "--deals", "3", "--out", str(out)], capsys)
    assert code == 0
    assert grown["resumed_games"] == 4 and grown["summary"] == whole["summary"]
    assert json.loads((out / "match.json").read_text())["deals"] == 3


def test_kept_processes_are_reused_and_quit_at_the_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pgids = tmp_path / "pgids"
    pgids.mkdir()
    code, result = run(
        [*bot_args(fault_bot(pgids, "none", "keep"), fault_bot(pgids, "ignore-quit", "deaf"),
                   fault_bot(pgids, "crash-mid", "crash")),
         "--each", "restart=off", "move=300ms", "--players", "2", "--rounds", "1",
         "--deals", "2", "--seed", "6", "--quit-grace", "300ms", "--out", str(tmp_path / "o")],
        capsys,
    )
    assert code == 0
    started: dict[str, int] = {}
    for f in pgids.glob("*.pgid"):
        fault = f.read_text().split()[-1]
        started[fault] = started.get(fault, 0) + 1
    # 12 games, 8 seats per bot: a healthy bot starts once, a crashing one every game
    assert started == {"none": 1, "ignore-quit": 1, "crash-mid": 8}
    assert result["ignored_quit_at_end"] == ["deaf"]
    assert result["terminations"] == {"normal": 4, "crash": 8}
    assert bot_row(result, "deaf")["forfeits"] == 0
    assert survivors(pgids) == []


def test_on_a_terminal_a_progress_bar_shows_the_running_score(tmp_path: Path) -> None:
    pexpect = pytest.importorskip("pexpect")
    child = pexpect.spawn(
        PY, ["-m", "xactika.frontends.cli", "match", "--bot", "random", "--bot", "name=py",
             f"cmd={PY} {ROOT / 'examples' / 'random_bot.py'} 1", "--players", "2",
             "--rounds", "1", "--deals", "2", "--seed", "1", "--out", str(tmp_path / "out")],
        dimensions=(24, 120), timeout=30, encoding="utf-8",
    )
    child.expect(r"score \(points/hand\): random [-+]?\d")
    child.expect(r"100\.0%")
    child.expect("paired differences")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_a_games_own_option_is_played_kept_and_audited(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--top 2`` for Oh Hell: every game is dealt with it, its records audit strictly,
    the deal file carries it, and a resume asked for another top is refused."""
    from xactika.protocol.trust.audit import OK, audit_file
    from xactika.protocol.trust.signing import write_key

    signer = write_key(tmp_path / "key")
    out = tmp_path / "out"
    args = ["--game", "ohhell", "--top", "2", "--players", "3", "--rounds", "3",
            "--bot", "random", "--bot", "random", "name=r2", "--deals", "1", "--seed", "5",
            "--key", str(tmp_path / "key"), "--write-deals", str(tmp_path / "deals.txt")]
    code, _ = run([*args, "--out", str(out)], capsys)
    assert code == 0
    games = sorted((out / "games").glob("*.log"))
    assert games
    for path in games:
        record = read_record(path)
        assert record.events[0].config.option("top") == 2
        assert max(len(h) for h in record.events[1].hands) == 1  # round 1 of 1 up to 2
        report = audit_file(str(path), strict=True, trusted=(signer.public,))
        assert report.status == OK, report.problems
    assert "top=2" in (tmp_path / "deals.txt").read_text().splitlines()[2]
    assert json.loads((out / "match.json").read_text())["options"] == {"top": 2}
    assert match.main(["--resume", "--top", "3", "--out", str(out)]) == 2
    assert "--top 3 differs" in capsys.readouterr().err
