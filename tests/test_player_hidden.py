"""Hidden information: no line sent to a player names a card its seat may not know yet.

A seat may know its own hand, the turned-up card, its own draws and every card already
played. Any other card named in a line to it (before that card is played), the set-aside
cards, the seed or preset deals would be a leak.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import pytest

from xactika.core import Config, Dealt, Led, Played, RandomAgent, game_rules, games
from xactika.core.bots.agents import self_play
from xactika.protocol.notation.text import format_event
from xactika.protocol.player.agentside import PlayerSession
from xactika.protocol.player.process import MAX_LINE, LoopbackPlayer, ProcessAgent
from xactika.protocol.trust.tamper import commit_config

_SPLIT = re.compile(r"[ =,:/|;]")


def find_leaks(events: Sequence[Any], seat: int, sent: Sequence[str]) -> list[str]:
    """Lines in ``sent`` (host to ``seat``, in order) that name a card unknown to the seat.

    ``events`` is the omniscient record of the game. A line's moment is the last event
    line sent before (or as) it.
    """
    cards: set[str] = set()
    allowed: dict[int, frozenset[str]] = {0: frozenset()}
    known: set[str] = set()
    for event in events:
        if isinstance(event, Dealt):
            for hand in (*event.hands, event.aside or ()):
                cards.update(str(c) for c in hand or ())
            known.update(str(c) for c in event.hands[seat] or ())
            if event.turned is not None:
                known.add(str(event.turned))
        elif isinstance(event, Led | Played) or (
            getattr(event, "seat", None) == seat and hasattr(event, "card")
        ):
            known.add(str(event.card))
        allowed[event.seq] = frozenset(known)
    leaks = []
    moment = 0
    for line in sent:
        words = line.split()
        if words[0] == "event":
            moment = int(words[1])
            words = words[2:]
        over = words[:1] == ["game-over"]  # reveals a committed seed (spec/TAMPER.md)
        if "deals=" in line or (not over and ("seed=" in line or "nonce=" in line)):
            leaks.append(f"settings leak: {line}")
        for token in _SPLIT.split(" ".join(words)):
            if token in cards and token not in allowed[moment]:
                leaks.append(f"{token} in {line!r}")
    return leaks


def play_recorded(config: Config, seed: int) -> tuple[list[Any], list[list[str]]]:
    """A game where every seat is a loopback player; the lines sent to each seat."""
    sent: list[list[str]] = [[] for _ in range(config.players)]
    agents = []
    for seat in range(config.players):
        def record(direction: str, line: str, lines: list[str] = sent[seat]) -> None:
            if direction == ">":
                lines.append(line)

        player = LoopbackPlayer(PlayerSession(RandomAgent(seed + seat)), on_line=record)
        player.start()
        agents.append(ProcessAgent(player))
    state, events = self_play(config, agents)
    assert state.over
    return events, sent


CONFIGS = [
    Config(game="xactika", mode=mode, players=players, rounds=2, seed=seed, dealer=seed % players)
    for seed, (mode, players) in enumerate(
        [(m, p) for m in ("win", "lose", "bid") for p in (2, 3, 4, 5, 6, 8, 10)]
    )
]
# every other registered game (Dix): each mode, a few deals
CONFIGS += [
    Config(game=name, mode=mode, players=game_rules(name).min_players, rounds=2,
           seed=seed, dealer=seed % 2)
    for name in games() if name != "xactika"
    for mode in game_rules(name).modes
    for seed in range(3)
]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.game}-{c.mode}-{c.players}-{c.seed}")
def test_no_line_to_a_player_names_a_card_it_may_not_know(config: Config) -> None:
    events, sent = play_recorded(config, 100 + (config.seed or 0))
    for seat, lines in enumerate(sent):
        assert any(line.startswith("go ") for line in lines)
        assert find_leaks(events, seat, lines) == []
        assert max(len(line.encode()) for line in lines) <= MAX_LINE  # spec/PLAYER.md


def test_a_committed_seed_is_shown_only_at_game_over() -> None:
    config = commit_config(Config(mode="bid", players=3, rounds=1, seed=9), "ab" * 16)
    events, sent = play_recorded(config, 0)
    for seat, lines in enumerate(sent):
        assert find_leaks(events, seat, lines) == []
        started = next(line for line in lines if " game-started " in line)
        assert "commit=" in started and "seed=" not in started
        assert " game-over " in lines[-1] and "seed=9" in lines[-1]


def test_the_leak_check_catches_unredacted_events() -> None:
    """The check itself can fail: omniscient event lines are caught at once."""
    events, _ = play_recorded(Config(mode="bid", players=3, rounds=1, seed=5), 0)
    rules = game_rules("xactika")
    raw = [format_event(e, rules) for e in events]
    leaks = find_leaks(events, 0, raw)
    assert leaks and "settings leak" in leaks[0]
    no_settings = raw[1:]
    assert any("in 'event 2 deal" in leak for leak in find_leaks(events, 0, no_settings))
