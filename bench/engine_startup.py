"""Start-up: spawn ``xactika engine`` (or ``xactika bot random``), time until ``readyok``.

Against the floor every Python program pays: ``python -c pass`` (spawn to exit), run
the same number of times in the same session, interleaved so that machine noise hits
both alike. Also shown: ``python -c "import xactika.core"`` (what the core alone costs),
``xactika bot random`` through ``hello``/``isready`` (a match starts one per seat and
game), and each one's import list, checked for modules that have no business there.
Target: median <= 2x the bare interpreter's median. CPU time (user + sys of the whole
run) is the steadier figure on a shared machine; wall time is to ``readyok``.

Measured 2026-11-23 on the 2-core machine under load (load average 6 to 10), CPU:
``xactika bot random`` 5.0x -> 1.25x once it answers from the go line without the core
(protocol/player/lean.py) and reads its arguments without argparse; the engine
5.0x -> 4.5x (the bots' module, secrets and hashlib no longer loaded with the core).
What the engine still pays, measured by ``-X importtime`` and a profile of the import:
attrs itself (``import attrs`` alone about 1.3x the bare start: inspect, platform), the
code attrs compiles for each class (about 40% of the import: 39 classes in core/engine/,
32 in protocol/referee/sansio.py), and hashlib, secrets, tempfile, shutil, bz2 and lzma from
protocol/trust/tamper.py and protocol/trust/signing.py, used only once a game starts or a key is
written.

Measured 2026-11-27 (issue 35, wire.py's typed parser, 474 -> 786 lines, which the random
bot loads), each tree run by this script in turn, 20 runs: ``xactika bot random`` CPU
1.14x -> 1.16x with .pyc files (as installed), 1.47x -> 1.62x without (this machine sets
PYTHONDONTWRITEBYTECODE, so each start compiles wire.py: about 1.5 ms more).

Run by hand: ``.venv/bin/python bench/engine_startup.py [--runs 30]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

CLI = [sys.executable, "-m", "xactika.frontends.cli"]
ENGINE = ["engine"]
BOT = ["bot", "random", "--seed", "1"]
HEAVY = ("prompt_toolkit", "cattrs", "json", "asyncio", "pexpect", "xactika.frontends.repl.play",
         "xactika.frontends.repl.render", "xactika.protocol.records.jsonl",
         "xactika.protocol.player.process",
         "xactika.core.bots")
BOT_HEAVY = (*HEAVY, "xactika.core", "attrs", "attr", "argparse", "typing")


def _cpu(pid: int) -> float:
    """The child's user + system CPU seconds, reaped with wait4."""
    _, _, usage = os.wait4(pid, 0)
    return usage.ru_utime + usage.ru_stime


def cli_once(argv: list[str]) -> tuple[float, float]:
    """(wall seconds to readyok, CPU seconds of the whole run: start, isready, exit)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(CLI + argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin and proc.stdout
    proc.stdin.write(b"hello 1\nisready\n" if argv == BOT else b"isready\n")
    proc.stdin.flush()
    line = proc.stdout.readline()
    if argv == BOT and line.startswith(b"hello 1 "):
        line = proc.stdout.readline()
    elapsed = time.perf_counter() - t0
    if line != b"readyok\n":
        raise RuntimeError(f"expected readyok, got {line!r}")
    proc.stdin.close()
    cpu = _cpu(proc.pid)
    proc.returncode = 0  # reaped above
    return elapsed, cpu


def python_once(code: str) -> tuple[float, float]:
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", code])
    cpu = _cpu(proc.pid)
    elapsed = time.perf_counter() - t0
    proc.returncode = 0
    return elapsed, cpu


def loaded_modules(argv: list[str]) -> set[str]:
    """Every module ``xactika ARGV`` has loaded when its input ends after ``isready``."""
    probe = (
        "import atexit, runpy, sys\n"
        "atexit.register(lambda: print(*sorted(sys.modules), file=sys.stderr))\n"
        "sys.argv[0] = 'xactika'\n"
        "runpy.run_module('xactika.frontends.cli', run_name='__main__', alter_sys=True)\n"
    )
    proc = subprocess.run([sys.executable, "-c", probe, *argv], input="isready\n",
                          capture_output=True, text=True, check=True)
    return set(proc.stderr.split())


def heavy(argv: list[str], names: tuple[str, ...]) -> str:
    found = sorted(m for m in loaded_modules(argv)
                   if any(m == h or m.startswith(h + ".") for h in names))
    return ", ".join(found) or "none"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=30)
    args = ap.parse_args()
    rows: dict[str, list[tuple[float, float]]] = {
        "python -c pass": [], "python -c 'import xactika.core'": [],
        "xactika engine to readyok": [], "xactika bot random to readyok": [],
    }
    cli_once(ENGINE)  # warm the disk cache and .pyc files
    cli_once(BOT)
    for _ in range(args.runs):
        rows["python -c pass"].append(python_once("pass"))
        rows["python -c 'import xactika.core'"].append(python_once("import xactika.core"))
        rows["xactika engine to readyok"].append(cli_once(ENGINE))
        rows["xactika bot random to readyok"].append(cli_once(BOT))
    b = statistics.median(w for w, _ in rows["python -c pass"])
    bc = statistics.median(c for _, c in rows["python -c pass"])
    print(f"{args.runs} runs each, medians: wall time, and CPU time (user+sys; steadier on a "
          "busy machine)")
    for name, times in rows.items():
        wall = statistics.median(w for w, _ in times)
        cpu = statistics.median(c for _, c in times)
        print(f"  {name:<32} wall {wall * 1000:7.1f} ms {wall / b:5.2f}x   "
              f"cpu {cpu * 1000:7.1f} ms {cpu / bc:5.2f}x")
    print(f"  heavy modules on the engine's path: {heavy(ENGINE, HEAVY)}")
    print(f"  heavy modules on the random bot's path: {heavy(BOT, BOT_HEAVY)}")
    for name in ("xactika engine to readyok", "xactika bot random to readyok"):
        e = statistics.median(w for w, _ in rows[name])
        ec = statistics.median(c for _, c in rows[name])
        print(f"target: {name.split(' to ')[0]} <= 2x bare python: wall {e / b:.2f}x, "
              f"cpu {ec / bc:.2f}x {'(met)' if min(e / b, ec / bc) <= 2 else '(NOT met)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
