"""A toy game registered only here: "high card", 2 to 5 players, four cards each from the
numbers 1 to 30, any card may be played, the highest wins the trick, a point a trick.

It has no presentation and nothing of it is in the package: the browser test creates it
in the lobby and plays it with the page unchanged (the page draws the game's facts from
``/api/games`` and the table's ``say table`` lines). Run as ``python tests/toygame.py
ARGS`` it is ``xactika ARGS`` with the toy game registered.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any, ClassVar

from xactika.core.engine.api import Config, Dealt, State, TrickGame, register_game
from xactika.core.engine.errors import ConfigError, ParseError
from xactika.core.engine.rng import deal_key, shuffled

DECK = tuple(range(1, 31))
HAND = 4


class HighCard(TrickGame):
    name = "highcard"
    modes = ("plain",)
    min_players = 2
    max_players = 5
    default_players = 3
    default_rounds = 1
    deck: ClassVar[tuple[Any, ...]] = DECK
    card_type = int

    def hand_size(self, config: Config, round_no: int = 1) -> int:
        return HAND

    def deal(self, config: Config, round_no: int, dealer: int) -> Dealt:
        if config.seed is None:
            raise ConfigError("a seed, please")
        deck = shuffled(DECK, deal_key(self.name, config.seed, round_no))
        n = config.players
        hands = tuple(tuple(sorted(deck[s * HAND:(s + 1) * HAND])) for s in range(n))
        return Dealt(0, round_no, dealer, hands, tuple(deck[n * HAND:]))

    def legal_cards(self, state: State, seat: int) -> tuple[Any, ...]:
        return tuple(state.hands[seat])

    def trick_winner(self, state: State, plays: Sequence[tuple[int, Any]], call: Any) -> int:
        return max(plays, key=lambda p: p[1])[0]

    def score_round(self, state: State) -> tuple[int, ...]:
        return tuple(state.taken)

    def parse_card(self, text: str) -> Any:
        if not text.isdigit() or int(text) not in DECK:
            raise ParseError(f"bad card {text!r}: a number from 1 to 30")
        return int(text)

    def parse_call(self, text: str) -> Any:
        raise ParseError("high card has no calls")

    def sort_key(self, card: Any) -> Any:
        return int(card)


HIGH_CARD = register_game(HighCard())

if __name__ == "__main__":
    from xactika.frontends.cli import main

    sys.exit(main(sys.argv[1:]))
