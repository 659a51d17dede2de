"""Translations: one gettext catalog per language, chosen per call or per context.

The catalogs are the ``.po`` files under ``locale/LANG/LC_MESSAGES/xactika.po`` (Babel
extracts ``locale/xactika.pot`` from the Python, the templates and the page's JavaScript;
see README, Translations). They are compiled when first used, so a new language is one
new ``.po`` file and nothing else. English is the source language: its texts are the
message ids.

Two people at one table may read different languages, so nothing is installed process-wide:
:func:`translator` gives a language's ``gettext``/``ngettext``, and :func:`using` sets the
language of the current context (a thread, an asyncio task) for the module-level
:func:`_` and :func:`ngettext` that the frontends call.

What a program reads (protocols, records, ``--json``, logs) never goes through here.
"""

from __future__ import annotations

import gettext as _gettext
import io
import os
import string
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from pathlib import Path
from typing import Any

DOMAIN = "xactika"
SOURCE = "en"  # the language the message ids are written in
LOCALE_DIR = Path(__file__).parent / "locale"
PATH_ENV = "XACTIKA_LOCALE_PATH"  # more catalog folders (os.pathsep-separated), searched first

_language: ContextVar[str] = ContextVar("xactika_language", default=SOURCE)


def locale_dirs() -> list[Path]:
    """Where catalogs are looked for: $XACTIKA_LOCALE_PATH's folders, then the package's."""
    extra = [Path(p) for p in os.environ.get(PATH_ENV, "").split(os.pathsep) if p]
    return [*extra, LOCALE_DIR]


def catalog_path(lang: str) -> Path | None:
    """The ``.po`` file of ``lang``, or None when there is none."""
    if not lang or "/" in lang or lang.startswith("."):
        return None
    for base in locale_dirs():
        path = base / lang / "LC_MESSAGES" / f"{DOMAIN}.po"
        if path.is_file():
            return path
    return None


def languages() -> list[str]:
    """Every language there is a catalog for, the source language first."""
    found = {SOURCE}
    for base in locale_dirs():
        if base.is_dir():
            found |= {p.parent.parent.name for p in base.glob(f"*/LC_MESSAGES/{DOMAIN}.po")}
    return [SOURCE, *sorted(found - {SOURCE})]


def _read(path: Path) -> Any:
    from babel.messages.pofile import read_po

    with path.open("rb") as f:
        return read_po(f, locale=path.parent.parent.name, domain=DOMAIN)


@lru_cache(maxsize=32)
def translator(lang: str) -> _gettext.NullTranslations:
    """``lang``'s translations (``.gettext``, ``.ngettext``); the source language, or a
    language with no catalog, translates nothing. A fuzzy entry is not used."""
    path = catalog_path(lang) if lang != SOURCE else None
    if path is None:
        return _gettext.NullTranslations()
    from babel.messages.mofile import write_mo

    buffer = io.BytesIO()
    write_mo(buffer, _read(path), use_fuzzy=False)
    buffer.seek(0)
    return _gettext.GNUTranslations(buffer)


def best(requested: str | None) -> str | None:
    """The language we have for ``de_DE.UTF-8``, ``de-AT`` or ``de``; None for none."""
    if not requested:
        return None
    code = requested.split(".")[0].split("@")[0].replace("-", "_")
    have = languages()
    if code in have:
        return code
    base = code.split("_")[0].lower()
    return base if base in have else None


def from_environment(environ: Mapping[str, str] | None = None) -> str:
    """The terminal's language as gettext finds it: LANGUAGE (a list), LC_ALL,
    LC_MESSAGES, LANG; English when none names a language we have. ``C`` and ``POSIX``
    mean English."""
    env = os.environ if environ is None else environ
    for key in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(key, "")
        if not value:
            continue
        for item in value.split(":"):
            if item in ("C", "POSIX") or item.startswith(("C.", "POSIX.")):
                return SOURCE
            found = best(item)
            if found is not None:
                return found
        if key != "LANGUAGE":  # the first variable set decides, as in gettext
            return SOURCE
    return SOURCE


