#!/usr/bin/env python3
"""A saboteur: at start-up it stops its parent and every sibling process with SIGSTOP.

Its siblings are the other bots of the runner (the same parent), its parent the runner:
stopped, the innocent bots time out and the runner hangs. It only signals those, never
``kill(-1)``, so a run of it outside a sandbox harms no one else on the machine. Each
signal that the kernel delivered is reported on stderr as ``STOPPED <pid>``.
"""

from __future__ import annotations

import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import play


def parent_of(pid: str) -> int:
    try:
        stat = open(f"/proc/{pid}/stat").read()
    except OSError:
        return -1
    return int(stat[stat.rindex(")") + 2:].split()[1])


def sabotage() -> None:
    me, parent = os.getpid(), os.getppid()
    targets = [int(p) for p in os.listdir("/proc")
               if p.isdigit() and int(p) != me and parent_of(p) == parent]
    for pid in [*targets, parent]:
        if pid <= 1:
            continue  # init of a PID namespace: nothing to gain there
        try:
            os.kill(pid, signal.SIGSTOP)
            sys.stderr.write(f"STOPPED {pid}\n")
        except OSError as exc:
            sys.stderr.write(f"could not stop {pid}: {exc.strerror}\n")
    sys.stderr.write(f"sigstop: {len(targets) + 1} targets\n")
    sys.stderr.flush()


if __name__ == "__main__":
    play("sigstop", {"hello": sabotage})
