"""Oh Hell as people are told it: hand sizes, trumps, bids and the hook, scoring.

Every sentence follows spec/OHHELL.md; why a trick was won uses the game's own
:func:`beats`, so it cannot disagree with the engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from xactika.core.engine.api import Config, State
from xactika.core.games.ohhell import (
    BONUS,
    MODE_NAMES,
    SUIT_NAMES,
    pattern_of,
    top_of,
    trump_suit,
)
from xactika.frontends.people.dix import rank_and_suit
from xactika.frontends.people.presentation import (
    FollowRule,
    Plays,
    Presentation,
    register_presentation,
)

_PATTERNS = {
    "updown": "1 card in round 1, one more each round up to {top}, then back down",
    "downup": "{top} cards in round 1, one fewer each round down to 1, then back up",
    "up": "1 card in round 1, one more each round up to {top}, then from 1 again",
    "down": "{top} cards in round 1, one fewer each round down to 1, then from {top} again",
    "fixed": "{top} cards every round",
}

_SCORING = {
    "exact": f"a bid made exactly scores {BONUS} plus the tricks; a miss scores nothing",
    "bonus": f"every trick scores 1, and a bid made exactly {BONUS} more",
    "penalty": f"a bid made exactly scores {BONUS} plus the tricks; a miss loses 1 for "
               "each trick over or under",
}


def _suit(suit: str) -> str:
    return SUIT_NAMES.get(suit, suit)


class OhHellShown(Presentation):
    game: str = "ohhell"
    card_face = "suits"  # a page draws rank and suit, as Dix's
    card_example = "QH"
    tutorial_cards: ClassVar[str] = (
        "tutorial: a card is its rank and suit: QH is the queen of hearts, TD the ten of "
        "diamonds. 'rules' explains the whole game.")

    def title(self) -> str:
        return "Oh Hell"

    def banner(self, config: Config) -> str:
        return _SCORING.get(config.mode, config.mode)

    def mode_line(self, config: Config) -> str:
        return f"{MODE_NAMES.get(config.mode, config.mode)}: {self.hands_line(config)}"

    def hands_line(self, config: Config) -> str:
        return _PATTERNS[pattern_of(config)].format(top=top_of(config))

    def topics(self, config: Config) -> dict[str, str]:
        hook = ("The dealer may not bid the number that makes all the bids total the "
                "tricks of the round, so someone must miss (if the others' bids already "
                "total more, every bid is open)." if config.option("hook") != "none"
                else "The dealer may bid anything (this game is played without the hook).")
        return {
            "cards": "cards: 52 cards, 2 (low) to ace (high) in spades S, hearts H, diamonds "
                     "D and clubs C; no joker. A card's text is rank then suit: AS, TD (the "
                     "ten), 9H.",
            "deal": f"the deal: {self.hands_line(config)}. After the deal the next card is "
                    "turned up: its suit is trumps for the round. When every card is dealt "
                    "nothing is turned up and the round has no trumps.",
            "bid": "bidding: starting left of the dealer, each seat bids once how many "
                   f"tricks it will take, 0 to the cards in hand; the dealer bids last. {hook}",
            "lead": "leading: the seat left of the dealer leads the first trick; the winner "
                    "of a trick leads the next. Any card may be led; there are no calls.",
            "follow": "following: you must play a card of the suit led if you have one; "
                      "if not, any card.",
            "win": "who wins a trick: the highest trump in it, else the highest card of "
                   "the suit led.",
            "scoring": f"scoring: {_SCORING.get(config.mode, config.mode)}. Rounds add up; "
                       "the highest total wins (ties share the win).",
        }

    def overview(self, config: Config) -> str:
        return (f"Oh Hell ({MODE_NAMES.get(config.mode, config.mode)}): "
                f"{self.hands_line(config)}. A card turned up after the deal names trumps. "
                "Bid how many tricks you will take, then follow suit if you can; the "
                "highest trump, else the highest card of the suit led, wins. "
                f"{_SCORING.get(config.mode, '').capitalize()}.")

    def card_name(self, card: Any) -> str:
        return rank_and_suit(card)

    def why_won(self, plays: Plays, call: Any, winner: int, turned: Any,
                names: Sequence[str], spoken: bool = False) -> str:
        won = dict(plays)[winner]
        card = self.said(won, spoken)
        trump = trump_suit(turned)
        led = plays[0][1].suit
        others = [c for s, c in plays if s != winner]
        if trump is not None and won.suit == trump and led != trump:
            return f"{card} wins: a trump ({_suit(trump)}) beats the {_suit(led)} led"
        if all(c.suit == led for c in others):
            kind = "trump" if led == trump else _suit(led)[:-1]
            return f"{card} wins: the highest {kind}"
        off = [self.said(c, spoken) for c in others if c.suit != led]
        missed = f"{', '.join(off)} did not follow {_suit(led)}"
        if trump is None:
            return f"{card} wins: {missed} (no trumps this round)"
        trumpless = "is not a trump" if len(off) == 1 else "are not trumps"
        return f"{card} wins: {missed} and {trumpless}"

    def coach(self, kind: str, follow: FollowRule, suggestion: str = "") -> str:
        if kind == "bid":
            why = ("bid how many tricks you will take: you score only if you take exactly "
                   "that many. Count your aces, kings and trumps. As dealer you may not "
                   "make the bids total the tricks of the round.")
        elif kind == "lead":
            why = "you lead: any card. The others must follow its suit if they can."
        elif follow.can_follow:
            why = (f"{follow.led} was led and you have {follow.led}, so you must play one "
                   "(marked with an arrow): higher to take the trick, lower to give it away.")
        else:
            how = (f"a trump ({follow.trump}) takes it, anything else loses it" if follow.trump
                   else "no trumps this round, so it cannot win")
            why = f"you have no {follow.led}: any card may be played; {how}."
        tip = f" The hint bot suggests: {suggestion}." if suggestion else ""
        return f"tutorial: {why}{tip}"

    def trump(self, state: State) -> str | None:
        """``hearts``, or ``no trumps`` when every card was dealt and none turned up."""
        suit = trump_suit(state.turned)
        return _suit(suit) if suit is not None else "no trumps"

    def follow_rule(self, state: State, seat: int) -> FollowRule:
        trump = trump_suit(state.turned)
        trump_name = _suit(trump) if trump is not None else None
        if not state.trick:
            return FollowRule(False, "", trump_name)
        led = state.trick[0][1].suit
        can = any(c.suit == led for c in state.hands[seat])
        return FollowRule(can, _suit(led), trump_name)

    def cannot_follow(self, follow: FollowRule, call: Any) -> str:
        then = (f"a trump ({follow.trump}) takes the trick, anything else loses it"
                if follow.trump is not None else "it cannot take the trick")
        return f"you have no {follow.led}: play any card; {then}"

    def card_token(self, text: str) -> str:
        return text.upper()

    def help_lines(self, config: Config) -> list[str]:
        return [
            "a bare number is a position in your hand: '3' plays your third card; a bare "
            "card text plays it: 'QH' or '10D'. Bid with 'bid 2' or just '2'. Oh Hell has "
            "no calls.",
        ]


register_presentation(OhHellShown())

__all__ = ["OhHellShown"]
