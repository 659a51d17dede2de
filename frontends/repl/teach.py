"""What the REPL says to teach the game: rules by topic, why a trick was won, round ends.

Pure text from plain data, for the game and mode being played, so a newcomer learns
inside ``xactika play`` without opening a spec. Every sentence follows spec/RULES.md and
spec/DIX.md (the rules as implemented); the trick explanations use the same rule
helpers as the engine, so they cannot disagree with who actually won.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xactika.core.engine.table import Config, Dealt, Led, Played, RoundScored, Trick, TrickWon
from xactika.core.games.dix import (
    SUIT_NAMES,
    is_ten_trick,
    round_points,
    round_winner,
    suit_of,
    ten_tricks,
    trump_suit,
)
from xactika.core.games.xactika import Call
from xactika.frontends.repl.render import seat_label

# --------------------------------------------------------------------------- rules

_XACTIKA: dict[str, str] = {
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
a worked trick: seat 1 leads 2313 calling 1 cone. Seat 2 plays 3312 (value 9, one
cone: shows the call), seat 3 plays 3333 (value 12, three cones: does not show it),
seat 0 plays 1211 (value 5, one cone). The cards showing 1 cone are 2313 (9),
3312 (9) and 1211 (5); 2313 and 3312 tie at 9 and 3312 was played later, so seat 2
wins. 3333 is the highest card but did not show the call.""",
}

