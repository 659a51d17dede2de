"""Games per second through the engine's pipe, against the same game in-process.

The game: Xactika, Play to Bid, 4 players, 8 rounds, seed 1, seeded random moves. The
moves are computed once, beforehand, as command lines; the scripted controller then
plays them:

- ``pipe lockstep``: through ``xactika engine`` on stdin/stdout, sending one command and
  reading up to its final line before the next (what an interactive controller does);
- ``pipe pipelined``: the same, but writing every command of a game at once and then
  reading all the answers (the protocol answers in order, so a scripted controller may);
- ``session in-process``: the same lines fed to ``RefereeSession.feed`` in this process, the
  same answers produced, no pipe: **the peer the target is set against**, since the
  pipe is what this benchmark measures;
- ``core in-process``: the same moves as ``step(state, command)`` calls on core objects,
  with no text, no turn lines and no checks beyond the rules (shown for scale).

The engine is started once and reused (start-up is bench/engine_startup.py's business).
Target: pipe lockstep >= 50% of session in-process throughput. Wall-clock time, best of
``--repeat`` runs of ``--games`` games each.

Run by hand: ``.venv/bin/python bench/protocol_pipe.py [--games 20] [--repeat 5]``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from collections.abc import Callable

from xactika.core import Bid, Config, RandomAgent, legal_actions, new_game, step, view
from xactika.core.engine.api import Command
from xactika.protocol.referee.sansio import FINAL_WORDS, RefereeSession

CONFIG = Config(mode="bid", players=4, rounds=8, seed=1)
NEWGAME = "newgame mode=bid players=4 rounds=8 seed=1"


def script() -> tuple[list[Command], list[str]]:
    state = new_game(CONFIG)
    agents = [RandomAgent(s) for s in range(4)]
    commands: list[Command] = []
    lines: list[str] = []
    rules = state.rules
    while (legal := legal_actions(state)).seat is not None:
        cmd = agents[legal.seat].choose(view(state, legal.seat), legal)
        commands.append(cmd)
        if isinstance(cmd, Bid):
            lines.append(f"bid {cmd.seat} {cmd.bid}")
        else:
            call = "" if cmd.call is None else " " + rules.format_call(cmd.call)
            lines.append(f"play {cmd.seat} {cmd.card}{call}")
        state, _ = step(state, cmd)
    return commands, lines


def core_games(commands: list[Command], games: int) -> None:
    for _ in range(games):
        state = new_game(CONFIG)
        for cmd in commands:
            state, _ = step(state, cmd)
        assert state.over


def session_games(lines: list[str], games: int) -> None:
    session = RefereeSession()
    for _ in range(games):
        session.feed(NEWGAME)
        for line in lines:
            session.feed(line)
        assert session.state.over


class Pipe:
    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "xactika.frontends.cli", "engine"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0,
        )
        assert self.proc.stdin and self.proc.stdout
        self.w = self.proc.stdin
        self.r = self.proc.stdout
        self.reader = open(self.r.fileno(), "rb", closefd=False)
        self.command("isready")

    def command(self, line: str) -> str:
        self.w.write(line.encode() + b"\n")
        return self.final()

    def final(self) -> str:
        while True:
            raw = self.reader.readline()
            if not raw:
                raise RuntimeError("engine closed its output")
            if raw.split(b" ", 1)[0].rstrip(b"\n") in FINAL_BYTES:
                return raw.decode()

    def lockstep(self, lines: list[str], games: int) -> None:
        for _ in range(games):
            self.command(NEWGAME)
            for line in lines:
                if not self.command(line).startswith("ok"):
                    raise RuntimeError(line)

    def pipelined(self, lines: list[str], games: int) -> None:
        blob = ("\n".join([NEWGAME, *lines]) + "\n").encode()
        for _ in range(games):
            self.w.write(blob)
            for _ in range(len(lines) + 1):
                if not self.final().startswith("ok"):
                    raise RuntimeError("engine refused a move")

    def close(self) -> None:
        self.w.write(b"quit\n")
        self.w.close()
        self.proc.wait(timeout=10)


FINAL_BYTES = {w.encode() for w in FINAL_WORDS}


def child_cpu(pid: int | None) -> float:
    """A child's user + system CPU seconds so far (Linux /proc; 0 elsewhere)."""
    if pid is None:
        return 0.0
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return 0.0


def best(fn: Callable[[], None], repeat: int, pid: int | None = None) -> tuple[float, float]:
    """(best wall seconds, best CPU seconds of this process plus the engine's)."""
    walls, cpus = [], []
    for _ in range(repeat):
        c0, e0 = time.process_time(), child_cpu(pid)
        t0 = time.perf_counter()
        fn()
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0 + child_cpu(pid) - e0)
    return min(walls), min(cpus)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    commands, lines = script()
    n = args.games
    pipe = Pipe()
    pid = pipe.proc.pid
    try:
        results = {
            "core in-process": best(lambda: core_games(commands, n), args.repeat),
            "session in-process": best(lambda: session_games(lines, n), args.repeat),
            "pipe lockstep": best(lambda: pipe.lockstep(lines, n), args.repeat, pid),
            "pipe pipelined": best(lambda: pipe.pipelined(lines, n), args.repeat, pid),
        }
    finally:
        pipe.close()
    core = results["core in-process"]
    peer = results["session in-process"]
    print(f"game: Xactika bid, 4 players, 8 rounds, {len(lines)} commands; "
          f"{n} games per run, best of {args.repeat}")
    print("  wall: games/s, us/command, throughput vs session and core in-process;")
    print("  cpu: CPU seconds per game of both processes (steadier on a busy machine)")
    for name, (wall, cpu) in results.items():
        print(f"  {name:<20} wall {n / wall:7.1f} games/s {wall / n / len(lines) * 1e6:6.1f} us"
              f" {peer[0] / wall:5.0%} {core[0] / wall:5.0%}   cpu {cpu / n * 1000:6.1f} ms"
              f" {peer[1] / cpu:5.0%} {core[1] / cpu:5.0%}")
    wall_ratio = peer[0] / results["pipe lockstep"][0]
    cpu_ratio = peer[1] / results["pipe lockstep"][1]
    print(f"target: pipe lockstep >= 50% of session in-process: wall {wall_ratio:.0%}, "
          f"cpu {cpu_ratio:.0%} {'(met)' if wall_ratio >= 0.5 else '(NOT met)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
