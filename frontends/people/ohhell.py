"""Oh Hell as people are told it: hand sizes, trumps, bids and the hook, scoring.

Every sentence follows spec/OHHELL.md; why a trick was won uses the game's own
:func:`beats`, so it cannot disagree with the engine. The texts are made in the reader's
language here, from templates with fields (a game's ``top=`` and ``hands=`` change them).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from xactika.core.engine.api import Config
from xactika.core.games.ohhell import (
    BONUS,
    MODE_NAMES,
    cards_in_round,
    pattern_of,
    top_of,
    trump_suit,
)
from xactika.frontends.i18n import _, ngettext
from xactika.frontends.people.presentation import FollowRule, Plays, register_presentation
from xactika.frontends.people.suited import SuitedShown, one_of_suit, suit_words


def hands_line(config: Config) -> str:
    """How many cards each round deals, for this game's ``top=`` and ``hands=``."""
    top = top_of(config)
    pattern = pattern_of(config)
    if pattern == "updown":
        text = _("1 card in round 1, one more each round up to {top}, then back down")
    elif pattern == "up":
        text = _("1 card in round 1, one more each round up to {top}, then from 1 again")
    elif pattern == "downup":
        text = ngettext("{top} card in round 1, one fewer each round down to 1, then back up",
                        "{top} cards in round 1, one fewer each round down to 1, then back up",
                        top)
    elif pattern == "down":
        text = ngettext("{top} card in round 1, one fewer each round down to 1, then from "
                        "{top} again", "{top} cards in round 1, one fewer each round down "
                        "to 1, then from {top} again", top)
    else:
        text = ngettext("{top} card every round", "{top} cards every round", top)
    return _("{hands}; {rounds}").format(hands=text.format(top=top), rounds=rounds_line(config))


SHOWN_ROUNDS = 24  # hand sizes listed; a longer game's go on as the pattern says


def rounds_line(config: Config) -> str:
    """What will be played: the rounds and each one's hand size (``--top 4`` with 19
    rounds goes up and down more than once, and says so)."""
    top, pattern, n = top_of(config), pattern_of(config), config.rounds
    sizes = ", ".join(str(cards_in_round(pattern, top, r))
                      for r in range(1, min(n, SHOWN_ROUNDS) + 1))
    if n > SHOWN_ROUNDS:
        sizes += ", ..."
    return ngettext("{n} round: {sizes} cards", "{n} rounds: {sizes} cards", n).format(
        n=n, sizes=sizes)


def scoring_line(mode: str) -> str:
    """What a round scores in ``mode``, lower case (it continues a sentence)."""
    if mode == "exact":
        text = _("a bid made exactly scores {bonus} plus the tricks; a miss scores nothing")
    elif mode == "bonus":
        text = _("every trick scores 1, and a bid made exactly {bonus} more")
    elif mode == "penalty":
        text = _("a bid made exactly scores {bonus} plus the tricks; a miss loses 1 for "
                 "each trick over or under")
    else:
        return mode
    return text.format(bonus=BONUS)


def _mode(config: Config) -> str:
    return _(MODE_NAMES.get(config.mode, config.mode))  # the names are in the catalog


def _upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]


