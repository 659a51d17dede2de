#!/usr/bin/env python3
"""A spy: it looks for the match's deals where a bot of the same user can reach them.

It follows /proc/<parent>/cwd and the runner's command line (``--out DIR``) to the match
folder, tries every path given on its own command line, and reads /proc/<pid>/cwd of
every process it can see. Whatever deal file it finds, it reports on stderr as
``LEAKED <path> <first deal line>``; a line ``spy: looked at N places`` says it ran.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import play


def candidates() -> list[str]:
    places = list(sys.argv[1:])
    pids = [p for p in os.listdir("/proc") if p.isdigit()]
    for pid in [str(os.getppid()), *pids]:
        base = f"/proc/{pid}"
        places.append(f"{base}/cwd/deals.txt")
        try:
            argv = open(f"{base}/cmdline", "rb").read().split(b"\0")
        except OSError:
            continue
        for i, word in enumerate(argv[:-1]):
            if word == b"--out":
                out = argv[i + 1].decode(errors="replace")
                places += [os.path.join(out, "deals.txt"), f"{base}/cwd/{out}/deals.txt"]
    return places


def spy() -> None:
    places = candidates()
    for path in places:
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                deal = next((line for line in fh if line.startswith("deal ")), "")
        except OSError:
            continue
        if deal:
            sys.stderr.write(f"LEAKED {path} {deal[:60]}\n")
    sys.stderr.write(f"spy: looked at {len(places)} places\n")
    sys.stderr.flush()


if __name__ == "__main__":
    play("spy", {"hello": spy})