def choose(flag: str | None, environ: Mapping[str, str] | None = None) -> str:
    """``--lang`` if given (refused when there is no such catalog), else the environment."""
    if flag is None:
        return from_environment(environ)
    found = best(flag)
    if found is None:
        raise ValueError(
            f"no translation for {flag!r}: --lang takes one of {', '.join(languages())}")
    return found


def from_accept_language(header: str | None) -> str | None:
    """The best language we have for a browser's ``Accept-Language`` (``de-DE,de;q=0.9,
    en;q=0.8``), by its weights; None when it names none of ours."""
    asked: list[tuple[float, int, str]] = []
    for i, part in enumerate((header or "").split(",")[:20]):
        tag, _sep, params = part.strip().partition(";")
        weight = 1.0
        if params.strip().startswith("q="):
            try:
                weight = float(params.strip()[2:])
            except ValueError:
                continue
        if tag and tag != "*" and weight > 0:
            asked.append((-weight, i, tag))
    for _weight, _i, tag in sorted(asked):
        found = best(tag)
        if found is not None:
            return found
    return None


COOKIE = "xactika_lang"  # the page's remembered language switch


def for_request(query: str | None, cookie: str | None, accept: str | None) -> str:
    """A page's language: ``?lang=`` (the switch), the remembered cookie, the browser's
    Accept-Language, else English."""
    return best(query) or best(cookie) or from_accept_language(accept) or SOURCE


def current() -> str:
    """The language of the current context."""
    return _language.get()


def set_language(lang: str) -> None:
    """Make ``lang`` the current context's language (a REPL's one reader, say)."""
    _language.set(lang)


@contextmanager
def using(lang: str) -> Iterator[None]:
    """Within the block, this context speaks ``lang``; others are not touched."""
    token = _language.set(lang)
    try:
        yield
    finally:
        _language.reset(token)


def _(message: str) -> str:
    """``message`` in the current context's language (a :func:`later` text is made from
    its template then)."""
    if isinstance(message, Later):
        return message.said()
    return translator(_language.get()).gettext(message)


class Later(str):
    """A text made from a template with fields that is shown later, maybe in another
    language than the one it was made in (an option's help, built before the reader's
    language is known): the English text, which :func:`_` says again from the template."""

    template: str
    fields: dict[str, Any]

    def __new__(cls, template: str, fields: Mapping[str, Any]) -> Later:
        self = super().__new__(cls, template.format(**fields))
        self.template = template
        self.fields = dict(fields)
        return self

    def said(self) -> str:
        # a field that is a text of the catalog is said too (an option's "the seat's token")
        fields = {k: _(v) if isinstance(v, str) else v for k, v in self.fields.items()}
        return _(self.template).format(**fields)


def later(template: str, /, **fields: Any) -> Later:
    """Marks ``template`` for the catalog (i18n_extract.py) and fills it in English now
    and in the reader's language when shown through :func:`_`."""
    return Later(template, fields)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form for ``n`` (German and English: ``1 Stich``, ``2 Stiche``), translated."""
    return translator(_language.get()).ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """``message`` as the catalog says it under ``context`` (one English word that means
    different things: a command typed, a rules topic), translated."""
    return translator(_language.get()).pgettext(context, message)


def said(text: str) -> str:
    """A paragraph given by a game's presentation (a rules topic, a mode's line), its
    whitespace folded as the catalog has it (i18n_extract.py), in the reader's language."""
    folded = " ".join(text.split())
    return _(folded)


class _Filler(string.Formatter):
    """``str.format`` that writes a number as the reader's language does (``+0,5``) and
    names ``{x.words}`` through ``words`` (a call in the reader's words)."""

    def __init__(self, decimal: str, words: Callable[[Any], str] | None) -> None:
        self.decimal = decimal
        self.words = words

    def get_field(self, field_name: str, args: Any, kwargs: Any) -> tuple[Any, str]:
        first, _dot, rest = field_name.partition(".")
        if rest == "words" and self.words is not None and first in kwargs:
            return self.words(kwargs[first]), first
        return super().get_field(field_name, args, kwargs)

    def format_field(self, value: Any, format_spec: str) -> str:
        text = super().format_field(value, format_spec)
        return text.replace(".", self.decimal) if isinstance(value, float) else text


