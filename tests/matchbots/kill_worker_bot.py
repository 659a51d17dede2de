#!/usr/bin/env python3
"""``kill_worker_bot.py MARKER SEED``: kill the Ray worker that started it, once.

The first time (MARKER absent) it makes MARKER and SIGKILLs its nearest ancestor that is
a Ray worker process, as a crashed node would, then exits; afterwards it is
examples/random_bot.py with SEED. tests/test_cluster.py checks the game is played again
once, and that the table equals a local run's. Only without a sandbox (it must see its
ancestors).
"""

import os
import runpy
import signal
import sys
from pathlib import Path

marker, seed = Path(sys.argv[1]), sys.argv[2]
try:
    fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
except FileExistsError:
    sys.argv = [sys.argv[0], seed]
    runpy.run_path(str(Path(__file__).resolve().parents[2] / "examples" / "random_bot.py"),
                   run_name="__main__")
    sys.exit(0)
os.close(fd)
pid = os.getppid()
for _ in range(4):
    cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    if cmdline.startswith(b"ray::") or b"default_worker" in cmdline:
        os.kill(pid, signal.SIGKILL)
        break
    stat = Path(f"/proc/{pid}/stat").read_text()
    pid = int(stat[stat.rindex(")") + 2:].split()[1])
sys.exit(1)
