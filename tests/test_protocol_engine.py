"""`xactika engine` as a real process: pipes, exit codes, piping records, kill -9."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from xactika.core import Bid, Config, RandomAgent, legal_actions, view
from xactika.core.bots.agents import self_play
from xactika.protocol.records.textform import format_record, read_record
from xactika.protocol.referee.sansio import FINAL_WORDS, RefereeSession

ENGINE = [sys.executable, "-m", "xactika.frontends.cli", "engine"]
NONCE = "5" * 32  # fixed, so the engine and an in-process reference commit alike


class Engine:
    """A minimal controller: send a line, read up to and including the final line."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [*ENGINE, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )

    def send(self, line: str | bytes) -> list[str]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(line if isinstance(line, bytes) else line.encode() + b"\n")
        self.proc.stdin.flush()
        out: list[str] = []
        while True:
            raw = self.proc.stdout.readline()
            assert raw, f"engine closed stdout; stderr: {self.proc.stderr.read()!r}"  # type: ignore[union-attr]
            text = raw.decode("utf-8")
            assert text.endswith("\n")
            out.append(text[:-1])
            if out[-1].split(" ", 1)[0] in FINAL_WORDS:
                return out

    def close(self) -> tuple[int, bytes]:
        assert self.proc.stdin is not None and self.proc.stderr is not None
        self.proc.stdin.close()
        code = self.proc.wait(timeout=10)
        return code, self.proc.stderr.read()


def command_for(state: object, cmd: object) -> str:
    if isinstance(cmd, Bid):
        return f"bid {cmd.seat} {cmd.bid}"
    rules = state.rules  # type: ignore[attr-defined]
    call = "" if cmd.call is None else " " + rules.format_call(cmd.call)  # type: ignore[attr-defined]
    return f"play {cmd.seat} {cmd.card}{call}"  # type: ignore[attr-defined]


def scripted_moves(config: Config, seed: int) -> list[str]:
    """The command lines of a whole random game, computed in-process."""
    ref = RefereeSession(seeds=lambda: 0)
    ref.feed("newgame " + " ".join(f"{k}={v}" for k, v in (
        ("mode", config.mode), ("players", config.players), ("rounds", config.rounds),
        ("seed", config.seed))))
    agents = [RandomAgent(seed + s) for s in range(config.players)]
    lines = []
    while (legal := legal_actions(ref.state)).seat is not None:
        cmd = agents[legal.seat].choose(view(ref.state, legal.seat), legal)
        line = command_for(ref.state, cmd)
        assert ref.feed(line)[-1].startswith("ok ")
        lines.append(line)
    return lines


def test_handshake_game_and_quit_through_pipes() -> None:
    engine = Engine()
    assert engine.send("hello 1")[-1] == "ok hello"
    assert engine.send("isready") == ["readyok"]
    config = Config(mode="bid", players=4, rounds=1, seed=5)
    out = engine.send("newgame mode=bid players=4 rounds=1 seed=5")
    assert out[-1] == "ok newgame" and out[-2].startswith("turn bid seat=1 ")
    for line in scripted_moves(config, 1):
        out = engine.send(line)
        assert out[-1].startswith("ok "), out
        assert all(o.split()[0] in ("event", "turn", "ok") for o in out)
    assert engine.send("turn") == ["turn none", "ok turn"]
    assert engine.send(b"\xff\xfe\n")[0].startswith("error utf8 ")
    assert engine.send(b"x" * 70000 + b"\n")[0].startswith("error toolong ")
    assert engine.send("bid 0 1\r")[0].startswith("error over ")
    assert engine.send("quit") == ["ok quit"]
    code, err = engine.close()
    assert code == 0 and err == b""


def test_end_of_input_ends_the_engine_cleanly() -> None:
    proc = subprocess.run([*ENGINE], input=b"isready\nhello", capture_output=True, timeout=20)
    assert proc.returncode == 0
    assert proc.stdout.decode().splitlines()[0] == "readyok"
    assert proc.stdout.decode().splitlines()[-1] == "ok hello"  # a last line without \n
    assert proc.stderr == b""


