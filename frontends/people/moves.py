"""A person's move as typed: ``bid 2``, ``play 3 st``, ``3``, ``QH``, into a command.

Pure: what is legal, the seat's hand in the order shown and the game's rules in, a
:class:`Command` or a :class:`ParseError` with a sentence saying why out. The REPL and a
web page take the same words.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from xactika.core.engine.api import Bid, Command, Config, Legal, Play, TrickGame, game_rules
from xactika.core.engine.errors import ParseError, XactikaError
from xactika.frontends.i18n import SOURCE, _, current, said
from xactika.frontends.people.presentation import Presentation, presentation


@attrs.frozen
class Moves:
    """What ``seat`` may type now: the legal moves and its hand in the order shown."""

    config: Config
    legal: Legal
    seat: int
    hand: tuple[Any, ...]  # sorted as shown: position 1 first

    @property
    def rules(self) -> TrickGame:
        return game_rules(self.config.game)

    @property
    def shown(self) -> Presentation:
        return presentation(self.config.game)

    def parse(self, words: Sequence[str]) -> Command:
        """``bid N``, ``play CARD [CALL]``, or bare ``N`` / ``CARD [CALL]``."""
        legal = self.legal
        word = words[0].lower()
        if word == "bid" and not self.rules.has_bidding(self.config):
            raise ParseError(_("there is no bidding in {game}: play a card ('help' says "
                               "how)").format(game=said(self.shown.bidless_name(self.config))))
        if word == "bid":
            if len(words) != 2:
                raise ParseError(_("bid takes one number: bid 2"))
            return Bid(self.seat, number(words[1]))
        if word == "play":
            if len(words) not in (2, 3):
                raise ParseError(said(self.shown.play_usage()))
            return self.play(words[1], words[2] if len(words) == 3 else None)
        if legal.kind == "bid" and words[0].isdigit() and len(words) == 1:
            return Bid(self.seat, number(words[0]))
        if len(words) <= 2 and (words[0][:1].isdigit() or self.is_card(words[0])):
            return self.play(words[0], words[1] if len(words) == 2 else None)
        raise ParseError(_("unknown command {word}: type 'help' for the commands").format(
            word=repr(words[0])))

    def is_card(self, text: str) -> bool:
        try:
            self.rules.parse_card(self.shown.card_token(text))
        except (XactikaError, ValueError):
            return False
        return True

    def card(self, token: str) -> Any:
        """A card by its position in the hand shown (``3``) or its text (``QH``)."""
        order = self.hand
        if token.isdigit() and len(token) <= 2:
            i = int(token)
            if not 1 <= i <= len(order):
                raise ParseError(_("no card at position {n}: your hand has positions 1 to "
                                   "{last}").format(n=i, last=len(order)))
            return order[i - 1]
        try:
            card = self.rules.parse_card(self.shown.card_token(token))
        except (XactikaError, ValueError) as exc:
            if current() != SOURCE:  # the engine's words are English: say it in ours
                raise ParseError(_("{token} is not a card: type a card's text or a position "
                                   "1 to {last} in your hand").format(
                    token=repr(token), last=len(order))) from None
            raise ParseError(_("{error} (or a position 1 to {last} in your hand)").format(
                error=exc, last=len(order))) from None
        if card not in order:
            raise ParseError(_("{card} is not in your hand").format(card=card))
        return card

    def play(self, token: str, call_text: str | None) -> Play:
        legal = self.legal
        if legal.kind == "bid":
            raise ParseError(_("it is time to bid, not to play a card"))
        card = self.card(token)
        if legal.kind != "lead":
            if call_text is not None:
                raise ParseError(_("only the leader makes a call: type just the card"))
            return Play(self.seat, card)
        options = self.rules.calls_for(card)
        if options == (None,):
            if call_text is not None:
                raise ParseError(_("{game} has no calls: type just the card").format(
                    game=said(self.shown.title())))
            return Play(self.seat, card)
        texts = calls_text(self.shown, self.rules, options)
        if call_text is None:
            example = f"play {token} {self.shown.call_example(options)}".rstrip()
            raise ParseError(_("leading {card} needs a call: one of {calls} (or just the "
                               "shape, e.g. '{example}')").format(
                card=card, calls=texts, example=example))
        low = call_text.lower()
        for option in options:
            if low in self.shown.call_aliases(option, self.rules.format_call(option)):
                return Play(self.seat, card, option)
        raise ParseError(_("{card} cannot call {call}: its calls are {calls}").format(
            card=card, call=repr(call_text), calls=texts))


def calls_text(shown: Presentation, rules: TrickGame, options: Sequence[Any]) -> str:
    """A card's calls in a sentence: their codes (``1ba 2st``), in another language than
    English its words with the codes (German ``1 Kugel (1ba), 2 Sterne (2st)``)."""
    if current() == SOURCE:
        return " ".join(rules.format_call(c) for c in options)
    return ", ".join(f"{shown.call_name(c)} ({rules.format_call(c)})" for c in options)


def number(text: str) -> int:
    if not text.isdigit():
        raise ParseError(_("bad bid {text}: expected a whole number of tricks").format(
            text=repr(text)))
    return int(text)


def command_text(command: Command, rules: TrickGame) -> str:
    """The command as a person would type it."""
    if isinstance(command, Bid):
        return f"bid {command.bid}"
    call = "" if command.call is None else " " + rules.format_call(command.call)
    return f"play {command.card}{call}"


__all__ = ["Moves", "calls_text", "command_text", "number"]
