"""A table server: remote seats play over TCP or TLS with per-seat tokens (spec/SERVER.md).

The referee keeps the game, the clock and the records; each player connects from its own
machine, says ``seat TOKEN`` and then speaks the player protocol (spec/PLAYER.md) as a
bot would over its pipes. Observers get the public events only. Everything a client
sends is bounded (connections, time before the token, line length, lines per second),
so no client can crash the server or disturb another table. Standard library asyncio
and ssl only.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import os
import ssl
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Generic, TypeVar

import attrs

from xactika.core.engine.errors import XactikaError
from xactika.protocol.net.clock import parse_clock, parse_pace
from xactika.protocol.net.journal import Journal
from xactika.protocol.net.lines import (
    UNKNOWN_TOKEN,
    AdminOk,
    Enter,
    EnterLobby,
    ListTables,
    NewTable,
    Ok,
    SeatField,
    TableStatus,
    enter_kind,
    parse_admin,
    parse_first,
)
from xactika.protocol.net.link import Limits, Link, LinkDown, LinkFault, new_token, token_key
from xactika.protocol.net.lobby import Lobby, LobbyPolicy
from xactika.protocol.net.table import (
    ON_TIMEOUT,
    Table,
    TableSettings,
    table_lines,
    table_settings,
)
from xactika.protocol.notation.untrusted import escape
from xactika.protocol.player.wire import (
    Handshake,
    Quit,
    TakeSeat,
    WireError,
    clean_name,
    format_line,
)
from xactika.protocol.trust.signing import Signer

log = logging.getLogger(__name__)

V = TypeVar("V")


class Failures:
    """Wrong tokens per address: the first few are free, then each answer waits longer."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._seen: dict[str, tuple[int, float]] = {}

    def fail(self, address: str) -> float:
        """Count a failure; the seconds to wait before answering it."""
        now = time.monotonic()
        count, last = self._seen.get(address, (0, now))
        if now - last > self.limits.fail_forget:
            count = 0
        count += 1
        self._seen[address] = (count, now)
        if len(self._seen) > 10000:  # bounded memory under a spray of addresses
            self._seen.pop(next(iter(self._seen)))
        extra = count - self.limits.fail_free
        if extra <= 0:
            return 0.0
        return float(min(self.limits.fail_delay * 2 ** (extra - 1), self.limits.fail_delay_max))

    def forgive(self, address: str) -> None:
        self._seen.pop(address, None)


class TokenBook(Generic[V]):
    """Tokens kept as their hashes only (``token_key``), looked up by hash and compared
    in constant time: a restarted server knows its tables' tokens from the journal,
    which never holds a token itself."""

    def __init__(self) -> None:
        self._entries: dict[bytes, tuple[bytes, V]] = {}

    def add(self, token: str, value: V) -> None:
        self.add_key(token_key(token), value)

    def add_key(self, key: bytes, value: V) -> None:
        self._entries[key] = (key, value)

    def get(self, token: str) -> V | None:
        key = token_key(token)
        found = self._entries.get(key)
        if found is None or not hmac.compare_digest(found[0], key):
            return None
        return found[1]

    def remove(self, token: str) -> None:
        self.remove_key(token_key(token))

    def remove_key(self, key: bytes) -> None:
        self._entries.pop(key, None)


@attrs.define(eq=False)
class _Entry:
    kind: str  # "seat", "observe" or "admin"
    table: Table | None = None
    seat: int = -1


FULL = "too many connections; try again later"


