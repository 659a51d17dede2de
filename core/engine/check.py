"""Checking a recorded log: every event must follow from the rules and the events before.

Action events (bid, lead, play) are decided again as commands; every derived event
(deal, trick-won, draws, round-scored, game-over) must equal what the rules compute.
The engine's ``event`` command, ``load`` and ``xactika audit`` all go through here, so
there is one definition of a legal log.
"""

from __future__ import annotations

from typing import Any

import attrs

from xactika.core.engine.api import (
    EMPTY,
    Bid,
    BidMade,
    Command,
    Event,
    GameStarted,
    Led,
    Play,
    Played,
    RoundScored,
    State,
    TrickWon,
    evolve,
    game_rules,
    step,
)
from xactika.core.engine.errors import IllegalCommand, InvalidEvent, XactikaError


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
                raise InvalidEvent(mismatch(event, expected, self.state))
            return LogCheck(evolve(self.state, event), self.pending[1:])
        if isinstance(event, GameStarted):
            return _start(self.state, event)
        command = command_of(event)
        if command is None:
            if self.state.over:
                raise InvalidEvent(f"{_describe(event, self.state.rules)} after game-over")
            raise InvalidEvent(
                f"unexpected {_describe(event, self.state.rules)}: the rules call for a bid "
                "or a card next"
            )
        try:
            after, events = step(self.state, command)
        except IllegalCommand as exc:
            raise InvalidEvent(f"illegal {_describe(event, self.state.rules)}: {exc}") from None
        if events[0] != event:  # e.g. a lead recorded as a play
            raise InvalidEvent(mismatch(event, events[0], self.state))
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


# --------------------------------------------------------------------------- in words
# An auditor reads these: they say what the record has and what the rules give, in the
# game's card text, never a Python repr cut short.


def _text(value: Any, rules: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, tuple):
        return ",".join(_text(v, rules) for v in value) or "nothing"
    return str(value)


def _seats(seats: tuple[int, ...]) -> str:
    if not seats:
        return "no seat"
    return ("seat " if len(seats) == 1 else "seats ") + ", ".join(map(str, seats))


def _call(call: Any, rules: Any) -> str:
    try:
        return str(rules.format_call(call))
    except (XactikaError, AttributeError, TypeError, ValueError):
        return str(call)


def _describe(event: Any, rules: Any = None) -> str:
    """The event as an auditor would say it: 'bid 3 by seat 2', 'round 1 deal'."""
    if isinstance(event, BidMade):
        return f"bid {event.bid} by seat {event.seat}"
    if isinstance(event, Led):
        return f"lead of {event.card} calling {_call(event.call, rules)} by seat {event.seat}"
    if isinstance(event, Played):
        return f"play of {event.card} by seat {event.seat}"
    if isinstance(event, GameStarted):
        return "game-started"
    rnd = getattr(event, "round", None)
    if isinstance(event, TrickWon):
        return f"trick {event.trick} won by seat {event.seat}"
    name = "scoring" if isinstance(event, RoundScored) else getattr(event, "kind", _kind(event))
    seat = getattr(event, "seat", None)
    if rnd is None and seat is not None:  # a game's own event by a seat: Dix's draw
        return f"{name} by seat {seat}"
    return f"round {rnd} {name}" if rnd is not None else name


_PER_SEAT = {"bids": "bid is", "tricks": "tricks are", "points": "points are",
             "totals": "total is"}


def _field(name: str, got: Any, want: Any, rules: Any, source: str) -> list[str]:
    """What differs in one field, one phrase per difference."""
    if name == "hands" and len(got) == len(want):
        out = []
        for seat, (have, deal) in enumerate(zip(got, want, strict=True)):
            if have == deal:
                continue
            if have is None or deal is None:
                out.append(f"seat {seat}'s hand is {_text(have, rules)} where {source} "
                           f"{_text(deal, rules)}")
                continue
            extra = tuple(c for c in have if c not in deal)
            missing = tuple(c for c in deal if c not in have)
            if extra or missing:
                out.append(f"seat {seat}'s hand has {_text(extra, rules)} where {source} "
                           f"{_text(missing, rules)}")
            else:
                out.append(f"seat {seat}'s hand holds the cards {source}, in another order")
        return out
    if name == "bids" and got is not None and want is not None and len(got) == len(want):
        # the bids are the bid events' (say, an edited one), not something the rules derive
        return [f"seat {seat}'s bid is {a} where its bid event says {b}"
                for seat, (a, b) in enumerate(zip(got, want, strict=True)) if a != b]
    if name in _PER_SEAT and got is not None and want is not None and len(got) == len(want):
        return [f"seat {seat}'s {_PER_SEAT[name]} {a} where the rules give {b}"
                for seat, (a, b) in enumerate(zip(got, want, strict=True)) if a != b]
    if name == "winners":
        return [f"the winners are {_seats(got)} where the rules give {_seats(want)}"]
    if name in ("seat", "dealer"):
        return [f"{'the dealer' if name == 'dealer' else 'the seat'} is seat {got} where the "
                f"rules give seat {want}"]
    if name == "aside":
        return [f"the cards aside are {_text(got, rules)} where {source} {_text(want, rules)}"]
    if name == "turned":
        return [f"the turned card is {_text(got, rules)} where {source} "
                f"{_text(want, rules)}"]
    if name == "call":
        return [f"the call is {_call(got, rules)} where the rules give {_call(want, rules)}"]
    return [f"{name} is {_text(got, rules)} where the rules give {_text(want, rules)}"]


def mismatch(event: Any, expected: Any, state: State) -> str:
    """Why a recorded event is not the one the rules call for, naming each difference."""
    rules = state.rules if state.phase != "new" else None
    said = _describe(event, rules)
    if type(event) is not type(expected):
        return (f"{said} does not match the rules: they call for a "
                f"{_describe(expected, rules)} here")
    source = "the seed deals" if state.config.seed is not None else "the preset deal has"
    differences = [
        phrase
        for f in attrs.fields(type(event)) if f.name != "seq"
        and getattr(event, f.name) != getattr(expected, f.name)
        for phrase in _field(f.name, getattr(event, f.name), getattr(expected, f.name),
                             rules, source)
    ]
    return f"{said} does not match the rules: " + "; ".join(differences)


def check_log(events: list[Event]) -> LogCheck:
    """Check a whole log; raises InvalidEvent naming the first bad event's seq."""
    check = LogCheck()
    for event in events:
        try:
            check = check.apply(event)
        except InvalidEvent as exc:
            raise InvalidEvent(f"seq {event.seq}: {exc}") from None
    return check
