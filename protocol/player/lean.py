"""``xactika bot random`` without the core: its answers come from the ``go`` line alone.

The host's ``go <kind> options=...`` line lists every legal move (spec/PLAYER.md section 3),
so a bot that chooses at random needs no rules, no events folded and no card parser. It
reads its lines with wire.py and BotSide (botside.py), as PlayerSession does, and imports
nothing else but the standard library (no ``xactika.core``, no attrs), because a match
starts a fresh bot process per seat and game and the core's imports were most of that
start (issue 15). ``xactika.protocol.player.agentside.PlayerSession`` with ``RandomAgent`` stays the
reference: this session draws from the same ``random.Random`` in the same order over the
same options, so a seed gives the same answers (tests/test_startup.py checks it). The
calls it draws from are those offered with the card, which a host lists in full (the
reference draws from the rules' list of the card's calls: the same, in the same order).

Event lines are not parsed: only a ``game-started`` event is noticed (a ``go`` before one
gets the same ``info`` as in PlayerSession); a malformed event gets no ``info`` here.
"""

from __future__ import annotations

import random

from xactika.protocol.player import wire
from xactika.protocol.player.botside import EVENT_BEFORE_NEWGAME, GO_TOO_EARLY, BotSide

PROTOCOL_VERSION = wire.PROTOCOL_VERSION


class LeanRandomSession(BotSide):
    """The random bot's side of a session, sans-I/O: ``feed(line) -> lines``; never raises."""

    def __init__(self, seed: int | None = None, name: str = "random") -> None:
        super().__init__(name)
        self.rng = random.Random(seed)  # RandomAgent(seed).rng: the same stream
        self.seat: int | None = None  # set by newgame
        self.started = False  # a game-started event came after the last newgame

    def _on_newgame(self, newgame: wire.NewGame) -> list[str]:
        self.seat = newgame.seat
        self.started = False
        return []

    def _on_event(self, event: wire.EventLine) -> list[str]:
        if self.seat is None:
            return [EVENT_BEFORE_NEWGAME]
        if event.kind == "game-started":
            self.started = True
        return []

    def _malformed(self, line: wire.Malformed, word: str, why: str) -> list[str]:
        if line.wanted is wire.EventLine:  # events are not parsed here: no info for one
            return [EVENT_BEFORE_NEWGAME] if self.seat is None else []
        return super()._malformed(line, word, why)

    def _on_go(self, go: wire.Go) -> list[str]:
        if self.seat is None or not self.started:
            raise ValueError(GO_TOO_EARLY)
        choice = self.rng.choice
        if go.kind == "bid":
            return [wire.format_bid(choice(go.bids()))]
        # RandomAgent: a card uniformly (each card once, in the options' order), then one
        # of its calls; a follow (and a game without calls) has the single call None
        calls: dict[str, list[str | None]] = {}
        for option in go.options:
            card, colon, call = option.partition(":")
            offered = calls.setdefault(card, [])
            if go.kind == "lead" and colon:
                if call not in offered:
                    offered.append(call)
            elif not offered:
                offered.append(None)
        card = choice(list(calls))
        return [wire.format_play(card, choice(calls[card]))]
