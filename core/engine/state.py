"""The table's state, built only by folding events, and who may do what next."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import attrs

from xactika.core.engine.events import (
    Bid,
    BidMade,
    Command,
    Dealt,
    Led,
    Play,
    Played,
    RoundScored,
    TrickWon,
)
from xactika.core.engine.fast import fast_constructor
from xactika.core.engine.rules import game_rules
from xactika.core.engine.settings import Card, Config, Hand

if TYPE_CHECKING:
    from xactika.core.engine.rules import TrickGame


@attrs.frozen(slots=True, weakref_slot=False)
class Trick:
    """A finished trick: the lead's call, every (seat, card) in order, the winner."""

    call: Any
    plays: tuple[tuple[int, Card], ...]
    winner: int


PHASE_NEW = "new"
PHASE_BID = "bid"
PHASE_PLAY = "play"
PHASE_SCORED = "scored"
PHASE_OVER = "over"


@attrs.frozen(slots=True, weakref_slot=False)
class State:
    """The whole table, omniscient. Build it only by folding events."""

    config: Config
    seq: int = 0
    phase: str = PHASE_NEW
    round: int = 0
    dealer: int = 0
    hands: tuple[Hand, ...] = ()
    aside: Hand = ()
    turned: Card | None = None
    bids: tuple[int | None, ...] = ()
    taken: tuple[int, ...] = ()
    trick: tuple[tuple[int, Card], ...] = ()
    call: Any = None
    leader: int = 0
    to_act: int | None = None
    totals: tuple[int, ...] = ()
    tricks: tuple[Trick, ...] = ()
    extra: Any = None

    @property
    def rules(self) -> TrickGame:
        return game_rules(self.config.game)

    @property
    def players(self) -> int:
        return self.config.players

    @property
    def over(self) -> bool:
        return self.phase == PHASE_OVER


EMPTY = State(config=Config())

# The referee builds these once or more per move: see fast_constructor.
_new_state = fast_constructor(State)
_new_trick = fast_constructor(Trick)
new_dealt = fast_constructor(Dealt)
"""``Dealt(...)`` with every field given, faster: games deal with it every round."""
_new_round_scored = fast_constructor(RoundScored)
_new_bid_made = fast_constructor(BidMade)
_new_led = fast_constructor(Led)
_new_played = fast_constructor(Played)
_new_trick_won = fast_constructor(TrickWon)

# --------------------------------------------------------------------------- legal actions


@attrs.frozen(slots=True, weakref_slot=False)
class Legal:
    """Who acts next and what they may do; commands are enumerated lazily."""

    seat: int | None
    kind: str  # "bid", "lead", "play" or "none"
    bids: tuple[int, ...] = ()
    cards: tuple[Card, ...] = ()
    rules: TrickGame | None = attrs.field(default=None, eq=False, repr=False)

    def calls(self, card: Card) -> tuple[Any, ...]:
        """The calls allowed with ``card``: (None,) when the game or move has none."""
        if self.kind != "lead" or self.rules is None:
            return (None,)
        return self.rules.calls_for(card)

    def commands(self) -> Iterator[Command]:
        if self.seat is None:
            return
        if self.kind == "bid":
            for b in self.bids:
                yield Bid(self.seat, b)
            return
        for card in self.cards:
            for call in self.calls(card):
                yield Play(self.seat, card, call)

    def __contains__(self, cmd: object) -> bool:
        if self.seat is None:
            return False
        if isinstance(cmd, Bid):
            return self.kind == "bid" and cmd.seat == self.seat and cmd.bid in self.bids
        if isinstance(cmd, Play):
            return (
                self.kind in ("lead", "play")
                and cmd.seat == self.seat
                and cmd.card in self.cards
                and cmd.call in self.calls(cmd.card)
            )
        return False

    def __len__(self) -> int:
        return sum(1 for _ in self.commands())
