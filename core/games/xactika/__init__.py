"""Xactika: cards, calls, the deck, the stats table and the rules of all three modes."""

from __future__ import annotations

import re
from collections.abc import Sequence
from operator import attrgetter
from typing import Any

import attrs

from xactika.core.engine.api import (
    Config,
    Dealt,
    State,
    TrickGame,
    new_dealt,
    register_game,
)
from xactika.core.engine.errors import ConfigError, MustFollow, ParseError
from xactika.core.engine.reason import Reason
from xactika.core.engine.rng import deal_key, shuffled

SHAPES = ("balls", "cubes", "cones", "stars")
SHAPE_TOKENS = ("ba", "cu", "co", "st")
TRICKS_PER_ROUND = 8
HAND_SIZE = 8

MODE_NAMES = {"win": "Play to Win", "lose": "Play to Lose", "bid": "Play to Bid"}

_SINGULAR = {"ball": 0, "cube": 1, "cone": 2, "star": 3}
_ALL_BIDS = tuple(range(TRICKS_PER_ROUND + 1))


@attrs.frozen(slots=True, repr=False, order=False, cache_hash=True)
class Card:
    """A card: 1-3 each of balls, cubes, cones and stars. Text: four digits, ``1323``.

    ``counts``, ``value`` and ``calls`` are worked out once when the card is made (they
    are not init arguments and take no part in equality): the referee asks for them on
    every move.
    """

    balls: int
    cubes: int
    cones: int
    stars: int
    counts: tuple[int, int, int, int] = attrs.field(init=False, eq=False, repr=False)
    value: int = attrs.field(init=False, eq=False, repr=False)
    calls: tuple[Call, ...] = attrs.field(init=False, eq=False, repr=False)
    """The four calls a lead of this card may make, in shape order."""
    sort_key: tuple[int, int, int, int, int] = attrs.field(init=False, eq=False, repr=False)
    """Hands are sorted by this: value, then balls, cubes, cones, stars."""
    rank: int = attrs.field(init=False, eq=False, repr=False)
    """``sort_key`` as one number in the same order: a deal sorts by it (ints compare
    faster than tuples, and the referee deals every round)."""

    def __attrs_post_init__(self) -> None:
        counts = (self.balls, self.cubes, self.cones, self.stars)
        for n in counts:
            if n not in (1, 2, 3):
                raise ValueError(f"a card has 1 to 3 of each shape, not {counts}")
        value = sum(counts)
        setattr_ = object.__setattr__
        setattr_(self, "counts", counts)
        setattr_(self, "value", value)
        setattr_(self, "calls", tuple(_CALLS[c - 1][s] for s, c in enumerate(counts)))
        setattr_(self, "sort_key", (value, *counts))
        setattr_(self, "rank", ((value * 3 + counts[0]) * 3 + counts[1]) * 9 + counts[2] * 3
                 + counts[3])

    def count(self, shape: int) -> int:
        return self.counts[shape]

    def shows(self, call: Call) -> bool:
        """True when the card has exactly the called count of the called shape."""
        return self.counts[call.shape] == call.count

    @classmethod
    def parse(cls, text: str) -> Card:
        token = text.strip()
        card = _BY_TEXT.get(token)
        if card is None:
            raise ParseError(
                f"bad card {text!r}: expected four digits 1-3 "
                "(balls, cubes, cones, stars), e.g. 1323"
            )
        return card

    def __str__(self) -> str:
        return f"{self.balls}{self.cubes}{self.cones}{self.stars}"

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"


_CALL_WORD = re.compile(r"^([123])[- ]?([a-z]+)$")


@attrs.frozen(slots=True, repr=False, order=False, cache_hash=True)
class Call:
    """A lead's announcement: a count (1-3) of one shape. Text: ``2st``."""

    count: int
    shape: int  # index into SHAPES

    @classmethod
    def parse(cls, text: str) -> Call:
        token = text.strip().lower()
        m = _CALL_WORD.match(token)
        if m:
            count = int(m.group(1))
            word = m.group(2)
            if word in SHAPE_TOKENS:
                return _CALLS[count - 1][SHAPE_TOKENS.index(word)]
            stem = word[:-1] if word.endswith("s") else word
            if stem in _SINGULAR:
                return _CALLS[count - 1][_SINGULAR[stem]]
        raise ParseError(
            f"bad call {text!r}: expected a count 1-3 and a shape, "
            "e.g. 2st, 1ba, 3cu, 2co or 2stars, 1ball"
        )

    @property
    def words(self) -> str:
        name = SHAPES[self.shape]
        return f"{self.count} {name[:-1] if self.count == 1 else name}"

    def __str__(self) -> str:
        return f"{self.count}{SHAPE_TOKENS[self.shape]}"

    def __repr__(self) -> str:
        return f"Call.parse({str(self)!r})"


_CALLS = tuple(tuple(Call(count, shape) for shape in range(4)) for count in (1, 2, 3))
CALLS: tuple[Call, ...] = tuple(c for row in _CALLS for c in row)
"""The 12 calls, by count then shape: 1ba 1cu 1co 1st 2ba ... 3st."""
DECK: tuple[Card, ...] = tuple(
    Card(b, u, o, s)
    for b in (1, 2, 3)
    for u in (1, 2, 3)
    for o in (1, 2, 3)
    for s in (1, 2, 3)
)
"""The 81 cards in deck order: balls, then cubes, cones, stars, each counting 1 to 3."""
_BY_TEXT = {str(c): c for c in DECK}


