"""The events a game is made of, and the commands that cause them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Protocol

import attrs

from xactika.core.engine.fast import fast_new
from xactika.core.engine.settings import Card, Config, Hand

# --------------------------------------------------------------------------- events
# Each event class names its kind, the word the event line and the records use for it
# (spec/PROTOCOL.md). A game's own events (Dix's draws) also list their fields' types
# as ``field_types``, so the protocol can write and read them without knowing the game:
# "int", "card" (a card every view shows) or "secret-card" (None where a view hides it).


@attrs.frozen(slots=True)
class GameStarted:
    kind: ClassVar[str] = "game-started"

    seq: int
    config: Config


@attrs.frozen(slots=True, weakref_slot=False)
class Dealt:
    """A chance event. ``hands[s]`` is None and ``aside`` None where a view hides them."""

    kind: ClassVar[str] = "deal"

    seq: int
    round: int
    dealer: int
    hands: tuple[Hand | None, ...]
    aside: Hand | None
    turned: Card | None = None


@attrs.frozen(slots=True, weakref_slot=False)
class BidMade:
    kind: ClassVar[str] = "bid"

    seq: int
    seat: int
    bid: int


@attrs.frozen(slots=True, weakref_slot=False)
class Led:
    """A lead; ``call`` is the game's lead announcement (Xactika's shape-count)."""

    kind: ClassVar[str] = "lead"

    seq: int
    seat: int
    card: Card
    call: Any


@attrs.frozen(slots=True, weakref_slot=False)
class Played:
    kind: ClassVar[str] = "play"

    seq: int
    seat: int
    card: Card


@attrs.frozen(slots=True, weakref_slot=False)
class TrickWon:
    kind: ClassVar[str] = "trick-won"

    seq: int
    seat: int
    trick: int


@attrs.frozen(slots=True, weakref_slot=False)
class RoundScored:
    kind: ClassVar[str] = "round-scored"

    seq: int
    round: int
    bids: tuple[int, ...] | None
    tricks: tuple[int, ...]
    points: tuple[int, ...]
    totals: tuple[int, ...]


@attrs.frozen(slots=True)
class GameOver:
    """``seed`` and ``nonce`` reveal a committed seed (spec/TAMPER.md); else None."""

    kind: ClassVar[str] = "game-over"

    seq: int
    totals: tuple[int, ...]
    winners: tuple[int, ...]
    seed: int | None = None
    nonce: str | None = None


Event = Any  # one of the classes above, or a game's own (Dix's draws)


class GameEvent(Protocol):
    """What a game's own event class declares (Dix's ``Drew``), beside ``seq``."""

    kind: ClassVar[str]
    field_types: ClassVar[Mapping[str, str]]


# --------------------------------------------------------------------------- commands


@fast_new
@attrs.frozen(slots=True, weakref_slot=False)
class Bid:
    seat: int
    bid: int


@fast_new
@attrs.frozen(slots=True, weakref_slot=False)
class Play:
    """Play a card; ``call`` is required when leading a game that has calls."""

    seat: int
    card: Card
    call: Any = None


Command = Bid | Play
