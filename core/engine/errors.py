"""A small tree of errors, so callers can catch as broadly or narrowly as they need.

Every error carries a short machine-readable ``code`` that the protocol puts on its
error line, and a message that says what was wrong and what was expected.
"""

from __future__ import annotations


class XactikaError(Exception):
    """Base of every error the engine raises on purpose."""

    code = "error"


class ParseError(XactikaError, ValueError):
    """Text that is not a card, call, bid or event."""

    code = "parse"


class ConfigError(XactikaError, ValueError):
    """Game settings that no game can be started with."""

    code = "config"


class IllegalCommand(XactikaError):
    """A command the rules forbid in this state; the state is unchanged."""

    code = "illegal"


class WrongPhase(IllegalCommand):
    code = "phase"


class NotYourTurn(IllegalCommand):
    code = "turn"


class NotInHand(IllegalCommand):
    code = "card"


class MustFollow(IllegalCommand):
    code = "follow"


class BadCall(IllegalCommand):
    code = "call"


class BadBid(IllegalCommand):
    code = "bid"


class GameIsOver(WrongPhase):
    code = "over"


class InvalidEvent(XactikaError):
    """A recorded event that does not follow from the events before it."""

    code = "event"
