"""The option parser every ``xactika`` command uses: errors in one line, as the rest of
the command's errors are, not argparse's usage block; ``--help`` and the errors in the
reader's language.

The reader's language is ``--lang`` where the command has it, else the environment's
(LANGUAGE, LC_ALL, LC_MESSAGES, LANG: frontends/i18n.py). The help texts go through the
catalog when shown (i18n_extract.py finds the literal ``help=``, ``description=`` and
``epilog=`` texts for it), and argparse's own words ("usage:", "options", its errors)
through the same catalog: argparse looks them up with gettext's default domain, so it is
given ours (:func:`install`), which answers as gettext would where ours has no text.
"""

from __future__ import annotations

import argparse
import gettext
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from xactika.frontends import i18n
from xactika.frontends.i18n import N_

# argparse's own words that a person reads, for the catalog (the English is argparse's)
ARGPARSE_WORDS = (
    N_("usage: "), N_("options"), N_("positional arguments"),
    N_("show this help message and exit"), N_("show program's version number and exit"),
    N_("the following arguments are required: %s"), N_("unrecognized arguments: %s"),
    N_("argument %(argument_name)s: %(message)s"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
    N_("invalid %(type)s value: %(value)r"), N_("expected one argument"),
    N_("expected at most one argument"), N_("expected at least one argument"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("not allowed with argument %s"), N_("one of the arguments %s is required"),
    N_("ignored explicit argument %r"),
)


def _argparse_gettext(message: str) -> str:
    found = i18n._(message)
    return found if found != message else gettext.gettext(message)


def _argparse_ngettext(singular: str, plural: str, n: int) -> str:
    found = i18n.ngettext(singular, plural, n)
    return found if found not in (singular, plural) else gettext.ngettext(singular, plural, n)


def install() -> None:
    """Give argparse our catalog for its own words: in English (the message ids) and
    where we have no text, it reads as before."""
    if hasattr(argparse, "_"):
        setattr(argparse, "_", _argparse_gettext)  # noqa: B010 (a module's private name)
    if hasattr(argparse, "ngettext"):
        setattr(argparse, "ngettext", _argparse_ngettext)  # noqa: B010


install()


def lang_of(argv: Sequence[str], has_lang: bool = True) -> str:
    """The language a command's own words are in: its ``--lang`` (where it has one and a
    catalog answers it), else the current context's when not English, else the
    environment's."""
    if has_lang:
        args = list(argv)
        for i, arg in enumerate(args):
            value = (args[i + 1] if arg == "--lang" and i + 1 < len(args) else
                     arg.partition("=")[2] if arg.startswith("--lang=") else None)
            if value is not None:
                found = i18n.best(value)
                if found is not None:
                    return found
    if i18n.current() != i18n.SOURCE:
        return i18n.current()
    return i18n.from_environment()


class _Translating(argparse.HelpFormatter):
    """Shows the help texts, the section headings and the description and epilog
    through the catalog (mixed into the parser's own formatter class)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = super()._get_help_string(action)
        return i18n._(text) if text else text

    def add_text(self, text: str | None) -> None:
        super().add_text(i18n._(text) if text and text is not argparse.SUPPRESS else text)

    def start_section(self, heading: str | None) -> None:
        super().start_section(i18n._(heading) if heading else heading)

    def add_usage(self, usage: str | None, actions: Any, groups: Any,
                  prefix: str | None = None) -> None:
        super().add_usage(usage, actions, groups,
                          i18n._("usage: ") if prefix is None else prefix)


_FORMATTERS: dict[Any, Any] = {}


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line, ``PROG: MESSAGE``, and exit 2, and
    whose help and errors are in the reader's language (:func:`lang_of`)."""

    def _get_formatter(self) -> argparse.HelpFormatter:
        base: Any = self.formatter_class
        kind = _FORMATTERS.get(base)
        if kind is None:
            kind = _FORMATTERS[base] = type(
                f"Translating{getattr(base, '__name__', 'Formatter')}", (_Translating, base), {})
        return kind(prog=self.prog)

    def parse_known_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                         namespace: Any = None) -> tuple[Any, list[str]]:
        argv = sys.argv[1:] if args is None else list(args)
        has_lang = any("--lang" in a.option_strings for a in self._actions)
        with i18n.using(lang_of(argv, has_lang)):
            return super().parse_known_args(argv, namespace)

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: {message}", file=sys.stderr)
        raise SystemExit(2)
