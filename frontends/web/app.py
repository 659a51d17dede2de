"""``xactika web``'s application: pages, a small JSON lobby API and the WebSocket.

The table server stays the only referee. The WebSocket is one more transport of its
sessions (transport.py): a browser says ``seat TOKEN`` and speaks the player protocol,
with ``say`` lines of narration added (narrate.py) and a table chat beside it
(spec/WEB.md). Every response carries a Content-Security-Policy without inline script;
WebSocket and POST requests must come from this site's own pages (their Origin), and
only this server's own host names are served (hosting.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
)
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates
from starlette.websockets import WebSocket, WebSocketDisconnect

from xactika.core.engine.api import Config, game_rules
from xactika.core.engine.errors import XactikaError
from xactika.frontends import i18n
from xactika.frontends.web.facts import all_games
from xactika.frontends.web.hosting import ABORT, DEFAULT_HEADER, Network, served
from xactika.frontends.web.lang import catalog, install_gettext, page, page_language
from xactika.frontends.web.narrate import Narrator, rules_texts
from xactika.frontends.web.transport import QueueTransport
from xactika.frontends.web.weblobby import ChatRate, WebHosted, WebLobby, WebLobbyError
from xactika.protocol.net.lines import Observe, SeatField, Watch
from xactika.protocol.net.link import Link, LinkDown, LinkFault
from xactika.protocol.net.server import Server
from xactika.protocol.net.weblines import Chat, SayChatRefused, parse_page, parse_page_first
from xactika.protocol.notation.text import config_from_pairs
from xactika.protocol.player.wire import TakeSeat, bot_name, clean_name, format_line

if TYPE_CHECKING:
    from xactika.frontends.web.accountpages import AccountPages

log = logging.getLogger(__name__)

HERE = Path(__file__).parent
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
       "frame-ancestors 'none'")
HEADERS = [(b"content-security-policy", CSP.encode()),
           (b"x-content-type-options", b"nosniff"),
           (b"referrer-policy", b"no-referrer"),
           (b"x-frame-options", b"DENY"),
           (b"cache-control", b"no-store")]
MAX_BODY = 8192  # bytes of a lobby request
CLOSE_WAIT = 2.0  # seconds the WebSocket's closing handshake may take

Scope = MutableMapping[str, Any]
ASGI = Callable[[Scope, Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]],
                Awaitable[None]]


class SecurityHeaders:
    """Adds the CSP and its companions to every HTTP response (a sub-app's own stricter
    ones, the viewers', are kept instead of doubled)."""

    def __init__(self, app: ASGI) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Callable[[], Awaitable[Any]],
                       send: Callable[[Any], Awaitable[None]]) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                have = {name.lower() for name, _ in message.get("headers", [])}
                message["headers"] = [*message.get("headers", []),
                                      *(pair for pair in HEADERS if pair[0] not in have)]
            await send(message)

        await self.app(scope, receive, with_headers)


def same_origin(headers: Any, scheme: str) -> bool:
    """The request comes from a page of this very site (the Origin names this host)."""
    origin, host = headers.get("origin"), headers.get("host")
    if not origin or not host:
        return False
    secure = scheme in ("https", "wss")
    return bool(origin == f"{'https' if secure else 'http'}://{host}")


