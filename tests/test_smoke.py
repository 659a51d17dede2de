from __future__ import annotations

import subprocess
import sys

from xactika.core import Card, Config, RandomAgent
from xactika.core.bots.agents import self_play


def test_card_text_round_trips() -> None:
    card = Card.parse("1323")
    assert (card.balls, card.cubes, card.cones, card.stars, card.value) == (1, 3, 2, 3, 9)
    assert str(card) == "1323"
    assert repr(card) == "Card.parse('1323')"


def test_selfplay_finishes_with_game_over() -> None:
    config = Config(mode="bid", players=4, seed=1)
    state, events = self_play(config, [RandomAgent(s) for s in range(4)])
    assert state.over
    assert type(events[-1]).__name__ == "GameOver"


def test_cli_selfplay_prints_standings() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "xactika.frontends.cli", "selfplay", "--seed", "1", "--quiet"],
        capture_output=True, text=True, check=True,
    ).stdout
    assert out.startswith("final standings:")
