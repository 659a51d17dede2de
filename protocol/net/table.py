"""A table of the server: its seats, its game on the referee loop, its record.

Bots and people share the protocol but not the clock: a bot seat has the server's move
limit per ``go`` (``move_timeout``); a person (``hello 1 name=Ann kind=human``) has a time
bank (``TableSettings.clock``, protocol/net/clock.py). A person whose bank runs out is
replaced by a built-in bot of the table's level until they take the seat back with its
token (``on_timeout="bot"``), or forfeits (``"forfeit"``); bots forfeit as in a match.
The settings and seats a table keeps are protocol/net/seating.py's (re-exported here).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import hashlib
import logging
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

import attrs

from xactika.core.bots.agents import RandomAgent, make_agent
from xactika.core.engine.api import (
    Command,
    Config,
    Event,
    GameOver,
    Legal,
    State,
    game_rules,
    legal_actions,
)
from xactika.core.engine.fold import evolve, replay
from xactika.core.engine.referee import (
    Faulted,
    FaultPolicy,
    Referee,
    StandIn,
    Turn,
    run_async,
)
from xactika.core.engine.views import view
from xactika.protocol.net.asking import ask
from xactika.protocol.net.clock import Bank, parse_pace
from xactika.protocol.net.journal import SEAT_FIELDS, Journal, SavedTable
from xactika.protocol.net.link import (
    PUBLIC,
    Link,
    LinkDown,
    LinkFault,
    Typed,
    new_token,
    token_key,
)
from xactika.protocol.net.seating import BOT as BOT
from xactika.protocol.net.seating import HUMAN as HUMAN
from xactika.protocol.net.seating import ON_TIMEOUT as ON_TIMEOUT
from xactika.protocol.net.seating import RECLAIMED as RECLAIMED
from xactika.protocol.net.seating import REPLACED as REPLACED
from xactika.protocol.net.seating import EventLines, header_name, new_seat, seat_fields
from xactika.protocol.net.seating import Seat as Seat
from xactika.protocol.net.seating import TableSettings as TableSettings
from xactika.protocol.net.seating import table_settings as table_settings
from xactika.protocol.net.tablerecord import table_outcome, write_table_record
from xactika.protocol.net.thinking import think
from xactika.protocol.notation.text import (
    config_from_pairs,
    format_config,
    parse_event,
    split_pairs,
)
from xactika.protocol.player.wire import (
    LEAVE,
    Info,
    NewGame,
    Outcome,
    Watching,
    format_info,
    format_line,
    name_key,
)
from xactika.protocol.trust.signing import Signer, new_record_id
from xactika.protocol.trust.tamper import commit_config

log = logging.getLogger(__name__)

FINISH_STEP = 0.02  # seconds between two moves of a game every seat has forfeited
SENT_WAIT = 2.0  # seconds the end waits for its last lines to leave before it is journalled


class Table:
    """One game between remote seats; the server's clock, the record at the end."""

    def __init__(self, number: int, settings: TableSettings, out: Path | None,
                 on_over: Callable[[Table], None] | None = None,
                 signer: Signer | None = None) -> None:
        self.id = number
        self.settings = settings
        self.config = commit_config(settings.config)  # committed seed, revealed at the end
        self.rules = game_rules(self.config.game)
        self.lines = EventLines(self.rules)  # each public event formatted once
        self.seats = [new_seat() for _ in range(self.config.players)]
        self.observer_token = new_token()
        self.observer_key = token_key(self.observer_token)
        self.observers: set[Link] = set()
        self.events: list[Event] = []
        self.state: State | None = None
        self.referee: Referee | None = None
        self.faults: list[tuple[int, str, str]] = []
        self.out = out
        self.signer = signer  # signs the record (spec/TAMPER.md section 6) when given
        self.record: Path | None = None
        # never listed, never watched, its record outside ``--out`` (the web's daily deal):
        # journalled all the same, so that a kill loses none of it; the journal keeps it so
        self.private = False
        # the signed record's ``id`` (spec/TAMPER.md): journalled with the table, so the
        # record written again after a kill is the same file, not a twin
        self.record_id = new_record_id()
        self.on_over = on_over
        self.over = asyncio.Event()
        self.latencies: list[float] = []  # seconds from go to answer, for the load bench
        # per-move facts by the seq of the event a seat's answer made (the ms it took: the
        # record's think.<seat> headers); journalled with the events
        self.moves: dict[int, dict[str, int]] = {}
        self._changed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.journal: Journal | None = None  # set by journalled(): the table is kept
        self.started_at: dt.datetime | None = None
        self._journalled = 0  # events written to the journal
        self._resumed = False  # restored with its game under way
        self._changes = 0  # faults, replacements and returns journalled
        self._shown: Sequence[Event] = ()  # the last move's events, for the pace
        self._shown_at = 0.0  # when they were sent (monotonic)
        self._thinking: int | None = None  # the seat whose stand-in is choosing its move
        self._back: set[int] = set()  # taken back meanwhile: handed over once it lands

    # -- the journal (protocol/net/journal.py)
    def journalled(self, journal: Journal) -> None:
        """Keep this new table in ``journal`` from now on (committed at once)."""
        self.journal = journal
        journal.table(self.id, self._settings_fields(), self.observer_key,
                      [(s.key, seat_fields(s)) for s in self.seats])

    def _settings_fields(self) -> dict[str, object]:
        fields = attrs.asdict(self.settings, recurse=False)
        fields["config"] = " ".join(format_config(self.config))  # with nonce and commit
        pace = self.settings.pace
        fields["pace"] = "off" if pace is None else pace.text()
        fields["record_id"] = self.record_id
        if self.private:
            fields["private"] = True
        return fields

    @classmethod
    def restore(cls, saved: SavedTable, journal: Journal, out: Path | None,
                on_over: Callable[[Table], None] | None = None,
                signer: Signer | None = None) -> Table:
        """An unfinished table as the journal kept it: tokens by hash, names, faults and
        events; every seat is away, with its grace counted from now."""
        fields = dict(saved.settings)
        config = config_from_pairs(split_pairs(str(fields.pop("config")).split()))
        record_id = fields.pop("record_id", None)
        private = bool(fields.pop("private", False))
        known = attrs.fields_dict(TableSettings)
        fields["pace"] = parse_pace(str(fields.get("pace", "off")))
        settings = TableSettings(config, **{k: v for k, v in fields.items() if k in known})
        table = cls(saved.id, settings, out, on_over, signer)
        table.private = private
        table.config = config  # committed already: the seed's nonce is the journal's
        if record_id:  # a journal from before ids were kept: a new one
            table.record_id = str(record_id)
        table.observer_token, table.observer_key = "", saved.observer
        now = time.monotonic()
        table.seats = []
        for one in saved.seats:
            seat = Seat("", one.key, dropped_at=now, away_free=True)
            for key, value in one.fields.items():
                if key in SEAT_FIELDS and hasattr(seat, key):
                    setattr(seat, key, value)
            table.seats.append(seat)
        table.journal = journal
        if saved.started is not None:
            table.started_at = dt.datetime.fromisoformat(saved.started)
        table.moves = {seq: dict(facts) for seq, facts in saved.moves.items()}
        if saved.events:
            table._restore_game([parse_event(line, table.rules) for line in saved.events],
                                saved.faults)
        return table

    def _restore_game(self, events: list[Event],
                      faults: Sequence[tuple[int, str, str, int]]) -> None:
        self.referee = referee = Referee.from_events(events, policy=self._fallback())
        for seat, reason, detail, at in faults:
            self._changes += 1
            if seat >= 0 and reason == RECLAIMED:
                self.seats[seat].replaced = False
                if referee.reclaim(seat):
                    referee.reclaims[-1] = attrs.evolve(referee.reclaims[-1], at=at)
                continue
            replaced = reason.startswith(REPLACED)
            reason = reason.removeprefix(REPLACED)
            self.faults.append((seat, reason, detail))
            if seat >= 0:
                if replaced:
                    self.seats[seat].replaced = True
                else:
                    self.seats[seat].fault = (reason, detail)
                if referee.fault(seat, reason, detail) is not None:
                    referee.faults[-1] = attrs.evolve(referee.faults[-1], at=at)
                if seat in referee.stand_ins:
                    _catch_up(referee.stand_ins[seat], seat, events, at)
        self.events = referee.events
        self.state = referee.state
        self._journalled = len(events)
        self._resumed = True

    async def _let_seats_back(self) -> None:
        """Wait up to the grace period for every seat to come back and get the end."""
        deadline = time.monotonic() + self.settings.grace
        while any(s.link is None and s.fault is None for s in self.seats):
            left = deadline - time.monotonic()
            if left <= 0:
                return
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), left)

    def _fallback(self) -> FaultPolicy:
        """A forfeited seat is played by a seeded random bot, a replaced person's by a
        bot of the table's level (``_stand_in``)."""
        return FaultPolicy.stand_in(self._stand_in)

    def _keep_events(self) -> None:
        """Journal the events not yet kept (committed before any line carries them)."""
        if self.journal is not None and self._journalled < len(self.events):
            self.journal.events(self.id, self._journalled + 1, (
                self.lines.line(e) for e in self.events[self._journalled:]))
            self.journal.moves(self.id, (
                (seq, self.moves[seq]) for seq in range(self._journalled + 1,
                                                        len(self.events) + 1)
                if seq in self.moves))
            self._journalled = len(self.events)

    def _keep_change(self, seat: int, reason: str, detail: str) -> None:
        """Journal a fault, a person's replacement (``replaced:REASON``) or their return
        (``reclaimed``), in order, with the event count it happened at."""
        self._changes += 1
        if self.journal is not None:
            self.journal.fault(self.id, self._changes, seat, reason, detail, len(self.events))
        self._keep_seat(seat)

    def _keep_seat(self, seat: int) -> None:
        """Journal a seat's SEAT_FIELDS; call it after changing one (a name, a clock's
        bank after each move) so that a restart finds the seat as it was."""
        if self.journal is not None:
            self.journal.seat(self.id, seat, seat_fields(self.seats[seat]))

    def keep_seats(self) -> None:
        """Journal every seat as it stands: for a host that names seats before the game
        (the lobby's join and leave), so that a restart lists them as they were."""
        for seat in range(len(self.seats)):
            self._keep_seat(seat)

    # -- status
    @property
    def started(self) -> bool:
        return bool(self.events)

    def status(self) -> str:
        if self.over.is_set():
            return "over"
        return "playing" if self.started else "waiting"

    def seated(self) -> int:
        return sum(1 for s in self.seats if s.link is not None)

    def start_task(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"table-{self.id}")

    # -- seats joining and leaving
    def refusal(self, seat: int) -> str | None:
        """Why seat ``seat`` may not be taken now, or None."""
        s = self.seats[seat]
        if self.over.is_set():
            return f"table {self.id} is over"
        if s.fault is not None:
            return f"seat {seat} of table {self.id} was forfeited ({s.fault[0]})"
        if s.link is not None or s.claim is not None:
            return f"seat {seat} of table {self.id} is already connected"
        return None

    def attach(self, seat: int, link: Link, name: str, resume: int | None,
               kind: str | None = None) -> None:
        """Seat a handshaken link; send the game so far (all of it, or after ``resume``).

        Before the game starts a seat takes the name and kind its hello gives; from the
        start they are fixed (the record's). A seat a stand-in plays is taken back."""
        s = self.seats[seat]
        s.link, s.dropped_at, s.away_free = link, None, False
        if not self.started:
            if name and not s.name:  # the first name given (or the lobby's) stays
                s.name = name  # told apart from the others' when the game starts
            if kind is not None:
                s.kind = HUMAN if kind == HUMAN else BOT
            self._keep_seat(seat)
        link.on_end = lambda lk: self._dropped(seat, lk)
        if self.started:
            if resume is None:
                link.send(self._newgame(seat))
                s.sent = 0
            else:
                s.sent = resume
            self._sync(seat)
            if s.replaced:
                self._reclaim(seat)
        self._changed.set()

    def _tell_apart(self) -> None:
        """One name for two seats becomes ``Ann`` and ``Ann (2)``, in seat order."""
        taken: set[str] = set()  # compared as look-alikes (wire.name_key): Ann, ａnn, ann
        for s in self.seats:
            if s.name and name_key(s.name) in taken:
                s.name = next(f"{s.name} ({k})" for k in range(2, len(self.seats) + 2)
                              if name_key(f"{s.name} ({k})") not in taken)
            taken.add(name_key(s.name))

    def label(self, seat: int) -> str:
        """``seat 1 (Ann)`` for seat 0: how an ``info`` note (words for people, spec/PLAYER.md)
        names a seat, counted from 1 as people count them (spec/RULES.md)."""
        name = self.seats[seat].name
        return f"seat {seat + 1} ({name})" if name else f"seat {seat + 1}"

    def names(self) -> list[str]:
        return [header_name(s.name, seat) for seat, s in enumerate(self.seats)]

    def _newgame(self, seat: int) -> Typed:
        """``newgame seat=<s>``; a person's also names every seat (``names=``, each
        percent-quoted), so the REPL calls the others by their names, and says
        ``hint=off`` where the table's setting turns the REPL's hints off."""
        fields: dict[str, str] = {}
        if self.seats[seat].kind == HUMAN:
            fields["names"] = ",".join(quote(n, safe="") for n in self.names())
            if not self.settings.hints:
                fields["hint"] = "off"  # the REPL's 'hint' is off
        newgame = NewGame(seat, fields)
        return Typed(format_line(newgame), newgame)

    def tell(self, text: str) -> None:
        """One ``info`` line to every seat and observer: a note for people (PLAYER.md)."""
        line = Typed(format_info(text), Info(text))
        for s in self.seats:
            if s.link is not None:
                s.link.send(line)
        for link in list(self.observers):
            link.send(line)

    def _dropped(self, seat: int, link: Link) -> None:
        s = self.seats[seat]
        if s.link is not link:
            return
        s.link, s.dropped_at = None, time.monotonic()
        if isinstance(link.end, LinkFault) and self.started and not self.over.is_set():
            self._forfeit(seat, link.end.reason, str(link.end))
        elif LEAVE in link.untaken() and self._may_leave(seat):  # said as it went
            self.leave(seat)
        self._changed.set()

    def _may_leave(self, seat: int) -> bool:
        s = self.seats[seat]
        return (s.kind == HUMAN and self.started and not self.over.is_set()
                and not s.replaced and s.fault is None)

    def _forfeit(self, seat: int, reason: str, detail: str) -> None:
        s = self.seats[seat]
        if s.fault is not None:
            return
        if s.kind == HUMAN and self.settings.on_timeout == "bot" and self.started \
                and not self.over.is_set() and reason in ("timeout", "crash"):
            limit = self.settings.timeouts
            had = sum(1 for one, why, _ in self.faults if one == seat and why == "timeout")
            if reason != "timeout" or limit is None or had + 1 < limit:
                self._replace(seat, reason, detail)
                return
            detail += f" (timeout {had + 1}: the table forfeits a seat at its timeout {limit})"
        if seat in self._back:  # back, then forfeited before the stand-in's move landed
            self._hand_back(seat)  # a random player stands in from here (its range)
        s.fault = (reason, detail)
        s.replaced = False
        self.faults.append((seat, reason, detail))
        self._keep_change(seat, reason, detail)
        if self.referee is not None:  # a stand-in plays the seat from now on
            self.referee.fault(seat, reason, detail)
        if self.started:  # the seat itself too, before its link closes: it is told
            self.tell(f"{self.label(seat)} forfeits ({reason}): a random player plays "
                      "its cards and it cannot win")
        if s.link is not None:
            link, s.link = s.link, None
            link.finish(LinkFault(reason, detail))

    def leave(self, seat: int) -> None:
        """A person leaves a game in play for good (the page's "leave"): a bot of the
        table's level plays the seat from now on, as when a bank runs out, so the others'
        game goes on; everyone is told and the record's ``stand-in`` header says so. The
        table does it, not its host, because only the table knows the turn in play, the
        referee and the journal that must hear of it together."""
        s = self.seats[seat]
        if not self.started or self.over.is_set() or s.kind != HUMAN:
            raise ValueError("only a person's seat of a game in play can be left")
        if self.settings.rated:  # a rated table: leaving forfeits (no bot keeps the seat)
            self._forfeit(seat, "left", "left the rated table")
            return
        self._replace(seat, "left", "left the table")

    def end(self, reason: str, detail: str) -> None:
        """End a game in play for its host (the lobby's table of bots nobody watches):
        every seat forfeits for ``reason``, random players finish it one move a
        ``FINISH_STEP``, nobody wins, and the record's termination and faults say why."""
        for seat in range(len(self.seats)):
            self._forfeit(seat, reason, detail)

    def _replace(self, seat: int, reason: str, detail: str) -> None:
        """A person's bank ran out (or they stayed away past the grace): a bot of the
        table's level plays the seat until they come back with its token."""
        s = self.seats[seat]
        if s.replaced:
            return
        s.replaced = True
        self._back.discard(seat)  # back and gone again before the stand-in's move: it stays
        self.faults.append((seat, reason, detail))
        self._keep_change(seat, REPLACED + reason, detail)
        assert self.referee is not None
        self.referee.fault(seat, reason, detail)
        name = s.name or f"seat {seat}"
        self.tell(f"{self.label(seat)} {'ran out of time' if reason == 'timeout' else 'left'}"
                  f": a level-{self.settings.level} bot plays it until {name} takes it back")
        if s.link is not None:
            link, s.link = s.link, None
            link.finish(LinkDown("replaced"), f"replaced: {detail}; a bot plays seat {seat} "
                        "now: connect again with the seat's token to take it back")

    def _reclaim(self, seat: int) -> None:
        """A person is back. While their stand-in is choosing a move for them, the seat
        is handed back once that move lands (the stand-in made it: its range holds it)."""
        s = self.seats[seat]
        s.replaced = False
        self.tell(f"{self.label(seat)} is back: they play their seat from their next turn")
        if self._thinking == seat:
            self._back.add(seat)
        else:
            self._hand_back(seat)

    def _hand_back(self, seat: int) -> None:
        s = self.seats[seat]
        assert self.referee is not None
        self._back.discard(seat)
        self.referee.reclaim(seat)
        if self.settings.clock is not None and s.clock_ms is not None:
            bank = Bank(self.settings.clock, s.clock_ms)
            bank.refill()
            s.clock_ms = bank.ms
        self._keep_change(seat, RECLAIMED, "")

    def _sync(self, seat: int) -> None:
        s = self.seats[seat]
        if s.link is None:
            return
        s.link.send(*(self.lines.told(e, seat) for e in self.events[s.sent:]))
        s.sent = len(self.events)

    def _publish(self, new: Sequence[Event]) -> None:
        for seat in range(len(self.seats)):
            self._sync(seat)
        if self.observers:
            public = [self.lines.told(event, PUBLIC) for event in new]
            for link in list(self.observers):
                link.send(*public)

    def watch(self, link: Link) -> None:
        named = any(s.name for s in self.seats)  # the names so far, as the lobby lists them
        names = ",".join(quote(s.name, safe="") for s in self.seats) if named else None
        link.send(format_line(Watching(str(self.id), names)),
                  *(self.lines.told(event, PUBLIC) for event in self.events))
        if self.over.is_set():
            outcome = self.outcome()
            if outcome is not None:
                link.send(self.lines.result(outcome))
            link.finish(LinkDown("game over"))
            return
        self.observers.add(link)
        link.on_end = self.observers.discard

    # -- the game
    async def _run(self) -> None:
        ended = False  # not when the server stops: the journal resumes the game then
        try:
            await self._play()
            ended = True
        except Exception:  # one table's bug must not stop the others
            log.exception("table %s failed", self.id)
            self.faults.append((-1, "crash", "the server failed; the game is void"))
            ended = True
        finally:
            outcome = self.outcome() if ended else None
            result = () if outcome is None else (self.lines.result(outcome),)
            told = [s.link for s in self.seats if s.link is not None]
            for link in told:
                if ended:
                    link.send(*result, "quit")
                link.finish(LinkDown("game over" if ended else "server closing"))
            for link in list(self.observers):
                link.send(*result)
                link.finish(LinkDown("game over"))
            try:
                if ended and self.journal is not None:
                    await _sent(told)
            finally:  # once the last lines are out (or the server closes meanwhile)
                if ended and self.journal is not None:
                    self.journal.over(self.id, str(self.record) if self.record else None)
                self.over.set()
                if self.on_over is not None:
                    self.on_over(self)

    async def _play(self) -> None:
        if self.referee is None:  # a new game (a restored one goes on where it stood)
            while not all(s.link is not None for s in self.seats):
                self._changed.clear()
                await self._changed.wait()
            self.started_at = dt.datetime.now(dt.UTC)
            if self.journal is not None:
                self.journal.started(self.id, self.started_at.isoformat())
            self.referee = Referee.new(self.config, policy=self._fallback())
            self.events = self.referee.events  # the same list: the referee appends
            self._tell_apart()
            clock = self.settings.clock
            for seat, s in enumerate(self.seats):
                if s.kind == HUMAN and clock is not None and s.clock_ms is None:
                    s.clock_ms = clock.base_ms
                self._keep_seat(seat)  # the names told apart, the banks
            self._keep_events()
            for seat, s in enumerate(self.seats):
                if s.link is not None:
                    s.link.send(self._newgame(seat))
                    s.sent = 0
            self._publish(self.events)
        referee = self.referee
        if referee.done and self._resumed:
            await self._let_seats_back()  # ended just before a crash: the end is theirs

        self._shown, self._shown_at = self.events, time.monotonic()

        def moved(new: list[Event]) -> None:
            self.state = referee.state
            self._keep_events()
            self._publish(new)
            self._shown, self._shown_at = new, time.monotonic()

        def landed(new: list[Event]) -> None:
            moved(new)
            self._thinking = None
            for seat in sorted(self._back):  # the stand-in's move is in: now the seat
                self._hand_back(seat)

        await run_async(referee, self._ask, landed, think=self._think, before=self._before)
        self.state = referee.state
        self._write_record(self.started_at or dt.datetime.now(dt.UTC))

    async def _think(self, agent: Any, seen: Any, legal: Legal) -> Command:
        """A stand-in's choice (protocol/net/thinking.py). Its seat is ``_thinking``
        until the move lands: a person who comes back meanwhile has the seat from then
        on, so that the record's ``stand-in`` range holds the move (issue 40)."""
        self._thinking = legal.seat
        return await think(agent, seen, legal)

    async def _before(self, turn: Turn) -> None:
        """Before each move: a deserted table waits for its people, then the pace. A game
        nobody can come back to (every seat forfeited) is finished by random players one
        move a ``FINISH_STEP``: cheap, but not in a burst that delays every other table."""
        if self._deserted():
            await self._wait_for_people()
        if all(s.fault is not None for s in self.seats):
            await asyncio.sleep(FINISH_STEP)
        await self._pace(turn)

    def _deserted(self) -> bool:
        """Nobody plays their own seat: every seat is a stand-in, and a person could
        still come back for theirs."""
        return all(s.replaced or s.fault is not None for s in self.seats) \
            and any(s.replaced for s in self.seats)

    async def _wait_for_people(self) -> None:
        """A table everyone left stops, as BGA stops a table its players all left: no
        bot plays a deserted game for nobody (issue 30: level-5 stand-ins playing whole
        games nobody watches were the cheapest way to load the server). It waits the
        grace period for a person to take their seat back; then the game is abandoned:
        every seat forfeits, seeded random players finish it at once, nobody wins."""
        grace = self.settings.grace
        self.tell(f"nobody plays at this table: the game waits {grace:g} s for a player "
                  "to take their seat back, then it is abandoned")
        deadline = time.monotonic() + grace
        while self._deserted():
            left = deadline - time.monotonic()
            if left <= 0:
                self._abandon()
                return
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), left)

    def _abandon(self) -> None:
        assert self.referee is not None
        detail = f"nobody played at the table for {self.settings.grace:g} s"
        for seat, s in enumerate(self.seats):
            if s.replaced:  # its level bot leaves; a random player forfeits it
                s.replaced = False
                self.referee.reclaim(seat)
                self._keep_change(seat, RECLAIMED, "")
                self._forfeit(seat, "abandoned", detail)

    async def _pace(self, turn: Turn) -> None:
        """At a table with people, wait before the next move so that they can follow the
        game: ``pace.card`` before a bot's or a stand-in's move, ``pace.trick`` after a
        finished trick, ``pace.round`` after a finished round, each counted from when the
        last move was sent. A table of bots stays instant. Nobody is asked (no ``go``, no
        clock running) during the pause."""
        pace = self.settings.pace
        if pace is None or not any(s.kind == HUMAN for s in self.seats) \
                or all(s.fault is not None for s in self.seats):  # nobody can come back
            return
        kinds = {event.kind for event in self._shown}
        wait = pace.round if "round-scored" in kinds else (
            pace.trick if "trick-won" in kinds else 0.0)
        s = self.seats[turn.seat]
        if turn.stand_in is not None or s.kind != HUMAN or s.replaced:
            wait = max(wait, pace.card)
        wait -= time.monotonic() - self._shown_at
        if wait > 0:
            await asyncio.sleep(wait)

    def _stand_in(self, seat: int) -> Any:
        """Who plays a seat after its fault: a person's replacement is a bot of the
        table's level; a forfeited seat's cards, a seeded random player (MATCH.md)."""
        seed = _seed(self.config, seat)
        if self.seats[seat].replaced:
            return make_agent(f"strong:{self.settings.level}", seed, game=self.config.game)
        return RandomAgent(seed)

    async def _ask(self, turn: Turn) -> Command | Faulted:
        """The seat's move, or why it forfeits (protocol/net/asking.py)."""
        return await ask(self, turn)

    def _write_record(self, started: dt.datetime) -> None:
        """The record, written whole beside its name (protocol/net/tablerecord.py)."""
        if self.out is not None:
            self.record = write_table_record(self, self.out, started)

    def outcome(self) -> Outcome | None:
        """Who won as the record's ``result`` line says (a forfeited seat never wins),
        for the ``result`` line every seat and observer gets; None before the end."""
        return table_outcome(self)

    def totals(self) -> tuple[int, ...]:
        last = self.events[-1] if self.events else None
        return last.totals if isinstance(last, GameOver) else ()