class WebApp:
    """The pages, the lobby API and the WebSocket over one table server."""

    def __init__(self, server: Server, *, extra_routes: list[BaseRoute] | None = None,
                 bound: str = "127.0.0.1", allowed_hosts: Sequence[str] = (),
                 trusted_proxies: Sequence[Network] = (),
                 proxy_header: str = DEFAULT_HEADER, accounts: AccountPages | None = None,
                 daily: Any = None, cluster: Any = None) -> None:
        self.server = server
        self.accounts = accounts  # --site: who is signed in, rated tables (accountpages.py)
        if accounts is not None:
            accounts.web = self
        self.cluster = cluster  # the other web processes on one database (cluster.py)
        self.viewers = any(getattr(r, "path", "") == "/replay" for r in extra_routes or ())
        self.lobby = WebLobby(server)
        self.templates = Jinja2Templates(directory=str(HERE / "templates"))
        install_gettext(self.templates)
        self.daily = daily  # the daily deal's pages (dailypages.py), over a site's database
        if daily is not None:
            daily.web = self  # its tables are this lobby's, private
        routes: list[BaseRoute] = [
            Route("/", self.lobby_page),
            Route("/table/{number:int}", self.table_page),
            Route("/api/tables", self.list_tables, methods=["GET"]),
            Route("/api/tables", self.create_table, methods=["POST"]),
            Route("/api/tables/{number:int}/take", self.take_seat, methods=["POST"]),
            Route("/api/rematch", self.rematch, methods=["POST"]),
            Route("/api/tables/{number:int}/record", self.record),
            Route("/table/{number:int}/replay", self.replay),
            Route("/api/rules", self.rules),
            Route("/api/games", self.games),
            Route("/i18n/{lang}.json", catalog),
            Route("/api/seat", self.seat_action, methods=["POST"]),
            WebSocketRoute("/ws", self.socket),
            Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"),
            *(extra_routes or []),
        ]
        # pages, scripts and catalogs compressed (a phone's first load: about a quarter)
        self.app = Starlette(routes=routes, lifespan=self.lifespan,
                             middleware=[Middleware(GZipMiddleware, minimum_size=500)])
        self.app.state.web = self
        self.app.state.accounts = accounts
        self.asgi = SecurityHeaders(served(self.app, bound, allowed_hosts, trusted_proxies,
                                           proxy_header))

    @contextlib.asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[None]:
        # the TCP seats and the seeds are the server's, set up by serve.py before this
        publishing = None if self.cluster is None else asyncio.create_task(
            self.cluster.run(self._own_tables))
        try:
            yield
        finally:
            if publishing is not None:
                publishing.cancel()
                with contextlib.suppress(BaseException):
                    await publishing
                await asyncio.to_thread(self.cluster.leave)
            await self.server.close()
            if self.daily is not None:
                self.daily.close()
            if self.accounts is not None:
                self.accounts.close()

    # -- pages
    async def lobby_page(self, request: Request) -> Response:
        viewers = any(getattr(r, "path", "") == "/replay" for r in self.app.routes)
        me = await self.accounts.signed_in(request) if self.accounts is not None else None
        return page(self.templates, request, "lobby.html",
                    {"viewers": viewers, "accounts": self.accounts is not None, "me": me,
                     "daily": self.daily is not None})

    async def table_page(self, request: Request) -> Response:
        number = request.path_params["number"]
        daily = request.query_params.get("daily", "")  # a daily deal's table: its day
        daily = daily if len(daily) == 10 and daily.replace("-", "").isdigit() else ""
        return page(self.templates, request, "table.html", {"number": number, "daily": daily})

    async def games(self, request: Request) -> Response:
        with i18n.using(page_language(request)):
            return JSONResponse(all_games())


    # -- the lobby API
    async def list_tables(self, request: Request) -> Response:
        with i18n.using(page_language(request)):  # a table's length, in the reader's words
            tables = self._own_tables()
        if self.cluster is not None:  # and the other processes' (in their writer's words)
            tables = sorted([*tables, *await asyncio.to_thread(self.cluster.others)],
                            key=lambda t: int(t["id"]))
        return JSONResponse(tables)

    def _own_tables(self) -> list[dict[str, Any]]:
        return [web.public() for web in self.lobby.listed()]

    async def _body(self, request: Request) -> dict[str, Any]:
        if not same_origin(request.headers, request.url.scheme):
            raise WebLobbyError("requests must come from this site's pages")
        data = await request.body()
        if len(data) > MAX_BODY:
            raise WebLobbyError("request too large")
        try:
            body = json.loads(data or b"{}")
        except ValueError:
            raise WebLobbyError("the request is not JSON") from None
        if not isinstance(body, dict):
            raise WebLobbyError("the request is not a JSON object")
        return body

    async def _holder(self, request: Request) -> tuple[int, str] | None:
        """The signed-in account (id, name) a seat taken by this request follows."""
        account = await self.accounts.signed_in(request) if self.accounts else None
        return (account.id, account.name) if account is not None else None

    async def create_table(self, request: Request) -> Response:
        holder = await self._holder(request)
        try:
            web, invites = self.lobby.create(await self._body(request), _client(request),
                                             holder=holder[0] if holder else None)
        except WebLobbyError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        if self.cluster is not None:
            self.cluster.wake.set()  # listed by the other processes at once
        return JSONResponse({"table": web.public(),
                             "invites": {str(k): v for k, v in invites.items()}})

    async def take_seat(self, request: Request) -> Response:
        try:
            body = await self._body(request)
            seat = body.get("seat")
            found = self.lobby.take(request.path_params["number"],
                                   int(seat) if seat not in (None, "") else None,
                                   body.get("name"), _client(request),
                                   holder=await self._holder(request))
        except (WebLobbyError, ValueError, TypeError) as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        return JSONResponse({"seat": found[0], "token": found[1]})

    async def rematch(self, request: Request) -> Response:
        try:
            body = await self._body(request)
            number, token = await self.lobby.rematch(str(body.get("token", "")),
                                                    _client(request))
        except WebLobbyError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        return JSONResponse({"table": number, "token": token})

    async def seat_action(self, request: Request) -> Response:
        """``move`` a seat to the asking page, or ``leave`` a game in play (lobby.py)."""
        try:
            body = await self._body(request)
            token, action = str(body.get("token", "")), body.get("action")
            if action == "move":
                seat = await self.lobby.move(token)
            elif action == "leave":
                seat = self.lobby.leave(token)
            else:
                raise WebLobbyError("action is move or leave")
        except WebLobbyError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        return JSONResponse({"seat": seat})

    # -- rated tables (accountpages.py): rated once, when over, from their signed record
    def rate_when_over(self, web: WebHosted) -> None:
        web.tasks.append(asyncio.create_task(self._rate(web)))

    async def _rate(self, web: WebHosted) -> None:
        await web.table.over.wait()
        if self.accounts is not None and web.table.record is not None \
                and self.server.out is not None:
            await asyncio.to_thread(self.accounts.rate, web.table.record, self.server.out)

    def watch_rated(self) -> None:
        """The rated tables resumed after a restart are rated when they end, and those a
        kill ended before their rating are rated now (ratings.catch_up)."""
        if self.accounts is None or self.server.out is None:
            return
        self.accounts.catch_up(self.server.out)
        for web in self.lobby.tables.values():
            if web.rated and not web.table.over.is_set():
                self.rate_when_over(web)

    async def record(self, request: Request) -> Response:
        try:
            web = self.lobby.get(request.path_params["number"])
        except WebLobbyError as exc:
            return PlainTextResponse(str(exc), status_code=404)
        path = web.table.record
        if not web.table.over.is_set() or path is None:
            return PlainTextResponse("the record is written when the game is over",
                                     status_code=404)
        return FileResponse(path, media_type="text/plain",
                            filename=f"xactika-table-{web.table.id}.log")

    async def replay(self, request: Request) -> Response:
        """A finished table's game in the replay viewer: what a page reloaded after the end
        links to (the table's socket then says only that it is over)."""
        try:
            web = self.lobby.get(request.path_params["number"])
        except WebLobbyError as exc:
            return PlainTextResponse(str(exc), status_code=404)
        path, out = web.table.record, self.server.out
        if not web.table.over.is_set() or path is None or out is None or not self.viewers:
            return PlainTextResponse("the replay is there when the game is over",
                                     status_code=404)
        try:
            name = path.resolve().relative_to(out.resolve()).as_posix()
        except ValueError:
            return PlainTextResponse("the record is not in the viewer's folder",
                                     status_code=404)
        return RedirectResponse(f"/replay?file={quote(name)}&table={web.table.id}",
                                status_code=303)  # the viewer links back to the table

    async def rules(self, request: Request) -> Response:
        pairs = {k: v for k in ("game", "mode", "players", "rounds")
                 if (v := request.query_params.get(k))}
        pairs["seed"] = "0"  # texts only: validation wants a deal source
        try:
            config: Config = config_from_pairs(pairs, defaults=True)
            game_rules(config.game).validate(config)
        except (XactikaError, ValueError, KeyError, TypeError) as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        with i18n.using(page_language(request)):
            return JSONResponse(rules_texts(config))

    # -- the WebSocket
    async def socket(self, websocket: WebSocket) -> None:
        if not same_origin(websocket.headers, websocket.url.scheme):
            await websocket.close(code=1008)
            return
        await websocket.accept()
        # the connection's tasks copy this context: its narration is in its reader's language
        with i18n.using(page_language(websocket)):
            await Connection(self, websocket).run()


