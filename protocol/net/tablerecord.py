"""A server table's record: its headers, who played which of a seat's moves, who won.

Apart from protocol/net/table.py because the record is a function of what the table has
journalled (its config, seats, faults and the referee's stand-in ranges), not of the
seats' links and clocks that the table's loop juggles.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import TYPE_CHECKING

from xactika.core.engine.api import GameOver
from xactika.protocol.net.seating import HUMAN
from xactika.protocol.player.wire import Outcome
from xactika.protocol.records.assemble import RecordFacts, record_headers
from xactika.protocol.records.textform import forfeited, format_record, result_winners
from xactika.protocol.records.writing import write_new_record

if TYPE_CHECKING:
    from xactika.protocol.net.table import Table


def write_table_record(table: Table, out: Path, started: dt.datetime) -> Path:
    """The record, written whole beside its name and renamed (protocol/records/writing.py).

    Its content is a function of the journalled game, so that a kill after the record
    takes its name and before the journal notes the table over writes the very same
    record again (no ``table-N.2.log`` twin): the signed record's ``id`` is the
    table's, journalled (a fresh random one each time made every rewrite differ),
    and the journal is put on disk first (the last move's rows were written but not
    yet committed: a record ahead of the journal could be followed, after a kill, by
    a resumed game that ended otherwise)."""
    if table.journal is not None:
        table.journal.sync()
    headers = record_headers(RecordFacts(
        table.config, table.names(), date=started, event="xactika serve",
        extra=table_headers(table), moves=table.moves,
        record_id=None if table.signer is None else table.record_id), table.events)
    out.mkdir(parents=True, exist_ok=True)
    return Path(write_new_record(  # never over a record (its number is new)
        out, f"table-{table.id}", format_record(headers, table.events, signer=table.signer)))


def table_headers(table: Table) -> list[tuple[str, str]]:
    """The server's own headers: the seats' kinds, the table, how it ended, a person's
    clock, the faults, who played which of a seat's moves (spec/SERVER.md section 7)."""
    settings = table.settings
    headers = [("kinds", ",".join(s.kind for s in table.seats)),
               ("server.table", str(table.id)),
               ("termination", table.faults[0][1] if table.faults else "normal")]
    # a person's bank (SERVER.md section 7): a table of bots had none
    if settings.clock is not None and any(s.kind == HUMAN for s in table.seats):
        limit = settings.timeouts
        headers.append(("clock", f"{settings.clock.text()} on-timeout={settings.on_timeout}"
                                 + ("" if limit is None else f" timeouts={limit}")))
    if settings.rated:  # the web's accounts rate it (frontends/accounts/ratings.py)
        headers.append(("rated", "yes"))
    headers += [("fault", f"{seat} {reason}: {' '.join(detail.split())}")
                for seat, reason, detail in table.faults if seat >= 0]
    return headers + played_by(table)


def played_by(table: Table) -> list[tuple[str, str]]:
    """``stand-in`` headers (who played which events of a seat) and a ``forfeit``
    header per seat that cannot win: it forfeited, or a stand-in still held it at
    the end (spec/SERVER.md section 7)."""
    if table.referee is None:
        return []
    marks: list[tuple[str, str]] = []
    level = f"bot:strong:{table.settings.level}"
    for seat, s in enumerate(table.seats):
        starts = [f.at for f in table.referee.faults if f.seat == seat]
        ends = [r.at for r in table.referee.reclaims if r.seat == seat]
        for n, begin in enumerate(starts):
            end = ends[n] if n < len(ends) else len(table.events)
            if begin >= end:
                continue  # over, or taken back, before the stand-in made a move
            who = "random" if s.fault is not None and n == len(starts) - 1 else level
            marks.append(("stand-in", f"{seat} events {begin + 1}-{end} {who}"))
        if s.fault is not None or s.replaced:
            marks.append(("forfeit", str(seat)))
    return marks


def table_outcome(table: Table) -> Outcome | None:
    """Who won as the record's ``result`` line says (a forfeited seat never wins); None
    before the end."""
    last = table.events[-1] if table.events else None
    if not isinstance(last, GameOver):
        return None
    marks = played_by(table)
    return Outcome(result_winners(marks, last.totals, last.winners),
                   sorted(forfeited(marks)), last.totals)
