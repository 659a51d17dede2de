"""``/daily`` and ``/api/daily``: the daily deal at the web's own tables (spec/WEB.md,
"The daily deal").

A deal is played at a table of the server's like any other (the table page, its
WebSocket, its narration), with the person in seat 0 and the day's three bots, its seed
fixed. The table is private (WebLobby.private): never listed, never watched, its record
written outside the records folder (Server.add_table's ``private``) and kept in the
database, served only after the close; every other route answers "no table N" for it,
as for a table that never was.

A daily player is the signed-in account (``app.state.accounts``, the accounts' pages) or
else this browser's guest id (the ``xactika_daily`` cookie: opaque, random, HttpOnly,
SameSite=Lax; only its hash is stored): :func:`daily_player` is the one place that decides.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import hashlib
import json
import logging
import secrets
import shutil
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Route
from starlette.templating import Jinja2Templates

from xactika.frontends import i18n
from xactika.frontends.daily import deals
from xactika.frontends.daily.service import PLAYING, Daily, DailyError, Play
from xactika.frontends.people.seats import plays_as
from xactika.frontends.web.lang import install_gettext, page, page_language
from xactika.frontends.web.weblobby import BOT, WebHosted, WebLobby
from xactika.protocol.net.lobby import Hosted
from xactika.protocol.net.server import Server

if TYPE_CHECKING:
    from xactika.frontends.web.app import WebApp
    from xactika.protocol.net.table import Table

log = logging.getLogger(__name__)

HERE = Path(__file__).parent

COOKIE = "xactika_daily"  # as the accounts' xactika_session: a name nginx can read
COOKIE_AGE = 400 * 24 * 3600  # the longest a browser keeps a cookie (RFC 6265bis)
GUEST_DOMAIN = "xactika-daily-guest/1"
PAUSE = 24 * 3600.0  # seconds a deal's seat waits for its person to come back
KEEP_FINISHED = 3600.0  # seconds a finished deal's table still answers its page
PER_ADDRESS = 4  # daily tables in play from one address (a guest id costs nothing)


def guest_key(cookie: str) -> str:
    """The stored name of a guest: a hash of the cookie (the cookie itself is a key)."""
    digest = hashlib.sha256(f"{GUEST_DOMAIN}\n{cookie}".encode()).hexdigest()
    return f"guest:{digest[:40]}"


def guest_label(key: str) -> str:
    """A guest's name on the leaderboard: six hex digits of another hash."""
    return "guest-" + hashlib.sha256(key.encode()).hexdigest()[:6]


async def signed_in(request: Request) -> tuple[str, str] | None:
    """The account signed in on this request, (``account:ID``, its name), by the accounts'
    pages the app holds (``app.state.accounts``, frontends/web/accountpages.py), if any."""
    accounts = getattr(request.app.state, "accounts", None)
    if accounts is None:
        return None
    found = await accounts.signed_in(request)
    return None if found is None else (f"account:{found.id}", str(found.name))


Account = Callable[[Request], Awaitable[tuple[str, str] | None]]


async def daily_player(request: Request, account: Account) -> tuple[str, str] | None:
    """(the stored key, the shown name) of whoever asks: the signed-in account if there
    is one, else this browser's guest id; None without either."""
    signed = await account(request)
    if signed is not None:
        return signed
    cookie = request.cookies.get(COOKIE, "")
    if not 16 <= len(cookie) <= 64 or not cookie.replace("-", "").replace("_", "").isalnum():
        return None
    key = guest_key(cookie)
    return key, guest_label(key)


@attrs.define
class Live:
    """A deal in play in this process: its table and the person's seat token."""

    web: WebHosted
    token: str
    address: str
    ended: float | None = None


