#!/usr/bin/env python3
"""A bot that leaves a ``setsid`` daemon behind holding its stdout and stderr pipes.

The daemon escapes the bot's process group, so killing the group does not end it, and
while it lives the pipes never reach end of file. ``daemon_bot.py SECONDS``: how long the
daemon sleeps (it must end by itself when nothing can kill it).
"""

from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import play

LINGER = float(sys.argv[1]) if len(sys.argv) > 1 else 30.0


def leave_daemon() -> None:
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:  # the grandchild: no parent, no group, our pipes in hand
            time.sleep(LINGER)
        os._exit(0)


if __name__ == "__main__":
    play("daemon", {"start": leave_daemon})
