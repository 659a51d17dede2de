"""The lobby of the table server (spec/SERVER.md section 9): list the tables, create one,
take an open seat under a name, leave it, ask for a rematch, or watch.

A lobby session is a connection whose first line is ``lobby`` (``lobby ADMIN_TOKEN``
lifts the limits). It reads and writes lines on a :class:`~xactika.protocol.net.link.Link`
only, so any transport that carries lines (TCP, TLS, a WebSocket) serves the same lobby.
Everything a stranger may do here is bounded: tables per address and in all, seats
handed out per address, names, and tables nobody plays close by themselves. A seat's
token is written once, to the connection that took the seat.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import unicodedata
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import attrs

from xactika.core.bots.agents import plays
from xactika.core.engine.errors import XactikaError
from xactika.protocol.net.lines import (
    Bye,
    Create,
    Created,
    Join,
    Joined,
    Leave,
    Left,
    ListTables,
    LobbyOk,
    LobbyTable,
    Observe,
    Ok,
    Rematch,
    Rematched,
    SeatField,
    Watch,
    parse_lobby,
)
from xactika.protocol.net.link import Link, LinkDown, LinkFault
from xactika.protocol.net.seating import TableSettings
from xactika.protocol.net.table import Table
from xactika.protocol.notation.text import game_option_types
from xactika.protocol.notation.untrusted import escape
from xactika.protocol.player.wire import Quit, TakeSeat, WireError, format_line, name_key

if TYPE_CHECKING:
    from xactika.protocol.net.server import Server

log = logging.getLogger(__name__)

NAME_MAX = 20  # characters of a name taken in the lobby
# seed= too, for the admin; clock=, on-timeout=, timeouts=, level=, pace= and hint= are
# the people's (SERVER.md) and the games' own settings (Dix's target=), asked of the registry
CREATE_KEYS = ("game", "mode", "players", "rounds", "dealer", "clock", "on-timeout",
               "timeouts", "level", "pace", "hint", *game_option_types())
REMATCH = "rematch"  # a seat kept for the holder of the last game's token
SEATS = "seats"  # create's seats=human,human,bot: who sits where, where the server seats bots
PERSON_SEATS = ("human", "open")  # a seat in seats= left for a person to join
BOT = "bot"  # the mark on a seat a built-in bot holds
UNWATCHED = "unwatched"  # the faults' reason when a table of bots alone is ended
# what a stranger's table may ask for (spec/SERVER.md section 9): a person's choices
MAX_ROUNDS = 30  # Oh Hell's longest up-and-down with 13 cards is 25
MAX_CLOCK = (3600.0, 60.0)  # a bank's seconds and the seconds added a move
MAX_PACE = 10.0  # seconds of each pause (a card, a trick, a round)
MAX_OPTION = 100  # a game's number setting (Dix's target; the long game is 50)


@attrs.frozen
class BotSeats:
    """How a server seats its built-in bots at lobby tables (``xactika serve``'s)."""

    agent: Callable[[str], str]  # a seat's word in seats= -> an agent name; ValueError if none
    seat: Callable[[Table, int, str], None]  # start that agent in that seat


class LobbyError(Exception):
    """A lobby command that cannot be done; one ``error`` line, the session goes on."""


@attrs.frozen
class LobbyPolicy:
    """What strangers may do in the lobby; the admin token lifts the table limits."""

    max_tables: int = 32  # lobby tables not over, all addresses together
    tables_per_address: int = 2  # waiting lobby tables created from one address
    seats_per_address: int = 8  # seats handed to one address at tables not started
    idle: float = 600.0  # a lobby table not started this long after its last join closes
    session_idle: float = 600.0  # seconds a lobby session may stay silent
    unwatched: float = 300.0  # a table of bots alone nobody watches this long is ended


@attrs.define(eq=False)
class Hosted:
    """A table the lobby created: who created it, which seats it has given to whom."""

    table: Table
    address: str
    touched: float
    given: dict[int, str] = attrs.field(factory=dict)  # seat -> address (or REMATCH)
    rematch: Table | None = None  # the table of the next game, once asked for
    bots: dict[int, str] = attrs.field(factory=dict)  # seat -> agent, seated by BotSeats
    extra: dict[str, Any] = attrs.field(factory=dict)  # the host's own (the web's), journalled


def check_name(text: str) -> str:
    """A lobby name: 1 to 20 letters, digits, ``-``, ``_`` or ``.``, NFKC-normalised (a
    fullwidth letter is its plain one); LobbyError if not (format characters included)."""
    text = unicodedata.normalize("NFKC", text)
    if not 1 <= len(text) <= NAME_MAX or not all(c.isalnum() or c in "-_." for c in text):
        raise LobbyError(f"bad name {escape(text, 40)!r}: 1 to {NAME_MAX} letters, digits, "
                         "'-', '_' or '.'")
    return text


def _number(text: str, what: str) -> int:
    if not (text.isascii() and text.isdigit() and len(text) < 10):
        raise LobbyError(f"bad {what} {escape(text, 40)!r}: expected a number")
    return int(text)


def _shown(name: str) -> str:
    """A seat's name in a listing: escaped, one word, ``-`` for none."""
    return escape(name, NAME_MAX).replace(",", "_").replace(" ", "_") or "-"


def check_bounds(pairs: dict[str, str], settings: TableSettings) -> None:
    """The settings a lobby request gave, within what a person would choose (the server's
    own defaults are the operator's); LobbyError, one line, for one that is not."""
    config = settings.config
    if "rounds" in pairs and not 1 <= config.rounds <= MAX_ROUNDS:
        raise LobbyError(f"rounds is 1 to {MAX_ROUNDS} at a lobby table, not {config.rounds}")
    clock = settings.clock
    if "clock" in pairs and clock is not None and (
            clock.base_ms > MAX_CLOCK[0] * 1000 or clock.inc_ms > MAX_CLOCK[1] * 1000):
        raise LobbyError(f"clock is at most {MAX_CLOCK[0]:g}+{MAX_CLOCK[1]:g} seconds at a "
                         f"lobby table, not {clock.text()}")
    pace = settings.pace
    if "pace" in pairs and pace is not None and \
            max(pace.card, pace.trick, pace.round) > MAX_PACE:
        raise LobbyError(f"pace is 0 to {MAX_PACE:g} seconds a pause at a lobby table")
    for key, value in config.options:
        if key in pairs and isinstance(value, int) and not value <= MAX_OPTION:
            raise LobbyError(f"{key} is at most {MAX_OPTION} at a lobby table, not {value}")


def bots_only(hosted: Hosted) -> bool:
    """Every seat is a built-in bot's: a table nobody plays at."""
    return all(hosted.given.get(seat) == BOT for seat in range(len(hosted.table.seats)))


class Lobby:
    """The lobby of one server: its tables and the sessions' commands."""

    def __init__(self, server: Server, policy: LobbyPolicy) -> None:
        self.server = server
        self.policy = policy
        self.hosted: dict[int, Hosted] = {}
        self.closed: set[int] = set()  # tables closed unplayed (their tasks end soon)
        self.bots: BotSeats | None = None  # seats=...,bot at create: None refuses them
        self.ending: set[int] = set()  # tables of bots alone being ended (not live)
        self._minding: set[asyncio.Task[None]] = set()

    # -- a session
    async def session(self, link: Link, address: str, *, admin: bool = False) -> None:
        """Answer commands until ``quit``, silence, a fault, or a hand-over to a seat or
        a table to watch (the connection then serves as that)."""
        link.send(format_line(LobbyOk(admin)))
        link.start_pump()
        while not link.closed:
            try:
                line = await link.next(self.policy.session_idle)
            except TimeoutError:
                link.finish(LinkDown("idle"), f"timeout: nothing said within "
                            f"{self.policy.session_idle:g} s")
                return
            except (LinkDown, LinkFault):
                return
            link.asked()
            try:
                match parse_lobby(line):
                    case Quit():
                        link.send(format_line(Bye()))
                        link.finish(LinkDown("quit"))
                        return
                    case TakeSeat() | SeatField() | Observe() as enter:
                        await self.server.enter(link, address, enter)
                        return
                    case Watch(table):
                        await self.server.observe(link, self._watchable(table))
                        return
                    case ListTables():
                        link.send(*self.tables(), format_line(Ok()))
                    case Create(settings):
                        link.send(self.create(list(settings), address, admin))
                    case Join(table, fields):
                        link.send(self.join([table, *fields], address, admin))
                    case Leave(token):
                        link.send(await self.leave(token, address))
                    case Rematch(token):
                        link.send(await self.rematch(token, address, admin))
            except (LobbyError, WireError) as exc:
                link.send(f"error {exc}")

    # -- the commands
    def tables(self) -> list[str]:
        """A line per table not over: settings, status, open seats, names, observers."""
        self._sweep()
        lines = []
        for table in self.server.tables:
            if table.over.is_set() or table.id in self.closed or table.private:
                continue  # a private table (the daily deal's) is as one that never was
            config = table.config
            hosted = self.hosted.get(table.id)
            open_seats = ",".join(map(str, self._open(hosted))) if hosted else ""
            names = ",".join(_shown(s.name) for s in table.seats)
            lines.append(format_line(LobbyTable(
                table.id, config.game, config.mode, config.players, config.rounds,
                table.status(), open_seats or "-", names, len(table.observers))))
        return lines

    def create(self, words: list[str], address: str, admin: bool) -> str:
        """``create KEY=VALUE...``: a new table open to the lobby, within the limits."""
        pairs: dict[str, str] = {}
        keys = (*CREATE_KEYS, *((SEATS,) if self.bots is not None else ()))
        for word in words:
            key, eq, value = word.partition("=")
            if not eq or key not in (*keys, *(("seed",) if admin else ())) \
                    or key in pairs:
                raise LobbyError(f"bad setting {escape(word, 40)!r}: expected "
                                 + "=, ".join(keys) + "= (each once)")
            pairs[key] = value
        seats = pairs.pop(SEATS, None)
        return format_line(Created(self.open_table(pairs, address, admin, seats).id))

    def open_table(self, pairs: dict[str, str], address: str, admin: bool,
                   seats: str | None = None, *, people: bool = True) -> Table:
        """A new lobby table from checked ``KEY=VALUE`` settings, within the bounds and the
        limits: what ``create`` does, callable in the process (the web's lobby,
        frontends/web/weblobby.py). ``seats`` (``human,human,bot``) seats the server's bots
        where it says; ``people``: False for a table of bots alone (the web's), which never
        takes a table with people's place."""
        try:
            settings = self.server.settings(pairs)
        except (XactikaError, ValueError, KeyError, TypeError) as exc:
            raise LobbyError(escape(str(exc), 200)) from None
        check_bounds(pairs, settings)
        bots = self._bot_seats(seats, settings.config.players)
        self._sweep()
        if not admin:
            live = self.live()
            mine = [h for h in live if h.address == address]  # whatever their seats
            if len(mine) >= self.policy.tables_per_address:
                raise LobbyError(f"{self.policy.tables_per_address} tables of yours are "
                                 "not over yet")
            self._make_room(live, people)
        table = self.server.add_table(settings)
        hosted = self.hosted[table.id] = Hosted(table, address, time.monotonic(), bots=bots)
        self._seat_bots(hosted)
        self.keep(hosted)
        return table

    def _make_room(self, live: list[Hosted], people: bool) -> None:
        """Under the cap, or a table of bots alone ended for a table with ``people`` (the
        least watched, the oldest first): bots never keep people out."""
        if len(live) < self.policy.max_tables:
            return
        room = min((h for h in live if bots_only(h)), default=None,
                   key=lambda h: (len(h.table.observers), h.table.id))
        if room is None or not people:
            raise LobbyError(f"the lobby has {self.policy.max_tables} tables already; "
                             "try again later")
        self.end(room, "ended to make room for a table with people")

    def live(self) -> list[Hosted]:
        """The lobby's tables not over (a table of bots being ended is not)."""
        return [h for h in self.hosted.values()
                if not h.table.over.is_set() and h.table.id not in self.ending]

    # -- tables of bots alone: ended when nobody watches, or to make room for people
    def mind(self, hosted: Hosted) -> None:
        """Once a table's bots are seated: a table of bots alone that nobody has watched
        for ``unwatched`` seconds is ended (a bot game for nobody only costs the server)."""
        if bots_only(hosted) and not hosted.table.over.is_set():
            task = asyncio.create_task(self._unwatched(hosted))
            self._minding.add(task)
            task.add_done_callback(self._minding.discard)

    async def _unwatched(self, hosted: Hosted) -> None:
        table, idle = hosted.table, self.policy.unwatched
        seen = time.monotonic()
        while not table.over.is_set() and table.id not in self.ending:
            now = time.monotonic()
            if table.observers:
                seen = now
            left = seen + idle - now
            if left <= 0:
                self.end(hosted, f"nobody watched it for {idle:g} s")
                return
            with contextlib.suppress(TimeoutError):  # a look a second at most
                await asyncio.wait_for(table.over.wait(), min(left, 1.0))

    def end(self, hosted: Hosted, detail: str) -> None:
        """End a table of bots alone: every seat forfeits (``unwatched``, the record's
        termination and faults say why) and random players finish it at once; one that
        has not started is closed."""
        table = hosted.table
        self.ending.add(table.id)
        log.info("table %s ended: %s", table.id, detail)
        if not table.started:
            self.hosted.pop(table.id, None)
            self.closed.add(table.id)
            self.server.close_table(table)
            return
        table.end(UNWATCHED, detail)

    def _bot_seats(self, seats: str | None, players: int) -> dict[int, str]:
        """``seats=human,human,bot``: each seat a person's (``human``, ``open``) or one of
        the server's bots; seat -> agent. LobbyError for a bad list."""
        if seats is None:
            return {}
        words = seats.split(",")
        if len(words) != players:
            raise LobbyError(f"seats= names {len(words)} seats where the table has {players}")
        if all(w not in PERSON_SEATS for w in words):
            raise LobbyError("seats= leaves no seat for a person: a table of bots alone is "
                             "a match (xactika match)")
        assert self.bots is not None
        out = {}
        for seat, word in enumerate(words):
            if word in PERSON_SEATS:
                continue
            try:
                out[seat] = self.bots.agent(word)
            except ValueError as exc:
                raise LobbyError(f"seat {seat}: {escape(str(exc), 200)}") from None
        return out

    def _seat_bots(self, hosted: Hosted) -> None:
        assert self.bots is not None or not hosted.bots
        table = hosted.table
        for seat, agent in hosted.bots.items():
            hosted.given[seat] = BOT
            table.seats[seat].name = plays(agent, table.config.game)
            if self.bots is not None:
                self.bots.seat(table, seat, agent)

    def join(self, words: list[str], address: str, admin: bool) -> str:
        """``join TABLE name=NAME [seat=N]``: an open seat and its token, to this
        connection only."""
        hosted = self._hosted(words[0])
        table = hosted.table
        name, seat = "", None
        for word in words[1:]:
            key, _, value = word.partition("=")
            if key == "name" and not name:
                name = check_name(value)
            elif key == "seat" and seat is None:
                seat = _number(value, "seat")
            else:
                raise LobbyError(f"bad field {escape(word, 40)!r}: expected "
                                 "'join TABLE name=NAME [seat=N]'")
        if not name:
            raise LobbyError("a name is needed: 'join TABLE name=NAME'")
        seat = self.take(hosted, name, seat, address, admin)
        return format_line(Joined(table.id, seat, table.seats[seat].token))

    def take(self, hosted: Hosted, name: str, seat: int | None, address: str,
             admin: bool) -> int:
        """An open seat (``seat``, or the first) of a lobby table under a checked name, within
        the limits: what ``join`` does, in the process; the seat's number."""
        table = hosted.table
        if table.started or table.over.is_set():
            raise LobbyError(f"table {table.id} has started")
        free = self._open(hosted)
        if seat is None and free:
            seat = free[0]
        if seat is None or seat not in free:
            raise LobbyError(f"no open seat {'' if seat is None else f'{seat} '}at table "
                             f"{table.id}")
        if any(name_key(s.name) == name_key(name) for s in table.seats):  # look-alikes too
            raise LobbyError(f"the name {name!r} is taken at table {table.id}")
        if not admin and self._given_to(address) >= self.policy.seats_per_address:
            raise LobbyError(f"{self.policy.seats_per_address} seats of yours are waiting "
                             "for their games already")
        hosted.given[seat] = address
        hosted.touched = time.monotonic()
        table.seats[seat].name = name
        if not table.seats[seat].token:  # restored: the journal knew its hash only
            self.server.reissue(table, seat)
        self.keep(hosted)
        return seat

    async def leave(self, token: str, address: str) -> str:
        """``leave TOKEN``: give a seat back before its game starts; its token stops
        working (the seat gets a new one for whoever joins next)."""
        table, seat = await self._seat_of(token, address)
        hosted = self.hosted.get(table.id)
        if hosted is None or table.started or table.over.is_set():
            raise LobbyError(f"seat {seat} of table {table.id} cannot be left now: only a "
                             "lobby table's seat before its game starts")
        s = table.seats[seat]
        for link in (s.link, s.claim):
            if link is not None:
                link.finish(LinkDown("left"), "the seat was left in the lobby")
        self.server.reissue(table, seat)
        s.name = ""
        hosted.given.pop(seat, None)
        hosted.touched = time.monotonic()
        self.keep(hosted)
        return format_line(Left(table.id, seat))

    async def rematch(self, token: str, address: str, admin: bool) -> str:
        """``rematch TOKEN``: a seat of a finished game asks for the next one: the same
        settings and names at a new table, a new deal; answers that seat's new token."""
        new, seat = await self.next_table(token, address, admin)
        return format_line(Rematched(new.id, seat, new.seats[seat].token))

    async def next_table(self, token: str, address: str, admin: bool) -> tuple[Table, int]:
        """The rematch of a finished game's seat (made once for the table) and that seat's
        number there: what ``rematch`` does, in the process."""
        table, seat = await self._seat_of(token, address)
        if not table.over.is_set():
            raise LobbyError(f"table {table.id} is not over yet")
        if not table.started:
            raise LobbyError(f"table {table.id} closed before its game began")
        old = self.hosted.get(table.id)
        if old is None:
            old = self.hosted[table.id] = Hosted(table, address, time.monotonic())
        if old.rematch is None:
            if not admin:
                self._make_room(self.live(), people=True)  # a rematch is people's
            config = table.config
            # every setting kept (the game's, the clock, on-timeout, level, pace), a new
            # seed, and the deal passed on to the next seat
            pairs = {"game": config.game, "mode": config.mode,
                     "players": str(config.players), "rounds": str(config.rounds),
                     "dealer": str((config.dealer + 1) % config.players)}
            pairs |= {k: str(v) for k, v in config.options}
            try:
                settings = attrs.evolve(table.settings,
                                        config=self.server.settings(pairs).config)
            except (XactikaError, ValueError, KeyError, TypeError) as exc:
                raise LobbyError(escape(str(exc), 200)) from None
            new = self.server.add_table(settings, [s.name for s in table.seats])
            self.hosted[new.id] = Hosted(new, address, time.monotonic(),
                                         dict.fromkeys(range(len(new.seats)), REMATCH),
                                         bots=dict(old.bots))
            self._seat_bots(self.hosted[new.id])  # the bots play the rematch too
            self.keep(self.hosted[new.id])
            old.rematch = new
        new = old.rematch
        hosted = self.hosted.get(new.id)
        if hosted is None or hosted.given.get(seat) != REMATCH:
            raise LobbyError(f"seat {seat} of the rematch (table {new.id}) was left")
        hosted.touched = time.monotonic()
        return new, seat

    # -- the journal: a lobby table survives a restart with the seats it had given
    def keep(self, hosted: Hosted, *, sync: bool = False) -> None:
        """Journal who holds which seat of a lobby table (and its bots, and its host's own
        data, ``extra``), at every change: a restart must show each seat as it was, taken
        or open, whichever lobby gave it (spec/SERVER.md section 10). On disk with the
        next flush, before any answer on a link leaves (``sync``: at once, for a host that
        answers otherwise, the web's HTTP)."""
        journal = hosted.table.journal
        if journal is not None:
            hosted.table.keep_seats()  # the names given with the seats
            journal.host(hosted.table.id, {
                **hosted.extra, "address": hosted.address,
                "given": {str(seat): who for seat, who in hosted.given.items()},
                "bots": {str(seat): agent for seat, agent in hosted.bots.items()}},
                sync=sync)

    def resume(self, tables: Iterable[Table]) -> list[Hosted]:
        """The lobby's tables among those restored after a crash: back in the lobby with
        the seats they had given (a person comes back with their own token) and the
        server's bots seated again under new tokens (the journal keeps only hashes)."""
        journal = self.server.journal
        kept = journal.hosts() if journal is not None else {}
        resumed = []
        for table in tables:
            data = kept.get(table.id)
            if data is None or table.private:
                continue  # a table of the command line, the admin or the daily deal's
            try:
                given = {int(seat): str(who) for seat, who in data["given"].items()}
                bots = {int(seat): str(agent) for seat, agent in data.get("bots", {}).items()}
                if any(not 0 <= seat < len(table.seats) for seat in (*given, *bots)):
                    raise ValueError("a seat the table does not have")
                extra = {k: v for k, v in data.items() if k not in ("address", "given", "bots")}
                hosted = Hosted(table, str(data["address"]), time.monotonic(), given,
                                bots=bots, extra=extra)
            except (KeyError, ValueError, TypeError, AttributeError) as exc:
                log.error("table %s resumed without its lobby seats: %s", table.id, exc)
                continue
            self.hosted[table.id] = hosted
            resumed.append(hosted)
            for seat, agent in bots.items():
                if self.bots is not None and table.seats[seat].fault is None:
                    self.server.reissue(table, seat)
                    self.bots.seat(table, seat, agent)
        return resumed

    # -- helpers
    def hosted_table(self, number: int) -> Hosted:
        """A lobby table not over, by its number; LobbyError if there is none."""
        hosted = self.hosted.get(number)
        if hosted is None or hosted.table.over.is_set():
            raise LobbyError(f"no lobby table {number}")
        return hosted

    def _watchable(self, text: str) -> Table:
        """A lobby table to ``watch``; a table the server opened itself (``serve``'s, which
        the list shows too) is watched with its observer token, which says so."""
        number = _number(text, "table")
        if number not in self.hosted and any(
                t.id == number and not t.over.is_set() and not t.private
                for t in self.server.tables):
            raise LobbyError(f"table {number} is the server's own, not the lobby's: watch it "
                             "with its observer token (xactika connect HOST:PORT --watch "
                             "--token-file FILE)")
        return self.hosted_table(number).table

    def _hosted(self, text: str) -> Hosted:
        return self.hosted_table(_number(text, "table"))

    async def _seat_of(self, token: str, address: str) -> tuple[Table, int]:
        entry = self.server.seat_entry(token)
        if entry is None or entry.table is None:
            await self.server.penalty(address)  # guessing tokens here is slowed as anywhere
            raise LobbyError("unknown token")
        return entry.table, entry.seat

    def _open(self, hosted: Hosted | None) -> list[int]:
        if hosted is None or hosted.table.started or hosted.table.over.is_set():
            return []
        return [n for n, s in enumerate(hosted.table.seats)
                if n not in hosted.given and s.link is None and s.claim is None]

    def _given_to(self, address: str) -> int:
        return sum(1 for h in self.hosted.values() if not h.table.started
                   and not h.table.over.is_set()
                   for a in h.given.values() if a == address)

    def _sweep(self) -> None:
        """Close lobby tables whose game never started and nobody sits at, ``idle``
        seconds after the last join or leave."""
        now = time.monotonic()
        for number, hosted in list(self.hosted.items()):
            table = hosted.table
            if table.over.is_set():
                if hosted.rematch is None and now - hosted.touched > self.policy.idle:
                    del self.hosted[number]  # too late for a rematch: forget it
                continue
            if not table.started and table.seated() == 0 \
                    and now - hosted.touched > self.policy.idle:
                del self.hosted[number]
                self.closed.add(number)
                self.server.close_table(table)
