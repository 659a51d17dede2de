"""Dix as people are told it: trumps, ten-tricks, the stock, and who won the round.

Every sentence follows spec/DIX.md (the rules as implemented); the explanations use the
game's own helpers (:func:`suit_of`, :func:`is_ten_trick`, :func:`round_winner`), so
they cannot disagree with the engine.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from xactika.core.engine.api import Config, RoundScored, State, Trick
from xactika.core.engine.views import SeatView
from xactika.core.games.dix import (
    SUITS,
    is_ten_trick,
    round_points,
    round_winner,
    stock_size,
    suit_of,
    ten_tricks,
    trump_suit,
)
from xactika.frontends.i18n import _, ngettext
from xactika.frontends.people.presentation import (
    FollowRule,
    Plays,
    Progress,
    register_presentation,
    seat_label,
)
from xactika.frontends.people.suited import (
    ONE_OF_SUIT,
    SuitedShown,
    one_of_suit,
    rank_and_suit,
    suit_words,
)

_RULES: dict[str, str] = {
    "cards": """\
cards: 52 cards, 2 (low) to ace (high) in spades S, hearts H, diamonds D and clubs
C, plus one joker, JK. A card's text is rank then suit: AS, TD (the ten), 9H.""",
    "trumps": """\
trumps: after the deal one card is turned up and set aside for the round: its suit
is trumps. The joker counts as a trump and ranks as the turned-up card would, between
its neighbours (8H turned up: the joker ranks between 7H and 9H). If the joker itself
is turned up the round has no trumps.""",
    "lead": """\
leading: the dealer leads the first trick; the winner of a trick leads the next. Lead
any card: type its position ('3') or its text ('QH'). Dix has no calls.""",
    "follow": """\
following: you must play a card of the suit led if you have one (the joker counts as
a trump). If you have none you may play any card: a trump wins the trick, anything
else loses it.""",
    "win": """\
who wins a trick: the higher trump if a trump was played, else the higher card of the
suit led.""",
    "draw": """\
drawing (draw mode): 13 cards each; the other 26 are the stock. After each of the
first 13 tricks the trick's winner takes the top card of the stock, then the other
player (you see your own draw, not theirs). Then 13 more tricks from hand: 26 tricks.
In nodraw mode each player gets 17 cards, there is no stock, and there are 17 tricks.""",
    "ten": """\
ten-tricks: a trick is worth +1 to its winner, unless its two cards' pips total
exactly ten: then it is worth -3 to the winner. Pips: ace 1, 2 to 10 their number,
J, Q, K and the joker 0. The pairs: 2+8, 3+7, 4+6, 5+5, 9+A, and a ten with a J,
Q, K or the joker (two tens make 20, not 10). Avoid winning those; feed them to your opponent.""",
    "scoring": """\
scoring: each trick +1 to its winner, a ten-trick -3. The round goes to the player
with more points; tied, fewer ten-tricks; still tied, the winner of the last trick.
Several rounds add up, and the higher total wins (tied: the last round's winner).""",
}

_MODES = {
    "draw": "draw mode: 13 cards each and a stock of 26 to draw from after each of the "
            "first 13 tricks",
    "nodraw": "nodraw mode: 17 cards each, no stock, no drawing",
}


def _by_rank(card: Any) -> Any:
    return (1, 0, 0) if card.is_joker else (0, card.rank, SUITS.index(card.suit))