def test_a_record_piped_into_the_engine_rebuilds_the_game(tmp_path: Path) -> None:
    config = Config(mode="lose", players=3, rounds=2, seed=17)
    state, events = self_play(config, [RandomAgent(s) for s in range(3)])
    record = tmp_path / "game.log"
    record.write_text(format_record({"seats": "a,b,c"}, events))
    script = record.read_bytes() + b"show\n"
    proc = subprocess.run(ENGINE, input=script, capture_output=True, timeout=20)
    lines = proc.stdout.decode().splitlines()
    assert proc.returncode == 0 and proc.stderr == b""
    assert not [ln for ln in lines if ln.startswith("error")]
    totals = ",".join(str(t) for t in state.totals)
    shown = [ln for ln in lines if ln.startswith("state seat=")]
    assert [ln.split("total=")[1] for ln in shown] == totals.split(",")
    assert lines[-2:] == ["turn none", "ok show"]


def test_bad_arguments_exit_2() -> None:
    proc = subprocess.run([*ENGINE, "--seat", "x"], capture_output=True, timeout=20)
    assert proc.returncode == 2 and b"--seat" in proc.stderr


def test_kill_9_loses_nothing_and_load_continues(tmp_path: Path) -> None:
    config = Config(mode="bid", players=4, rounds=2, seed=23)
    moves = scripted_moves(config, 40)
    newgame = f"newgame mode=bid players=4 rounds=2 seed=23 nonce={NONCE}"
    reference = RefereeSession(seeds=lambda: 0)
    reference.feed(newgame)
    for line in moves:
        reference.feed(line)

    path = tmp_path / "live.log"
    engine = Engine("--record", str(path))
    engine.send(newgame)
    half = len(moves) // 2
    for line in moves[:half]:
        engine.send(line)
    engine.proc.send_signal(signal.SIGKILL)
    engine.proc.wait(timeout=10)
    assert engine.proc.returncode == -signal.SIGKILL

    saved = read_record(path)
    assert saved.events == reference.log[: len(saved.events)]
    printed_through = half  # every command above was answered, so all its events are on disk
    before = RefereeSession(seeds=lambda: 0)
    before.feed(newgame)
    for line in moves[:printed_through]:
        before.feed(line)
    assert saved.events == before.log

    second = Engine("--files", str(tmp_path))
    assert second.send("load live.log")[-1] == "ok load"
    for line in moves[half:]:
        assert second.send(line)[-1].startswith("ok ")
    shown = second.send("show")
    assert shown == reference.feed("show")
    def events(lines: list[str]) -> list[str]:  # without the hash chain: dates differ
        return [ln.rsplit(" h=", 1)[0] for ln in lines if ln.startswith("event ")]

    assert events(second.send("log")) == events(reference.feed("log"))
    assert second.send("quit") == ["ok quit"]
    assert second.close()[0] == 0


def test_kill_9_mid_stream_leaves_a_loadable_prefix(tmp_path: Path) -> None:
    """Killed while busy, not between commands: the record is still a clean prefix."""
    config = Config(mode="win", players=3, rounds=3, seed=31)
    moves = scripted_moves(config, 9)
    newgame = f"newgame mode=win players=3 rounds=3 seed=31 nonce={NONCE}"
    reference = RefereeSession(seeds=lambda: 0)
    reference.feed(newgame)
    for line in moves:
        reference.feed(line)
    path = tmp_path / "busy.log"
    proc = subprocess.Popen([*ENGINE, "--record", str(path)], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert proc.stdin is not None
    proc.stdin.write(("\n".join([newgame, *moves]) + "\n").encode())
    proc.stdin.flush()
    deadline = time.monotonic() + 20
    while (not path.exists() or path.stat().st_size < 2000) and time.monotonic() < deadline:
        time.sleep(0.001)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    saved = read_record(path)
    assert 2 <= len(saved.events) <= len(reference.log)
    assert saved.events == reference.log[: len(saved.events)]
    resumed = RefereeSession(files=tmp_path)
    assert resumed.feed("load busy.log")[-1] == "ok load"
    assert resumed.log == reference.log[: len(resumed.log)]


def test_seat_option_starts_in_that_view(tmp_path: Path) -> None:
    path = tmp_path / "fs.log"
    engine = Engine("--seat", "1", "--record", str(path), "--fsync")
    out = engine.send("newgame players=3 rounds=1 seed=8")
    hands = out[1].split("hands=")[1].split()[0].split("/")
    assert hands[0] == "?" and hands[2] == "?" and hands[1] != "?"
    assert "seed=" not in out[0]
    # the record is the referee's, complete, whatever the view
    assert read_record(path).events[0].config.seed == 8
    assert engine.send("quit") == ["ok quit"]
    assert engine.close()[0] == 0
