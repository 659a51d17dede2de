"""A seat's time bank, as chess clocks and BGA keep one: BASE to start, INC after each move.

Pure arithmetic on milliseconds, no timers: the table asks how long a seat may think
(:meth:`Bank.left`), and charges the time it took (:meth:`Bank.spend`). A bank is one
integer, so a saved table resumes its clocks from what it saved (``Bank(clock, ms)``).
"""

from __future__ import annotations

import attrs

RECLAIM_MS = 30_000


@attrs.frozen
class Clock:
    """A table's time control for people: ``base_ms`` per seat, ``inc_ms`` added per move."""

    base_ms: int
    inc_ms: int = 0

    def text(self) -> str:
        """``60+5``: seconds, as ``--clock`` takes it back."""
        return f"{_seconds(self.base_ms)}+{_seconds(self.inc_ms)}"


def _seconds(ms: int) -> str:
    return str(ms // 1000) if ms % 1000 == 0 else f"{ms / 1000:g}"


def parse_clock(text: str) -> Clock | None:
    """``BASE+INC`` in seconds (``60+5``, ``300``, ``90.5+2``); ``none``/``off`` for no clock.

    ValueError with the expected form for anything else.
    """
    text = text.strip().lower()
    if text in ("none", "off", "0"):
        return None
    base, _, inc = text.partition("+")
    try:
        base_s, inc_s = float(base), float(inc or "0")
    except ValueError:
        raise ValueError(f"bad clock {text!r}: expected BASE+INC in seconds, e.g. 60+5, "
                         "or none") from None
    if not (0 < base_s <= 86400 and 0 <= inc_s <= 3600):
        raise ValueError(f"bad clock {text!r}: BASE is 0 to 86400 seconds (not 0), INC "
                         "0 to 3600")
    return Clock(round(base_s * 1000), round(inc_s * 1000))


@attrs.define
class Bank:
    """One seat's time left, in milliseconds (``ms``; starts at the clock's base)."""

    clock: Clock
    ms: int = -1

    def __attrs_post_init__(self) -> None:
        if self.ms < 0:
            self.ms = self.clock.base_ms

    def left(self) -> int:
        """What the seat may think at its turn, in ms (what ``go time=`` carries)."""
        return max(0, self.ms)

    def spend(self, took_ms: int, *, moved: bool = True) -> bool:
        """Charge ``took_ms`` of thinking; True if the bank held it, False if it ran out
        (the bank is left at 0). A move (``moved``) that the bank held earns the increment;
        time lost to a dropped connection does not."""
        if took_ms >= self.ms:
            self.ms = 0
            return False
        self.ms = self.ms - max(0, took_ms) + (self.clock.inc_ms if moved else 0)
        return True

    def refill(self) -> None:
        """A seat taken back from its stand-in starts with at least ``RECLAIM_MS`` (or its
        base, if smaller, or one increment, if larger), so coming back is not an instant
        second timeout."""
        self.ms = max(self.ms, self.clock.inc_ms, min(self.clock.base_ms, RECLAIM_MS))


@attrs.frozen
class Pace:
    """How a table with people shows the game (spec/SERVER.md section 2): seconds before
    a bot's or stand-in's move (``card``), after a finished trick (``trick``) and after a
    finished round (``round``), so a person sees every card and trick before the next
    one. A person's clock starts only when they are asked, after the pause."""

    card: float = 0.7
    trick: float = 1.5
    round: float = 3.0

    def text(self) -> str:
        """``0.7/1.5/3``, as ``--pace`` takes it back."""
        return "/".join(f"{s:g}" for s in (self.card, self.trick, self.round))


DEFAULT_PACE = Pace()


def parse_pace(text: str) -> Pace | None:
    """``CARD/TRICK/ROUND`` in seconds (``0.7/1.5/3``; ``1`` or ``1/2`` keep the default
    of what is left out), ``off`` for none (instant, as at a table of bots).

    ValueError with the expected form for anything else.
    """
    text = text.strip().lower()
    if text in ("off", "none", "0"):
        return None
    parts = text.split("/")
    try:
        seconds = [float(p) for p in parts]
    except ValueError:
        seconds = []
    if not 1 <= len(parts) <= 3 or len(seconds) != len(parts) \
            or not all(0 <= s <= 60 for s in seconds):
        raise ValueError(f"bad pace {text[:40]!r}: expected CARD/TRICK/ROUND in seconds "
                         "(0 to 60 each), e.g. 0.7/1.5/3, or off")
    defaults = (DEFAULT_PACE.card, DEFAULT_PACE.trick, DEFAULT_PACE.round)
    card, trick, round_ = (*seconds, *defaults[len(seconds):])
    return Pace(card, trick, round_)