_XACTIKA_SCORING = {
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

_XACTIKA_BID = """\
bidding (Play to Bid): after the deal each seat bids once how many of the 8 tricks it
will take, 0 to 8, starting left of the dealer; the dealer bids last. The dealer may
not bid the number that makes all the bids total exactly 8 (so every round is over- or
under-bid); if the others' bids already total more than 8, every bid is open. Count
your sure winners: high cards (11-12) and shapes few others can show."""

_DIX: dict[str, str] = {
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

_DIX_MODES = {
    "draw": "draw mode: 13 cards each and a stock of 26 to draw from after each of the "
            "first 13 tricks",
    "nodraw": "nodraw mode: 17 cards each, no stock, no drawing",
}


_BANNERS = {
    "win": "1 point per trick; the highest total wins",
    "lose": "1 point per trick; the lowest total wins",
    "bid": "bid your tricks; taking exactly your bid scores 1 a trick, a miss loses the "
           "difference",
}


def mode_text(config: Config) -> str:
    """What the mode means, in one line (for the banner)."""
    if config.game == "dix":
        return _DIX_MODES.get(config.mode, config.mode)
    return _BANNERS.get(config.mode, config.mode)


def topics(config: Config) -> dict[str, str]:
    """Topic name -> text, for the game and mode being played, in reading order.

    Each text is one paragraph: the REPL wraps it to the terminal's width.
    """
    return {k: " ".join(v.split()) for k, v in _topics(config).items()}


def _topics(config: Config) -> dict[str, str]:
    if config.game == "dix":
        found = dict(_DIX)
        if config.mode != "draw":
            found["draw"] = ("drawing: not in this game (nodraw mode): 17 cards each, no "
                             "stock, 17 tricks. In draw mode, 13 cards each and a draw from "
                             "the stock after each of the first 13 tricks.")
        return found
    found = {k: _XACTIKA[k] for k in ("cards", "lead", "follow", "win")}
    if config.mode == "bid":
        found["bid"] = _XACTIKA_BID
    found["scoring"] = _XACTIKA_SCORING.get(config.mode, "")
    found["example"] = _XACTIKA["example"]
    return found


def overview(config: Config) -> str:
    """The game in a few lines, then the topics to ask for."""
    names = " ".join(topics(config))
    if config.game == "dix":
        text = (f"Dix ({_DIX_MODES.get(config.mode, config.mode)}): two players, tricks "
                "with trumps. Follow the suit led if you can; the higher trump, else the "
                "higher card of the suit led, wins. Each trick is +1 to its winner, but "
                "a trick whose two cards' pips total ten is -3. More points wins the round.")
    else:
        from xactika.frontends.repl.session import MODE_NAMES

        text = (f"Xactika, {MODE_NAMES.get(config.mode, config.mode)}: 8 tricks a round. "
                "The leader plays a card and calls one of its shapes with its count "
                "(e.g. 2 cubes); the others must play a card showing exactly that if "
                "they can. The highest value showing the call wins (ties: the later "
                "card). " + _XACTIKA_SCORING.get(config.mode, ""))
    return f"{text}\nmore: 'rules TOPIC' with TOPIC one of: {names}, all"


def rules_text(config: Config, topic: str = "") -> str:
    """``rules`` alone, ``rules TOPIC`` or ``rules all``; an unknown topic names them."""
    found = topics(config)
    topic = topic.strip().lower()
    if not topic:
        return overview(config)
    if topic == "all":
        return "\n\n".join(found.values())
    aliases = {"bidding": "bid", "bids": "bid", "score": "scoring", "points": "scoring",
               "leading": "lead", "following": "follow", "winning": "win", "card": "cards",
               "trump": "trumps", "drawing": "draw", "stock": "draw", "tens": "ten",
               "ten-tricks": "ten", "ten-trick": "ten", "winner": "win"}
    key = aliases.get(topic, topic)
    if key in found:
        return found[key]
    return f"no rules topic {topic!r}: try one of {', '.join(found)}, all"


# --------------------------------------------------------------------------- tricks


def _names(seats: Sequence[str]) -> str:
    return seats[0] if len(seats) == 1 else ", ".join(seats[:-1]) + " and " + seats[-1]


def why_won(game: str, plays: Sequence[tuple[int, Any]], call: Any, winner: int,
            turned: Any, names: Sequence[str]) -> str:
    """One line: why the trick's winner won it, by the rules as implemented."""
    card = dict(plays)[winner]
    if game == "dix":
        return _why_dix(plays, winner, card, turned, names)
    if not isinstance(call, Call):
        return f"{card} wins"
    showing = [(s, c) for s, c in plays if c.shows(call)]
    ties = [str(c) for s, c in showing if s != winner and c.value == card.value]
    if len(showing) == 1:
        why = f"{card} wins: the only card showing {call.words}"
    elif ties:
        why = (f"{card} wins: it ties {_names(ties)} at {card.value} showing {call.words}, "
               "and the later card wins ties")
    else:
        why = f"{card} wins: the highest card showing {call.words} ({card.value})"
    higher = [f"{c} ({c.value})" for _, c in plays if not c.shows(call) and c.value >= card.value]
    if higher:
        verb = "does" if len(higher) == 1 else "do"
        why += f"; {_names(higher)} {verb} not show the call"
    return why


def _suit(suit: str) -> str:
    return SUIT_NAMES.get(suit, suit)


def _why_dix(plays: Sequence[tuple[int, Any]], winner: int, card: Any, turned: Any,
             names: Sequence[str]) -> str:
    trump = trump_suit(turned)
    led = suit_of(plays[0][1], turned)
    others = [c for s, c in plays if s != winner]
    joker = (f" (the joker is a trump ranked as {turned})"
             if any(getattr(c, "is_joker", False) for _, c in plays) else "")
    if trump is not None and suit_of(card, turned) == trump and led != trump:
        why = f"{card} wins: a trump ({_suit(trump)}) beats the {_suit(led)} led{joker}"
    elif all(suit_of(c, turned) == led for c in others):
        kind = "trump" if led == trump else _suit(led)[:-1] if led else "card"
        why = f"{card} wins: the higher {kind}{joker}"
    else:
        off = ", ".join(str(c) for c in others)
        if trump is None:
            why = f"{card} wins: {off} did not follow {_suit(led)} (no trumps this round)"
        elif led == trump:
            why = f"{card} wins: a trump was led and {off} is not a trump{joker}"
        else:
            why = f"{card} wins: {off} did not follow {_suit(led)} and is not a trump"
    trick = Trick(None, tuple(plays), winner)
    pips = " + ".join(f"{c} {c.pips}" for _, c in plays)
    if is_ten_trick(trick):
        why += (f"; ten-trick! pips {pips} = 10: -3 for {seat_label(winner, names)}")
    return why


# --------------------------------------------------------------------------- rounds


def round_tricks(events: Sequence[Any], end: int) -> tuple[list[Trick], Any]:
    """The finished tricks of the round whose events end at index ``end``, and its turned card."""
    tricks: list[Trick] = []
    plays: list[tuple[int, Any]] = []
    call: Any = None
    turned: Any = None
    start = 0
    for i in range(end, -1, -1):
        if isinstance(events[i], Dealt):
            start, turned = i, events[i].turned
            break
    for event in events[start:end + 1]:
        if isinstance(event, Led):
            plays, call = [(event.seat, event.card)], event.call
        elif isinstance(event, Played):
            plays.append((event.seat, event.card))
        elif isinstance(event, TrickWon):
            tricks.append(Trick(call, tuple(plays), event.seat))
    return tricks, turned


def round_end(config: Config, scored: RoundScored, tricks: Sequence[Trick],
              names: Sequence[str]) -> str:
    """Who made their bid (Play to Bid), or Dix's ten-tricks and who won the round."""
    label = [seat_label(s, names) for s in range(len(scored.points))]
    if config.game == "dix":
        tens = ten_tricks(tricks, config.players)
        points = round_points(tricks, config.players)
        parts = []
        for s in range(config.players):
            took = "took"
            ten = f" ({tens[s]} ten-trick{'s' if tens[s] != 1 else ''} at -3)" if tens[s] else ""
            parts.append(f"{label[s]} {took} {scored.tricks[s]} "
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
    if scored.bids is None:
        return ""
    # the seat numbers alone: the names are in the score table just below
    label = [name if name == "you" else f"seat {s}" for s, name in enumerate(label)]
    made = [f"{label[s]} (bid {scored.bids[s]}: {scored.points[s]:+d})" for s in range(len(label))
            if scored.bids[s] == scored.tricks[s]]
    missed = [f"{label[s]} (bid {scored.bids[s]}, took {scored.tricks[s]}: "
              f"{scored.points[s]:+d})" for s in range(len(label))
              if scored.bids[s] != scored.tricks[s]]
    lines = []
    if made:
        lines.append("made their bid: " + ", ".join(made))
    if missed:
        lines.append("missed: " + ", ".join(missed))
    return "\n".join(lines)




# --------------------------------------------------------------------------- the tutorial

TUTORIAL_INTRO = (
    "tutorial: a guided first round. Before each of your moves a 'tutorial:' line says "
    "what to do and why, and what the hint bot would play; type that or your own move. "
    "After round 1 the game goes on as a normal game."
)

TUTORIAL_CARDS = {
    "xactika": "tutorial: a card's four digits count its balls, cubes, cones and stars, "
               "drawn beside it; its value is their sum: 1323 is 1 ball, 3 cubes, 2 cones "
               "and 3 stars, value 9. 'rules' explains the whole game.",
    "dix": "tutorial: a card is its rank and suit: QH is the queen of hearts, TD the ten of "
           "diamonds, JK the joker. 'rules' explains the whole game.",
}

TUTORIAL_DONE = (
    "tutorial: that was the guided round; from here it is a normal game. 'hint' suggests "
    "a move, 'rules' explains any part, 'undo' takes a move back."
)


def coach(game: str, kind: str, *, restricted: bool, call_words: str = "",
          led_suit: str = "", trump: str | None = None, suggestion: str = "") -> str:
    """What to do now and why, for a newcomer: the rule that applies, then a suggestion."""
    if game == "dix":
        if kind == "lead":
            why = ("you lead: any card. Your opponent must follow its suit if they can. "
                   "Leading a low card you do not mind losing is safe; a trick whose two "
                   "cards' pips total ten costs its winner 3 points.")
        elif restricted:
            why = (f"{led_suit} was led and you have {led_suit}, so you must play one "
                   "(marked with an arrow). Play higher to win the trick, lower to give it "
                   "away; watch for a pip total of ten (-3 to the winner).")
        else:
            how = (f"a trump ({trump}) wins it, anything else loses it" if trump
                   else "no trumps this round, so it cannot win")
            why = f"you have no {led_suit}: any card may be played; {how}."
    elif kind == "bid":
        why = ("first everyone bids how many of the 8 tricks they will take; you score only "
               "if you take exactly that many. Count cards that should win: values 11-12, "
               "and shapes others rarely show. As dealer you may not make the bids total 8.")
    elif kind == "lead":
        why = ("you lead: play any card and call one of its shapes with its count (e.g. "
               "'2 st' = 2 stars). Others must play a card showing exactly that if they can; "
               "the highest value showing the call wins, ties to the later card.")
    elif restricted:
        why = (f"the call is {call_words} and some of your cards show it (marked with an "
               "arrow): you must play one. The highest value showing the call wins; ties go "
               "to the card played later.")
    else:
        why = (f"none of your cards shows {call_words}, so you may play any card, and it "
               "cannot win the trick: a good moment to get rid of a card you do not want.")
    tip = f" The hint bot suggests: {suggestion}." if suggestion else ""
    return f"tutorial: {why}{tip}"


__all__ = ["TUTORIAL_DONE", "TUTORIAL_INTRO", "coach", "mode_text", "overview", "round_end",
           "round_tricks", "rules_text", "topics", "why_won"]
