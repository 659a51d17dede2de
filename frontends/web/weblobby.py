"""The web's side of the server's one lobby (protocol/net/lobby.py): what only a page needs.

Tables are created, seats handed out and rematches made by the table server's
:class:`~xactika.protocol.net.lobby.Lobby`, in the process, with its limits (per address:
the browser's), so a table made in the browser is in ``xactika lobby HOST:PORT tables``
and a table made there is on the page. What is the web's alone lives here: bots seated by
level in the process, the chat, the spectators' delay and the tutorial flag.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import unicodedata
from collections import deque
from collections.abc import Callable
from typing import Any

import attrs

from xactika.core.bots.agents import agent_names
from xactika.core.engine.errors import XactikaError
from xactika.frontends.net.options import DEFAULT_CLOCK  # serve's, when the form gives none
from xactika.frontends.people.presentation import presentation
from xactika.frontends.people.seats import plays_as
from xactika.protocol.net.link import LinkDown
from xactika.protocol.net.lobby import NAME_MAX, Hosted, LobbyError
from xactika.protocol.net.server import Server
from xactika.protocol.net.table import HUMAN, Table
from xactika.protocol.net.weblines import Heard
from xactika.protocol.notation.text import game_option_types
from xactika.protocol.notation.untrusted import escape
from xactika.protocol.player.wire import bot_name, format_line, name_key

log = logging.getLogger(__name__)

CHAT_KEEP = 100  # messages a table keeps for late joiners
CHAT_LIMIT = 300  # characters a message may have
CHAT_RATE = 1.0  # messages a second a connection may send, after a burst of
CHAT_BURST = 5
BOT = "bot"  # the lobby's mark on a seat a built-in bot of the page's holds
LEVELS = {"1": "strong:1", "2": "strong:2", "3": "strong:3", "4": "strong:4",
          "5": "strong:5", "random": "random"}


class WebLobbyError(XactikaError):
    """A lobby request that cannot be done: its message is shown as it is."""


@attrs.define(eq=False)
class WebHosted:
    hosted: Hosted  # the lobby's table: its seats given, its rematch
    kinds: list[str]  # per seat: "open" or a bot's agent name
    spectator_delay: float = 0.0
    tutorial: bool = False
    chat: deque[str] = attrs.Factory(lambda: deque(maxlen=CHAT_KEEP))
    listeners: set[Callable[[str], None]] = attrs.Factory(set)
    spectators: int = 0
    tasks: list[asyncio.Task[None]] = attrs.Factory(list)
    said: int = 0  # chat messages so far (the journal's numbers)
    rated: bool = False  # for accounts only (accountpages.py): its seats are accounts'
    holders: dict[int, int] = attrs.Factory(dict)  # seat -> the account that took it

    def holders_of(self, account: int) -> list[int]:
        return [seat for seat, held in self.holders.items() if held == account]

    @property
    def table(self) -> Table:
        return self.hosted.table

    def names(self) -> list[str]:
        """Every seat's name, a bot's by its level; one name for two seats becomes
        ``heuristic`` and ``heuristic (2)``, in seat order, as the server tells them apart."""
        names = [plays_as(k, self.table.config.game) if k != "open" else s.name
                 for s, k in zip(self.table.seats, self.kinds, strict=True)]
        taken: set[str] = set()
        for seat, name in enumerate(names):
            if name and name in taken:
                names[seat] = next(f"{name} ({k})" for k in range(2, len(names) + 2)
                                   if f"{name} ({k})" not in taken)
            taken.add(names[seat])
        return names

    def public(self) -> dict[str, Any]:
        """What the lobby shows: settings, seats, names, banks, spectators; never a token."""
        table, settings = self.table, self.table.settings
        seats = []
        for seat, (s, kind) in enumerate(zip(table.seats, self.kinds, strict=True)):
            state = ("bot" if kind != "open" else "playing" if s.link is not None
                     or table.started else "taken" if seat in self.hosted.given else "open")
            seats.append({"seat": seat, "name": self.names()[seat], "state": state,
                          "bot": kind if kind != "open" else None,
                          "bank": s.clock_ms if s.kind == HUMAN else None,
                          "replaced": s.replaced})
        config = table.config
        rematch = self.hosted.rematch
        return {"id": table.id, "game": config.game, "mode": config.mode,
                "players": config.players, "rounds": config.rounds,
                "length": presentation(config.game).length(config),
                "clock": settings.clock.text() if settings.clock else None,
                "on_timeout": settings.on_timeout, "timeouts": settings.timeouts,
                "level": settings.level,
                "status": table.status(), "seats": seats, "spectators": self.spectators,
                "delay": self.spectator_delay, "tutorial": self.tutorial,
                "rematch": rematch.id if rematch else None, "rated": self.rated}


def web_name(text: object) -> str:
    """A page's name as the lobby takes it (letters, digits, ``-_.``, NFKC-normalised), or
    ``player``."""
    name = "".join(c if c.isalnum() or c in "-_." else "-"
                   for c in unicodedata.normalize("NFKC", str(text or "")).strip())
    return name.strip("-")[:NAME_MAX] or "player"


class WebLobby:
    """The web's view of the server's lobby tables: their bots, chat and spectators."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.lobby = server.lobby
        self.tables: dict[int, WebHosted] = {}
        # tables never listed nor watched, found by their seat's token alone (the daily
        # deal's, frontends/web/dailypages.py): "no table N" to everyone else
        self.private: dict[int, WebHosted] = {}

    def create(self, request: dict[str, Any], address: str, *, rated: bool = False,
               holder: int | None = None) -> tuple[WebHosted, dict[int, str]]:
        """A new lobby table from the page's form, its bots seated, the creator in the first
        open seat under ``name``; the open seats' tokens (the creator's first, then the
        invite links). ``rated``: a rated table (leaving or a timeout forfeits, no hints);
        ``holder``: the signed-in creator's account, whom the seat follows."""
        pairs = {k: str(request[k]) for k in ("game", "mode", "players", "rounds", "level")
                 if request.get(k) not in (None, "")}
        for key in game_option_types():  # the games' own settings: Dix's target
            if request.get(key) not in (None, ""):
                pairs[key] = str(request[key])
        pairs["clock"] = str(request.get("clock") or DEFAULT_CLOCK)
        if request.get("on_timeout") not in (None, ""):
            pairs["on-timeout"] = str(request["on_timeout"])
        if rated:
            pairs.update({"rated": "yes", "on-timeout": "forfeit", "hint": "off"})
        try:
            delay = float(request.get("delay") or 0)
        except (TypeError, ValueError):
            raise WebLobbyError("delay is seconds") from None
        if not 0 <= delay <= 600:
            raise WebLobbyError("delay is 0 to 600 seconds")
        try:
            players = self.server.settings(pairs).config.players  # checked before any table
        except (XactikaError, ValueError, KeyError, TypeError) as exc:
            raise WebLobbyError(escape(str(exc), 200)) from None
        kinds = self._kinds(request.get("seats"), players)
        try:
            table = self.lobby.open_table(pairs, address, admin=False,
                                          people="open" in kinds)
        except LobbyError as exc:
            raise WebLobbyError(str(exc)) from None
        hosted = self.lobby.hosted[table.id]
        web = WebHosted(hosted, kinds, delay, bool(request.get("tutorial")) and not rated,
                        rated=rated)
        self.tables[table.id] = web
        self._seat_bots(web)
        self.lobby.mind(hosted)  # a table of bots alone ends when nobody watches it
        opened = [seat for seat, kind in enumerate(kinds) if kind == "open"]
        if opened:
            try:
                self.lobby.take(hosted, web_name(request.get("name")), opened[0], address,
                                admin=False)
            except LobbyError as exc:
                self._close(web)
                raise WebLobbyError(str(exc)) from None
            if not request.get("name"):  # the page's hello names the seat
                table.seats[opened[0]].name = ""
            if holder is not None:
                web.holders[opened[0]] = holder
        self._keep(web)
        return web, {seat: table.seats[seat].token for seat in opened}

    # -- the journal: a web table survives a restart with its bots and given seats
    def _keep(self, web: WebHosted) -> None:
        """Journal what the web alone knows of a table with the lobby's seats
        (protocol/net/lobby.py ``keep``)."""
        web.hosted.extra = {"kinds": web.kinds, "delay": web.spectator_delay,
                            "tutorial": web.tutorial, "rated": web.rated,
                            "holders": {str(k): v for k, v in web.holders.items()}}
        self.lobby.keep(web.hosted, sync=True)  # on disk before the page has its answer

    def resume(self, tables: list[Table]) -> None:
        """The lobby's tables among those the server restored after a crash
        (``Lobby.resume``: their seats as they were given, by either lobby), the web's
        with their bots seated again under new tokens (the journal keeps only the old
        ones' hashes); people come back with their own."""
        for hosted in self.lobby.resume(tables):
            table, data = hosted.table, hosted.extra
            if "kinds" not in data:  # the terminal lobby's (a serve's, on the same --out)
                if self.lobby.bots is not None or not hosted.bots:
                    continue  # listed as its seats say; its bots, if any, seated by the lobby
                # this server seats no bots for that lobby: its bots sit again as the web's
                web = WebHosted(hosted, [hosted.bots.get(seat, "open")
                                         for seat in range(len(table.seats))])
            else:
                try:
                    web = WebHosted(hosted, [str(k) for k in data["kinds"]],
                                    float(data["delay"]), bool(data["tutorial"]),
                                    rated=bool(data.get("rated")),
                                    holders={int(k): int(v) for k, v
                                             in dict(data.get("holders") or {}).items()})
                    if len(web.kinds) != len(table.seats):
                        raise ValueError(f"{len(web.kinds)} seats for {len(table.seats)}")
                except (KeyError, ValueError, TypeError, AttributeError) as exc:
                    log.error("table %s resumed without its web settings: %s", table.id, exc)
                    continue  # it plays on, as a table of the server's lobby
            if table.journal is not None:  # the chat as it was, as BGA keeps it
                for n, line in table.journal.chat_lines(table.id)[-CHAT_KEEP:]:
                    web.chat.append(line)
                    web.said = n
            self.tables[table.id] = web
            self.server.observer_again(table)  # spectators watch by it (``watch N``)
            for seat, kind in enumerate(web.kinds):
                if kind != "open" and table.seats[seat].fault is None:
                    self.server.reissue(table, seat)
                    web.tasks.append(asyncio.create_task(self._bot(web, seat, kind)))
            self.lobby.mind(hosted)

    def _seat_bots(self, web: WebHosted) -> None:
        for seat, kind in enumerate(web.kinds):
            if kind != "open":
                web.hosted.given[seat] = BOT
                web.table.seats[seat].name = plays_as(kind, web.table.config.game)
                web.tasks.append(asyncio.create_task(self._bot(web, seat, kind)))

    def _close(self, web: WebHosted) -> None:
        self.lobby.hosted.pop(web.table.id, None)
        self.lobby.closed.add(web.table.id)
        self.server.close_table(web.table)
        del self.tables[web.table.id]
        for task in web.tasks:
            task.cancel()

    def _kinds(self, seats: object, players: int) -> list[str]:
        given = seats if isinstance(seats, list) else ["open"] + ["3"] * (players - 1)
        if len(given) != players:
            raise WebLobbyError(f"{players} players need {players} seats, not {len(given)}")
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
                raise WebLobbyError(
                    f"a seat is 'open' or a bot level 1-5, not {escape(spec, 30)!r}")
        return kinds

    async def _bot(self, web: WebHosted, seat: int, agent: str) -> None:
        from xactika.frontends.web.transport import run_bot

        await run_bot(self.server.serve_link, web.table.seats[seat].token, agent,
                      web.table.config.game, web.table.id * 10 + seat, self.server.limits)

    def listed(self) -> list[WebHosted]:
        """Every lobby table the server lists, the web's and the terminal's alike, and the
        web's finished ones still remembered (their records, their rematch)."""
        self.lobby.tables()  # its sweep: tables nobody came to are closed
        for number, hosted in self.lobby.hosted.items():
            if number not in self.tables and not hosted.table.over.is_set():
                kinds = [hosted.bots.get(seat, "open") for seat in range(len(hosted.table.seats))]
                self.tables[number] = WebHosted(hosted, kinds)  # the server's bots as bots
        for number in [n for n, w in self.tables.items() if n not in self.lobby.hosted]:
            for task in self.tables.pop(number).tasks:  # closed unplayed, or forgotten
                task.cancel()  # a closed table's bots go with it
        return list(self.tables.values())

    def get(self, number: int) -> WebHosted:
        web = self.tables.get(number)
        if web is None:
            web = next((w for w in self.listed() if w.table.id == number), None)
        if web is None:
            raise WebLobbyError(f"no table {number}")
        return web

    def take(self, number: int, seat: int | None, name: object, address: str,
             holder: tuple[int, str] | None = None) -> tuple[int, str]:
        """An open seat's token for whoever asks first (``seat`` or any), by the lobby's join;
        ``holder``: the signed-in taker's account (id, name), whom the seat follows. A rated
        table's seats go to accounts only, under their own names."""
        web = self.get(number)
        if web.rated and holder is None:
            raise WebLobbyError("a rated table's seats are for accounts: sign in first")
        given = holder[1] if web.rated and holder is not None else self._free_name(web, name)
        try:
            taken = self.lobby.take(web.hosted, given, seat, address, admin=False)
        except LobbyError as exc:
            raise WebLobbyError(str(exc)) from None
        if holder is not None:
            web.holders[taken] = holder[0]
        if not name and not web.rated:  # the page's hello names the seat
            web.table.seats[taken].name = ""
        self._keep(web)
        return taken, web.table.seats[taken].token

    @staticmethod
    def _free_name(web: WebHosted, name: object) -> str:
        """The page's name, or with ``-2``, ``-3``... when someone at the table has it."""
        base = web_name(name)
        taken = {name_key(s.name) for s in web.table.seats}  # look-alikes count as taken
        for n in range(1, len(taken) + 2):
            candidate = base if n == 1 else f"{base[:NAME_MAX - 3]}-{n}"
            if name_key(candidate) not in taken:
                return candidate
        return base

    async def move(self, token: str) -> int:
        """Seat ``token`` moves to the page asking: the page holding it now is told and
        closed (it does not come back on its own); the seat is free when this returns."""
        web, seat = self._held(token)
        s = web.table.seats[seat]
        for link in (s.link, s.claim):
            if link is not None:
                link.finish(LinkDown("moved"), "moved: your seat moved to another page")
        for _ in range(100):  # the table lets the seat go within a few loop turns
            if s.link is None and s.claim is None:
                break
            await asyncio.sleep(0.02)
        return seat

    def leave(self, token: str) -> int:
        """Seat ``token``'s person leaves a game in play: a bot of the table's level plays
        the seat from now on (the server tells everyone; the record's stand-in header)."""
        web, seat = self._held(token)
        table = web.table
        if not table.started or table.over.is_set():
            raise WebLobbyError("only a game in play can be left; before it starts, just go")
        if web.kinds[seat] != "open":
            raise WebLobbyError("that seat is a bot's")
        try:
            table.leave(seat)  # a bot of the table's level plays it from now on
        except ValueError as exc:
            raise WebLobbyError(str(exc)) from None
        return seat

    def _held(self, token: str) -> tuple[WebHosted, int]:
        """The seat a page's token holds (a restored seat's own token is "": never that)."""
        found = self.seat_of(token) if token else None
        if found is None:
            raise WebLobbyError("unknown token")
        return found

    def seat_of(self, token: str) -> tuple[WebHosted, int] | None:
        """The web table and seat of a seat token, found by its hash as the server finds
        it (a restored seat's token is known by its hash only)."""
        entry = self.server.seat_entry(token)
        if entry is None or entry.table is None:
            return None
        web = self.private.get(entry.table.id)
        if web is None or web.table is not entry.table:
            web = next((w for w in self.listed() if w.table is entry.table), None)
        return None if web is None else (web, entry.seat)

    async def rematch(self, token: str, address: str) -> tuple[int, str]:
        """The lobby's rematch (same settings and names, a new deal, once for the table);
        the web's bots sit again in theirs; the asker's seat there."""
        found = self.seat_of(token)
        if found is not None and found[0].kinds[found[1]] != "open":
            raise WebLobbyError("that seat is a bot's")
        if found is not None and found[0].rated:
            raise WebLobbyError("a rated table has no rematch: open a new rated table")
        if found is not None and found[0].table.id in self.private:
            raise WebLobbyError("a daily deal has no rematch")
        try:
            new, seat = await self.lobby.next_table(token, address, admin=False)
        except LobbyError as exc:
            raise WebLobbyError(str(exc)) from None
        if new.id not in self.tables:
            old = found[0] if found is not None else None
            web = WebHosted(self.lobby.hosted[new.id],
                            old.kinds if old else ["open"] * len(new.seats),
                            old.spectator_delay if old else 0.0, old.tutorial if old else False)
            self.tables[new.id] = web
            self._seat_bots(web)
            self._keep(web)
        return new.id, new.seats[seat].token

    # -- chat, kept with the table (and its journal) and never in its record
    def say(self, web: WebHosted, who: str, text: str) -> None:
        """A chat message to the table, journalled (the last ``CHAT_KEEP``) so that a
        restart keeps the table's chat as it keeps its game; nobody hears it before it
        is on disk, so nothing anyone read is lost to a kill."""
        text = escape(" ".join(text.split()), CHAT_LIMIT)
        if not text:
            return
        line = format_line(Heard(escape(bot_name(who), 64), text))  # a kept name or a label
        web.said += 1
        journal = web.table.journal

        def heard() -> None:
            web.chat.append(line)
            for listener in list(web.listeners):
                with contextlib.suppress(Exception):
                    listener(line)

        if journal is None or web.table.over.is_set():
            heard()
            return
        journal.chat(web.table.id, web.said, line, CHAT_KEEP)
        if journal.wait(journal.mark, heard):
            heard()


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


__all__ = ["ChatRate", "WebHosted", "WebLobby", "WebLobbyError"]
