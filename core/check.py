"""Checking a recorded log: every event must follow from the rules and the events before.

Action events (bid, lead, play) are decided again as commands; every derived event
(deal, trick-won, draws, round-scored, game-over) must equal what the rules compute.
The engine's ``event`` command, ``load`` and ``xactika audit`` all go through here, so
there is one definition of a legal log.
"""

from __future__ import annotations

from typing import Any

import attrs

from xactika.core.errors import IllegalCommand, InvalidEvent, XactikaError
from xactika.core.table import (
    EMPTY,
    Bid,
    BidMade,
    Command,
    Event,
    GameStarted,
    Led,
    Play,
    Played,
    State,
    evolve,
    game_rules,
    step,
)


def command_of(event: Event) -> Command | None:
    """The command an action event records, or None for a derived event."""
    if isinstance(event, BidMade):
        return Bid(event.seat, event.bid)
    if isinstance(event, Led):
        return Play(event.seat, event.card, event.call)
    if isinstance(event, Played):
        return Play(event.seat, event.card)
    return None


def _kind(event: Event) -> str:
    return type(event).__name__


@attrs.frozen(slots=True)
class LogCheck:
    """The state so far plus the derived events the rules still owe.

    Immutable: :meth:`apply` returns a new LogCheck or raises InvalidEvent, so a
    rejected event never changes anything.
    """

    state: State = EMPTY
    pending: tuple[Event, ...] = ()

    @property
    def complete(self) -> bool:
        return self.state.over and not self.pending

    @property
    def expects_action(self) -> bool:
        return not self.pending and not self.state.over and self.state.to_act is not None

    def apply(self, event: Event) -> LogCheck:
        if event.seq != self.state.seq + 1:
            raise InvalidEvent(
                f"seq {event.seq} out of order: expected seq {self.state.seq + 1}"
            )
        if self.pending:
            expected = self.pending[0]
            if event != expected:
                raise InvalidEvent(
                    f"{_describe(event)} does not match the rules: expected {_describe(expected)}"
                )
            return LogCheck(evolve(self.state, event), self.pending[1:])
        if isinstance(event, GameStarted):
            return _start(self.state, event)
        command = command_of(event)
        if command is None:
            if self.state.over:
                raise InvalidEvent(f"{_describe(event)} after game-over")
            raise InvalidEvent(
                f"unexpected {_describe(event)}: the rules call for a bid or a card next"
            )
        try:
            after, events = step(self.state, command)
        except IllegalCommand as exc:
            raise InvalidEvent(f"illegal {_describe(event)}: {exc}") from None
        if events[0] != event:  # e.g. a lead recorded as a play
            raise InvalidEvent(f"{_describe(event)} does not match the rules: expected "
                               f"{_describe(events[0])}")
        if len(events) == 1:  # the common case: step's state is already the answer
            return LogCheck(after, ())
        return LogCheck(evolve(self.state, event), tuple(events[1:]))


def _start(state: State, event: GameStarted) -> LogCheck:
    if state.phase != "new":
        raise InvalidEvent("game-started after the game had begun")
    config = event.config
    try:
        rules = game_rules(config.game)
        rules.validate(config)
    except XactikaError as exc:
        raise InvalidEvent(f"game-started has bad settings: {exc}") from None
    new = evolve(state, event)
    deal = attrs.evolve(rules.deal(config, 1, config.dealer), seq=event.seq + 1)
    return LogCheck(new, (deal,))


def _describe(event: Any) -> str:
    fields = [f for f in attrs.fields(type(event)) if f.name != "seq"]
    inner = " ".join(f"{f.name}={_short(getattr(event, f.name))}" for f in fields)
    return f"{_kind(event)}({inner})"


def _short(value: Any) -> str:
    text = str(value) if not isinstance(value, tuple) else ",".join(map(_short, value))
    return text if len(text) <= 60 else text[:57] + "..."


def check_log(events: list[Event]) -> LogCheck:
    """Check a whole log; raises InvalidEvent naming the first bad event's seq."""
    check = LogCheck()
    for event in events:
        try:
            check = check.apply(event)
        except InvalidEvent as exc:
            raise InvalidEvent(f"seq {event.seq}: {exc}") from None
    return check
