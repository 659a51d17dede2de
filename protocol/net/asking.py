"""Asking a seat of a server table for its move: the bank and the move limit, the
grace of an away seat, lines sent out of turn, the answer's time and its parse.

Apart from protocol/net/table.py because it is one concern, one turn's conversation with
one seat, that the table's loop only starts (``Table._ask``): the table keeps the seats,
the referee and the journal; what is decided here reaches them through the table's
``_forfeit``, ``leave`` and ``_keep_seat``.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import TYPE_CHECKING, Literal

from xactika.core.engine.api import Command, Legal
from xactika.core.engine.errors import ParseError, XactikaError
from xactika.core.engine.referee import Faulted, Turn
from xactika.protocol.net.clock import Bank
from xactika.protocol.net.link import Link, LinkDown, LinkFault, Typed
from xactika.protocol.net.seating import HUMAN, Seat
from xactika.protocol.notation.untrusted import escape
from xactika.protocol.player.wire import (
    LEAVE,
    Go,
    format_go_line,
    go_options,
    is_answer,
    parse_answer,
)
from xactika.protocol.records.assemble import THINK

if TYPE_CHECKING:
    from xactika.protocol.net.table import Table

Heard = Literal["again", "ended"]  # a go's outcome that is no answer (_hear)
AGAIN: Heard = "again"  # the link went down: ask again once the seat is back
ENDED: Heard = "ended"  # the turn ended in a fault


async def ask(table: Table, turn: Turn) -> Command | Faulted:
    """The seat's move, or why it forfeits (fault, or gone past the grace).

    A person's bank runs from the moment their turn comes, whether they are there or
    not: time away at their turn is charged like time spent thinking, and a ``go``
    sent again after a drop offers only what is left, so dropping never buys time.
    The grace period only bounds how long an away seat is kept. (A seat away since
    the server restarted is asked with its whole bank once back: the server's time
    down costs nobody.) A bot's move limit runs the same way, from its turn: a bot
    that drops at its ``go`` and comes back is offered only what is left."""
    seat, legal = turn.seat, turn.legal
    s = table.seats[seat]
    began = time.monotonic()  # the turn's clock: a person's bank runs from here
    free = False  # waiting for a seat away since the restart: its clock waits too
    while s.fault is None and not s.replaced:
        if s.away_free or free:  # ...and starts when it is back
            began, free = time.monotonic(), s.away_free
        move, bank = _time_left(table, s, began)
        link = s.link
        if move is not None and move <= 0:
            _timed_out(table, seat, legal.kind, bank, away=link is None)
            break
        if link is None:
            if await _wait_back(table, s, move):
                continue
            table._forfeit(seat, "crash", f"disconnected and did not come back within "
                           f"{table.settings.grace:g} s")
            break
        if _stale(table, seat, link):
            break
        heard = await _hear(table, seat, link, legal, move, bank, began)
        if heard == AGAIN:
            continue  # the link went down: wait for the seat (its bank runs), ask again
        if heard == ENDED:
            break
        assert not isinstance(heard, str)
        line, ms = heard
        if line == LEAVE and s.kind == HUMAN:  # a person quits at their turn (or the
            if table._may_leave(seat):  # drop that brought it made a bot play already)
                table.leave(seat)
            break
        command = _parse(table, seat, line, legal)
        if command is not None:
            table.moves[len(table.events) + 1] = {THINK: ms}  # the seq of the event it makes
            return command
    if s.replaced:  # the referee has its stand-in already: this fault is not news
        return Faulted("timeout", "replaced")
    assert s.fault is not None  # _forfeit told the referee already
    return Faulted(*s.fault)


def _limit(table: Table, s: Seat) -> tuple[float | None, Bank | None]:
    """How long the seat may think now (None: no limit), and its bank if it has one."""
    if s.kind != HUMAN:
        return table.settings.move_timeout, None
    if table.settings.clock is None or s.clock_ms is None:
        return None, None
    bank = Bank(table.settings.clock, s.clock_ms)
    return bank.left() / 1000, bank


def _time_left(table: Table, s: Seat, began: float) -> tuple[float | None, Bank | None]:
    """How long the seat may still think on this turn (None: no limit), counted from
    ``began``, and its bank if it has one."""
    move, bank = _limit(table, s)
    spent = int((time.monotonic() - began) * 1000)
    if bank is not None:  # what is left of the bank now, in whole ms
        return (bank.left() - spent) / 1000, bank
    if move is not None:  # a bot's move limit runs from its turn as well
        return (round(move * 1000) - spent) / 1000, None
    return None, None


def _timed_out(table: Table, seat: int, kind: str, bank: Bank | None, *, away: bool) -> None:
    """The turn's time is up: a person's bank ran out, or a bot's move limit did."""
    if bank is not None:
        _out_of_time(table, seat, kind, away=away)
    else:
        table._forfeit(seat, "timeout", f"no answer within "
                       f"{table.settings.move_timeout:g} s to 'go {kind}'"
                       + (" while the seat was away" if away else ""))


