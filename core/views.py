"""What one seat may know: its own hand and every public fact, never another hand.

Views are built from the omniscient state, and event streams are redacted event by
event with :func:`visible`, so a bot fed ``visible`` events folds to the same view.
"""

from __future__ import annotations

from functools import singledispatch
from typing import Any

import attrs

from xactika.core.table import Card, Config, Dealt, GameStarted, Hand, State, Trick


@attrs.frozen(slots=True)
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

    The seed commitment stays: seats see it now and check it at game-over.
    """
    return attrs.evolve(config, seed=None, deals=None, nonce=None)


@singledispatch
def public_extra(extra: Any, state: State, seat: int) -> Any:
    """A game's extra state as ``seat`` may see it; games register their own."""
    return None


def view(state: State, seat: int) -> SeatView:
    return SeatView(
        seat=seat,
        config=public_config(state.config),
        phase=state.phase,
        round=state.round,
        dealer=state.dealer,
        hand=state.hands[seat] if state.hands else (),
        hand_sizes=tuple(len(h) for h in state.hands),
        turned=state.turned,
        bids=state.bids,
        taken=state.taken,
        trick=state.trick,
        call=state.call,
        leader=state.leader,
        to_act=state.to_act,
        totals=state.totals,
        tricks=state.tricks,
        extra=public_extra(state.extra, state, seat),
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
