"""Issue 41: Oh Hell's rounds left out follow a ``top`` given (one trip of the hand
sizes), and the header says what will be played. ``--top 4`` played 19 rounds (1-4-1-4...)
under a header that said one trip up and down."""

from __future__ import annotations

import pytest

from xactika.core.engine.api import Config
from xactika.core.games.ohhell import cards_in_round
from xactika.frontends.people.ohhell import hands_line
from xactika.protocol.notation.text import config_from_pairs


@pytest.mark.parametrize(("pairs", "rounds"), [
    ({"top": "4"}, 7), ({"top": "4", "hands": "downup"}, 7), ({"top": "4", "hands": "up"}, 4),
    ({"top": "3", "hands": "down"}, 3), ({"top": "4", "hands": "fixed"}, 19),
    ({"top": "1"}, 1), ({}, 19), ({"hands": "up"}, 19), ({"top": "4", "rounds": "19"}, 19),
])
def test_the_rounds_left_out_follow_top(pairs: dict[str, str], rounds: int) -> None:
    config = config_from_pairs({"game": "ohhell", **pairs}, defaults=True)
    assert config.rounds == rounds
    options = {k: int(v) if k == "top" else v for k, v in pairs.items() if k != "rounds"}
    if "rounds" not in pairs:
        assert Config(game="ohhell", options=options).rounds == rounds
    if "top" in pairs and "rounds" not in pairs and pairs.get("hands", "updown") in (
            "updown", "downup"):
        sizes = [cards_in_round(pairs.get("hands", "updown"), int(pairs["top"]), r)
                 for r in range(1, rounds + 1)]
        turn = int(pairs["top"]) if pairs.get("hands", "updown") == "updown" else 1
        assert sizes.count(turn) == 1  # one trip: the turning hand size comes once


def test_other_games_keep_their_rounds() -> None:
    assert Config().rounds == 8 and Config(game="dix").rounds == 1
    assert Config(game="ohhell").rounds == 19 and Config(game="ohhell", rounds=5).rounds == 5


def test_the_header_says_the_rounds_played() -> None:
    trip = config_from_pairs({"game": "ohhell", "top": "4"}, defaults=True)
    assert hands_line(trip).endswith("; 7 rounds: 1, 2, 3, 4, 3, 2, 1 cards")
    more = config_from_pairs({"game": "ohhell", "top": "4", "rounds": "9"}, defaults=True)
    assert hands_line(more).endswith("; 9 rounds: 1, 2, 3, 4, 3, 2, 1, 2, 3 cards")
    one = config_from_pairs({"game": "ohhell", "top": "2", "hands": "fixed", "rounds": "1"},
                            defaults=True)
    assert hands_line(one) == "2 cards every round; 1 round: 2 cards"
