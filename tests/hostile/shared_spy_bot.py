#!/usr/bin/env python3
"""A spy kept in a shared folder (``/tmp``, a home): it reads what that folder shows.

Self-contained (it is copied to the folder under test). At every ``go`` it walks its
own folder, ``/tmp``, ``/var/tmp`` and ``/dev/shm`` (three levels deep) for other seats'
``diary.txt`` and any ``deals.txt``, and tries each ``look=PATH`` of its command line
(a word the runner does not take for a file of the bot's own, so never binds).
Whatever it reads it reports on stderr as ``LEAKED <path>``; ``spy: looked at N places``
says it ran. It plays the first option offered.
"""

from __future__ import annotations

import os
import sys

ROOTS = [os.path.dirname(os.path.abspath(__file__)), "/tmp", "/var/tmp", "/dev/shm"]
WANTED = ("diary.txt", "deals.txt")


def places() -> list[str]:
    found = [w.removeprefix("look=") for w in sys.argv[1:] if w.startswith("look=")]
    for root in ROOTS:
        for folder, dirs, files in os.walk(root):
            if folder.count(os.sep) - root.count(os.sep) >= 3:
                dirs.clear()
            found += [os.path.join(folder, f) for f in files if f in WANTED]
    return found


def spy() -> None:
    looked = places()
    for path in looked:
        try:
            with open(path, "rb") as fh:
                fh.read(1)
        except OSError:
            continue
        sys.stderr.write(f"LEAKED {path}\n")
    sys.stderr.write(f"spy: looked at {len(looked)} places\n")
    sys.stderr.flush()


def say(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "hello":
            say("hello 1 name=spy")
        elif words[0] == "isready":
            say("readyok")
        elif words[0] == "go":
            spy()
            options = dict(w.partition("=")[::2] for w in words[2:])["options"].split(",")
            say(("bid " if words[1] == "bid" else "play ") + options[0].replace(":", " "))
        elif words[0] == "quit":
            break
