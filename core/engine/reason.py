"""A bot's one-line reason for a move: English text that keeps its template and fields.

A hint reads ``lead to win: 1323 calling 3 stars, 2 unseen cards could beat it``. What a
program reads stays this English text (a :class:`Reason` *is* the ``str``), but a person
may read another language: the frontends look the template up in their catalog and fill
in the fields themselves. The core imports nothing of the frontends, so the templates are
marked here by the calls themselves: Babel extracts the first argument of
:class:`Reason` and the first two of :func:`counted` (babel.cfg, ``[reasons: ...]``).

In a template, ``{card}`` is a card code (the same in every language), ``{call.words}``
names a call in words (a frontend says it in the reader's words), a number may carry a
format spec (``{ev:+.1f}``), and a field may itself be a Reason (a noun phrase with its
own plural, ``{tricks}``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class Reason(str):
    """English text, with the ``template`` (and ``plural``, chosen by the field ``n``) it
    was made from and its ``fields``, for a frontend to translate."""

    template: str
    plural: str
    fields: Mapping[str, Any]

    def __new__(cls, template: str, /, **fields: Any) -> Reason:
        return cls._make(template, "", fields)

    @classmethod
    def _make(cls, template: str, plural: str, fields: Mapping[str, Any]) -> Reason:
        chosen = plural if plural and plural_count(fields["n"]) != 1 else template
        self = super().__new__(cls, chosen.format(**fields))
        self.template = template
        self.plural = plural
        self.fields = dict(fields)
        return self

    def __str__(self) -> str:
        # str(reason) keeps the template: callers that make sure of a str (agents.ByGame)
        # hand a frontend the Reason, which is a str already
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (self.template, self.plural, self.fields))


def counted(singular: str, plural: str, /, **fields: Any) -> Reason:
    """A reason in the singular or the plural by the field ``n`` (``1 card``,
    ``2 cards``); a frontend picks its own language's plural form."""
    return Reason._make(singular, plural, fields)


def plural_count(n: Any) -> int:
    """The whole number a plural form is chosen by: ``-1 point`` is singular, and a
    fraction counts as many (``1.5 tricks``, ``1,5 Stiche``)."""
    value = abs(n)
    return int(value) if value == int(value) else 2


def _rebuild(template: str, plural: str, fields: Mapping[str, Any]) -> Reason:
    return Reason._make(template, plural, fields)


__all__ = ["Reason", "counted", "plural_count"]
