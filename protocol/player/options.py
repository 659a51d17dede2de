"""A ``go``'s options and the answers to them, from tables built once per card.

A card's option text (with its calls, when it leads) and the answer lines that choose
it are the same in every ``go`` of a game, so a host joins them instead of formatting
each option, and reads a well-formed answer with one dict look-up instead of parsing
it: the match runner asks 288 times a game and this was most of its line work (issue
42). Whatever the tables do not hold (a malformed answer, an unusual plug-in card)
goes the long way, through wire.py's reader, which says what is wrong. Standard library
only, as wire.py (the lean random bot imports that without the core).
"""

from __future__ import annotations

TYPE_CHECKING = False  # as typing's, which the lean bot does not load; mypy reads True
if TYPE_CHECKING:
    from typing import Any

    from xactika.core.engine.api import Command, Legal, TrickGame

LIMIT = 4096  # entries in one table at most: a plug-in's many cards or bid lists


class Cards:
    """One game's cards as options and answers: ``options[card]`` is ``1221`` (or, for a
    lead with calls, ``1221:1ba,1221:2cu,...``), ``answers["play 1221 1ba"]`` the card
    and call that answer names."""

    __slots__ = ("answers", "options")

    def __init__(self) -> None:
        self.options: dict[object, str] = {}
        self.answers: dict[str, tuple[object, object]] = {}

    def add(self, card: object, legal: Legal, rules: TrickGame) -> str:
        text, options = str(card), []
        for call in legal.calls(card):
            if call is None:
                options.append(text)
                self.answers[f"play {text}"] = (card, None)
            else:
                said = rules.format_call(call)
                options.append(f"{text}:{said}")
                self.answers[f"play {text} {said}"] = (card, call)
        self.options[card] = joined = ",".join(options)
        return joined


# by the rules that format a card and those whose calls a lead offers (None for a
# follow, whose only call is None): a go's options depend on nothing else
_CARDS: dict[tuple[object, object], Cards] = {}
_BID_OPTIONS: dict[tuple[int, ...], str] = {}
_BID_ANSWERS: dict[str, int] = {}


def _cards(legal: Legal, rules: TrickGame, make: bool) -> Cards | None:
    key = (rules, legal.rules if legal.kind == "lead" else None)
    table = _CARDS.get(key)
    if table is None and make:
        table = _CARDS[key] = Cards()
    return table


def options_text(legal: Legal, rules: TrickGame) -> str:
    """:func:`go_options`, comma-separated: joined from the tables (listed afresh for a
    card that is not hashable, or once a table is full)."""
    if legal.kind == "bid":
        bids = legal.bids
        text = _BID_OPTIONS.get(bids)
        if text is None:
            text = ",".join([str(b) for b in bids])
            if len(_BID_OPTIONS) < LIMIT:
                _BID_OPTIONS[bids] = text
                for b in bids:
                    _BID_ANSWERS[f"bid {b}"] = b
        return text
    table = _cards(legal, rules, True)
    assert table is not None
    options = table.options
    try:
        return ",".join([options[card] for card in legal.cards])
    except KeyError:  # a card not seen yet
        if len(options) < LIMIT:
            return ",".join([options.get(card) or table.add(card, legal, rules)
                             for card in legal.cards])
    except TypeError:  # a card that is not hashable
        pass
    return ",".join(go_options(legal, rules))


def answer_command(line: str, legal: Legal, rules: TrickGame) -> Command | None:
    """The command ``line`` names where it is an answer to one of ``legal``'s options
    exactly as the tables spell it; None for any other line (wire.parse_answer then
    reads it, and says what is wrong)."""
    if legal.seat is None:
        return None
    if legal.kind == "bid":
        bid = _BID_ANSWERS.get(line)
        if bid is None or bid not in legal.bids:
            return None
        return _commands()[0](legal.seat, bid)
    if legal.kind not in ("lead", "play"):
        return None
    table = _cards(legal, rules, False)
    hit = None if table is None else table.answers.get(line)
    if hit is None or hit[0] not in legal.cards:
        return None
    card, call = hit
    if call is None and legal.kind == "lead" and has_calls(legal):
        return None  # a lead must name its call (wire.parse_answer says so)
    return _commands()[1](legal.seat, card, call)


_COMMANDS: list[Any] = []


def _commands() -> list[Any]:
    """The core's Bid and Play, imported on first use (the lean bot never gets here)."""
    if not _COMMANDS:
        from xactika.core.engine.api import Bid, Play

        _COMMANDS[:] = [Bid, Play]
    return _COMMANDS


def has_calls(legal: Legal) -> bool:
    """Whether the go's cards are offered with calls (a lead in a game with calls)."""
    return any(call is not None for card in legal.cards[:1] for call in legal.calls(card))


def go_options(legal: Legal, rules: TrickGame) -> list[str]:
    """Every legal move as option text: bids ascending, cards in hand order, each card's
    calls in shape order as ``card:call``."""
    if legal.kind == "bid":
        return [str(b) for b in legal.bids]
    options = []
    for card in legal.cards:
        text = str(card)
        for call in legal.calls(card):
            options.append(text if call is None else f"{text}:{rules.format_call(call)}")
    return options
