"""The lobby's functions for the web: create, list, take a seat, rematch, chat.

This is the one place that speaks to the table server for the lobby: it calls what the
admin session does (``Server.add_table``, ``Server.tables``) in the same process. When
the server's own lobby session (``lobby``: list/create/join/leave/rematch) exists, this
module is what switches to it; the pages and the WebSocket do not change.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import time
from collections import deque
from collections.abc import Callable
from typing import Any

import attrs

from xactika.core.bots.agents import agent_names
from xactika.core.bots.levels import people_name
from xactika.core.engine.errors import XactikaError
from xactika.protocol.net.server import Server
from xactika.protocol.net.table import Table, table_settings
from xactika.protocol.notation.untrusted import escape
from xactika.protocol.player.wire import bot_name, clean_name

MAX_TABLES = 200  # web tables at once; finished ones are forgotten first
CHAT_KEEP = 100  # messages a table keeps for late joiners
CHAT_LIMIT = 300  # characters a message may have
CHAT_RATE = 1.0  # messages a second a connection may send, after a burst of
CHAT_BURST = 5
LEVELS = {"1": "strong:1", "2": "strong:2", "3": "strong:3", "4": "strong:4",
          "5": "strong:5", "random": "random"}


class DeskError(XactikaError):
    """A lobby request that cannot be done: its message is shown as it is."""


@attrs.define(eq=False)
class WebTable:
    table: Table
    kinds: list[str]  # per seat: "open" or a bot's agent name
    move_timeout: float
    spectator_delay: float
    tutorial: bool
    request: dict[str, str]
    handed: set[int] = attrs.Factory(set)  # open seats whose token the lobby gave out
    chat: deque[str] = attrs.Factory(lambda: deque(maxlen=CHAT_KEEP))
    listeners: set[Callable[[str], None]] = attrs.Factory(set)
    spectators: int = 0
    rematch: WebTable | None = None
    tasks: list[asyncio.Task[None]] = attrs.Factory(list)

    def names(self) -> list[str]:
        return [people_name(k, self.table.config.game) if k != "open" else s.name
                for s, k in zip(self.table.seats, self.kinds, strict=True)]

    def public(self) -> dict[str, Any]:
        """What the lobby shows: settings, seats, names, spectators; never a token."""
        config = self.table.config
        seats = []
        for seat, (s, kind) in enumerate(zip(self.table.seats, self.kinds, strict=True)):
            state = ("bot" if kind != "open" else "playing" if s.link is not None
                     else "taken" if seat in self.handed else "open")
            seats.append({"seat": seat, "name": self.names()[seat], "state": state,
                          "bot": kind if kind != "open" else None})
        return {"id": self.table.id, "game": config.game, "mode": config.mode,
                "players": config.players, "rounds": config.rounds,
                "clock": self.move_timeout, "status": self.table.status(),
                "seats": seats, "spectators": self.spectators,
                "delay": self.spectator_delay, "tutorial": self.tutorial,
                "rematch": self.rematch.table.id if self.rematch else None}


class Desk:
    """The web tables of one server, their seats' bots, invites and chat."""

    def __init__(self, server: Server, seed: int | None = None) -> None:
        self.server = server
        self.seed = seed  # table k deals from SEED+k-1 (tests, demonstrations)
        self.tables: dict[int, WebTable] = {}

    def create(self, request: dict[str, Any]) -> tuple[WebTable, dict[int, str]]:
        """A new table from the lobby's form; the open seats' tokens (invite links)."""
        if sum(not t.table.over.is_set() for t in self.tables.values()) >= MAX_TABLES:
            raise DeskError("too many tables are being played; try again later")
        pairs = {k: str(request[k]) for k in ("game", "mode", "players", "rounds")
                 if request.get(k) not in (None, "")}
        if self.seed is not None:
            pairs["seed"] = str(self.seed + len(self.server.tables))
        try:
            clock = float(request.get("clock") or 60)
            delay = float(request.get("delay") or 0)
        except (TypeError, ValueError):
            raise DeskError("clock and delay are seconds") from None
        if not 5 <= clock <= 3600 or not 0 <= delay <= 600:
            raise DeskError("clock is 5 to 3600 seconds a move, delay 0 to 600 seconds")
        try:
            settings = table_settings(pairs, move_timeout=clock, startup_timeout=30.0,
                                      grace=120.0)
        except (XactikaError, ValueError, KeyError, TypeError) as exc:
            raise DeskError(escape(str(exc), 200)) from None
        kinds = self._kinds(request.get("seats"), settings.config.players)
        table = self.server.add_table(settings)
        web = WebTable(table, kinds, clock, delay, bool(request.get("tutorial")),
                       {**pairs, "clock": str(clock), "delay": str(delay),
                        "seats": ",".join(kinds), "tutorial": "1" if request.get(
                            "tutorial") else ""})
        self.tables[table.id] = web
        opened = [seat for seat, kind in enumerate(kinds) if kind == "open"]
        if opened:
            web.handed.add(opened[0])  # the creator's, by its invite: not offered in the lobby
        self._forget()
        for seat, kind in enumerate(kinds):
            if kind != "open":
                web.tasks.append(asyncio.create_task(self._bot(web, seat, kind)))
        return web, {seat: table.seats[seat].token for seat, k in enumerate(kinds)
                     if k == "open"}

    def _kinds(self, seats: object, players: int) -> list[str]:
        given = seats if isinstance(seats, list) else ["open"] + ["3"] * (players - 1)
        if len(given) != players:
            raise DeskError(f"{players} players need {players} seats, not {len(given)}")
        kinds = []
        for spec in given:
            spec = str(spec)
            if spec == "open":
                kinds.append("open")
            elif spec in LEVELS:
                kinds.append(LEVELS[spec])
            elif spec in agent_names():
                kinds.append(spec)
            else:
                raise DeskError(f"a seat is 'open' or a bot level 1-5, not {escape(spec, 30)!r}")
        return kinds

    async def _bot(self, web: WebTable, seat: int, agent: str) -> None:
        from xactika.frontends.web.transport import run_bot

        await run_bot(self.server.serve_link, web.table.seats[seat].token, agent,
                      web.table.config.game, web.table.id * 10 + seat, self.server.limits)

    def _forget(self) -> None:
        """Bounded memory: the oldest finished tables go first."""
        for number in sorted(self.tables):
            if len(self.tables) <= MAX_TABLES:
                break
            if self.tables[number].table.over.is_set():
                del self.tables[number]

    def get(self, number: int) -> WebTable:
        web = self.tables.get(number)
        if web is None:
            raise DeskError(f"no table {number}")
        return web

    def take(self, number: int, seat: int | None) -> tuple[int, str]:
        """An open seat's token for whoever asks in the lobby first (``seat`` or any)."""
        web = self.get(number)
        if web.table.over.is_set():
            raise DeskError(f"table {number} is over")
        for s, kind in enumerate(web.kinds):
            if kind != "open" or s in web.handed or web.table.seats[s].link is not None:
                continue
            if seat is None or seat == s:
                web.handed.add(s)
                return s, web.table.seats[s].token
        raise DeskError(f"no open seat at table {number}" if seat is None
                        else f"seat {seat} of table {number} is not open")

    def seat_of(self, token: str) -> tuple[WebTable, int] | None:
        for web in self.tables.values():
            for seat, s in enumerate(web.table.seats):
                if hmac.compare_digest(s.token.encode(), token.encode("utf-8", "replace")):
                    return web, seat
        return None

    def rematch(self, token: str) -> tuple[int, str]:
        """The same settings and bots again, once for the table; the asker's seat there."""
        found = self.seat_of(token)
        if found is None:
            raise DeskError("unknown seat")
        web, seat = found
        if not web.table.over.is_set():
            raise DeskError("the game is not over yet")
        if web.rematch is None:
            request: dict[str, Any] = dict(web.request)
            request["seats"] = request["seats"].split(",")
            web.rematch, _ = self.create(request)
        again = web.rematch
        if again.kinds[seat] != "open":
            raise DeskError("that seat is a bot's")
        again.handed.add(seat)
        return again.table.id, again.table.seats[seat].token

    # -- chat, kept with the table and never in its record
    def say(self, web: WebTable, who: str, text: str) -> None:
        text = escape(" ".join(text.split()), CHAT_LIMIT)
        if not text:
            return
        line = f"chat {clean_name(bot_name(who))} {text}"
        web.chat.append(line)
        for listener in list(web.listeners):
            with contextlib.suppress(Exception):
                listener(line)


class ChatRate:
    """A token bucket for one connection's chat."""

    def __init__(self) -> None:
        self.tokens = float(CHAT_BURST)
        self.at = time.monotonic()

    def allow(self) -> bool:
        now = time.monotonic()
        self.tokens = min(float(CHAT_BURST), self.tokens + (now - self.at) * CHAT_RATE)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


__all__ = ["ChatRate", "Desk", "DeskError", "WebTable"]