async def _wait_back(table: Table, s: Seat, move: float | None) -> bool:
    """Wait for an away seat to come back (or its time to run out): False once its
    grace is over."""
    left = (s.dropped_at or time.monotonic()) + table.settings.grace - time.monotonic()
    if left <= 0:
        return False
    table._changed.clear()
    wait = left if move is None else min(left, move)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(table._changed.wait(), wait)
    return True


def _stale(table: Table, seat: int, link: Link) -> bool:
    """A line sent when nothing was asked ends the turn: a person's ``leave`` is
    honoured, anything else forfeits (the player protocol's names, MATCH.md)."""
    stale = link.stale()
    if stale == LEAVE and table.seats[seat].kind == HUMAN:  # a person left out of turn
        if table._may_leave(seat):
            table.leave(seat)
        return True
    if stale is not None:
        table._forfeit(seat, "early-answer" if is_answer(stale) else "garbage",
                       f"sent {escape(stale, 60)!r} when nothing was asked")
        return True
    return False


async def _hear(table: Table, seat: int, link: Link, legal: Legal, move: float | None,
                bank: Bank | None, began: float) -> tuple[str, int] | Heard:
    """Send ``go`` and wait for the answer: the line and the ms the seat took from
    the moment the ``go`` left; AGAIN where the link went down (ask again once the
    seat is back), ENDED where the turn ended in a fault. The bank is charged."""
    # with its value: an in-process seat (the web's, a built-in bot) never parses it
    go = Go(legal.kind, go_options(legal, table.rules), None if move is None else int(move * 1000))
    link.send(Typed(format_go_line(go), go))
    asked = time.monotonic()
    try:
        line = await link.next(move)
    except LinkDown:
        return AGAIN
    except LinkFault as fault:
        table._forfeit(seat, fault.reason, str(fault))
        return ENDED
    except TimeoutError:
        _timed_out(table, seat, legal.kind, bank, away=False)
        return ENDED
    heard = time.monotonic()
    table.latencies.append(heard - asked)
    if table.seats[seat].fault is not None:  # faulted while the answer was on its way
        return ENDED  # (a flood right behind it): the stand-in plays, the answer is void
    # the go may have waited for the journal's flush: the clock starts as it leaves
    left = next((at for at in link.writes if at >= asked), asked)
    _charge(table, seat, bank, began + (left - asked))
    return line, max(0, int((heard - left) * 1000))


def _parse(table: Table, seat: int, line: str, legal: Legal) -> Command | None:
    """The answer as a command; None after forfeiting a seat whose answer is not one
    of the legal moves (or not an answer)."""
    try:
        return parse_answer(line, legal, table.rules)
    except (ParseError, XactikaError, ValueError, IndexError) as exc:
        reason = "illegal-move" if is_answer(line) else "garbage"
        table._forfeit(seat, reason, f"answered {escape(line, 60)!r}: {exc}")
        return None


def _out_of_time(table: Table, seat: int, kind: str, *, away: bool) -> None:
    """A person's bank ran out at their turn (thinking, or away): a timeout."""
    s = table.seats[seat]
    s.clock_ms = 0
    table._keep_seat(seat)
    assert table.settings.clock is not None
    table._forfeit(seat, "timeout", f"the clock ({table.settings.clock.text()}) ran out "
                   f"at 'go {kind}'" + (" while the seat was away" if away else ""))


def _charge(table: Table, seat: int, bank: Bank | None, began: float) -> None:
    """Take the time since the turn began (away time included) from a person's bank
    and add the increment; the bank is journalled, so a restart finds it as it was
    (and the server's time down costs nobody)."""
    if bank is not None:
        bank.spend(int((time.monotonic() - began) * 1000))
        table.seats[seat].clock_ms = bank.ms
        table._keep_seat(seat)
