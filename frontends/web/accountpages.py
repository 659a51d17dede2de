"""``xactika web --site DIR``: accounts, sessions, rated tables, people's pages and the
leaderboards (spec/WEB.md, "Accounts and ratings").

    GET  /signup /login          the forms (plain HTML forms: no script)
    POST /signup /login /logout  a new session cookie at every sign-up and login
    GET  /people/NAME            a person: ratings over time, rated games, open tables
    GET  /api/people/NAME        the same as JSON (never a token)
    GET  /leaderboard[/GAME/MODE]
    GET  /api/me                 who this browser is signed in as
    POST /api/me/seats           the signed-in person's seats at open tables, with tokens
    POST /api/rated              a rated table (the lobby's create, for accounts only)
    GET  /rated/N/record         a rated game's signed record
    POST /api/passkeys/...       passkeys, on HTTPS or localhost (passkeypages.py)

Every POST passes the app's Origin check; sign-up and login are rate-limited per address
and per name, and a wrong name and a wrong password get one answer in one time.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlencode

import sqlalchemy as sa
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
)
from starlette.routing import BaseRoute, Route
from starlette.templating import Jinja2Templates

from xactika.frontends import i18n
from xactika.frontends.accounts import identity, ratings
from xactika.frontends.accounts.identity import Account, AccountError
from xactika.frontends.accounts.store import Site, rated_games
from xactika.frontends.i18n import _
from xactika.frontends.web.arenapages import plot, when
from xactika.frontends.web.lang import install_gettext, page, page_language
from xactika.frontends.web.passkeypages import PasskeyPages, offered
from xactika.protocol.player.wire import name_key
from xactika.protocol.trust.signing import PublicKey

if TYPE_CHECKING:
    from xactika.frontends.web.app import WebApp

HERE = Path(__file__).parent
COOKIE = "xactika_session"
FORM_MAX = 4096  # bytes of a sign-up or login form
ATTEMPTS_PER_ADDRESS = 20  # sign-ups and logins per window from one address
ATTEMPTS_PER_NAME = 6  # logins per window for one name, whoever tries
WINDOW = 600.0  # seconds


class Attempts:
    """Sliding-window counters: at most ``limit`` attempts per key in ``window`` seconds.
    ``clock`` is injectable, so tests move time instead of waiting for it."""

    def __init__(self, limit: int, window: float = WINDOW,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.limit, self.window, self.clock = limit, window, clock
        self.seen: dict[str, deque[float]] = {}

    def allow(self, key: str) -> bool:
        now = self.clock()
        times = self.seen.setdefault(key, deque())
        while times and times[0] <= now - self.window:
            times.popleft()
        if len(times) >= self.limit:
            return False
        times.append(now)
        if len(self.seen) > 100_000:  # a flood of keys: forget the idle ones
            for old in [k for k, v in self.seen.items() if not v or v[-1] <= now - self.window]:
                del self.seen[old]
        return True


class AccountPages:
    """The accounts' routes over one site folder, opened once."""

    def __init__(self, folder: str | Path, db: str | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.site = Site.open(folder, db, create=True)
        self.engine = self.site.engine
        self.by_address = Attempts(ATTEMPTS_PER_ADDRESS, clock=clock)
        self.by_name = Attempts(ATTEMPTS_PER_NAME, clock=clock)
        self.templates = Jinja2Templates(directory=str(HERE / "templates"))
        install_gettext(self.templates)
        self.web: WebApp | None = None  # set by the app that serves these routes

    def routes(self) -> list[BaseRoute]:
        return [Route("/signup", self.signup_page, methods=["GET"]),
                Route("/signup", self.signup, methods=["POST"]),
                Route("/login", self.login_page, methods=["GET"]),
                Route("/login", self.login, methods=["POST"]),
                Route("/logout", self.logout, methods=["POST"]),
                Route("/people/{name}", self.person_page),
                Route("/api/people/{name}", self.person_api),
                Route("/leaderboard", self.boards_page),
                Route("/leaderboard/{game}/{mode}", self.board_page),
                Route("/api/me", self.me),
                Route("/api/me/seats", self.my_seats, methods=["POST"]),
                Route("/api/rated", self.create_rated, methods=["POST"]),
                Route("/rated/{number:int}/record", self.record),
                *PasskeyPages(self).routes()]

    def close(self) -> None:
        self.site.close()

    def keys(self) -> list[PublicKey]:
        assert self.web is not None
        signer = self.web.server.signer
        return [signer.public] if signer is not None else []

    def rate(self, record: Path, out: Path) -> bool:
        """A finished rated table's record applied to the ratings (once)."""
        game = ratings.read_rated(record, out, self.keys())
        return game is not None and ratings.apply(self.engine, game)

    def catch_up(self, out: Path) -> int:
        return ratings.catch_up(self.engine, out, self.keys())

    # -- sessions
    async def signed_in(self, request: Request) -> Account | None:
        """The account this request's session cookie opens, if any."""
        token = request.cookies.get(COOKIE)
        if not token:
            return None
        return await run_in_threadpool(identity.session_account, self.engine, token)

    def _with_session(self, request: Request, account: Account, response: Response) -> Response:
        """A new session (a new value: a cookie planted before login opens nothing)."""
        old = request.cookies.get(COOKIE)
        identity.end_session(self.engine, old)
        token = identity.open_session(self.engine, account)
        response.set_cookie(COOKIE, token, max_age=identity.SESSION_DAYS * 86400,
                            httponly=True, samesite="lax",
                            secure=request.url.scheme == "https", path="/")
        return response

    def _origin_ok(self, request: Request) -> bool:
        from xactika.frontends.web.app import same_origin

        return same_origin(request.headers, request.url.scheme)

    async def _form(self, request: Request) -> dict[str, str]:
        data = await request.body()
        if len(data) > FORM_MAX:
            raise AccountError("the form is too large")
        from urllib.parse import parse_qsl

        try:
            return dict(parse_qsl(data.decode("utf-8"), max_num_fields=8))
        except (UnicodeDecodeError, ValueError):
            raise AccountError("the form cannot be read") from None

    # -- sign-up, login, logout
    async def signup_page(self, request: Request) -> Response:
        return self._form_page(request, "signup", None)

    async def login_page(self, request: Request) -> Response:
        return self._form_page(request, "login", None)

    def _form_page(self, request: Request, kind: str, error: str | None,
                   status_code: int = 200, name: str = "") -> Response:
        return with_forms(page(self.templates, request, "account.html",
                               {"kind": kind, "error": error,
                                "name": name[:identity.NAME_MAX], "next": _next(request),
                                "passkeys": offered(request)},
                               status_code=status_code))

    async def signup(self, request: Request) -> Response:
        with i18n.using(page_language(request)):  # its errors in the reader's language
            return await self._signup(request)

    async def login(self, request: Request) -> Response:
        with i18n.using(page_language(request)):
            return await self._login(request)

    async def _signup(self, request: Request) -> Response:
        if not self._origin_ok(request):
            return PlainTextResponse("requests must come from this site's pages", 403)
        try:
            form = await self._form(request)
        except AccountError as exc:
            return self._form_page(request, "signup", str(exc), 400)
        name, password = form.get("name", ""), form.get("password", "")
        if not self.by_address.allow("a:" + _client(request)):
            return self._form_page(request, "signup", _("too many attempts: try again later"),
                                   429, name)
        try:
            account = await run_in_threadpool(identity.create, self.engine, name, password)
        except AccountError as exc:
            return self._form_page(request, "signup", str(exc), 400, name)
        return self._with_session(request, account, _after(request, account))

    async def _login(self, request: Request) -> Response:
        if not self._origin_ok(request):
            return PlainTextResponse("requests must come from this site's pages", 403)
        try:
            form = await self._form(request)
        except AccountError as exc:
            return self._form_page(request, "login", str(exc), 400)
        name, password = form.get("name", ""), form.get("password", "")
        if not self.by_address.allow("a:" + _client(request)) \
                or not self.by_name.allow("n:" + name_key(name.strip())[:80]):
            return self._form_page(request, "login", _("too many attempts: try again later"),
                                   429, name)
        account = await run_in_threadpool(identity.login, self.engine, name, password)
        if account is None:  # one answer for a wrong name and a wrong password
            return self._form_page(request, "login", _("wrong name or password"), 400, name)
        return self._with_session(request, account, _after(request, account))

    async def logout(self, request: Request) -> Response:
        if not self._origin_ok(request):
            return PlainTextResponse("requests must come from this site's pages", 403)
        await run_in_threadpool(identity.end_session, self.engine, request.cookies.get(COOKIE))
        response = RedirectResponse("/", status_code=303)
        response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax",
                               secure=request.url.scheme == "https")
        return response

    async def me(self, request: Request) -> Response:
        account = await self.signed_in(request)
        return JSONResponse({"name": account.name if account else None})

    # -- a person's seats, and rated tables
    def _seats_of(self, account: Account) -> list[dict[str, Any]]:
        """The account's seats at tables not over, each with its token (reissued where a
        restart left the server only its hash)."""
        assert self.web is not None
        out = []
        for web in self.web.lobby.listed():
            table = web.table
            if table.over.is_set():
                continue
            for seat in web.holders_of(account.id):
                if not table.seats[seat].token:
                    self.web.server.reissue(table, seat)
                out.append({"table": table.id, "seat": seat, "rated": web.rated,
                            "game": table.config.game, "status": table.status(),
                            "token": table.seats[seat].token})
        return out

    async def my_seats(self, request: Request) -> Response:
        if not self._origin_ok(request):
            return JSONResponse({"error": "requests must come from this site's pages"}, 403)
        account = await self.signed_in(request)
        if account is None:
            return JSONResponse({"error": "sign in first"}, status_code=401)
        return JSONResponse({"seats": self._seats_of(account)})

    async def create_rated(self, request: Request) -> Response:
        """A rated table: the lobby's create, its creator signed in and seated under their
        account's name; its other seats are bots or open to accounts only."""
        from xactika.frontends.web.weblobby import WebLobbyError

        assert self.web is not None
        try:
            body = await self.web._body(request)  # the Origin check, the size, the JSON
        except WebLobbyError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        account = await self.signed_in(request)
        if account is None:
            return JSONResponse({"error": "a rated table needs an account: sign in first"},
                                status_code=401)
        try:
            web, invites = self.web.lobby.create({**body, "name": account.name},
                                                 _client(request), rated=True,
                                                 holder=account.id)
        except WebLobbyError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        self.web.rate_when_over(web)
        return JSONResponse({"table": web.public(),
                             "invites": {str(k): v for k, v in invites.items()}})

    # -- pages
    async def person_api(self, request: Request) -> Response:
        data = await self._person(request)
        if data is None:
            return JSONResponse({"error": "no such person"}, status_code=404)
        data.pop("seats", None)
        return JSONResponse(data)

    async def _person(self, request: Request) -> dict[str, Any] | None:
        name = request.path_params["name"]
        account = await run_in_threadpool(identity.find, self.engine, name)
        if account is None:
            return None
        data = await run_in_threadpool(ratings.person, self.engine, account.id)
        data["name"] = account.name
        for game in data["games"]:
            game["replay"] = f"/replay?{urlencode({'file': game['record']})}"
        me = await self.signed_in(request)
        data["self"] = me is not None and me.id == account.id
        data["seats"] = self._seats_of(account) if data["self"] and self.web else []
        return data

    async def person_page(self, request: Request) -> Response:
        data = await self._person(request)
        if data is None:
            return page(self.templates, request, "person.html",
                        {"person": None, "name": request.path_params["name"][:40],
                         "me": await self.signed_in(request)}, status_code=404)
        with i18n.using(page_language(request)):  # the plot's description
            for r in data["ratings"]:
                drawn = plot(r["history"]) if len(r["history"]) > 1 else None  # a line
                if drawn is not None:
                    last = r["history"][-1]
                    drawn["summary"] = _("rating {rating} ± {spread} after {games} games"
                                         ).format(rating=f"{last['mu']:.0f}",
                                                  spread=f"{last['high'] - last['mu']:.0f}",
                                                  games=len(r["history"]))
                r["plot"] = drawn
        return with_forms(page(self.templates, request, "person.html",
                               {"person": data, "name": data["name"], "when": when,
                                "me": await self.signed_in(request),
                                "passkeys": data["self"] and offered(request)}))

    async def boards_page(self, request: Request) -> Response:
        boards = await run_in_threadpool(ratings.boards, self.engine)
        return page(self.templates, request, "leaderboard.html",
                    {"boards": boards, "board": None, "game": None, "mode": None,
                     "me": await self.signed_in(request)})

    async def board_page(self, request: Request) -> Response:
        game, mode = request.path_params["game"][:40], request.path_params["mode"][:40]
        board = await run_in_threadpool(ratings.leaderboard, self.engine, game, mode)
        boards = await run_in_threadpool(ratings.boards, self.engine)
        return page(self.templates, request, "leaderboard.html",
                    {"boards": boards, "board": board, "game": game, "mode": mode,
                     "me": await self.signed_in(request)})

    async def record(self, request: Request) -> Response:
        assert self.web is not None
        number = request.path_params["number"]

        def row() -> Any:
            with self.engine.connect() as conn:
                return conn.execute(sa.select(rated_games.c.record)
                                    .where(rated_games.c.id == number)).first()

        found = await run_in_threadpool(row)
        out = self.web.server.out
        if found is None or out is None:
            return PlainTextResponse("no rated game of that number", status_code=404)
        path = (out / found.record).resolve()
        if not path.is_relative_to(out.resolve()) or not path.is_file():
            return PlainTextResponse("no rated game of that number", status_code=404)
        return FileResponse(path, media_type="text/plain", filename=Path(found.record).name)


def with_forms(response: Response) -> Response:
    """A page with a form (sign-up, login, logout): ``Referrer-Policy: same-origin``
    instead of the site's ``no-referrer``, under which a browser sends ``Origin: null``
    with a form's POST and the Origin check could not tell this site's forms from
    another's. Same-origin requests only carry the Referer; a token is in a fragment,
    which is never in one."""
    response.headers["referrer-policy"] = "same-origin"
    return response


def _client(request: Request) -> str:
    return request.client.host if request.client is not None else "?"


def _next(request: Request) -> str:
    """Where to go after signing in: a path of this site only (never another site's)."""
    target = request.query_params.get("next", "")
    return target if target.startswith("/") and not target.startswith("//") \
        and "\\" not in target else ""


def _after(request: Request, account: Account) -> Response:
    target = _next(request) or f"/people/{quote(account.name)}"
    return RedirectResponse(target, status_code=303)