def stats_table(cards: Sequence[Card] = DECK) -> dict[int, tuple[int, int, int, int]]:
    """The stats card: value -> (cards, with 1, 2, 3 of a given shape), from the cards."""
    table: dict[int, list[int]] = {}
    for card in cards:
        row = table.setdefault(card.value, [0, 0, 0, 0])
        row[0] += 1
        row[card.balls] += 1  # any one shape gives the same column; balls stand for all
    return {v: (r[0], r[1], r[2], r[3]) for v, r in sorted(table.items())}


def card_sort_key(card: Card) -> tuple[int, int, int, int, int]:
    return card.sort_key


_RANK = attrgetter("rank")


class Xactika(TrickGame):
    name = "xactika"
    modes = ("win", "lose", "bid")
    mode_names = MODE_NAMES
    min_players = 2
    max_players = 10
    default_players = 4
    default_rounds = 8
    deck = DECK
    card_type = Card

    def low_wins(self, config: Config) -> bool:
        return config.mode == "lose"

    def round_score_bounds(self, config: Config, round_no: int = 1) -> tuple[int, int]:
        """Win and Lose: a point a trick; Bid: the tricks, or minus the miss."""
        if config.mode == "bid":
            return -TRICKS_PER_ROUND, TRICKS_PER_ROUND
        return 0, TRICKS_PER_ROUND

    def validate_options(self, config: Config) -> None:
        target = config.option("target")
        if target is not None:
            raise ConfigError(Reason("xactika has no target score (target={target}): a game "
                                     "is a fixed number of rounds; set rounds instead",
                                     target=target))
        super().validate_options(config)

    def hand_size(self, config: Config, round_no: int = 1) -> int:
        return HAND_SIZE

    def deal(self, config: Config, round_no: int, dealer: int) -> Dealt:
        n = config.players
        if config.deals is not None and round_no <= len(config.deals):
            preset = config.deals[round_no - 1]
            hands = tuple(tuple(sorted(h, key=_RANK)) for h in preset.hands)
            dealt = {c for h in hands for c in h}
            aside = preset.rest if preset.rest is not None else tuple(
                c for c in DECK if c not in dealt
            )
            return Dealt(0, round_no, dealer, hands, aside)
        if config.seed is None:
            raise ConfigError(f"no preset deal and no seed for round {round_no}")
        deck = shuffled(DECK, deal_key(self.name, config.seed, round_no))
        count = HAND_SIZE * n
        # One card at a time clockwise from the dealer's left: deck[i] goes to seat
        # (dealer + 1 + i) % n, so seat s gets every n-th card from (s - dealer - 1) % n.
        hands = tuple(
            tuple(sorted(deck[(seat - dealer - 1) % n : count : n], key=_RANK))
            for seat in range(n)
        )
        return new_dealt(0, round_no, dealer, hands, tuple(deck[count:]), None)

    def has_bidding(self, config: Config) -> bool:
        return config.mode == "bid"

    def legal_bids(self, state: State) -> tuple[int, ...]:
        if state.to_act != state.dealer:
            return _ALL_BIDS
        others = sum(b for b in state.bids if b is not None)
        if others > TRICKS_PER_ROUND:
            return _ALL_BIDS  # the round is overbid already: no bid makes the total 8
        return tuple(b for b in _ALL_BIDS if others + b != TRICKS_PER_ROUND)

    def calls_for(self, card: Card) -> tuple[Any, ...]:
        return card.calls

    def legal_cards(self, state: State, seat: int) -> tuple[Card, ...]:
        hand = state.hands[seat]
        call = state.call
        if not state.trick or call is None:
            return hand
        shape, count = call.shape, call.count
        following = []  # a loop, not a comprehension: no function call (asked every move)
        for c in hand:
            if c.counts[shape] == count:
                following.append(c)
        return tuple(following) if following else hand

    def may_play(self, state: State, seat: int, card: Card) -> bool:
        call = state.call
        if not state.trick or call is None:
            return True
        shape, count = call.shape, call.count
        if card.counts[shape] == count:
            return True
        return all(c.counts[shape] != count for c in state.hands[seat])  # a slough

    def explain_illegal_card(self, state: State, seat: int, card: Card) -> MustFollow:
        call = state.call
        following = " ".join(str(c) for c in self.legal_cards(state, seat))
        return MustFollow(
            f"{card} does not show {call.words} ({call}); you must follow with one of "
            f"{following}"
        )

    def trick_winner(self, state: State, plays: Sequence[tuple[int, Card]], call: Any) -> int:
        shape, count = call.shape, call.count
        best_seat = plays[0][0]
        best_value = -1
        for seat, card in plays:
            # ">=": of equal values the card played later wins; sloughs never count.
            if card.counts[shape] == count and card.value >= best_value:
                best_seat, best_value = seat, card.value
        return best_seat

    def score_round(self, state: State) -> tuple[int, ...]:
        if state.config.mode != "bid":
            return state.taken
        # bid_points written out: once a round on the referee's path
        # bid_points written out (an unmade bid, None, counts as 0): the referee scores
        # every round
        return tuple([t if b == t else -abs((b or 0) - t)
                      for b, t in zip(state.bids, state.taken, strict=True)])

    def winners(self, config: Config, totals: tuple[int, ...]) -> tuple[int, ...]:
        best = min(totals) if self.low_wins(config) else max(totals)
        return tuple(s for s, t in enumerate(totals) if t == best)

    def parse_card(self, text: str) -> Card:
        return Card.parse(text)

    def parse_call(self, text: str) -> Call:
        return Call.parse(text)

    def sort_key(self, card: Card) -> Any:
        return card_sort_key(card)


def bid_points(bid: int, tricks: int) -> int:
    """Play to Bid: the tricks when the bid is made exactly, else minus the miss."""
    return tricks if bid == tricks else -abs(bid - tricks)


XACTIKA = register_game(Xactika())