@lru_cache(maxsize=32)
def decimal_sign(lang: str) -> str:
    """The decimal sign of ``lang`` (``,`` in German), from Babel's locale data."""
    from babel.core import UnknownLocaleError
    from babel.numbers import get_decimal_symbol

    try:
        return str(get_decimal_symbol(lang))
    except (UnknownLocaleError, ValueError):
        return "."


def fill(text: str, fields: Mapping[str, Any],
         words: Callable[[Any], str] | None = None) -> str:
    """``text.format(**fields)`` in the current language: its numbers with the language's
    decimal sign, ``{x.words}`` named by ``words``. Raises as ``str.format`` does."""
    return _Filler(decimal_sign(current()), words).vformat(text, (), fields)


def reason_said(reason: str, words: Callable[[Any], str] | None = None) -> str:
    """A :class:`Reason` made in the core (a bot's hint's why, a configuration error) in
    the current language: its template through the catalog, its fields as the reader says
    them (``words`` names ``{x.words}``, numbers take the language's decimal sign). A plain
    text is shown as given, as is the English where a translation breaks its fields."""
    # imported here, not at the top: importing the core loads the plug-in games, and a
    # plug-in's presentation imports this module, which must be whole by then
    from xactika.core.engine.reason import Reason, plural_count

    if not isinstance(reason, Reason):
        return reason
    fields = {k: reason_said(v, words) if isinstance(v, Reason) else v
              for k, v in reason.fields.items()}
    text = (ngettext(reason.template, reason.plural, plural_count(fields["n"]))
            if reason.plural else _(reason.template))
    try:
        return fill(text, fields, words)
    except (KeyError, IndexError, ValueError, AttributeError, TypeError):
        return str.__str__(reason)


def error_said(exc: BaseException) -> str:
    """An error's one line for a person: a configuration error from the core
    (``xactika takes 2 to 10 players, not 11``) in the reader's language, any other as
    it is."""
    return reason_said(str(exc))


def N_(message: str) -> str:
    """Marks a text for the catalog where it is defined; translate it with :func:`_`
    where it is shown (module constants are made before any language is chosen)."""
    return message


def catalog_json(lang: str, where: str = "") -> dict[str, Any]:
    """``lang``'s catalog for a web page: ``{"lang", "plural", "messages"}``, where
    ``plural`` is the C expression of the plural form and ``messages`` maps a message
    id (a plural's singular) to its text (a plural's list of forms); untranslated and
    fuzzy entries are left out, so the page falls back to the English id. ``where``:
    only the messages of files whose path ends so (``.js``: the page's own)."""
    path = catalog_path(lang) if lang != SOURCE else None
    if path is None:
        return {"lang": SOURCE, "plural": "(n != 1)", "messages": {}}
    catalog = _read(path)
    messages: dict[str, Any] = {}
    for message in catalog:
        if not message.id or message.fuzzy:
            continue
        if where and not any(path.endswith(where) for path, _line in message.locations):
            continue
        # a message with a context (pgettext) is keyed as gettext keys it: context EOT id
        prefix = f"{message.context}\x04" if message.context else ""
        if isinstance(message.id, tuple | list):
            forms = list(message.string)
            if all(forms):
                messages[prefix + message.id[0]] = forms
        elif message.string:
            messages[prefix + message.id] = message.string
    return {"lang": lang, "plural": catalog.plural_expr, "messages": messages}


__all__ = ["COOKIE", "N_", "_", "best", "catalog_json", "catalog_path", "choose",
           "current", "decimal_sign", "fill", "for_request", "from_accept_language",
           "from_environment", "languages", "later", "ngettext", "said", "set_language",
           "translator", "using"]
