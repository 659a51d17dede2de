"""Passkeys on the accounts' pages (frontends/accounts/passkeys.py): registering one on
one's own page, logging in with one on the login page; offered only where browsers use
them (HTTPS or localhost) and the ``passkeys`` extra (py_webauthn) is installed, every
other page keeping passwords.

    POST /api/passkeys/register/options   signed in: options for navigator.credentials.create
    POST /api/passkeys/register           signed in: the authenticator's answer
    POST /api/passkeys/login/options      options for navigator.credentials.get, with the
                                          login's own cookie (xactika_passkey, 5 minutes)
    POST /api/passkeys/login              the answer: a new session cookie

Every POST passes the app's Origin check; logins are rate-limited per address as the
password's are, and every failure is one answer.
"""

from __future__ import annotations

import importlib.util
import secrets
from typing import TYPE_CHECKING
from urllib.parse import quote

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from xactika.frontends import i18n
from xactika.frontends.accounts import passkeys
from xactika.frontends.accounts.identity import Account, AccountError
from xactika.frontends.i18n import _
from xactika.frontends.web.lang import page_language

if TYPE_CHECKING:
    from xactika.frontends.web.accountpages import AccountPages

COOKIE = "xactika_passkey"  # a login's challenge is bound to it


def installed() -> bool:
    return importlib.util.find_spec("webauthn") is not None


def offered(request: Request) -> bool:
    """Passkeys on this page: the extra installed and a page browsers allow them on."""
    return installed() and passkeys.available(request.url.scheme, request.url.hostname)


class PasskeyPages:
    def __init__(self, accounts: AccountPages) -> None:
        self.accounts = accounts

    def routes(self) -> list[BaseRoute]:
        return [Route("/api/passkeys/register/options", self.register_options,
                      methods=["POST"]),
                Route("/api/passkeys/register", self.register, methods=["POST"]),
                Route("/api/passkeys/login/options", self.login_options, methods=["POST"]),
                Route("/api/passkeys/login", self.login, methods=["POST"])]

    def _refused(self, request: Request) -> Response | None:
        if not self.accounts._origin_ok(request):
            return JSONResponse({"error": _("requests must come from this site's pages")},
                                status_code=403)
        if not offered(request):
            return JSONResponse({"error": _("passkeys work on HTTPS or localhost only: "
                                            "use your password here")}, status_code=404)
        return None

    async def _signed(self, request: Request) -> tuple[Account, str] | Response:
        """(the account signed in, its session cookie), or the refusal to send."""
        from xactika.frontends.web.accountpages import COOKIE as SESSION

        refused = self._refused(request)
        if refused is not None:
            return refused
        account = await self.accounts.signed_in(request)
        if account is None:
            return JSONResponse({"error": _("sign in first")}, status_code=401)
        return account, request.cookies[SESSION]

    @staticmethod
    def _origin(request: Request) -> tuple[str, str]:
        """(the relying party's id, the origin the browser signs)."""
        return request.url.hostname or "", f"{request.url.scheme}://{request.url.netloc}"

    async def register_options(self, request: Request) -> Response:
        with i18n.using(page_language(request)):
            signed = await self._signed(request)
            if isinstance(signed, Response):
                return signed
            account, session = signed
            rp_id, _origin = self._origin(request)
            options = await run_in_threadpool(passkeys.registration_options,
                                              self.accounts.engine, account,
                                              session, rp_id)
            return Response(options, media_type="application/json")

    async def register(self, request: Request) -> Response:
        with i18n.using(page_language(request)):
            signed = await self._signed(request)
            if isinstance(signed, Response):
                return signed
            account, session = signed
            rp_id, origin = self._origin(request)
            try:
                credential = passkeys.parse(await request.body())
                await run_in_threadpool(passkeys.register, self.accounts.engine, account,
                                        session, credential, rp_id, origin)
            except AccountError as exc:
                return JSONResponse({"error": str(exc)}, status_code=400)
            count = await run_in_threadpool(passkeys.count, self.accounts.engine, account)
            return JSONResponse({"passkeys": count})

    async def login_options(self, request: Request) -> Response:
        with i18n.using(page_language(request)):
            refused = self._refused(request)
            if refused is not None:
                return refused
            cookie = secrets.token_urlsafe(32)
            rp_id, _origin = self._origin(request)
            options = await run_in_threadpool(passkeys.login_options, self.accounts.engine,
                                              cookie, rp_id)
            response = Response(options, media_type="application/json")
            response.set_cookie(COOKIE, cookie, max_age=int(passkeys.CHALLENGE_SECONDS),
                                httponly=True, samesite="strict",
                                secure=request.url.scheme == "https", path="/api/passkeys")
            return response

    async def login(self, request: Request) -> Response:
        from xactika.frontends.web.accountpages import _client

        with i18n.using(page_language(request)):
            refused = self._refused(request)
            if refused is not None:
                return refused
            if not self.accounts.by_address.allow("a:" + _client(request)):
                return JSONResponse({"error": _("too many attempts: try again later")},
                                    status_code=429)
            cookie = request.cookies.get(COOKIE, "")
            rp_id, origin = self._origin(request)
            try:
                credential = passkeys.parse(await request.body())
                account = await run_in_threadpool(passkeys.login, self.accounts.engine,
                                                  cookie, credential, rp_id, origin)
            except AccountError as exc:
                return JSONResponse({"error": str(exc)}, status_code=400)
            if account is None:
                return JSONResponse({"error": _("that passkey was not accepted")},
                                    status_code=400)
            response = JSONResponse({"name": account.name,
                                     "next": f"/people/{quote(account.name)}"})
            response.delete_cookie(COOKIE, path="/api/passkeys")
            return self.accounts._with_session(request, account, response)
