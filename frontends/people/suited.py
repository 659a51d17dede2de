"""A game of the French deck as people are told it: the base of Dix's and Oh Hell's
presentations, and of any plug-in's with ranks 2 to ace in spades, hearts, diamonds and
clubs (docs/GAMES.md).

What such games say alike is here, once: a card's name (``the queen of hearts``), the
suits in the reader's words, the round's trumps, the follow rule and the line for a seat
that cannot follow. A game tells the base two things of its rules: the trump suit for
the card turned up (:meth:`SuitedShown.trump_suit`) and a card's suit as the follow rule
sees it (:meth:`SuitedShown.suit_of`: Dix's joker is a trump).
"""

from __future__ import annotations

from typing import Any, ClassVar

import attrs

from xactika.core.engine.api import State
from xactika.frontends.i18n import N_, _
from xactika.frontends.people.presentation import FollowRule, Presentation

# a card's name, whole: German joins suit and rank ("die Herz-Dame"), English does not
_CARD_NAMES = {2: N_("the two of {suit}"), 3: N_("the three of {suit}"),
               4: N_("the four of {suit}"), 5: N_("the five of {suit}"),
               6: N_("the six of {suit}"), 7: N_("the seven of {suit}"),
               8: N_("the eight of {suit}"), 9: N_("the nine of {suit}"),
               10: N_("the ten of {suit}"), 11: N_("the jack of {suit}"),
               12: N_("the queen of {suit}"), 13: N_("the king of {suit}"),
               14: N_("the ace of {suit}")}
_SUIT_WORDS = {"S": N_("spades"), "H": N_("hearts"), "D": N_("diamonds"), "C": N_("clubs")}
ONE_OF_SUIT = {"S": N_("spade"), "H": N_("heart"), "D": N_("diamond"), "C": N_("club")}
"""One card of each suit, by its letter, untranslated (``_()`` it to say it)."""


def suit_words(suit: str) -> str:
    """A suit in the reader's words: ``hearts`` (another text as it is)."""
    return _(_SUIT_WORDS[suit]) if suit in _SUIT_WORDS else suit


def one_of_suit(suit: str) -> str:
    """One card of a suit in the reader's words: ``heart`` (German: ``Herz-Karte``)."""
    return _(ONE_OF_SUIT[suit]) if suit in ONE_OF_SUIT else suit_words(suit)


def rank_and_suit(card: Any) -> str:
    """A card of the 52 as a player says it: ``the queen of hearts``; a card without a
    rank of 2 to 14 by its text."""
    name = _CARD_NAMES.get(getattr(card, "rank", -1))
    return _(name).format(suit=suit_words(card.suit)) if name else str(card)


class SuitedShown(Presentation):
    """A game of ranks and suits with trumps: cards drawn as rank and suit, typed as
    their text (``QH``), named ``the queen of hearts``; the follow rule is the suit led."""

    card_face: ClassVar[str] = "suits"  # a page draws rank and suit
    card_example: ClassVar[str] = "QH"

    def trump_suit(self, turned: Any) -> str | None:
        """The round's trump suit for the card turned up (None: no trumps)."""
        return None

    def suit_of(self, card: Any, turned: Any) -> str:
        """A card's suit as the follow rule sees it, with ``turned`` turned up."""
        suit: str = card.suit
        return suit

    def card_name(self, card: Any) -> str:
        return rank_and_suit(card)

    def card_token(self, text: str) -> str:
        return text.upper()

    def trump(self, state: State) -> str | None:
        """``hearts``, or ``no trumps``."""
        suit = self.trump_suit(state.turned)
        return suit_words(suit) if suit is not None else _("no trumps")

    def follow_rule(self, state: State, seat: int) -> FollowRule:
        trump = self.trump_suit(state.turned)
        trump_name = suit_words(trump) if trump is not None else None
        if not state.trick:
            return FollowRule(False, "", trump_name)
        suit_of, turned = self.suit_of, state.turned
        led = suit_of(state.trick[0][1], turned)
        can = any(suit_of(c, turned) == led for c in state.hands[seat])
        trumped = trump is not None and led != trump and any(
            suit_of(c, turned) == trump for __, c in state.trick)
        return attrs.evolve(self.trick_so_far(state, seat), can_follow=can,
                            led=suit_words(led) if led else "", trump=trump_name,
                            trumped=trumped)

    def cannot_follow(self, follow: FollowRule, call: Any) -> str:
        return self.trumps_cannot_follow(follow)

    @staticmethod
    def trump_beats_led(card: str, trump: str, led: str, joker: str = "") -> str:
        """Why a trump won a trick of another suit: ``QH wins: a trump (hearts) beats the
        spades led``, ``joker`` what a game adds after it."""
        return _("{card} wins: a trump ({trump}) beats the {suit} led{joker}").format(
            card=card, trump=suit_words(trump), suit=suit_words(led), joker=joker)


__all__ = ["ONE_OF_SUIT", "SuitedShown", "one_of_suit", "rank_and_suit", "suit_words"]