async def _sent(links: Sequence[Link]) -> None:
    """Wait (``SENT_WAIT`` at most) until the seats' last lines, the result and
    ``quit``, have left the process. The journal forgets the table's tokens once it is
    over: a kill before a seat had its ``quit`` (the web's messages go out from a queue)
    left a person who came back with ``unknown token`` and no end of their game."""
    if links:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(
                *(link.transport.closed_and_sent() for link in links)), SENT_WAIT)


def _catch_up(agent: StandIn, seat: int, events: Sequence[Event], at: int) -> None:
    """Have a restored stand-in make again the choices it made since ``at``, so that its
    seeded random number generator stands where it did and its next move is the one it
    would have made without the crash."""
    state = replay(events[:at])
    for event in events[at:]:
        if (getattr(event, "seat", None) == seat and event.kind in ("bid", "lead", "play")
                and (legal := legal_actions(state)).seat == seat):
            agent.choose(view(state, seat), legal)
        state = evolve(state, event)


def _seed(config: Config, seat: int) -> int:
    text = f"server-fallback/{config.commit or config.seed}/{seat}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:6], "big")


# --------------------------------------------------------------------------- the server


def table_lines(table: Table) -> list[str]:
    """The tokens of a new table, as ``xactika serve`` prints them (once): a line each."""
    return [*(f"table {table.id} seat {n} token {s.token}" for n, s in enumerate(table.seats)),
            f"table {table.id} observer token {table.observer_token}"]
