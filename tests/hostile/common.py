"""The honest part of every hostile bot here: play the first option offered (stdlib only).

``play(hooks)`` runs the player protocol on stdin/stdout; ``hooks`` maps a moment
(``start``, ``hello``, ``newgame``, ``go``) to a function, which is where each bot does its harm.
"""

from __future__ import annotations

import sys
from collections.abc import Callable


def say(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def answer(words: list[str]) -> str:
    options = dict(w.partition("=")[::2] for w in words[2:])["options"].split(",")
    return ("bid " if words[1] == "bid" else "play ") + options[0].replace(":", " ")


def play(name: str, hooks: dict[str, Callable[[], None]] | None = None) -> None:
    hooks = hooks or {}
    if "start" in hooks:
        hooks["start"]()
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "hello":
            say(f"hello 1 name={name}")
            if "hello" in hooks:
                hooks["hello"]()
        elif words[0] == "isready":
            say("readyok")
        elif words[0] == "newgame":
            if "newgame" in hooks:
                hooks["newgame"]()
        elif words[0] == "go":
            if "go" in hooks:
                hooks["go"]()
            say(answer(words))
        elif words[0] == "quit":
            return