class OhHellShown(SuitedShown):
    """Every text here is made in the reader's language from templates with fields (the
    hand sizes depend on ``top=`` and ``hands=``): :attr:`translated`."""

    game: str = "ohhell"
    translated = True
    tutorial_cards: ClassVar[str] = (
        "tutorial: a card is its rank and suit: QH is the queen of hearts, TD the ten of "
        "diamonds. 'rules' explains the whole game.")

    def option_suggestions(self) -> dict[str, tuple[str, Any]]:
        """A form's words for the options (each choice is named apart: web/facts.py)."""
        return {"top": ("the largest hand (default 10, fewer with 6 or 7 players)", None),
                "hands": ("hand sizes round by round", None),
                "hook": ("the dealer's hook: the bids may not total the tricks", None)}

    def title(self) -> str:
        return "Oh Hell"

    def banner(self, config: Config) -> str:
        return scoring_line(config.mode)

    def mode_line(self, config: Config) -> str:
        return _("{mode}: {hands}").format(mode=_mode(config), hands=hands_line(config))

    def hands_line(self, config: Config) -> str:
        return hands_line(config)

    def topics(self, config: Config) -> dict[str, str]:
        hook = (_("The dealer may not bid the number that makes all the bids total the "
                  "tricks of the round, so someone must miss (if the others' bids already "
                  "total more, every bid is open).") if config.option("hook") != "none"
                else _("The dealer may bid anything (this game is played without the hook)."))
        return {
            "cards": _("cards: 52 cards, 2 (low) to ace (high) in spades S, hearts H, diamonds "
                       "D and clubs C; no joker. A card's text is rank then suit: AS, TD (the "
                       "ten), 9H."),
            "deal": _("the deal: {hands}. After the deal the next card is turned up: its suit "
                      "is trumps for the round. When every card is dealt nothing is turned up "
                      "and the round has no trumps.").format(hands=hands_line(config)),
            "bid": _("bidding: starting left of the dealer, each seat bids once how many "
                     "tricks it will take, 0 to the cards in hand; the dealer bids last. "
                     "{hook}").format(hook=hook),
            "lead": _("leading: the seat left of the dealer leads the first trick; the winner "
                      "of a trick leads the next. Any card may be led; there are no calls."),
            "follow": _("following: you must play a card of the suit led if you have one; "
                        "if not, any card."),
            "win": _("who wins a trick: the highest trump in it, else the highest card of "
                     "the suit led."),
            "scoring": _("scoring: {scoring}. Rounds add up; the highest total wins (ties "
                         "share the win).").format(scoring=scoring_line(config.mode)),
        }

    def overview(self, config: Config) -> str:
        return _("Oh Hell ({mode}): {hands}. A card turned up after the deal names trumps. "
                 "Bid how many tricks you will take, then follow suit if you can; the "
                 "highest trump, else the highest card of the suit led, wins. "
                 "{scoring}.").format(mode=_mode(config), hands=hands_line(config),
                                      scoring=_upper_first(scoring_line(config.mode)))

    def trump_suit(self, turned: Any) -> str | None:
        """The turned-up card's suit; none when every card was dealt."""
        return trump_suit(turned)

    def why_won(self, plays: Plays, call: Any, winner: int, turned: Any,
                names: Sequence[str], spoken: bool = False) -> str:
        won = dict(plays)[winner]
        card = self.said(won, spoken)
        trump = trump_suit(turned)
        led = plays[0][1].suit
        others = [c for s, c in plays if s != winner]
        if trump is not None and won.suit == trump and led != trump:
            beaten = [self.said(c, spoken) for c in others if c.suit == trump]
            if beaten:  # why it beat the other trumps, not only the suit led
                return _("{card} wins: the highest trump ({trump}), above {others}; a trump "
                         "beats the {suit} led").format(card=card, trump=suit_words(trump),
                                                        others=", ".join(beaten),
                                                        suit=suit_words(led))
            return self.trump_beats_led(card, trump, led)
        if all(c.suit == led for c in others):
            if led == trump:
                return _("{card} wins: the highest trump").format(card=card)
            return _("{card} wins: the highest {suit}").format(card=card,
                                                                suit=one_of_suit(led))
        off = [self.said(c, spoken) for c in others if c.suit != led]
        lower = [self.said(c, spoken) for c in others if c.suit == led]
        if lower:  # the cards of the suit led that it beat, then those that did not follow
            if trump is None:
                text = ngettext("{card} wins: the highest {one}, above {lower}; {others} could "
                                "not follow {suit} (no trumps this round)", "{card} wins: the "
                                "highest {one}, above {lower}; {others} could not follow "
                                "{suit} (no trumps this round)", len(off))
            else:
                text = ngettext("{card} wins: the highest {one}, above {lower}; {others} could "
                                "not follow {suit} and is not a trump", "{card} wins: the "
                                "highest {one}, above {lower}; {others} could not follow "
                                "{suit} and are not trumps", len(off))
        elif trump is None:
            text = ngettext("{card} wins: {others} could not follow {suit} (no trumps this "
                            "round)", "{card} wins: {others} could not follow {suit} (no "
                            "trumps this round)", len(off))
        else:
            text = ngettext("{card} wins: {others} could not follow {suit} and is not a trump",
                            "{card} wins: {others} could not follow {suit} and are not trumps",
                            len(off))
        return text.format(card=card, others=", ".join(off), suit=suit_words(led),
                           one=one_of_suit(led), lower=", ".join(lower))

    def coach(self, kind: str, follow: FollowRule, suggestion: str = "") -> str:
        if kind == "bid":
            why = _("tutorial: bid how many tricks you will take: you score only if you take "
                    "exactly that many. Count your aces, kings and trumps. As dealer you may "
                    "not make the bids total the tricks of the round.")
        elif kind == "lead":
            why = _("tutorial: you lead: any card. The others must follow its suit if they "
                    "can.")
        elif follow.can_follow and follow.trumped:
            why = _("tutorial: {suit} was led and you have {suit}, so you must play one "
                    "(marked with an arrow); {card} has trumped the trick, so yours cannot "
                    "win it.").format(suit=follow.led, card=follow.winning)
        elif follow.can_follow and follow.can_win is False:
            why = _("tutorial: {suit} was led and you have {suit}, so you must play one "
                    "(marked with an arrow); none of yours beats {card}, so yours cannot "
                    "win it.").format(suit=follow.led, card=follow.winning)
        elif follow.can_follow:
            why = _("tutorial: {suit} was led and you have {suit}, so you must play one "
                    "(marked with an arrow): higher to take the trick, lower to give it "
                    "away.").format(suit=follow.led)
        elif follow.trump and follow.trump != follow.led:  # trumps led: none can win it
            why = self.trumps_tutorial(follow, _(
                "tutorial: you have no {suit}: any card may be played; a trump ({trump}) "
                "takes it, anything else loses it."))
        else:
            why = self.cannot_win(follow)
        return self.suggested(why, suggestion)

    def help_lines(self, config: Config) -> list[str]:
        return [
            _("a bare number is a position in your hand: '3' plays your third card; a bare "
              "card text plays it: 'QH' or '10D'. Bid with 'bid 2' or just '2'. Oh Hell has "
              "no calls."),
        ]


register_presentation(OhHellShown())

__all__ = ["OhHellShown", "hands_line", "scoring_line"]
