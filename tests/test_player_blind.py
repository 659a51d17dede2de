"""A ``PlayerSession`` with ``RandomAgent`` does not fold events into a view it never reads
(protocol/player/agentside.py): same answers as a session that folds, and a bad event line
still gets its info. (``xactika bot random`` itself answers from the go line:
protocol/player/lean.py, tests/test_startup.py.)"""

from __future__ import annotations

from xactika.core import Config, RandomAgent
from xactika.core.bots.agents import self_play
from xactika.protocol.player.agentside import PlayerSession
from xactika.protocol.player.process import LoopbackPlayer, ProcessAgent


class FoldingRandom(RandomAgent):
    """The same choices, but not the exact type: the session folds every event for it."""


def answers(agent: RandomAgent) -> tuple[list[str], PlayerSession]:
    said: list[str] = []
    session = PlayerSession(agent, "r")
    player = LoopbackPlayer(session, on_line=lambda d, line: d == "<" and said.append(line))
    player.start()
    config = Config(mode="bid", players=4, rounds=3, seed=11)
    self_play(config, [ProcessAgent(player), RandomAgent(2), RandomAgent(3), RandomAgent(4)])
    return said, session


def test_the_random_bot_answers_as_it_would_with_a_folded_view() -> None:
    blind, blind_session = answers(RandomAgent(5))
    folded, folded_session = answers(FoldingRandom(5))
    assert blind == folded
    assert sum(line.startswith(("bid ", "play ")) for line in blind) == 3 * (1 + 8)
    assert not any(line.startswith("info") for line in blind)
    assert blind_session.last_view is None  # it never built one
    assert folded_session.last_view is not None


def test_a_bad_event_line_still_gets_an_info() -> None:
    session = PlayerSession(RandomAgent(1), "r")
    session.feed("newgame seat=0")
    assert session.feed("event 1 game-started game=xactika mode=bid players=2 rounds=1 "
                        "dealer=0") == []
    out = session.feed("event 2 deal round=1 dealer=0 hands=1321,ZZZZ/? aside=?")
    assert len(out) == 1 and out[0].startswith("info cannot follow event")
