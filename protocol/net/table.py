"""A table of the server: its seats, its game on the referee loop, its record.
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

import attrs

from xactika.core.bots.agents import RandomAgent
from xactika.core.engine.errors import ParseError, XactikaError
from xactika.core.engine.referee import Faulted, FaultPolicy, Referee, Turn, run_async
from xactika.core.engine.rng import fresh_seed
from xactika.core.engine.table import (
    Command,
    Config,
    Event,
    GameOver,
    State,
    game_rules,
)
from xactika.core.engine.views import visible
from xactika.protocol.net.link import PUBLIC, Link, LinkDown, LinkFault, new_token
from xactika.protocol.notation.text import config_from_pairs, format_event
from xactika.protocol.notation.untrusted import escape
from xactika.protocol.player.wire import (
    format_go,
    format_newgame,
    parse_answer,
)
from xactika.protocol.records.textform import format_record
from xactika.protocol.records.writing import standard_headers, write_record_file
from xactika.protocol.trust.signing import Signer
from xactika.protocol.trust.tamper import commit_config

log = logging.getLogger(__name__)

@attrs.frozen
class TableSettings:
    """One table's game and clocks."""

    config: Config
    move_timeout: float = 10.0  # the server's move clock, per go
    startup_timeout: float = 10.0  # hello and isready of a joining seat
    grace: float = 30.0  # seconds a dropped seat has to reconnect


def table_settings(pairs: dict[str, str], **clocks: float) -> TableSettings:
    """Settings from ``key=value`` pairs (game, mode, players, rounds, dealer, seed)."""
    pairs = dict(pairs)
    if "seed" not in pairs:
        pairs["seed"] = str(fresh_seed())
    config = config_from_pairs(pairs, defaults=True)
    game_rules(config.game).validate(config)
    return TableSettings(config, **clocks)


@attrs.define(eq=False)
class Seat:
    token: str
    name: str = ""
    link: Link | None = None
    claim: Link | None = None  # a connection in its handshake: the seat is taken already
    fault: tuple[str, str] | None = None  # (reason, detail) once forfeited
    dropped_at: float | None = None
    sent: int = 0  # events of this game the current link has been sent


