"""A game's settings as command-line flags, from the registry of games: ``--mode``'s and
the counts' help name every game's defaults, and each game's own options
(:attr:`TrickGame.option_types`) get a ``--NAME`` flag, so a new game's options reach
``selfplay`` and ``play`` without either naming them. The help is in the current
context's language (its options' words are in the catalog: i18n_extract.py)."""

from __future__ import annotations

import argparse
from typing import Any

from xactika.core.engine.api import game_rules, games
from xactika.frontends.i18n import Later, _


def _at_least(text: str, least: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            _("expected a whole number, not {text!r}").format(text=text)) from None
    if value < least:
        raise argparse.ArgumentTypeError(
            _("expected {least} or more, not {value}").format(least=least, value=value))
    return value


def whole_number(text: str) -> int:
    """An argparse type: a whole number, 0 or more, with a clear error otherwise."""
    return _at_least(text, 0)


def counting_number(text: str) -> int:
    """An argparse type for counts that cannot be 0 (rounds, players): 1 or more, so
    that the error names what is accepted and 0 is never suggested."""
    return _at_least(text, 1)


def _listed(items: list[str]) -> str:
    if len(items) == 1:
        return items[0]
    return _("{items} or {last}").format(items=", ".join(items[:-1]), last=items[-1])


def modes_help() -> str:
    """``xactika: win, lose or bid (default bid); dix: ...``, the default game first."""

    def one(game: str) -> str:
        modes = list(game_rules(game).modes)  # the last is the default
        return _("{game}: {modes} (default {mode})").format(game=game, modes=_listed(modes),
                                                            mode=modes[-1])

    return "; ".join(one(g) for g in _ordered())


def default_help(field: str) -> str:
    """``default: 4 for xactika, 2 for dix, ...`` for ``players`` or ``rounds``."""
    return _("default: {list}").format(list=", ".join(
        _("{n} for {game}").format(n=getattr(game_rules(g), f"default_{field}"), game=g)
        for g in _ordered()))


def _ordered() -> list[str]:
    from xactika.core.engine.settings import Config

    first = Config().game  # the default game first
    return sorted(games(), key=lambda g: g != first)


def option_flags() -> dict[str, tuple[type, str]]:
    """Every game's options: name -> (type, help naming the games that take it). The help
    is said in the reader's language when shown (a :class:`Later`), so a command whose
    parser is built before its language is known (``serve``) shows it translated too."""
    found: dict[str, tuple[type, list[Later]]] = {}
    for game in _ordered():
        rules = game_rules(game)
        for name, kind in rules.option_types.items():
            words = " ".join(rules.option_help[name].split()) if name in rules.option_help \
                else kind.__name__  # folded, as the catalog has it (i18n_extract.py)
            found.setdefault(name, (kind, []))[1].append(
                Later("{game}: {words}", {"game": game, "words": words}))
    return {name: (kind, Later("; ".join(f"{{p{i}}}" for i in range(len(helps))),
                               {f"p{i}": text for i, text in enumerate(helps)}))
            for name, (kind, helps) in found.items()}


def add_option_flags(parser: argparse.ArgumentParser) -> None:
    """``--NAME`` for each game's own option (``--target``, ``--top``)."""
    for name, (kind, text) in option_flags().items():
        parser.add_argument(f"--{name}", type=whole_number if kind is int else str,
                            default=None, metavar=name.upper(), help=text)


def option_pairs(args: argparse.Namespace) -> dict[str, str]:
    """The options given on the command line, as ``config_from_pairs`` takes them."""
    found: dict[str, Any] = {name: getattr(args, name, None) for name in option_flags()}
    return {name: str(value) for name, value in found.items() if value is not None}
