"""A server table's settings and seats: the data a table keeps and journals.

:class:`TableSettings` is one table's game and clocks, :class:`Seat` one seat's holder,
name, kind and bank, :class:`EventLines` its events' lines; protocol/net/table.py plays
the game on them.
"""

from __future__ import annotations

from typing import Any

import attrs

from xactika.core.engine.api import Config, Event, TrickGame, game_rules
from xactika.core.engine.rng import fresh_seed
from xactika.core.engine.views import visible
from xactika.protocol.net.clock import Clock, Pace
from xactika.protocol.net.journal import SEAT_FIELDS
from xactika.protocol.net.link import PUBLIC, Link, Typed, new_token, token_key
from xactika.protocol.notation.text import config_from_pairs, format_event
from xactika.protocol.player.wire import Outcome, format_result

HUMAN, BOT = "human", "bot"
REPLACED, RECLAIMED = "replaced:", "reclaimed"  # journal rows of a person's stand-in
ON_TIMEOUT = ("bot", "forfeit")


@attrs.frozen
class TableSettings:
    """One table's game and clocks: bots' per move, people's a bank (``clock``)."""

    config: Config
    move_timeout: float = 10.0  # a bot seat's limit per go, in seconds
    startup_timeout: float = 10.0  # hello and isready of a joining seat
    grace: float = 30.0  # seconds a dropped seat has to reconnect
    clock: Clock | None = None  # a person's time bank; None: people are not timed
    on_timeout: str = attrs.field(default="bot", validator=attrs.validators.in_(ON_TIMEOUT))
    # the timeout that forfeits a person's seat under on_timeout="bot" (1: the first, as
    # rated tables will need); None: none does, a bot stands in each time (casual)
    timeouts: int | None = attrs.field(default=None, validator=attrs.validators.optional(
        attrs.validators.ge(1)))
    level: int = attrs.field(default=3, validator=attrs.validators.in_(range(1, 6)))
    # how a table with people shows the game (clock.py); None: instant (the library's
    # default; serve's --pace gives its tables and its lobby's DEFAULT_PACE)
    pace: Pace | None = None
    # people's REPL may ask its hint bot ('hint'); hint=off asks it not to (a table of
    # people playing for real): the seat is told in its newgame line
    hints: bool = True
    # rated for the web's accounts (frontends/accounts/ratings.py): the record says so, and
    # leaving forfeits as a timeout does (on_timeout="forfeit", hint=off are the web's)
    rated: bool = False


def table_settings(pairs: dict[str, str], **clocks: Any) -> TableSettings:
    """Settings from ``key=value`` pairs (game, mode, players, rounds, dealer, seed)."""
    pairs = dict(pairs)
    if "seed" not in pairs:
        pairs["seed"] = str(fresh_seed())
    config = config_from_pairs(pairs, defaults=True)
    game_rules(config.game).validate(config)
    return TableSettings(config, **clocks)


@attrs.define(eq=False)
class Seat:
    token: str  # "" once restored from the journal, which keeps only ``key``
    key: bytes  # token_key(token): how the server finds the seat
    name: str = ""  # the seat's display name, unique at its table ("" until it says one)
    kind: str = BOT  # "human" once its hello says kind=human
    clock_ms: int | None = None  # a person's bank left (ms); None without a clock
    link: Link | None = None
    claim: Link | None = None  # a connection in its handshake: the seat is taken already
    fault: tuple[str, str] | None = None  # (reason, detail) once forfeited
    replaced: bool = False  # a stand-in bot plays it until its person takes it back
    dropped_at: float | None = None
    away_free: bool = False  # away since the server restarted: its clock waits for it
    sent: int = 0  # events of this game the current link has been sent


def new_seat() -> Seat:
    token = new_token()
    return Seat(token, token_key(token))


def seat_fields(seat: Seat) -> dict[str, object]:
    """What the journal keeps of a seat: the fields of SEAT_FIELDS this Seat has."""
    return {key: getattr(seat, key) for key in SEAT_FIELDS if hasattr(seat, key)}


def header_name(name: str, seat: int) -> str:
    """A seat's self-given name (the handshake made it safe: ``clean_name``), or a stand-in."""
    return name or f"seat{seat}"


class EventLines:
    """A table's events as lines, each beside the object it was formatted from (issue
    44): a public event is formatted once for every seat, the watchers and the journal;
    an event a view changes (a deal, the start), once for each who sees it."""

    def __init__(self, rules: TrickGame) -> None:
        self.rules = rules
        self._public: dict[int, tuple[Event, Typed]] = {}  # by the event's identity

    def told(self, event: Event, seat: int) -> Typed:
        """``event`` as ``seat`` sees it (``PUBLIC``: a watcher), its line and its object."""
        seen = visible(event, seat)
        if seen is not event:
            return Typed(format_event(seen, self.rules), seen, event=True)
        found = self._public.get(id(event))
        if found is None or found[0] is not event:
            told = Typed(format_event(event, self.rules), event, event=True)
            found = self._public[id(event)] = (event, told)
        return found[1]

    def result(self, outcome: Outcome) -> Typed:
        """The ``result`` line every seat and watcher gets at the end."""
        return Typed(format_result(outcome), outcome)

    def line(self, event: Event) -> str:
        """``event`` whole: the journal's line (a public one is the seats' line too)."""
        if visible(event, PUBLIC) is not event:
            return format_event(event, self.rules)
        return self.told(event, PUBLIC).line
