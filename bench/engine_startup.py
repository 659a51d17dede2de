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
import statistics
import subprocess
import sys
import time

ENGINE = [sys.executable, "-m", "xactika.frontends.cli", "engine"]
HEAVY = ("prompt_toolkit", "cattrs", "json", "asyncio", "pexpect", "xactika.frontends.play",
         "xactika.frontends.render", "xactika.protocol.jsonl", "xactika.protocol.client")


def engine_once() -> float:
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
    proc.wait()
    return elapsed


def python_once(code: str) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - t0


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
    bare: list[float] = []
    core: list[float] = []
    engine: list[float] = []
    engine_once()  # warm the disk cache and .pyc files
    for _ in range(args.runs):
        bare.append(python_once("pass"))
        core.append(python_once("import xactika.core"))
        engine.append(engine_once())
    b = statistics.median(bare)
    c = statistics.median(core)
    e = statistics.median(engine)
    print(f"{args.runs} runs each, median wall time")
    print(f"  python -c pass              {b * 1000:7.1f} ms   1.00x")
    print(f"  python -c 'import xactika.core' {c * 1000:5.1f} ms   {c / b:4.2f}x")
    print(f"  xactika engine to readyok   {e * 1000:7.1f} ms   {e / b:4.2f}x")
    heavy = sorted(m for m in loaded_modules()
                   if any(m == h or m.startswith(h + ".") for h in HEAVY))
    print(f"  heavy modules on the engine's path: {', '.join(heavy) or 'none'}")
    print(f"target: engine <= 2x bare python: {e / b:.2f}x "
          f"{'(met)' if e / b <= 2 else '(NOT met)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
