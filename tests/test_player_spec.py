"""The executable spec: every transcript in spec/PLAYER.md is replayed and must match.

A block tagged ```` ```transcript game=.. seat=.. ```` is a whole game: it is played
again by the host-side client (ProcessAgent over a LoopbackPlayer) against the bot-side
PlayerSession, every seat choosing its first option, and the lines must match byte for
byte, so neither side of the protocol can drift from the spec. A block tagged
```` ```transcript bot=first ```` is fed line by line to a PlayerSession alone.
In both, ``> `` starts a line the host sends; every other line is the bot's.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from xactika.core import Command, Config, Legal, SeatView
from xactika.core.bots.agents import self_play
from xactika.protocol.notation.text import config_from_pairs
from xactika.protocol.player.agentside import PlayerSession
from xactika.protocol.player.process import LoopbackPlayer, ProcessAgent

SPEC = Path(__file__).resolve().parent.parent / "spec" / "PLAYER.md"
BLOCK = re.compile(r"^```transcript (.*?)\n(.*?)^```$", re.S | re.M)


class First:
    """The spec's deterministic bot: the first legal command (first option)."""

    def choose(self, view: SeatView, legal: Legal) -> Command:
        return next(legal.commands())


def blocks() -> list[tuple[dict[str, str], str]]:
    found = BLOCK.findall(SPEC.read_text(encoding="utf-8"))
    return [(dict(w.split("=", 1) for w in info.split()), body) for info, body in found]


def play_game(settings: dict[str, str]) -> list[str]:
    """The transcript of a game as seat ``seat`` sees it, in the spec's notation."""
    settings = dict(settings)
    seat = int(settings.pop("seat"))
    time_ms = int(settings["time"]) if "time" in settings else None
    settings.pop("time", None)
    config: Config = config_from_pairs(settings, defaults=True)
    lines: list[str] = []

    def record(direction: str, line: str) -> None:
        lines.append(f"> {line}" if direction == ">" else line)

    player = LoopbackPlayer(PlayerSession(First(), "first"), on_line=record)
    player.start()
    agents = [
        ProcessAgent(player, time_ms=time_ms) if s == seat else First()
        for s in range(config.players)
    ]
    state, _ = self_play(config, agents)
    assert state.over
    player.quit()
    return lines


def feed_bot(body: str) -> list[str]:
    session = PlayerSession(First(), "first")
    out: list[str] = []
    for line in body.splitlines():
        if line.startswith("> "):
            out.append(line)
            out.extend(session.feed(line[2:]))
    return out


def test_spec_has_both_kinds_of_transcript() -> None:
    kinds = [("seat" in info, "bot" in info) for info, _ in blocks()]
    assert (True, False) in kinds and (False, True) in kinds
    games = {info.get("game", "xactika") for info, _ in blocks() if "seat" in info}
    assert games == {"xactika", "dix"}


@pytest.mark.parametrize("index", range(len(blocks())))
def test_transcript_matches(index: int) -> None:
    info, body = blocks()[index]
    actual = play_game(info) if "seat" in info else feed_bot(body)
    assert actual == body.splitlines()
