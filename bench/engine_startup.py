"""Engine start-up: spawn ``xactika engine``, send ``isready``, time until ``readyok``.

Against the floor every Python program pays: ``python -c pass`` (spawn to exit), run
the same number of times in the same session, interleaved so that machine noise hits
both alike. Also shown: ``python -c "import xactika.core"`` (what the core alone costs)
and the engine's own import list, checked for modules that have no business there.
Target: engine median <= 2x the bare interpreter's median.

Run by hand: ``.venv/bin/python bench/engine_startup.py [--runs 30]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

ENGINE = [sys.executable, "-m", "xactika.frontends.cli", "engine"]
HEAVY = ("prompt_toolkit", "cattrs", "json", "asyncio", "pexpect", "xactika.frontends.repl.play",
         "xactika.frontends.repl.render", "xactika.protocol.jsonl", "xactika.protocol.client")


def _cpu(pid: int) -> float:
    """The child's user + system CPU seconds, reaped with wait4."""
    _, _, usage = os.wait4(pid, 0)
    return usage.ru_utime + usage.ru_stime


def engine_once() -> tuple[float, float]:
    """(wall seconds to readyok, CPU seconds of the whole run: start, isready, exit)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(ENGINE, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin and proc.stdout
    proc.stdin.write(b"isready\n")
    proc.stdin.flush()
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


def loaded_modules() -> set[str]:
    probe = (
        "import sys, io\n"
        "from xactika.frontends import cli\n"
        "sys.stdin = io.TextIOWrapper(io.BytesIO(b'isready\\n'))\n"
        "sys.stdout = io.TextIOWrapper(io.BytesIO())\n"
        "cli.main(['engine'])\n"
        "print(' '.join(sorted(sys.modules)), file=sys.stderr)\n"
    )
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True)
    return set(proc.stderr.split())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=30)
    args = ap.parse_args()
    bare: list[tuple[float, float]] = []
    core: list[tuple[float, float]] = []
    engine: list[tuple[float, float]] = []
    engine_once()  # warm the disk cache and .pyc files
    for _ in range(args.runs):
        bare.append(python_once("pass"))
        core.append(python_once("import xactika.core"))
        engine.append(engine_once())
    b = statistics.median(w for w, _ in bare)
    bc = statistics.median(c for _, c in bare)
    e = statistics.median(w for w, _ in engine)
    ec = statistics.median(c for _, c in engine)
    print(f"{args.runs} runs each, medians: wall time, and CPU time (user+sys; steadier on a "
          "busy machine)")
    rows = [("python -c pass", bare), ("python -c 'import xactika.core'", core),
            ("xactika engine to readyok", engine)]
    for name, times in rows:
        wall = statistics.median(w for w, _ in times)
        cpu = statistics.median(c for _, c in times)
        print(f"  {name:<32} wall {wall * 1000:7.1f} ms {wall / b:5.2f}x   "
              f"cpu {cpu * 1000:7.1f} ms {cpu / bc:5.2f}x")
    heavy = sorted(m for m in loaded_modules()
                   if any(m == h or m.startswith(h + ".") for h in HEAVY))
    print(f"  heavy modules on the engine's path: {', '.join(heavy) or 'none'}")
    print(f"target: engine <= 2x bare python: wall {e / b:.2f}x, cpu {ec / bc:.2f}x "
          f"{'(met)' if min(e / b, ec / bc) <= 2 else '(NOT met)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
