"""Xactika as people are told it: its modes, rules by topic, why a trick was won, bids.

Every sentence follows spec/RULES.md (the rules as implemented); the trick explanation
uses the same card helpers as the engine, so it cannot disagree with who actually won.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from xactika.core.engine.api import Config, State, game_rules
from xactika.core.games.xactika import SHAPE_TOKENS, SHAPES, Call
from xactika.frontends.i18n import _, ngettext
from xactika.frontends.people.presentation import (
    FollowRule,
    Plays,
    Presentation,
    names_text,
    register_presentation,
)

_RULES: dict[str, str] = {
    "cards": """\
cards: 81 cards, each with 1, 2 or 3 of each of four shapes: balls ● (o), cubes ■ (#),
cones ▲ (^) and stars ★ (*). A card's text is its four counts in that order: 1323 is
1 ball, 3 cubes, 2 cones and 3 stars. Its value is the total, 4 to 12 (1323 is 9).
Every combination is in the deck exactly once. 'stats' shows how many cards of each
value there are, and which you have not seen yet this round.""",
    "lead": """\
leading: the leader plays any card and calls one of its shapes with the count the
card has of it: 1323 may call 1 ball (1ba), 3 cubes (3cu), 2 cones (2co) or
3 stars (3st). Type 'play 3 st' (or '3 st'): the card fixes the count. The seat
left of the dealer leads the first trick; the winner of a trick leads the next.""",
    "follow": """\
following: the others play in turn (seat numbers counting up). A card "shows" the
call when it has exactly the called count of the called shape. If you hold a card
that shows the call you must play one (the REPL marks them with an arrow); if you
hold none you may play any card, but it cannot win the trick.""",
    "win": """\
who wins a trick: the highest value among the cards that show the call. A card that
does not show the call never wins, however high. Equal values: the card played
later wins. The lead always shows its own call, so every trick has a winner.""",
    "example": """\
a worked trick: seat 2 leads 2313 calling 1 cone. Seat 3 plays 3312 (value 9, one
cone: shows the call), seat 4 plays 3333 (value 12, three cones: does not show it),
seat 1 plays 1211 (value 5, one cone). The cards showing 1 cone are 2313 (9),
3312 (9) and 1211 (5); 2313 and 3312 tie at 9 and 3312 was played later, so seat 3
wins. 3333 is the highest card but did not show the call.""",
}

_SCORING = {
    "win": "scoring (Play to Win): 1 point per trick taken; after the last round the "
           "highest total wins (equal best totals share the win).",
    "lose": "scoring (Play to Lose): 1 point per trick taken; after the last round the "
            "LOWEST total wins (equal best totals share the win). Take as few tricks as "
            "you can: play under the winning card, and shed high cards when you cannot "
            "follow.",
    "bid": "scoring (Play to Bid): take exactly your bid to score 1 point per trick (a "
           "made bid of 0 scores 0); miss it and you lose the difference: bid 2 and "
           "take 3 scores -1, bid 4 and take 2 scores -2. After the last round the "
           "highest total wins (equal best totals share the win).",
}

_BID = """\
bidding (Play to Bid): after the deal each seat bids once how many of the 8 tricks it
will take, 0 to 8, starting left of the dealer; the dealer bids last. The dealer may
not bid the number that makes all the bids total exactly 8 (so every round is over- or
under-bid); if the others' bids already total more than 8, every bid is open. Count
your sure winners: high cards (11-12) and shapes few others can show."""

_BANNERS = {
    "win": "1 point per trick; the highest total wins",
    "lose": "1 point per trick; the lowest total wins",
    "bid": "bid your tricks; taking exactly your bid scores 1 a trick, a miss loses the "
           "difference",
}


def _by_shape(card: Any) -> Any:
    return tuple(-n for n in card.counts) + (card.value,)


class XactikaShown(Presentation):
    game: str = "xactika"
    has_calls = True
    has_stats = True
    card_example = "1323"
    card_face = "shapes"
    tutorial_cards: ClassVar[str] = (
        "tutorial: a card's four digits count its balls, cubes, cones and stars, drawn "
        "beside it; its value is their sum: 1323 is 1 ball, 3 cubes, 2 cones and 3 stars, "
        "value 9. 'rules' explains the whole game.")
    tutorial_cards_drawn: ClassVar[str] = (
        "tutorial: a card shows 1 to 3 each of balls, cubes, cones and stars, in four rows; "
        "its value, in the corners, is their sum. 'rules' explains the whole game.")

    def hand_sorts_by(self) -> dict[str, Callable[[Any], Any] | None]:
        """By value (the game's order), or by shape: most balls first, then cubes..."""
        return {"value": None, "shape": _by_shape}

    def call_name(self, call: Any) -> str:
        return shape_words(call.shape, call.count) if isinstance(call, Call) else str(call)

    def card_name(self, card: Any) -> str:
        """``the 9 (1 ball, 3 cubes, 2 cones, 3 stars)``: its value and shapes, as seen."""
        counts = getattr(card, "counts", None)
        if counts is None:
            return str(card)
        shapes = ", ".join(shape_words(i, n) for i, n in enumerate(counts))
        return _("the {value} ({shapes})").format(value=card.value, shapes=shapes)

    def banner(self, config: Config) -> str:
        return _BANNERS.get(config.mode, config.mode)

    def mode_line(self, config: Config) -> str:
        return f"{self.mode_name(config)}: {self.banner(config)}"

    def bidless_name(self, config: Config) -> str:
        return self.mode_name(config)

    def topics(self, config: Config) -> dict[str, str]:
        found = {k: _RULES[k] for k in ("cards", "lead", "follow", "win")}
        if config.mode == "bid":
            found["bid"] = _BID
        found["scoring"] = _SCORING.get(config.mode, "")
        found["example"] = _RULES["example"]
        return found

    def overview(self, config: Config) -> str:
        scoring = _SCORING.get(config.mode, "")  # the topic, begun as a sentence here
        return (f"Xactika, {self.mode_name(config)}: 8 tricks a round. "
                "The leader plays a card and calls one of its shapes with its count "
                "(e.g. 2 cubes); the others must play a card showing exactly that if "
                "they can. The highest value showing the call wins (ties: the later "
                "card). " + scoring[:1].upper() + scoring[1:])

    def why_won(self, plays: Plays, call: Any, winner: int, turned: Any,
                names: Sequence[str], spoken: bool = False) -> str:
        card = dict(plays)[winner]
        named = self.said(card, spoken)
        if not isinstance(call, Call):
            return _("{card} wins").format(card=named)
        words = shape_words(call.shape, call.count)
        showing = [(s, c) for s, c in plays if c.shows(call)]
        ties = [self.said(c, spoken) for s, c in showing
                if s != winner and c.value == card.value]
        if len(showing) == 1:
            why = _("{card} wins: the only card showing {call}").format(card=named, call=words)
        elif ties:
            why = _("{card} wins: it ties {others} at {value} showing {call}, and the later "
                    "card wins ties").format(card=named, others=names_text(ties),
                                             value=card.value, call=words)
        else:
            why = _("{card} wins: the highest card showing {call} ({value})").format(
                card=named, call=words, value=card.value)
        # a spoken name says the value already
        higher = [self.said(c, spoken) if spoken else f"{c} ({c.value})" for __, c in plays
                  if not c.shows(call) and c.value >= card.value]
        if higher:
            why = ngettext("{why}; {cards} does not show the call",
                           "{why}; {cards} do not show the call", len(higher)).format(
                why=why, cards=names_text(higher))
        return why

    def tells_round_points(self, config: Config) -> bool:
        return not game_rules(config.game).has_bidding(config)

    def coach(self, kind: str, follow: FollowRule, suggestion: str = "") -> str:
        if kind == "bid":
            why = _("tutorial: first everyone bids how many of the 8 tricks they will take; "
                    "you score only if you take exactly that many. Count cards that should "
                    "win: values 11-12, and shapes others rarely show. As dealer you may not "
                    "make the bids total 8.")
        elif kind == "lead":
            why = _("tutorial: you lead: play any card and call one of its shapes with its "
                    "count (e.g. '2 st' = 2 stars). Others must play a card showing exactly "
                    "that if they can; the highest value showing the call wins, ties to the "
                    "later card.")
        elif follow.can_follow:
            why = _("tutorial: the call is {call} and some of your cards show it (marked with "
                    "an arrow): you must play one. The highest value showing the call wins; "
                    "ties go to the card played later.").format(call=follow.led)
        else:
            why = _("tutorial: none of your cards shows {call}, so you may play any card, and "
                    "it cannot win the trick: a good moment to get rid of a card you do not "
                    "want.").format(call=follow.led)
        return self.suggested(why, suggestion)

    def follow_rule(self, state: State, seat: int) -> FollowRule:
        call = state.call
        words = shape_words(call.shape, call.count) if isinstance(call, Call) else ""
        can = bool(state.trick) and isinstance(call, Call) and any(
            c.shows(call) for c in state.hands[seat])
        return FollowRule(can, words)

    def play_usage(self) -> str:
        return "play takes a card and, when leading, a call: play 3 2st"

    def call_example(self, options: Sequence[Any]) -> str:
        return SHAPE_TOKENS[0] if options and isinstance(options[0], Call) else ""

    def call_aliases(self, call: Any, formatted: str) -> set[str]:
        """``2st``, ``2stars``, or the shape alone."""
        names = {formatted.lower()}
        if isinstance(call, Call):
            shape = SHAPES[call.shape]
            names |= {SHAPE_TOKENS[call.shape], shape, shape[:-1],
                      f"{call.count}{shape}", f"{call.count}{shape[:-1]}"}
            # the reader's words too (German 'Kugeln', 'Kugel', '2Kugeln')
            for n in (1, 2):
                word = shape_words(call.shape, n).split(" ", 1)[-1].lower()
                names |= {word, f"{call.count}{word}"}
        return names

    def commands(self, config: Config, found: dict[str, str]) -> dict[str, str]:
        return found

    def help_lines(self, config: Config) -> list[str]:
        return [
            ("a bare number is a bid while bidding, else a position in your hand: "
             if game_rules(config.game).has_bidding(config) else "a bare number is a "
             "position in your hand: ") + "'3' plays your third card;",
            "a bare card text plays it: '1323'. A lead needs a call: '3 2st', '3 stars' "
            "or '3 st' (the card fixes the count).",
            "cards: balls ● (o), cubes ■ (#), cones ▲ (^), stars ★ (*); each drawn as "
            "many times as it counts, then the value.",
        ]


def shape_words(shape: int, count: int) -> str:
    """``3 balls`` (German ``3 Kugeln``): a call, or a count of one shape, in words."""
    if shape == 0:
        return ngettext("{n} ball", "{n} balls", count).format(n=count)
    if shape == 1:
        return ngettext("{n} cube", "{n} cubes", count).format(n=count)
    if shape == 2:
        return ngettext("{n} cone", "{n} cones", count).format(n=count)
    return ngettext("{n} star", "{n} stars", count).format(n=count)


register_presentation(XactikaShown())

__all__ = ["XactikaShown"]
