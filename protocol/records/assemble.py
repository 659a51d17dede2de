"""A record's headers, assembled in one place from what its host knows.

Every host that writes a record (the table server, the match runner, the arena, the
engine, ``selfplay``, a person's game, a remote seat's ``save``) fills in a
:class:`RecordFacts` and :func:`record_headers` turns it into the headers, in the one
order of spec/RECORDS.md: the standard ones, the host's own, the per-move facts
(``think.<seat>``), the record's ``id``. A field every host writes is one edit here;
a new per-move fact is a name in MOVE_HEADERS and the hosts that measure it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence

import attrs

from xactika.core.engine.api import Config, Event
from xactika.core.engine.check import command_of
from xactika.protocol.records.seal import ID_HEADER
from xactika.protocol.records.writing import DATE_FORMAT

THINK = "think"  # ``think.<seat>``: each of the seat's decisions, in ms or ``-``
NOT_TIMED = "-"  # a decision the seat's own player did not answer (a stand-in's)
# the per-move facts a record keeps, each as ``<name>.<seat>`` headers (spec/RECORDS.md)
MOVE_HEADERS = (THINK,)

Extra = Mapping[str, str] | Iterable[tuple[str, str]]
MoveFacts = Mapping[int, Mapping[str, int]]  # by the seq of a move's event: name -> value


@attrs.frozen
class RecordFacts:
    """What a host knows of its game that the record's headers say.

    ``extra``: the host's own headers (a mapping, or pairs where a key repeats, as
    ``fault``), after the standard ones. ``moves``: the per-move facts, by the seq of
    the event a seat's answer made (``think``: the milliseconds it took); a host that
    measures nothing leaves it empty and the record has no such headers. ``record_id``:
    the signed record's ``id``.
    """

    config: Config
    seats: Sequence[str] | None = None
    date: str | dt.datetime | None = None
    event: str | None = None
    deal: str | None = None
    seed: bool = True
    extra: Extra = ()
    moves: MoveFacts = attrs.field(factory=dict)
    record_id: str | None = None


def record_headers(facts: RecordFacts, events: Sequence[Event] = ()) -> list[tuple[str, str]]:
    """The record's headers for ``facts`` and the game's ``events`` (spec/RECORDS.md)."""
    extra = facts.extra.items() if isinstance(facts.extra, Mapping) else facts.extra
    headers = standard_headers(facts.config, facts.seats, date=facts.date, event=facts.event,
                               deal=facts.deal, seed=facts.seed, extra=extra)
    headers += move_headers(events, facts.moves)
    if facts.record_id is not None:
        headers.append((ID_HEADER, facts.record_id))
    return headers


def move_headers(events: Sequence[Event], moves: MoveFacts) -> list[tuple[str, str]]:
    """``<name>.<seat>`` headers for each per-move fact of MOVE_HEADERS: one entry per
    decision of the seat (bid, lead, play) in the record's order, its value or ``-``
    where it has none (a stand-in moved); none at all for a fact nothing measured."""
    headers = []
    for name in MOVE_HEADERS:
        if not any(name in facts for facts in moves.values()):
            continue
        seats: dict[int, list[str]] = {}
        for event in events:
            command = command_of(event)
            if command is not None:
                value = moves.get(event.seq, {}).get(name)
                seats.setdefault(command.seat, []).append(
                    NOT_TIMED if value is None else str(value))
        headers += [(f"{name}.{seat}", ",".join(entries))
                    for seat, entries in sorted(seats.items())]
    return headers


def read_think(headers: Iterable[tuple[str, str]], events: Sequence[Event]
               ) -> dict[int, int]:
    """The timed answers a record's ``think.<seat>`` headers give, by event seq (none:
    an old record, or a host that times nothing). ValueError with a one-line reason for
    a header that does not fit the record's decisions."""
    given = {k: v for k, v in reversed(list(headers)) if k.startswith(THINK + ".")}
    if not given:
        return {}
    decisions: dict[int, list[int]] = {}
    for event in events:
        command = command_of(event)
        if command is not None:
            decisions.setdefault(command.seat, []).append(event.seq)
    out: dict[int, int] = {}
    for key, value in sorted(given.items()):
        seat_text = key[len(THINK) + 1:]
        if not seat_text.isdigit() or str(int(seat_text)) != seat_text:
            raise ValueError(f"header {key}: {seat_text!r} is not a seat number")
        seqs = decisions.get(int(seat_text), [])
        entries = value.split(",") if value else []
        if len(entries) > len(seqs):
            raise ValueError(f"header {key}: {len(entries)} times for the seat's "
                             f"{len(seqs)} decisions")
        for seq, entry in zip(seqs, entries, strict=False):
            if entry == NOT_TIMED:
                continue
            if not entry.isdigit() or len(entry) > 9:
                raise ValueError(f"header {key}: {entry[:20]!r} is not a number of ms")
            out[seq] = int(entry)
    return out


def standard_headers(config: Config, seats: Sequence[str] | None = None, *,
                     date: str | dt.datetime | None = None, event: str | None = None,
                     deal: str | None = None, seed: bool = True,
                     extra: Iterable[tuple[str, str]] = ()) -> list[tuple[str, str]]:
    """The headers every record starts with, in the one order (spec/RECORDS.md).

    ``game``, ``mode``, ``players``, then ``seats`` (names already made safe, joined by
    commas), ``seed`` when the config has one (``seed=False`` leaves it out) or else
    ``deal`` where given, ``date`` (a UTC datetime is written to the second), ``event``,
    and the caller's ``extra`` headers last.
    """
    items = [("game", config.game), ("mode", config.mode), ("players", str(config.players))]
    if seats is not None:
        items.append(("seats", ",".join(seats)))
    if seed and config.seed is not None:
        items.append(("seed", str(config.seed)))
    elif deal is not None:
        items.append(("deal", deal))
    if date is not None:
        items.append(("date", date if isinstance(date, str) else date.strftime(DATE_FORMAT)))
    if event is not None:
        items.append(("event", event))
    items += extra
    return items
