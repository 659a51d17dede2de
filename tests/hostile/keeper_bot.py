#!/usr/bin/env python3
"""A bot that keeps a file in its HOME from one game to the next, to carry what it saw.

At every ``newgame`` it reports what it finds there (``KEPT <text>`` on stderr, or
``keeper: nothing kept``), then writes a note to ``$HOME/kept``.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import play

PATH = os.path.join(os.environ.get("HOME", "/nonexistent"), "kept")


def look_and_keep() -> None:
    try:
        with open(PATH) as fh:
            sys.stderr.write(f"KEPT {fh.read().strip()}\n")
    except OSError:
        sys.stderr.write(f"keeper: nothing kept (pid {os.getpid()})\n")
    sys.stderr.flush()
    with open(PATH, "w") as fh:
        fh.write(f"from pid {os.getpid()}\n")


if __name__ == "__main__":
    play("keeper", {"newgame": look_and_keep})