class Server:
    """Listens, checks tokens, and hands each connection to its table.

    Connection slots are fair (spec/SERVER.md section 6): a connection that has not yet
    shown a token waits in a small pool of its own, whose oldest member is evicted when
    a newer one needs the room, so idle connections cannot keep a real seat out; a
    valid seat token always gets a slot (one per seat); observers are capped per table.
    """

    def __init__(self, *, limits: Limits | None = None, out: Path | None = None,
                 ssl_context: ssl.SSLContext | None = None,
                 admin_token: str | None = None, signer: Signer | None = None,
                 on_note: Callable[[str], None] | None = None,
                 clocks: dict[str, Any] | None = None,
                 seed_for: Callable[[int], int] | None = None,
                 lobby: LobbyPolicy | None = None,
                 journal: Journal | None = None, shard: tuple[int, int] = (0, 1)) -> None:
        self.limits = limits or Limits()
        # (K, N): this process's table numbers are K mod N, so that N web processes behind
        # one proxy never number two tables alike and the proxy routes by number (WEB.md)
        if not 0 <= shard[0] < shard[1]:
            raise ValueError(f"a shard is K/N with 0 <= K < N, not {shard[0]}/{shard[1]}")
        self.shard = shard
        self.out = out
        self.ssl_context = ssl_context
        self.signer = signer
        self.admin_token = admin_token or new_token()
        self.on_note = on_note or (lambda text: None)
        # new tables' move_timeout, grace, people's clock, on_timeout and stand-in level
        self.clocks = dict(clocks or {})
        self.seed_for = seed_for  # the deal seed of table N when no one gives one
        self.lobby = Lobby(self, lobby or LobbyPolicy())
        self.tables: list[Table] = []
        self.journal = journal  # every table kept there survives a crash (journal.py)
        # table numbers never repeat in one --out: a record's name is its number's
        self._last_id = max(journal.top if journal is not None else 0,
                            last_record_number(out))
        self.connections = 0
        self._links: set[Link] = set()  # every open connection
        self._pending: dict[Link, str] = {}  # no token shown yet (and lobby sessions), oldest first
        self._others = 0  # observers and admin sessions
        self.refused = 0  # connections turned away: caps, bad first lines, wrong tokens
        self.evicted = 0  # unauthenticated connections closed to make room
        self._failures = Failures(self.limits)
        self._tokens: TokenBook[_Entry] = TokenBook()
        self._tokens.add(self.admin_token, _Entry("admin"))
        self._server: asyncio.Server | None = None
        self.all_over = asyncio.Event()

    # -- tables
    def add_table(self, settings: TableSettings, names: Sequence[str] = (), *,
                  private: Path | None = None) -> Table:
        """The one way a new table comes to be (serve, admin, lobby, rematch); ``names``
        are the seats' names known in advance (the lobby's). ``private``: its record goes
        there, not into ``out``, and it is journalled as private (the web's daily deal:
        its record is secret until the day's close, frontends/web/dailypages.py; a
        restart gives it back only to ``restore``'s ``private`` folder, never a lobby)."""
        self._last_id = self._next_id()
        table = Table(self._last_id, settings, self.out if private is None else private,
                      self._table_over, self.signer)
        table.private = private is not None
        for seat, s in enumerate(table.seats):
            if seat < len(names):
                s.name = names[seat]
        if self.journal is not None:
            table.journalled(self.journal)  # on disk before its tokens are shown
        self._open(table)
        return table
    def restore(self, private: Path | None = None) -> list[Table]:
        """Open again every unfinished table the journal kept (a restart after a crash);
        a table that cannot be restored is set aside (the journal's ``damage`` says so)
        and the others go on. A private table's record goes to ``private``; without one
        (a server with no daily deal) it stays in the journal, unopened, for a server
        that has one."""
        journal = self.journal
        if journal is None:
            return []
        tables = []
        for saved in journal.unfinished():
            secret = bool(saved.settings.get("private"))
            if secret and private is None:
                continue
            try:
                tables.append(Table.restore(saved, journal, private if secret else self.out,
                                            self._table_over, self.signer))
            except Exception as exc:  # one damaged table must not stop the others
                journal.set_aside(saved.id, f"{type(exc).__name__}: {exc}")
        for table in tables:
            self._open(table)
        return tables

    def _open(self, table: Table) -> None:
        self.tables.append(table)
        for seat, s in enumerate(table.seats):
            self._tokens.add_key(s.key, _Entry("seat", table, seat))
        self._tokens.add_key(table.observer_key, _Entry("observe", table))
        self.all_over.clear()
        table.start_task()

    def settings(self, pairs: dict[str, str]) -> TableSettings:
        """A new table's settings: the server's clocks unless ``clock=``, ``on-timeout=``
        or ``level=`` say otherwise, its seed rule unless a seed is given."""
        pairs = dict(pairs)
        own = people_settings(pairs)  # ValueError for a bad one
        if "seed" not in pairs and self.seed_for is not None:  # the number it will get
            pairs["seed"] = str(self.seed_for(self._next_id()))
        return table_settings(pairs, **{**self.clocks, **own})

    def _next_id(self) -> int:
        """The next table's number: the next above the last that is K mod N."""
        k, n = self.shard
        return self._last_id + 1 + (k - self._last_id - 1) % n

    def seat_entry(self, token: str) -> _Entry | None:
        entry = self._tokens.get(token)
        return entry if entry is not None and entry.kind == "seat" else None

    def reissue(self, table: Table, seat: int) -> None:
        """A new token for a seat (its old one stops working), e.g. after a ``leave``."""
        s = table.seats[seat]
        self._tokens.remove_key(s.key)  # by its hash: a restored seat knows no token
        s.token = new_token()
        s.key = token_key(s.token)
        if table.journal is not None:
            table.journal.seat_token(table.id, seat, s.key)
        self._tokens.add_key(s.key, _Entry("seat", table, seat))

    def observer_again(self, table: Table) -> None:
        """A restored table's observer token for this process's own watchers (the web's
        spectators): the journal kept only the old token's hash, which still works."""
        if not table.observer_token:
            table.observer_token = new_token()
            self._tokens.add(table.observer_token, _Entry("observe", table))

    def close_table(self, table: Table) -> None:
        """End a table whose game has not started (the lobby's tables nobody came to)."""
        if table._task is not None and not table._task.done():
            table._task.cancel()

    def _table_over(self, table: Table) -> None:
        where = f" record={table.record}" if table.record is not None else ""
        totals = ",".join(map(str, table.totals()))
        faults = "".join(f" fault={seat}:{reason}" for seat, reason, _ in table.faults)
        self.on_note(f"table={table.id} over totals={totals}{faults}{where}")
        if all(t.over.is_set() for t in self.tables):
            self.all_over.set()

    # -- listening
    async def start(self, host: str = "127.0.0.1", port: int = 0) -> tuple[str, int]:
        self._server = await asyncio.start_server(
            self._serve, host, port, ssl=self.ssl_context, limit=self.limits.max_line + 2,
            ssl_handshake_timeout=self.limits.auth_timeout if self.ssl_context else None,
        )
        sock = self._server.sockets[0].getsockname()
        return str(sock[0]), int(sock[1])

    async def close(self) -> None:
        """Stop listening, end every game and close every connection."""
        if self._server is not None:
            self._server.close()
        for table in self.tables:
            if table._task is not None and not table._task.done():
                table._task.cancel()
                with contextlib.suppress(BaseException):
                    await table._task
        for link in list(self._links):
            link.finish(LinkDown("server closing"))
        if self._server is not None:
            await self._server.wait_closed()

    # -- slots
    def admit(self, link: Link, address: str) -> bool:
        """Give a new connection a place in the unauthenticated pool, evicting the oldest
        one of its address (at the address's cap) or of all (pool or server full); False
        when the server is full of authenticated connections and none can be evicted."""
        limits = self.limits
        mine = [lk for lk, a in self._pending.items() if a == address]
        victim: Link | None = None
        if len(mine) >= limits.max_per_address:
            victim = mine[0]
        elif (len(self._pending) >= limits.max_unauthenticated
              or len(self._pending) + self._others >= limits.max_connections):
            victim = next(iter(self._pending), None)
            if victim is None:
                return False
        if victim is not None:
            self._pending.pop(victim, None)
            self.evicted += 1
            victim.finish(LinkDown("evicted"), FULL)
        self._pending[link] = address
        return True

    def authenticated(self, link: Link) -> None:
        """The connection showed a token: it leaves the pool (and can no longer be evicted)."""
        self._pending.pop(link, None)

    # -- one connection
    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peername = writer.get_extra_info("peername")
        address = str(peername[0]) if peername else "?"
        await self.serve_link(Link(reader, writer, self.limits, address), address)

    async def serve_link(self, link: Link, address: str) -> None:
        """One connection, whatever carries its lines (TCP, TLS, a WebSocket)."""
        if self.journal is not None:
            link.barrier = self.journal  # nothing leaves before it is on disk
        if not self.admit(link, address):
            self.refused += 1
            link.finish(LinkDown("refused"), FULL)
            return
        self.connections += 1
        self._links.add(link)
        try:
            await self._session(link, address)
        except Exception:  # nothing a client sends may stop the server
            log.exception("connection from %s", address)
            link.finish(LinkDown("server error"), "internal error")
        finally:
            link.finish(LinkDown("done"))
            self.connections -= 1
            self._links.discard(link)
            self._pending.pop(link, None)

    async def _first_line(self, link: Link) -> str | None:
        deadline = time.monotonic() + self.limits.auth_timeout
        for _ in range(8):  # a few blank lines are forgiven, not an endless stream
            left = deadline - time.monotonic()
            if left <= 0 or link.closed:
                break
            try:
                line = await asyncio.wait_for(link.read_raw(), left)
            except TimeoutError:
                break
            except LinkFault as fault:
                link.finish(fault)
                return None
            if line is None:
                link.finish(LinkDown("closed"))
                return None
            if line.strip():
                return line
        link.finish(LinkDown("timeout"), f"timeout: no 'seat TOKEN' line within "
                    f"{self.limits.auth_timeout:g} s")
        return None

    async def _session(self, link: Link, address: str) -> None:
        line = await self._first_line(link)
        if line is None or link.closed:  # closed meanwhile (a web peer cut for a flood)
            self.refused += 1
            return
        try:
            first = parse_first(line)
        except WireError as exc:
            await self._fail(link, address, str(exc))
            return
        match first:
            case EnterLobby(None):
                await self.lobby.session(link, address)
            case EnterLobby(token) if token is not None and self._is_admin(token):
                await self.lobby.session(link, address, admin=True)
            case EnterLobby():
                await self._fail(link, address, UNKNOWN_TOKEN)
            case _:
                await self.enter(link, address, first)

    def _is_admin(self, token: str) -> bool:
        entry = self._tokens.get(token)
        return entry is not None and entry.kind == "admin"

    async def enter(self, link: Link, address: str, enter: Enter) -> None:
        """``seat``, ``observe`` or ``admin`` with a token (a first line, or the lobby's
        hand-over): check it and serve the connection as that until it closes."""
        entry = self._tokens.get(enter.token)
        if entry is None or entry.kind != enter_kind(enter):
            await self._fail(link, address, UNKNOWN_TOKEN)
            return
        self._failures.forgive(address)
        if isinstance(enter, TakeSeat | SeatField):
            self.authenticated(link)  # a seat always has its slot
            await self._seat(link, entry, enter)
        elif entry.kind == "observe":
            assert entry.table is not None
            await self.observe(link, entry.table)
        else:
            self.authenticated(link)
            self._others += 1
            try:
                await self._admin(link)
            finally:
                self._others -= 1

    async def observe(self, link: Link, table: Table) -> None:
        """Watch a table, within its cap of observers; the slot is held while it lives."""
        if len(table.observers) >= self.limits.max_observers:
            self.refused += 1
            link.finish(LinkDown("refused"), f"table {table.id} has "
                        f"{self.limits.max_observers} observers already; try again later")
            return
        self.authenticated(link)
        self._others += 1
        try:
            link.start_pump()
            table.watch(link)
            await link.done.wait()
        finally:
            self._others -= 1

    async def _fail(self, link: Link, address: str, why: str) -> None:
        """One error line and close; repeated failures from one address wait longer."""
        self.refused += 1
        await self.penalty(address)
        link.finish(LinkDown("refused"), why)

    async def penalty(self, address: str) -> None:
        """Count a wrong token from ``address``; past the free ones, wait before answering."""
        delay = self._failures.fail(address)
        if delay > 0:
            await asyncio.sleep(delay)

    async def _seat(self, link: Link, entry: _Entry, enter: TakeSeat | SeatField) -> None:
        table, seat = entry.table, entry.seat
        assert table is not None
        if isinstance(enter, SeatField):
            link.finish(LinkDown("refused"), f"unknown field {escape(enter.field, 40)!r}: "
                        "expected 'seat TOKEN [resume=SEQ]'")
            return
        resume = enter.resume
        why = table.refusal(seat)
        if why is None and resume is not None and resume > len(table.events):
            why = f"resume={resume} is beyond the last event ({len(table.events)})"
        if why is not None:
            link.finish(LinkDown("refused"), why)
            return
        link.send(f"seated table={table.id} seat={seat} players={len(table.seats)}")
        link.start_pump()
        claimed = table.seats[seat]
        claimed.claim = link  # nobody else may take the seat while this one shakes hands
        try:
            kind: str | None = None
            if resume is None or not table.started:
                resume = None
                said = await self._handshake(link, table.settings.startup_timeout)
                if said is None:
                    return
                name, kind = said
            else:
                name = ""
                link.stale()  # nothing asked yet: start counting afresh
        finally:
            claimed.claim = None
        why = table.refusal(seat)  # forfeited or over during the handshake?
        if why is not None:
            link.finish(LinkDown("refused"), why)
            return
        table.attach(seat, link, name, resume, kind)
        await link.done.wait()  # the slot is held while it lives

    async def _handshake(self, link: Link, limit: float) -> tuple[str, str | None] | None:
        """wire.py's ``Handshake`` (``hello``, ``isready``), as every host does it; the
        name the client gives (escaped as every host keeps it) and the kind it says it is
        (``kind=human`` for a person), or None (closed)."""
        shake = Handshake()
        try:
            while (request := shake.request()) is not None:
                link.send(request)
                shake.receive(await link.next(limit))
        except TimeoutError:
            link.finish(LinkDown("timeout"), f"timeout: no answer within {limit:g} s")
            return None
        except WireError as exc:
            link.finish(LinkFault("garbage", str(exc)))
            return None
        except LinkFault as fault:
            link.finish(fault)
            return None
        except LinkDown:
            return None
        link.stale()
        assert shake.hello is not None
        name = clean_name(shake.hello.name) if shake.hello.name is not None else ""
        return name, shake.hello.kind

    async def _admin(self, link: Link) -> None:
        """Create and list tables: ``table KEY=VALUE...``, ``tables``, ``quit``."""
        link.send(format_line(AdminOk()))
        link.start_pump()
        while not link.closed:
            try:
                line = await link.next(3600.0)
            except (LinkDown, LinkFault, TimeoutError):
                return
            link.asked()  # the next command stays queued: commands may come together
            try:
                command = parse_admin(line)
            except WireError as exc:
                link.send(f"error {exc}")
                continue
            match command:
                case Quit():
                    link.finish(LinkDown("quit"))
                    return
                case ListTables():
                    for t in self.tables:
                        link.send(format_line(TableStatus(t.id, t.status(),
                                                          f"{t.seated()}/{len(t.seats)}")))
                    link.send(format_line(Ok()))
                case NewTable(words):
                    try:
                        pairs = dict(_pair(w) for w in words)
                        settings = self.settings(pairs)
                    except (XactikaError, ValueError, KeyError, TypeError) as exc:
                        link.send(f"error {escape(str(exc), 200)}")
                        continue
                    table = self.add_table(settings)
                    link.send(*table_lines(table))


