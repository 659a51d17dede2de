#!/usr/bin/env python3
"""A bot that writes ``flood_bot.py MEGABYTES`` of stderr at start-up, then plays well."""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import play

MEGABYTES = int(sys.argv[1]) if len(sys.argv) > 1 else 100


def flood() -> None:
    sys.stderr.write("FLOOD-START\n")
    chunk = "x" * 1023 + "\n"
    for _ in range(MEGABYTES * 1024):
        sys.stderr.write(chunk)
    sys.stderr.write("FLOOD-END\n")
    sys.stderr.flush()


if __name__ == "__main__":
    play("flood", {"hello": flood})