def _client(request: Request) -> str:
    """The browser's address: the lobby's limits per address count the web's requests."""
    return request.client.host if request.client is not None else "?"


class Connection:
    """One browser: its lines to the server's session, the server's back with narration."""

    def __init__(self, app: WebApp, websocket: WebSocket) -> None:
        self.app = app
        self.websocket = websocket
        self.limits = app.server.limits
        self.transport = QueueTransport(self.limits)
        self.link = Link(None, None, self.limits, self._address(), transport=self.transport)
        self.web: WebHosted | None = None
        self.who = ""
        self.seat: int | None = None  # the seat it took, if any
        self.narrator = Narrator(self._names)
        self.rate = ChatRate()
        self.first = True
        self.watching = False
        self.flooded = False  # it sent past a limit: dropped without a closing handshake
        self.refused = False  # its last chat was refused (and it was told)

    def _address(self) -> str:
        client = self.websocket.client
        return client.host if client is not None else "?"

    def _names(self) -> list[str]:
        return self.web.names() if self.web is not None else []

    async def run(self) -> None:
        serving = asyncio.create_task(self.app.server.serve_link(self.link, self._address()))
        sending = asyncio.create_task(self._send())
        receiving = asyncio.create_task(self._receive())
        full = asyncio.create_task(self.transport.full.wait())
        try:
            await asyncio.wait([sending, receiving, full], return_when=asyncio.FIRST_COMPLETED)
        finally:
            if self.transport.full.is_set():
                self.link.finish(LinkDown("stopped reading"))
            self.transport.end(drop=self.flooded or self.transport.full.is_set())
            receiving.cancel()
            full.cancel()
            with contextlib.suppress(BaseException):
                await serving
            sending.cancel()
            self.transport.gone()
            if self.web is not None:
                self.web.listeners.discard(self._hear)
                if self.watching:
                    self.web.spectators -= 1
            await self._close()

    async def _close(self) -> None:
        """The closing handshake, and the connection dropped if the peer does not answer
        within :data:`CLOSE_WAIT`; at once for a peer that broke a limit or does not read.
        uvicorn alone would wait 10 s for the answer, reading and discarding whatever the
        peer still sends, and for ever for a peer that does not read (its close waits for
        the queued bytes to be taken)."""
        if not (self.transport.full.is_set() or self.flooded):
            try:
                await asyncio.wait_for(self.websocket.close(), CLOSE_WAIT)
            except TimeoutError:
                pass  # it does not read: not even the close frame could be queued
            except Exception:
                return  # the peer closed first, and uvicorn closed the socket
            else:
                await asyncio.sleep(CLOSE_WAIT)  # a browser has answered by then
        abort = self.websocket.scope.get(ABORT)
        if abort is not None:
            abort()  # a no-op once the socket is closed

    async def _send(self) -> None:
        while True:
            lines = await self.transport.outgoing_lines()  # with the table's objects
            if lines is None or self.flooded:  # nothing more for a peer being dropped
                return
            await self.websocket.send_text(self.narrator.annotate(lines))

    async def _receive(self) -> None:
        try:
            while True:
                text = await self.websocket.receive_text()
                for line in text.split("\n"):
                    if not self._take(line):
                        self.flooded = True
                        return
        except (WebSocketDisconnect, RuntimeError, KeyError):
            return

    def _take(self, line: str) -> bool:
        """One line of the browser's; False to stop reading (it was too much)."""
        if self.first and line.strip():  # blank as the server's first line skips it
            self.first = False
            line = self._first(line)
            return self.transport.feed(line + "\n")
        match parse_page(line):
            case Chat(text):
                try:  # a chat line costs what any line costs: its length, the rate
                    self.link.charge(len(line.encode("utf-8", "surrogatepass")))
                except LinkFault as fault:
                    self.link.finish(fault)
                    return False
                self._chat(text)
                return True
        return self.transport.feed(line + "\n")

    def _first(self, line: str) -> str:
        """``watch N`` becomes ``observe TOKEN`` (the web's tables are public to watch);
        ``seat TOKEN`` finds the table for the chat and the narration."""
        match parse_page_first(line):
            case Watch(table, name):
                try:
                    self.web = self.app.lobby.get(int(table[:9]))
                except WebLobbyError:
                    return format_line(Observe("-"))  # refused by the server like any wrong token
                self.who = f"{clean_name(bot_name(name))[:24] if name else 'someone'}(watching)"
                self.transport.delay = self.web.spectator_delay
                self.watching = True
                self.web.spectators += 1
                self._join()
                return format_line(Observe(self.web.table.observer_token))
            case TakeSeat(token) | SeatField(token):
                found = self.app.lobby.seat_of(token)
                if found is not None:
                    self.web, self.seat = found
                    self.who = f"seat{self.seat}"
                    self.narrator.tutorial = self.web.tutorial
                    self._join()
        return line

    def _join(self) -> None:
        assert self.web is not None
        self.web.listeners.add(self._hear)
        for said in self.web.chat:
            self._hear(said)

    def _hear(self, line: str) -> None:
        self.transport.write((line + "\n").encode("utf-8"))

    def _chat(self, text: str) -> None:
        if self.web is None or not self.rate.allow():
            if not self.refused:  # once until a message goes through: refusals never pile up
                self._hear(format_line(SayChatRefused("too fast, or not at a table")))
            self.refused = True
            return
        self.refused = False
        who = self.who
        if self.seat is not None:
            who = self.web.names()[self.seat] or who
        self.app.lobby.say(self.web, who, text)


