"""Hidden information: in a seat's view no line names another seat's unplayed card.

Many random games are refereed in one seat's view while a controller sends every seat's
moves, some illegal, and asks for the table and the log. Every line the engine prints is
checked against what the seat may know at that moment: its own cards, the cards already
played, and the turned-up card.
"""

from __future__ import annotations

import random
import re

import pytest

from xactika.core import Bid, legal_actions
from xactika.protocol.referee.sansio import RefereeSession

XACTIKA_CARD = re.compile(r"(?<![0-9])[123]{4}(?![0-9])")
NOT_CARDS = ("commit=", "nonce=", "seed=", "h=")  # hex and numbers, not cards
DIX_CARD = re.compile(r"(?<![0-9A-Za-z])(?:[2-9TJQKA][SHDC]|JK)(?![0-9A-Za-z])")


class Watcher:
    """Follows the printed lines as the seat would, and flags any card it may not know."""

    def __init__(self, seat: int, pattern: re.Pattern[str]) -> None:
        self.seat = seat
        self.pattern = pattern
        self.known: set[str] = set()

    def check(self, line: str, said: str) -> None:
        own = set(self.pattern.findall(said))  # the controller named these itself
        fields = dict(t.split("=", 1) for t in line.split() if "=" in t)
        words = line.split()
        if words[:1] == ["event"] and len(words) > 2:
            kind = words[2]
            if kind == "deal":
                hands = fields["hands"].split("/")
                assert fields["aside"] == "?", line
                assert all(h == "?" for i, h in enumerate(hands) if i != self.seat), line
                self.known |= set(self.pattern.findall(hands[self.seat]))
                self.known |= set(self.pattern.findall(fields.get("turned", "")))
            elif kind in ("lead", "play") or (kind == "draw" and fields["card"] != "?"):
                self.known.add(fields["card"])
            elif kind == "game-started":
                assert "seed=" not in line and "deals=" not in line, line
        numbers = " ".join(t for t in words if not t.startswith(NOT_CARDS))
        leaked = set(self.pattern.findall(numbers)) - self.known - own
        assert not leaked, f"seat {self.seat} sees {sorted(leaked)} in: {line}"


def command_for(state: object, cmd: object) -> str:
    if isinstance(cmd, Bid):
        return f"bid {cmd.seat} {cmd.bid}"
    rules = state.rules  # type: ignore[attr-defined]
    call = "" if cmd.call is None else " " + rules.format_call(cmd.call)  # type: ignore[attr-defined]
    return f"play {cmd.seat} {cmd.card}{call}"  # type: ignore[attr-defined]


def referee(game: str, mode: str, players: int, seat: int, seed: int) -> int:
    rng = random.Random(seed)
    s = RefereeSession(seat=seat, seeds=lambda: seed)
    watcher = Watcher(seat, DIX_CARD if game == "dix" else XACTIKA_CARD)
    lines = 0

    def send(text: str) -> list[str]:
        nonlocal lines
        out = s.feed(text)
        for line in out:
            watcher.check(line, text)
        lines += len(out)
        return out

    rounds = 1 if game == "dix" else rng.randint(1, 3)
    assert send(f"newgame game={game} mode={mode} players={players} rounds={rounds}")[-1] \
        .startswith("ok ")
    while (legal := legal_actions(s.state)).seat is not None:
        state = s.state
        if rng.random() < 0.3:
            # another seat's card, played by the wrong seat or out of turn: the error
            # must not say whose hand holds it or what the follow rule allows
            victim = rng.randrange(players)
            if state.hands[victim]:
                card = rng.choice(state.hands[victim])
                wrong = rng.randrange(players)
                send(f"play {wrong} {card}")
        if rng.random() < 0.1:
            send(rng.choice(["show", "log", "turn"]))
        state = s.state  # the wrong play above may have been legal after all
        legal = legal_actions(state)
        if legal.seat is None:
            break
        cmd = rng.choice(list(legal.commands()))
        assert send(command_for(state, cmd))[-1].startswith("ok ")
    send("log")
    send("show")
    return lines


@pytest.mark.parametrize("seed", range(24))
def test_xactika_seat_view_never_leaks(seed: int) -> None:
    players = 2 + seed % 5
    mode = ("win", "lose", "bid")[seed % 3]
    assert referee("xactika", mode, players, seed % players, seed) > 50


@pytest.mark.parametrize("seed", range(6))
def test_dix_seat_view_never_leaks(seed: int) -> None:
    mode = ("draw", "nodraw")[seed % 2]
    assert referee("dix", mode, 2, seed % 2, seed) > 50


def test_the_watcher_catches_a_leak() -> None:
    """The check itself must be able to fail: the omniscient view shows other hands."""
    watcher = Watcher(0, XACTIKA_CARD)
    s = RefereeSession(seeds=lambda: 1)
    out = s.feed("newgame players=3 rounds=1")
    with pytest.raises(AssertionError):
        for line in out:
            watcher.check(line, "newgame")
