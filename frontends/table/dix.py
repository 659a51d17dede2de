"""Dix as people are told it: trumps, ten-tricks, the stock, and who won the round.

Every sentence follows spec/DIX.md (the rules as implemented); the explanations use the
game's own helpers (:func:`suit_of`, :func:`is_ten_trick`, :func:`round_winner`), so
they cannot disagree with the engine.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from xactika.core.engine.table import Config, RoundScored, State, Trick
from xactika.core.engine.views import SeatView
from xactika.core.games.dix import (
    SUIT_NAMES,
    SUITS,
    is_ten_trick,
    round_points,
    round_winner,
    stock_size,
    suit_of,
    ten_tricks,
    trump_suit,
)
from xactika.frontends.table.games import (
    FollowRule,
    Plays,
    Presentation,
    Progress,
    register_presentation,
    seat_label,
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


_RANK_NAMES = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven",
               8: "eight", 9: "nine", 10: "ten", 11: "jack", 12: "queen", 13: "king",
               14: "ace"}


def _by_rank(card: Any) -> Any:
    return (1, 0, 0) if card.is_joker else (0, card.rank, SUITS.index(card.suit))


def _suit(suit: str) -> str:
    return SUIT_NAMES.get(suit, suit)


class DixShown(Presentation):
    game: str = "dix"
    card_example = "QH"
    card_face = "suits"
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

    def card_name(self, card: Any) -> str:
        """``the queen of hearts``, ``the joker``."""
        if getattr(card, "is_joker", False):
            return "the joker"
        rank = _RANK_NAMES.get(getattr(card, "rank", -1))
        return f"the {rank} of {_suit(card.suit)}" if rank else str(card)

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
        joker = (f" (the joker is a trump ranked as {said(turned)})"
                 if any(getattr(c, "is_joker", False) for _, c in plays) else "")
        if trump is not None and suit_of(won, turned) == trump and led != trump:
            why = f"{card} wins: a trump ({_suit(trump)}) beats the {_suit(led)} led{joker}"
        elif all(suit_of(c, turned) == led for c in others):
            kind = "trump" if led == trump else _suit(led)[:-1] if led else "card"
            why = f"{card} wins: the higher {kind}{joker}"
        else:
            off = ", ".join(said(c) for c in others)
            if trump is None:
                why = f"{card} wins: {off} did not follow {_suit(led)} (no trumps this round)"
            elif led == trump:
                why = f"{card} wins: a trump was led and {off} is not a trump{joker}"
            else:
                why = f"{card} wins: {off} did not follow {_suit(led)} and is not a trump"
        trick = Trick(None, tuple(plays), winner)
        pips = " + ".join(f"{said(c)} ({c.pips})" if spoken else f"{c} {c.pips}"
                          for _, c in plays)
        if is_ten_trick(trick):
            why += f"; ten-trick! pips {pips} = 10: -3 for {seat_label(winner, names)}"
        return why

    def round_end(self, config: Config, scored: RoundScored, tricks: Sequence[Trick],
                  names: Sequence[str]) -> str:
        """Each seat's tricks, ten-tricks and points, then who won the round and why."""
        label = [seat_label(s, names) for s in range(len(scored.points))]
        tens = ten_tricks(tricks, config.players)
        points = round_points(tricks, config.players)
        parts = []
        for s in range(config.players):
            ten = f" ({tens[s]} ten-trick{'s' if tens[s] != 1 else ''} at -3)" if tens[s] else ""
            parts.append(f"{label[s]} took {scored.tricks[s]} "
                         f"trick{'s' if scored.tricks[s] != 1 else ''}{ten}: {points[s]:+d}")
        best = round_winner(tricks, config.players)
        other = [s for s in range(config.players) if s != best]
        if all(points[best] > points[s] for s in other):
            why = "more points"
        elif all(tens[best] < tens[s] for s in other):
            why = "equal points, fewer ten-tricks"
        else:
            why = "equal points and ten-tricks, and won the last trick"
        verb = "win" if label[best] == "you" else "wins"
        return (f"round {scored.round}: " + "; ".join(parts)
                + f"\n{label[best]} {verb} the round ({why})")

    def round_winner(self, config: Config, tricks: Sequence[Trick]) -> int | None:
        return round_winner(tricks, config.players)

    def tells_round_points(self, config: Config) -> bool:
        return False  # the round's outcome says every seat's points

    def coach(self, kind: str, follow: FollowRule, suggestion: str = "") -> str:
        if kind == "lead":
            why = ("you lead: any card. Your opponent must follow its suit if they can. "
                   "Leading a low card you do not mind losing is safe; a trick whose two "
                   "cards' pips total ten costs its winner 3 points.")
        elif follow.can_follow:
            why = (f"{follow.led} was led and you have {follow.led}, so you must play one "
                   "(marked with an arrow). Play higher to win the trick, lower to give it "
                   "away; watch for a pip total of ten (-3 to the winner).")
        else:
            how = (f"a trump ({follow.trump}) wins it, anything else loses it" if follow.trump
                   else "no trumps this round, so it cannot win")
            why = f"you have no {follow.led}: any card may be played; {how}."
        tip = f" The hint bot suggests: {suggestion}." if suggestion else ""
        return f"tutorial: {why}{tip}"

    def progress(self, config: Config, seen: SeatView | State) -> Progress:
        players = config.players
        stock = stock_size(config, len(seen.tricks)) if config.mode == "draw" else None
        return Progress(tuple(seen.taken), round_points(seen.tricks, players),
                        ten_tricks(seen.tricks, players), stock)

    def trump(self, state: State) -> str | None:
        """``hearts``, or ``no trumps`` when the joker was turned up."""
        suit = trump_suit(state.turned)
        return SUIT_NAMES[suit] if suit is not None else "no trumps"

    def follow_rule(self, state: State, seat: int) -> FollowRule:
        trump = trump_suit(state.turned)
        trump_name = SUIT_NAMES[trump] if trump is not None else None
        if not state.trick:
            return FollowRule(False, "", trump_name)
        led = suit_of(state.trick[0][1], state.turned)
        can = any(suit_of(c, state.turned) == led for c in state.hands[seat])
        return FollowRule(can, SUIT_NAMES.get(led, led), trump_name)

    def cannot_follow(self, follow: FollowRule, call: Any) -> str:
        then = (f"a trump ({follow.trump}) wins the trick, anything else loses it"
                if follow.trump is not None else "it cannot win the trick")
        return f"you have no {follow.led}: play any card; {then}"

    def card_token(self, text: str) -> str:
        return text.upper()

    def help_lines(self, config: Config) -> list[str]:
        return [
            "a bare number is a position in your hand: '3' plays your third card; a "
            "bare card text plays it: 'QH', '10D' or 'JK' (the joker). Dix has no calls "
            "and no bids.",
        ]


register_presentation(DixShown())

__all__ = ["DixShown"]
