#!/usr/bin/env python3
"""An honest bot that keeps a diary of what it hears in ``$TMPDIR``, as caches and
logging libraries do: its own hand is there, for anyone who can read its private folder.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import answer, say

DIARY = os.path.join(os.environ.get("TMPDIR", "/tmp"), "diary.txt")

if __name__ == "__main__":
    for line in sys.stdin:
        with open(DIARY, "a", encoding="utf-8") as fh:
            fh.write(line)
        words = line.split()
        if not words:
            continue
        if words[0] == "hello":
            say("hello 1 name=diary")
        elif words[0] == "isready":
            say("readyok")
        elif words[0] == "go":
            say(answer(words))
        elif words[0] == "quit":
            break