class DailyPages:
    """The daily deal's routes over one :class:`Daily` and the web's lobby."""

    def __init__(self, server: Server, daily: Daily, account: Account = signed_in) -> None:
        self.server = server
        self.daily = daily
        self.web: WebApp | None = None  # set by the WebApp: its lobby holds the tables
        self.templates = Jinja2Templates(directory=str(HERE / "templates"))
        install_gettext(self.templates)
        self.account = account  # who is signed in, if anyone
        self.live: dict[int, Live] = {}  # play id -> its table here
        self.records = Path(tempfile.mkdtemp(prefix="xactika-daily-"))  # 0700, never served
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def lobby(self) -> WebLobby:
        assert self.web is not None, "DailyPages serves inside a WebApp"
        return self.web.lobby

    def routes(self) -> list[BaseRoute]:
        return [Route("/daily", self.daily_page),
                Route("/api/daily", self.api, methods=["GET"]),
                Route("/api/daily/play", self.play, methods=["POST"]),
                Route("/daily/record/{day}/{deal:int}/{name}", self.record)]

    def close(self) -> None:
        shutil.rmtree(self.records, ignore_errors=True)

    # -- who asks
    async def _who(self, request: Request) -> tuple[tuple[str, str], str | None]:
        """(the player, a new guest cookie to set or None)."""
        found = await daily_player(request, self.account)
        if found is not None:
            return found, None
        cookie = secrets.token_urlsafe(24)
        key = guest_key(cookie)
        return (key, guest_label(key)), cookie

    @staticmethod
    def _set_cookie(request: Request, response: Response, cookie: str | None) -> Response:
        if cookie is not None:
            response.set_cookie(COOKIE, cookie, max_age=COOKIE_AGE, httponly=True,
                                samesite="lax", secure=request.url.scheme == "https")
        return response

    def _day(self, request: Request) -> dt.date:
        text = request.query_params.get("day")
        return deals.parse_day(text) if text else self.daily.today()

    # -- what is shown
    def view(self, day: dt.date, player: str) -> dict[str, Any]:
        """The day as one person may see it now: before the close the commitment and
        their own progress, after it the seed, par, the leaderboard and their share line."""
        found = self.daily.day(day)
        settings = self.daily.settings
        mine = {p.deal: p for p in self.daily.plays_of(day, player)}
        closed = self.daily.closed(day)
        progress = []
        for k in range(settings.deals):
            p = mine.get(k)
            progress.append({"deal": k + 1, "state": p.state if p else "new",
                             "points": p.points if p else None,
                             "rated": p.rated if p else not closed})
        out: dict[str, Any] = {
            "day": day.isoformat(), "number": deals.number(day), "game": settings.game,
            "mode": settings.mode, "players": settings.players, "rounds": settings.rounds,
            "deals": settings.deals, "seat": settings.seat,
            "bots": [plays_as(b, settings.game) for b in settings.bots],
            "commit": found.commit, "closes": deals.closes(day).isoformat(),
            "closed": closed, "progress": progress}
        if not closed:
            return out
        board, everyone = self.daily.scores(day)  # par computed here, once a day
        par = self.daily.par(day)
        labels = self.daily.labels(day)
        you = everyone.get(player)
        out |= {"seed": str(found.seed), "nonce": found.nonce,
                "deal_seeds": [str(deals.deal_seed(found.seed, k))
                               for k in range(settings.deals)],
                "par": [{"strong": p[0], "all_seeing": p[1]} for p in par],
                "leaderboard": [{"rank": n + 1, "name": labels.get(s.player, "?"),
                                 "percent": s.percent, "points": list(s.points),
                                 "marks": list(s.marks)}
                                for n, s in enumerate(board)],
                "you": None if you is None else {
                    "percent": you.percent, "shares": list(you.shares),
                    "marks": list(you.marks), "share": deals.share_line(day, you)}}
        return out

    async def daily_page(self, request: Request) -> Response:
        who, cookie = await self._who(request)
        with i18n.using(page_language(request)):
            try:
                day = self._day(request)
                view = await run_in_threadpool(self.view, day, who[0])
                error = None
            except (DailyError, ValueError) as exc:
                view, error = None, _said(exc)
        response = page(self.templates, request, "daily.html",
                        {"view": view, "error": error, "today": self.daily.today().isoformat()},
                        status_code=200 if error is None else 404)
        return self._set_cookie(request, response, cookie)

    async def api(self, request: Request) -> Response:
        who, cookie = await self._who(request)
        with i18n.using(page_language(request)):
            try:
                body = await run_in_threadpool(self.view, self._day(request), who[0])
            except (DailyError, ValueError) as exc:
                return self._set_cookie(request, JSONResponse({"error": _said(exc)},
                                                              status_code=404), cookie)
        return self._set_cookie(request, JSONResponse(body), cookie)

    # -- playing
    async def play(self, request: Request) -> Response:
        """``{"deal": K, "day": "YYYY-MM-DD"}``: the person's seat at deal K (the table made
        now, or the one in play); the page goes on to ``/table/N?daily=DAY#seat=TOKEN``."""
        from xactika.frontends.web.app import same_origin

        with i18n.using(page_language(request)):
            try:
                if not same_origin(request.headers, request.url.scheme):
                    raise DailyError(i18n.later("requests must come from this site's pages"))
                who = await daily_player(request, self.account)
                if who is None:  # the cookie comes with the page: a bare POST has none
                    raise DailyError(i18n.later("open /daily first: it gives this browser "
                                                "its daily id"))
                raw = await request.body()
                body = json.loads(raw[:4096] or b"{}") if len(raw) <= 4096 else None
                if not isinstance(body, dict):
                    raise DailyError(i18n.later("the request is not a JSON object"))
                day = deals.parse_day(str(body["day"])) if body.get("day") \
                    else self.daily.today()
                deal = body.get("deal")
                if not isinstance(deal, int) or isinstance(deal, bool):
                    raise DailyError(i18n.later("deal is a number from 1 to {n}",
                                                n=self.daily.settings.deals))
                number, token = await self._seat(day, deal - 1, who, _client(request))
            except (DailyError, ValueError) as exc:
                return JSONResponse({"error": _said(exc)}, status_code=400)
        return JSONResponse({"table": number, "token": token, "day": day.isoformat()})

    async def _seat(self, day: dt.date, deal: int, who: tuple[str, str],
                    address: str) -> tuple[int, str]:
        self._forget()
        busy = sum(1 for live in self.live.values()
                   if live.address == address and live.ended is None)
        if busy >= PER_ADDRESS and not any(  # a deal of this player's own goes on
                p.deal == deal and p.state == "playing"
                for p in self.daily.plays_of(day, who[0])):
            raise DailyError(i18n.later("{n} daily deals are in play from your address: "
                                        "finish one first", n=busy))
        play, new = self.daily.begin(day, deal, who[0], who[1])
        if not new:
            live = self.live.get(play.id)
            if live is None:  # its table is in no journal here (a lost --out): unscored
                self.daily.finish(play, None, None)
                raise DailyError(i18n.later("deal {n}'s table was lost when the server "
                                            "restarted; it counts as played", n=deal + 1))
            if not live.token:  # resumed after a restart: the journal kept only its hash
                self.server.reissue(live.web.table, self.daily.settings.seat)
                live.token = live.web.table.seats[self.daily.settings.seat].token
            return live.web.table.id, live.token
        return self._open(day, play, who[1], address)

    def _open(self, day: dt.date, play: Play, label: str, address: str) -> tuple[int, str]:
        settings = self.daily.settings
        found = self.daily.day(day)
        config = settings.config(found.seed, play.deal)
        pairs = {"game": config.game, "mode": config.mode, "players": str(config.players),
                 "rounds": str(config.rounds), "dealer": str(config.dealer),
                 "seed": str(config.seed), "hint": "off"}
        table_settings = attrs.evolve(self.server.settings(pairs), clock=None, grace=PAUSE)
        table = self.server.add_table(table_settings, private=self.records)
        kinds = [k or "open" for k in settings.agents()]
        web = WebHosted(Hosted(table, address, time.monotonic()), kinds)
        for seat, kind in enumerate(kinds):
            table.seats[seat].name = label if kind == "open" else plays_as(kind, settings.game)
        table.keep_seats()
        if table.journal is not None:  # what a restart needs to take the deal up again
            table.journal.host(table.id, {"daily": play.id, "address": address,
                                          "kinds": kinds})
        self.daily.seated(play, table.id)
        live = self._host(play, web, found.seed, table.seats[settings.seat].token)
        return table.id, live.token

    def _host(self, play: Play, web: WebHosted, seed: int, token: str) -> Live:
        """A deal's table in this process's lobby, privately, its bots seated (a resumed
        table's under new tokens) and its end awaited."""
        table = web.table
        self.lobby.private[table.id] = web
        for seat, kind in enumerate(web.kinds):
            if kind == "open":
                web.hosted.given[seat] = web.hosted.address
                continue
            web.hosted.given[seat] = BOT
            if not table.seats[seat].token:
                self.server.reissue(table, seat)  # restored: its token was a hash only
            web.tasks.append(asyncio.create_task(self._bot(web, seat, kind, seed, play.deal)))
        live = self.live[play.id] = Live(web, token, web.hosted.address)
        task = asyncio.create_task(self._until_over(play, live))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return live

    def resume(self, tables: list[Table]) -> None:
        """The deals in play that a restart gave back (the server's ``restore`` with this
        pages' records folder): each is taken up again where it was, its person coming
        back through /daily for a new token (the journal keeps only hashes)."""
        journal = self.server.journal
        kept = journal.hosts() if journal is not None else {}
        for table in tables:
            data = kept.get(table.id)
            if not table.private or data is None or "daily" not in data:
                continue
            try:
                play = self.daily.play(int(data["daily"]))
                kinds = [str(k) for k in data["kinds"]]
                if play is None or play.table_id != table.id or play.state != PLAYING \
                        or len(kinds) != len(table.seats):
                    raise ValueError("no deal in play at this table")
                web = WebHosted(Hosted(table, str(data["address"]), time.monotonic()), kinds)
                self._host(play, web, self.daily.day(play.day).seed, "")
            except (KeyError, ValueError, TypeError, DailyError) as exc:
                log.error("daily table %s not resumed: %s", table.id, exc)

    async def _bot(self, web: WebHosted, seat: int, agent: str, seed: int, deal: int) -> None:
        from xactika.frontends.web.transport import run_bot

        await run_bot(self.server.serve_link, web.table.seats[seat].token, agent,
                      web.table.config.game, deals.bot_seed(seed, deal, seat),
                      self.server.limits)

    async def _until_over(self, play: Play, live: Live) -> None:
        table = live.web.table
        await table.over.wait()
        totals = table.totals()
        record = None
        if table.record is not None:
            with contextlib.suppress(OSError):
                record = table.record.read_text(encoding="utf-8")
                table.record.unlink()
        points = float(totals[self.daily.settings.seat]) if totals else None
        await run_in_threadpool(self.daily.finish, play, points, record)
        live.ended = time.monotonic()

    def _forget(self) -> None:
        """Finished deals' tables a while after their end (their page has had its end)."""
        now = time.monotonic()
        for key, live in list(self.live.items()):
            if live.ended is not None and now - live.ended > KEEP_FINISHED:
                del self.live[key]
                self.lobby.private.pop(live.web.table.id, None)

    # -- after the close
    async def record(self, request: Request) -> Response:
        """A finished deal's signed record by the leaderboard's name, after the close."""
        with i18n.using(page_language(request)):
            try:
                day = deals.parse_day(request.path_params["day"])
                deal = request.path_params["deal"]
                text = self.daily.record(day, deal - 1, request.path_params["name"])
            except (DailyError, ValueError) as exc:
                return PlainTextResponse(_said(exc), status_code=404)
        return PlainTextResponse(text, headers={
            "content-disposition": f'attachment; filename="xactika-daily-{day}-{deal}.log"'})


def _said(exc: BaseException) -> str:
    message = exc.args[0] if exc.args else str(exc)
    return i18n._(message) if isinstance(message, i18n.Later) else str(message)


def _client(request: Request) -> str:
    return request.client.host if request.client is not None else "?"