def last_record_number(out: Path | None) -> int:
    """The highest table number among the records in ``out`` (``table-N.log``, or
    ``table-N.K.log``), 0 for none: a server without its journal (lost, or never kept)
    still numbers its tables after them."""
    if out is None or not out.is_dir():
        return 0
    found = 0
    for path in out.glob("table-*.log"):
        number = path.name[len("table-"):].split(".")[0]
        if number.isascii() and number.isdigit() and len(number) < 10:
            found = max(found, int(number))
    return found


def _pair(word: str) -> tuple[str, str]:
    key, eq, value = word.partition("=")
    if not eq or key not in ("game", "mode", "players", "rounds", "dealer", "seed", "clock",
                             "on-timeout", "timeouts", "level", "pace"):
        raise ValueError(f"bad setting {escape(word, 40)!r}: expected game=, mode=, "
                         "players=, rounds=, dealer=, seed=, clock=, on-timeout=, timeouts=, "
                         "level= or pace=")
    return key, value


def people_settings(pairs: dict[str, str]) -> dict[str, Any]:
    """``clock=``, ``on-timeout=``, ``timeouts=``, ``level=``, ``pace=``, ``hint=`` and
    ``rated=`` taken out of ``pairs``, as TableSettings' keywords; ValueError for a bad one."""
    out: dict[str, Any] = {}
    if "clock" in pairs:
        out["clock"] = parse_clock(pairs.pop("clock"))
    if "pace" in pairs:
        out["pace"] = parse_pace(pairs.pop("pace"))
    if "on-timeout" in pairs:
        value = pairs.pop("on-timeout")
        if value not in ON_TIMEOUT:
            raise ValueError(f"bad on-timeout={escape(value, 20)!r}: expected bot or forfeit")
        out["on_timeout"] = value
    if "timeouts" in pairs:
        out["timeouts"] = parse_timeouts(pairs.pop("timeouts"))
    if "level" in pairs:
        value = pairs.pop("level")
        if value not in ("1", "2", "3", "4", "5"):
            raise ValueError(f"bad level={escape(value, 20)!r}: expected 1 to 5")
        out["level"] = int(value)
    if "hint" in pairs:
        value = pairs.pop("hint")
        if value not in ("on", "off"):
            raise ValueError(f"bad hint={escape(value, 20)!r}: expected on or off")
        out["hints"] = value == "on"
    if "rated" in pairs:  # the web's rated tables: leaving forfeits, the record says so
        value = pairs.pop("rated")
        if value not in ("yes", "no"):
            raise ValueError(f"bad rated={escape(value, 20)!r}: expected yes or no")
        out["rated"] = value == "yes"
    return out


def parse_timeouts(value: str) -> int | None:
    """``timeouts=N`` (the N-th timeout forfeits the seat) or ``none``; ValueError else."""
    if value == "none":
        return None
    if not (value.isascii() and value.isdigit() and 1 <= int(value) <= 99):
        raise ValueError(f"bad timeouts={escape(value, 20)!r}: expected 1 to 99 or none")
    return int(value)


def tls_context(cert: str | os.PathLike[str], key: str | os.PathLike[str]) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(cert, key)
    return context