def viewer_routes(server: Server, arena: Any = None) -> list[BaseRoute]:
    """The replay and match viewers (frontends/web/viewer.py, the ``webview`` work) over
    the server's records folder, trusting its signing key; none where they are absent.
    With ``arena`` (arenapages.ArenaPages) the replay also opens the arena's records."""
    try:
        viewer = importlib.import_module("xactika.frontends.web.viewer")
    except ImportError:
        return []
    keys = [server.signer.public] if server.signer is not None else []
    made = viewer.Viewer(server.out, keys) if arena is None else arena.viewer(server.out, keys)
    return list(viewer.viewer_routes(made))


def create_app(server: Server, *, bound: str = "127.0.0.1",
               allowed_hosts: Sequence[str] = (),
               trusted_proxies: Sequence[Network] = (),
               proxy_header: str = DEFAULT_HEADER, arena: str | None = None,
               site: str | None = None, site_db: str | None = None,
               daily: Any = None) -> WebApp:
    """The application: the lobby, the tables and, when present, the viewers; served under
    the names ``bound``, ``localhost`` and ``allowed_hosts``, believing ``proxy_header``
    from ``trusted_proxies`` only (hosting.py). ``arena``: an arena folder, whose pages and
    JSON are served too (arenapages.py). ``site``: a site folder (its database at
    ``site_db``, or SQLite in it), whose accounts and ratings (accountpages.py) and daily
    deal (frontends/daily/service.py, dailypages.py) are served; when the server is one
    shard of several, the other web processes on that database list their tables too
    (cluster.py). ``daily``: a daily deal of its own (frontends/daily/service.py's
    ``Daily``, on its clock: the tests'), served with or without a site."""
    pages = None
    if arena is not None:
        from xactika.frontends.web.arenapages import ArenaPages

        pages = ArenaPages(arena)
    accounts = daily_pages = cluster = None
    if site is not None:
        from xactika.frontends.web.accountpages import AccountPages

        accounts = AccountPages(site, site_db)
        if daily is None:
            from xactika.frontends.daily.service import Daily

            daily = Daily(accounts.engine)
    if daily is not None:
        from xactika.frontends.web.dailypages import DailyPages

        daily_pages = DailyPages(server, daily)
        if server.shard[1] > 1:  # one of several processes: their lobbies' lists shared
            from xactika.frontends.web.cluster import Cluster

            cluster = Cluster(daily.engine)
    routes = [*viewer_routes(server, pages), *(pages.routes() if pages is not None else []),
              *(accounts.routes() if accounts is not None else []),
              *(daily_pages.routes() if daily_pages is not None else [])]
    return WebApp(server, extra_routes=routes, bound=bound,
                  allowed_hosts=allowed_hosts, trusted_proxies=trusted_proxies,
                  proxy_header=proxy_header, accounts=accounts, daily=daily_pages,
                  cluster=cluster)