class Table:
    """One game between remote seats; the server's clock, the record at the end."""

    def __init__(self, number: int, settings: TableSettings, out: Path | None,
                 on_over: Callable[[Table], None] | None = None,
                 signer: Signer | None = None) -> None:
        self.id = number
        self.settings = settings
        self.config = commit_config(settings.config)  # committed seed, revealed at the end
        self.rules = game_rules(self.config.game)
        self.seats = [Seat(new_token()) for _ in range(self.config.players)]
        self.observer_token = new_token()
        self.observers: set[Link] = set()
        self.events: list[Event] = []
        self.state: State | None = None
        self.referee: Referee | None = None
        self.faults: list[tuple[int, str, str]] = []
        self.out = out
        self.signer = signer  # signs the record (spec/TAMPER.md section 6) when given
        self.record: Path | None = None
        self.on_over = on_over
        self.over = asyncio.Event()
        self.latencies: list[float] = []  # seconds from go to answer, for the load bench
        self._changed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

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

    def attach(self, seat: int, link: Link, name: str, resume: int | None) -> None:
        """Seat a handshaken link; send the game so far (all of it, or after ``resume``)."""
        s = self.seats[seat]
        s.link, s.dropped_at = link, None
        if name:
            s.name = name
        link.on_end = lambda lk: self._dropped(seat, lk)
        if self.started:
            if resume is None:
                link.send(format_newgame(seat))
                s.sent = 0
            else:
                s.sent = resume
            self._sync(seat)
        self._changed.set()

    def _dropped(self, seat: int, link: Link) -> None:
        s = self.seats[seat]
        if s.link is not link:
            return
        s.link, s.dropped_at = None, time.monotonic()
        if isinstance(link.end, LinkFault) and self.started and not self.over.is_set():
            self._forfeit(seat, link.end.reason, str(link.end))
        self._changed.set()

    def _forfeit(self, seat: int, reason: str, detail: str) -> None:
        s = self.seats[seat]
        if s.fault is not None:
            return
        s.fault = (reason, detail)
        self.faults.append((seat, reason, detail))
        if self.referee is not None:  # a stand-in plays the seat from now on
            self.referee.fault(seat, reason, detail)
        if s.link is not None:
            link, s.link = s.link, None
            link.finish(LinkFault(reason, detail))

    def _sync(self, seat: int) -> None:
        s = self.seats[seat]
        if s.link is None:
            return
        s.link.send(*(format_event(visible(e, seat), self.rules) for e in self.events[s.sent:]))
        s.sent = len(self.events)

    def _publish(self, new: Sequence[Event]) -> None:
        for seat in range(len(self.seats)):
            self._sync(seat)
        if self.observers:
            public = [format_event(visible(event, PUBLIC), self.rules) for event in new]
            for link in list(self.observers):
                link.send(*public)

    def watch(self, link: Link) -> None:
        link.send(f"watching table={self.id}",
                  *(format_event(visible(event, PUBLIC), self.rules) for event in self.events))
        if self.over.is_set():
            link.finish(LinkDown("game over"))
            return
        self.observers.add(link)
        link.on_end = self.observers.discard

    # -- the game
    async def _run(self) -> None:
        try:
            await self._play()
        except Exception:  # one table's bug must not stop the others
            log.exception("table %s failed", self.id)
            self.faults.append((-1, "crash", "the server failed; the game is void"))
        finally:
            for s in self.seats:
                if s.link is not None:
                    s.link.send("quit")
                    s.link.finish(LinkDown("game over"))
            for link in list(self.observers):
                link.finish(LinkDown("game over"))
            self.over.set()
            if self.on_over is not None:
                self.on_over(self)

    async def _play(self) -> None:
        while not all(s.link is not None for s in self.seats):
            self._changed.clear()
            await self._changed.wait()
        started = dt.datetime.now(dt.UTC)
        config = self.config  # a forfeited seat is played by a seeded random bot
        fallback = FaultPolicy.stand_in(lambda seat: RandomAgent(_seed(config, seat)))
        self.referee = referee = Referee.new(config, policy=fallback)
        self.events = referee.events  # the same list: the referee appends every move
        for seat, s in enumerate(self.seats):
            if s.link is not None:
                s.link.send(f"newgame seat={seat}")
                s.sent = 0
        self._publish(self.events)

        def moved(new: list[Event]) -> None:
            self.state = referee.state
            self._publish(new)

        await run_async(referee, self._ask, moved)
        self.state = referee.state
        self._write_record(started)

    async def _ask(self, turn: Turn) -> Command | Faulted:
        """The seat's move, or why it forfeits (fault, or gone past the grace)."""
        seat, legal = turn.seat, turn.legal
        s = self.seats[seat]
        move = self.settings.move_timeout
        go = format_go(legal, self.rules, int(move * 1000))
        while s.fault is None:
            link = s.link
            if link is None:
                left = (s.dropped_at or time.monotonic()) + self.settings.grace - time.monotonic()
                if left > 0:
                    self._changed.clear()
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._changed.wait(), left)
                    continue
                self._forfeit(seat, "crash", f"disconnected and did not come back within "
                              f"{self.settings.grace:g} s")
                break
            stale = link.stale()
            if stale is not None:  # the player protocol's names for it (MATCH.md)
                early = stale.split()[0] in ("bid", "play")
                self._forfeit(seat, "early-answer" if early else "garbage",
                              f"sent {escape(stale, 60)!r} when nothing was asked")
                break
            link.send(go)
            asked = time.monotonic()
            try:
                line = await link.next(move)
            except LinkDown:
                continue  # wait for the seat to come back, then ask again
            except LinkFault as fault:
                self._forfeit(seat, fault.reason, str(fault))
                break
            except TimeoutError:
                self._forfeit(seat, "timeout", f"no answer within {move:g} s to "
                              f"'go {legal.kind}'")
                break
            self.latencies.append(time.monotonic() - asked)
            if s.fault is not None:  # faulted while the answer was on its way (a flood
                break  # right behind it): the stand-in plays, the answer is void
            try:
                return parse_answer(line, legal, self.rules)
            except (ParseError, XactikaError, ValueError, IndexError) as exc:
                reason = "illegal-move" if line.split()[0] in ("bid", "play") else "garbage"
                self._forfeit(seat, reason, f"answered {escape(line, 60)!r}: {exc}")
        assert s.fault is not None  # _forfeit told the referee already
        return Faulted(*s.fault)

    def _write_record(self, started: dt.datetime) -> None:
        """The record, written whole beside its name and renamed (protocol/records/writing.py)."""
        if self.out is None:
            return
        names = [_header_name(s.name, seat) for seat, s in enumerate(self.seats)]
        headers = standard_headers(
            self.config, names, date=started, event="xactika serve",
            extra=[("server.table", str(self.id)),
                   ("termination", self.faults[0][1] if self.faults else "normal")])
        headers += [("fault", f"{seat} {reason}: {' '.join(detail.split())}")
                    for seat, reason, detail in self.faults if seat >= 0]
        self.out.mkdir(parents=True, exist_ok=True)
        path = self.out / f"table-{self.id}.log"
        write_record_file(path, format_record(headers, self.events, signer=self.signer))
        self.record = path

    def totals(self) -> tuple[int, ...]:
        last = self.events[-1] if self.events else None
        return last.totals if isinstance(last, GameOver) else ()


def _seed(config: Config, seat: int) -> int:
    text = f"server-fallback/{config.commit or config.seed}/{seat}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:6], "big")


def _header_name(name: str, seat: int) -> str:
    """A seat's self-given name (the handshake made it safe: ``clean_name``), or a stand-in."""
    return name or f"seat{seat}"


# --------------------------------------------------------------------------- the server


def table_line(table: Table) -> str:
    """The tokens of a new table, as ``xactika serve`` prints them (once)."""
    seats = ",".join(s.token for s in table.seats)
    return f"table id={table.id} seats={seats} observer={table.observer_token}"
