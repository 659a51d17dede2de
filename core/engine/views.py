"""What one seat may know: its own hand and every public fact, never another hand.

Views are built from the omniscient state, and event streams are redacted event by
event with :func:`visible`, so a bot fed ``visible`` events folds to the same view.
"""

from __future__ import annotations

from functools import singledispatch
from typing import Any

import attrs

from xactika.core.engine.api import (
    Card,
    Config,
    Dealt,
    GameStarted,
    Hand,
    State,
    Trick,
    fast_constructor,
)


@attrs.frozen(slots=True, weakref_slot=False)
class SeatView:
    """The table as ``seat`` sees it."""

    seat: int
    config: Config
    phase: str
    round: int
    dealer: int
    hand: Hand
    hand_sizes: tuple[int, ...]
    turned: Card | None
    bids: tuple[int | None, ...]
    taken: tuple[int, ...]
    trick: tuple[tuple[int, Card], ...]
    call: Any
    leader: int
    to_act: int | None
    totals: tuple[int, ...]
    tricks: tuple[Trick, ...]
    extra: Any = None


def public_config(config: Config) -> Config:
    """Settings without what would reveal cards: the seed, its nonce and preset deals.

    The seed commitment stays: seats see it now and check it at game-over. Every state
    of a game shares one config, so the last answer is kept for the next view.
    """
    global _LAST_PUBLIC
    last = _LAST_PUBLIC
    if last[0] is config:
        return last[1]
    public = attrs.evolve(config, seed=None, deals=None, nonce=None)
    _LAST_PUBLIC = (config, public)  # one tuple, replaced whole: safe between threads
    return public


_LAST_PUBLIC: tuple[Config | None, Config] = (None, Config())


@singledispatch
def public_extra(extra: Any, state: State, seat: int) -> Any:
    """A game's extra state as ``seat`` may see it; games register their own."""
    return None


_new_view = fast_constructor(SeatView)  # a view a move for every agent: see fast_constructor


def view(state: State, seat: int) -> SeatView:
    hands = state.hands
    return _new_view(
        seat,  # seat
        public_config(state.config),  # config
        state.phase,  # phase
        state.round,  # round
        state.dealer,  # dealer
        hands[seat] if hands else (),  # hand
        tuple(map(len, hands)),  # hand_sizes
        state.turned,  # turned
        state.bids,  # bids
        state.taken,  # taken
        state.trick,  # trick
        state.call,  # call
        state.leader,  # leader
        state.to_act,  # to_act
        state.totals,  # totals
        state.tricks,  # tricks
        None if state.extra is None else public_extra(state.extra, state, seat),  # extra
    )


@singledispatch
def visible(event: Any, seat: int) -> Any:
    """``event`` as ``seat`` may see it. Public events pass through unchanged."""
    return event


@visible.register
def _(event: GameStarted, seat: int) -> GameStarted:
    return attrs.evolve(event, config=public_config(event.config))


@visible.register
def _(event: Dealt, seat: int) -> Dealt:
    hands = tuple(h if s == seat else None for s, h in enumerate(event.hands))
    return attrs.evolve(event, hands=hands, aside=None)
