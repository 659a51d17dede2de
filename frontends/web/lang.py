"""The language a page, a request or a WebSocket is shown in, and templates that speak it.

A page follows ``?lang=`` (the switch, remembered in a cookie), then that cookie, then the
browser's Accept-Language (:func:`xactika.frontends.i18n.for_request`); each request and
each connection renders in its own language, so two people at one table may read two.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from babel.numbers import format_decimal
from starlette.requests import HTTPConnection, Request
from starlette.responses import JSONResponse, Response
from starlette.templating import Jinja2Templates

from xactika.frontends import i18n


def page_language(conn: HTTPConnection) -> str:
    """The language a page or a connection is shown in (i18n.for_request)."""
    return i18n.for_request(conn.query_params.get("lang"), conn.cookies.get(i18n.COOKIE),
                            conn.headers.get("accept-language"))


def install_gettext(templates: Jinja2Templates) -> None:
    """Templates translate through Jinja2's i18n extension, in the request's language,
    and write decimals as it does (``x|decimal(1)``: 0.5 in English, 0,5 in German)."""
    templates.env.add_extension("jinja2.ext.i18n")
    templates.env.install_gettext_callables(  # type: ignore[attr-defined]
        i18n._, i18n.ngettext, newstyle=True)
    templates.env.filters["decimal"] = decimal


def decimal(value: float, digits: int) -> str:
    """``value`` with ``digits`` decimals in the current language (no grouping)."""
    return format_decimal(round(value, digits), format=f"0.{'0' * digits}" if digits else "0",
                          locale=i18n.current(), group_separator=False)


def page(templates: Jinja2Templates, request: Request, name: str,
         context: dict[str, Any], **kwargs: Any) -> Response:
    """A page in the request's language; a ``?lang=`` switch is remembered in a cookie."""
    lang = page_language(request)
    with i18n.using(lang):  # the template renders here
        response = templates.TemplateResponse(
            request, name, {**context, "lang": lang, "languages": i18n.languages(),
                            "lang_links": lang_links(request)}, **kwargs)
    if i18n.best(request.query_params.get("lang")) is not None:
        response.set_cookie(i18n.COOKIE, lang, max_age=365 * 24 * 3600, samesite="lax")
    response.headers["Vary"] = "Accept-Language, Cookie"
    return response


def lang_links(request: Request) -> dict[str, str]:
    """Each language's switch: this very address (its query kept, ``lang=`` changed; the
    page's langs.js keeps the hash and what the page changed since)."""
    kept = [(k, v) for k, v in request.query_params.multi_items() if k != "lang"]
    return {code: "?" + urlencode([*kept, ("lang", code)]) for code in i18n.languages()}


async def catalog(request: Request) -> Response:
    """``/i18n/LANG.json``: the page's strings in one language, from the same catalog as
    the Python's (only the messages the scripts ask for)."""
    lang = i18n.best(request.path_params["lang"]) or i18n.SOURCE
    return JSONResponse(i18n.catalog_json(lang, ".js"),
                        headers={"Cache-Control": "public, max-age=3600"})