class DixShown(SuitedShown):
    game: str = "dix"
    tutorial_cards: ClassVar[str] = (
        "tutorial: a card is its rank and suit: QH is the queen of hearts, TD the ten of "
        "diamonds, JK the joker. 'rules' explains the whole game.")
    tutorial_cards_drawn: ClassVar[str] = (
        "tutorial: a card is its rank and suit, as on ordinary playing cards, and one joker "
        "(a purple star). 'rules' explains the whole game.")

    def option_suggestions(self) -> dict[str, tuple[str, Any]]:
        return {"target": ("game to (points; empty: play the rounds)", 50)}

    def hand_sorts_by(self) -> dict[str, Callable[[Any], Any] | None]:
        """By suit (the game's order), or by rank across the suits."""
        return {"suit": None, "rank": _by_rank}

    def trump_suit(self, turned: Any) -> str | None:
        """The turned-up card's suit; none when the joker is turned up."""
        return trump_suit(turned)

    def suit_of(self, card: Any, turned: Any) -> str:
        """The joker follows as a trump."""
        return suit_of(card, turned)

    def card_name(self, card: Any) -> str:
        """``the queen of hearts``, ``the joker``."""
        if getattr(card, "is_joker", False):
            return _("the joker")
        return rank_and_suit(card)

    def banner(self, config: Config) -> str:
        return _MODES.get(config.mode, config.mode)

    def topics(self, config: Config) -> dict[str, str]:
        found = dict(_RULES)
        if config.mode != "draw":
            found["draw"] = ("drawing: not in this game (nodraw mode): 17 cards each, no "
                             "stock, 17 tricks. In draw mode, 13 cards each and a draw from "
                             "the stock after each of the first 13 tricks.")
        return found

    def overview(self, config: Config) -> str:
        return (f"Dix ({_MODES.get(config.mode, config.mode)}): two players, tricks "
                "with trumps. Follow the suit led if you can; the higher trump, else the "
                "higher card of the suit led, wins. Each trick is +1 to its winner, but "
                "a trick whose two cards' pips total ten is -3. More points wins the round.")

    def why_won(self, plays: Plays, call: Any, winner: int, turned: Any,
                names: Sequence[str], spoken: bool = False) -> str:
        def said(c: Any) -> str:
            return self.said(c, spoken)

        won = dict(plays)[winner]
        card = said(won)
        trump = trump_suit(turned)
        led = suit_of(plays[0][1], turned)
        others = [c for s, c in plays if s != winner]
        joker = (_(" (the joker is a trump ranked as {card})").format(card=said(turned))
                 if any(getattr(c, "is_joker", False) for __, c in plays) else "")
        if trump is not None and suit_of(won, turned) == trump and led != trump:
            why = self.trump_beats_led(card, trump, led, joker)
        elif all(suit_of(c, turned) == led for c in others):
            if led == trump:
                why = _("{card} wins: the higher trump{joker}")
            elif led in ONE_OF_SUIT:
                why = _("{card} wins: the higher {suit}{joker}")
            else:
                why = _("{card} wins: the higher card{joker}")
            why = why.format(card=card, joker=joker,
                             suit=_(ONE_OF_SUIT[led]) if led in ONE_OF_SUIT else "")
        else:
            off = ", ".join(said(c) for c in others)
            if trump is None:
                why = _("{card} wins: {others} did not follow {suit} (no trumps this round)")
            elif led == trump:
                why = _("{card} wins: a trump was led and {others} is not a trump{joker}")
            else:
                why = _("{card} wins: {others} did not follow {suit} and is not a trump")
            why = why.format(card=card, others=off, suit=suit_words(led), joker=joker)
        trick = Trick(None, tuple(plays), winner)
        pips = " + ".join(f"{said(c)} ({c.pips})" if spoken else f"{c} {c.pips}"
                          for __, c in plays)
        if is_ten_trick(trick):
            who = seat_label(winner, names)
            why = _("{why}; ten-trick! pips {pips} = 10: -3 for {who}").format(
                why=why, pips=pips, who=_("you") if who == "you" else who)
        return why

    def round_end(self, config: Config, scored: RoundScored, tricks: Sequence[Trick],
                  names: Sequence[str]) -> str:
        """Each seat's tricks, ten-tricks and points, then who won the round and why."""
        label = [seat_label(s, names) for s in range(len(scored.points))]
        tens = ten_tricks(tricks, config.players)
        points = round_points(tricks, config.players)
        parts = []
        for s in range(config.players):
            took = (ngettext("you took {n} trick", "you took {n} tricks", scored.tricks[s])
                    if label[s] == "you" else
                    ngettext("{who} took {n} trick", "{who} took {n} tricks",
                             scored.tricks[s])).format(who=label[s], n=scored.tricks[s])
            if tens[s]:
                took = ngettext("{took} ({n} ten-trick at -3)", "{took} ({n} ten-tricks at -3)",
                                tens[s]).format(took=took, n=tens[s])
            parts.append(f"{took}: {points[s]:+d}")
        best = round_winner(tricks, config.players)
        other = [s for s in range(config.players) if s != best]
        if all(points[best] > points[s] for s in other):
            why = _("more points")
        elif all(tens[best] < tens[s] for s in other):
            why = _("equal points, fewer ten-tricks")
        else:
            why = _("equal points and ten-tricks, and won the last trick")
        won = (_("you win the round ({why})") if label[best] == "you" else
               _("{who} wins the round ({why})")).format(who=label[best], why=why)
        return _("round {n}: {parts}").format(n=scored.round, parts="; ".join(parts)) + (
            "\n" + won)

    def round_winner(self, config: Config, tricks: Sequence[Trick]) -> int | None:
        return round_winner(tricks, config.players)

    def trump_note(self, turned: Any) -> str:
        return joker_place(turned) if turned is not None else ""

    def tells_round_points(self, config: Config) -> bool:
        return False  # the round's outcome says every seat's points

    def coach(self, kind: str, follow: FollowRule, suggestion: str = "") -> str:
        if kind == "lead":
            why = _("tutorial: you lead: any card. Your opponent must follow its suit if they "
                    "can. Leading a low card you do not mind losing is safe; a trick whose two "
                    "cards' pips total ten costs its winner 3 points.")
        elif follow.can_follow:
            why = _("tutorial: {suit} was led and you have {suit}, so you must play one "
                    "(marked with an arrow). Play higher to win the trick, lower to give it "
                    "away; watch for a pip total of ten (-3 to the winner).").format(
                suit=follow.led)
        elif follow.trump and follow.trump != follow.led:  # trumps led: none can win it
            why = self.trumps_tutorial(follow, _(
                "tutorial: you have no {suit}: any card may be played; a trump ({trump}) "
                "wins it, anything else loses it."))
        else:
            why = self.cannot_win(follow)
        return self.suggested(why, suggestion)

    def progress(self, config: Config, seen: SeatView | State) -> Progress:
        players = config.players
        stock = stock_size(config, len(seen.tricks)) if config.mode == "draw" else None
        return Progress(tuple(seen.taken), round_points(seen.tricks, players),
                        ten_tricks(seen.tricks, players), stock)

    def help_lines(self, config: Config) -> list[str]:
        return [
            "a bare number is a position in your hand: '3' plays your third card; a "
            "bare card text plays it: 'QH', '10D' or 'JK' (the joker). Dix has no calls "
            "and no bids.",
        ]


register_presentation(DixShown())

__all__ = ["DixShown", "one_of_suit", "rank_and_suit", "suit_words"]  # the words: suited.py's


LOWEST_RANK, HIGHEST_RANK = 2, 14  # a suit's 2 to its ace


def joker_place(turned: Any) -> str:
    """Where the joker ranks: in the turned-up card's place, which is out of play (so
    "ranked as KC" would read as if KC could be played; say its neighbours)."""
    rank, suit = turned.rank, turned.suit
    below = type(turned)(rank - 1, suit) if rank > LOWEST_RANK else None
    above = type(turned)(rank + 1, suit) if rank < HIGHEST_RANK else None
    if below and above:
        return _("the joker takes {card}'s place among the trumps, between {below} and "
                 "{above}").format(card=turned, below=below, above=above)
    if below:
        return _("the joker takes {card}'s place among the trumps, above {below}").format(
            card=turned, below=below)
    return _("the joker takes {card}'s place among the trumps, below {above}").format(
        card=turned, above=above)
