#!/usr/bin/env python3
"""A bot that tries to undo its sandbox's mounts (it needs CAP_SYS_ADMIN to succeed).

Run by root, bubblewrap keeps capabilities unless told to drop them: this bot unmounts
every path named on its command line (the tmpfs that hides the match folder, stacked
once or more), reads the deal file there, and remounts its own read-only folder
writable to plant a file. It reports ``LEAKED <line>`` and ``WROTE <path>`` on stderr,
and ``mount: tried`` so a test knows it ran.
"""

from __future__ import annotations

import ctypes
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import play

MS_REMOUNT, MS_BIND, MNT_DETACH = 32, 4096, 2


def attack() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    hidden, deals = sys.argv[1], sys.argv[2]
    for _ in range(4):  # the hiding tmpfs may be stacked
        libc.umount2(hidden.encode(), MNT_DETACH)
    try:
        with open(deals, encoding="utf-8", errors="replace") as fh:
            sys.stderr.write(f"LEAKED {fh.readline()[:60]}\n")
    except OSError:
        pass
    mine = os.path.dirname(os.path.abspath(__file__))
    libc.mount(None, mine.encode(), None, MS_REMOUNT | MS_BIND, None)
    planted = os.path.join(mine, "planted.txt")
    try:
        with open(planted, "w", encoding="utf-8") as fh:
            fh.write("pwned\n")
        sys.stderr.write(f"WROTE {planted}\n")
    except OSError:
        pass
    sys.stderr.write("mount: tried\n")
    sys.stderr.flush()


if __name__ == "__main__":
    play("mount", {"hello": attack})
