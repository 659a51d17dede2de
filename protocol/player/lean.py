"""``xactika bot random`` without the core: its answers come from the ``go`` line alone.

The host's ``go <kind> options=...`` line lists every legal move (spec/PLAYER.md section 3),
so a bot that chooses at random needs no rules, no events folded and no parser. This
module imports only the standard library (no ``xactika.core``, no attrs), because a match
starts a fresh bot process per seat and game and the core's imports were most of that
start (issue 15). ``xactika.protocol.player.session.PlayerSession`` with ``RandomAgent`` stays the
reference: this session draws from the same ``random.Random`` in the same order over the
same options, so a seed gives the same answers (tests/test_startup.py checks it). The
calls it draws from are those offered with the card, which a host lists in full (the
reference draws from the rules' list of the card's calls: the same, in the same order).

Event lines are not parsed: only a ``game-started`` event is noticed (a ``go`` before one
gets the same ``info`` as in PlayerSession); a malformed event gets no ``info`` here.
"""

from __future__ import annotations

import random
from collections.abc import Callable

PROTOCOL_VERSION = 1
"""The player protocol's version (spec/PLAYER.md); the host's client and PlayerSession
import it from here, the one module every side of that protocol can load cheaply."""


def go_options(words: list[str]) -> tuple[list[str], dict[str, str]]:
    """A ``go`` line's options, in order, and its fields; a ValueError says what is amiss."""
    if len(words) < 3 or words[1] not in ("bid", "lead", "play"):
        raise ValueError("expected go <bid|lead|play> options=... [time=<ms>]")
    fields = dict(w.partition("=")[::2] for w in words[2:])
    options = [o for o in fields.get("options", "").split(",") if o]
    if not options:
        raise ValueError("go without options=")
    return options, fields


class LeanRandomSession:
    """The random bot's side of a session, sans-I/O: ``feed(line) -> lines``; never raises."""

    def __init__(self, seed: int | None = None, name: str = "random") -> None:
        self.rng = random.Random(seed)  # RandomAgent(seed).rng: the same stream
        self.name = "-".join(name.split()) or "bot"
        self.seat: int | None = None  # set by newgame
        self.started = False  # a game-started event came after the last newgame
        self.done = False  # set by quit
        self._handlers: dict[str, Callable[[list[str]], list[str]]] = {
            "hello": self._on_hello, "isready": self._on_isready, "quit": self._on_quit,
            "newgame": self._on_newgame, "event": self._on_event, "go": self._on_go,
        }

    def feed(self, line: str) -> list[str]:
        words = line.split()
        if not words or words[0].startswith("#"):
            return []
        handler = self._handlers.get(words[0])
        if handler is None:
            return [f"info ignoring unknown command {words[0]!r}"]
        try:
            return handler(words)
        except (ValueError, KeyError, IndexError) as exc:
            return [f"info cannot follow {words[0]}: {exc}"]

    def _on_hello(self, words: list[str]) -> list[str]:
        return [f"hello {PROTOCOL_VERSION} name={self.name}"]

    def _on_isready(self, words: list[str]) -> list[str]:
        return ["readyok"]

    def _on_quit(self, words: list[str]) -> list[str]:
        self.done = True
        return []

    def _on_newgame(self, words: list[str]) -> list[str]:
        seat = dict(w.partition("=")[::2] for w in words[1:]).get("seat", "")
        self.seat = int(seat)
        self.started = False
        return []

    def _on_event(self, words: list[str]) -> list[str]:
        if self.seat is None:
            return ["info event before newgame: ignored"]
        if len(words) > 2 and words[2] == "game-started":
            self.started = True
        return []

    def _on_go(self, words: list[str]) -> list[str]:
        if self.seat is None or not self.started:
            raise ValueError("go before newgame and game-started")
        options, _ = go_options(words)
        choice = self.rng.choice
        if words[1] == "bid":
            return [f"bid {choice([int(o) for o in options])}"]
        # RandomAgent: a card uniformly (each card once, in the options' order), then one
        # of its calls; a follow (and a game without calls) has the single call None
        calls: dict[str, list[str | None]] = {}
        for option in options:
            card, colon, call = option.partition(":")
            offered = calls.setdefault(card, [])
            if words[1] == "lead" and colon:
                if call not in offered:
                    offered.append(call)
            elif not offered:
                offered.append(None)
        card = choice(list(calls))
        chosen = choice(calls[card])
        return [f"play {card}" if chosen is None else f"play {card} {chosen}"]
