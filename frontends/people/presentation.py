"""What differs per game when a game is shown to people: a registry, asked by game name.

The driver, the narration, the teaching texts and the REPL ask a :class:`Presentation`
instead of testing ``config.game``: a new game registers its own (see ``xactika.py`` and
``dix.py`` here) and is taught as itself, never as Xactika. The default is plain and
true for any trick-taking game. Every text here is plain (no colour, no width): the
REPL lays it out for a terminal (frontends/repl/render.py), a web page as HTML.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import attrs

from xactika.core.engine.api import Config, RoundScored, State, Trick, game_rules, import_named
from xactika.core.engine.errors import ConfigError
from xactika.core.engine.views import SeatView
from xactika.frontends.i18n import _, ngettext, reason_said
from xactika.frontends.people.seats import seat_shown

Plays = Sequence[tuple[int, Any]]


@attrs.frozen
class Progress:
    """The round so far, as a seat may see it: tricks taken, and a game's own counts.

    ``points`` and ``tens`` are Dix's running points and ten-tricks (None where a game
    has none); ``stock`` is the cards left to draw (None without a stock).
    """

    taken: tuple[int, ...]
    points: tuple[int, ...] | None = None
    tens: tuple[int, ...] | None = None
    stock: int | None = None


@attrs.frozen
class FollowRule:
    """What the follow rule asks of a seat now: whether it can follow, and the words."""

    can_follow: bool
    led: str = ""  # what was led, in words: a suit name, or a call's words
    trump: str | None = None  # the trump suit's name, None for no trumps (or no trumps game)
    winning: str = ""  # the card winning the trick so far, as a player names it
    can_win: bool | None = None  # whether a card the seat may play beats it (None: unknown)
    trumped: bool = False  # the winning card is a trump on another suit led


class Presentation:
    """A game as people are told it. Subclasses override what their game says."""

    game: str = ""
    has_calls: ClassVar[bool] = False
    has_stats: ClassVar[bool] = False
    tutorial_cards: ClassVar[str] = ""  # the tutorial's first words about the cards
    tutorial_cards_drawn: ClassVar[str] = ""  # and where the cards are drawn (a page)
    card_example: ClassVar[str] = ""
    """A card's text, for the help; "" takes the last card of the game's deck."""
    card_face: ClassVar[str] = "text"  # how a page draws a card: "shapes", "suits" or its text
    translated: ClassVar[bool] = False
    """Whether the per-config texts (banner, mode line, overview, topics, help lines) come
    already in the reader's language, made from ``_()`` templates with fields; else they
    are English, shown through ``said()`` and found for the catalog by i18n_extract."""

    def __init__(self, game: str | None = None) -> None:
        if game is not None:
            self.game = game

    # -- names and banners
    def title(self) -> str:
        return self.game.capitalize()

    def mode_name(self, config: Config) -> str:
        """The mode as people say it (``Play to Bid``), as the game names it."""
        return game_rules(config.game).mode_name(config.mode)

    def banner(self, config: Config) -> str:
        """What the mode means, in one line."""
        return config.mode

    def mode_line(self, config: Config) -> str:
        """The introduction's line about the mode."""
        return self.banner(config)

    def bidless_name(self, config: Config) -> str:
        """What "there is no bidding in ..." names: the game, or a mode without bids."""
        return self.title()

    def length(self, config: Config) -> str:
        """How long the game is: ``8 rounds``, or ``to 50 points`` for a target."""
        target = config.option("target")
        if target is not None:
            return _("to {n} points").format(n=target)
        return ngettext("{n} round", "{n} rounds", config.rounds).format(n=config.rounds)

    def round_of(self, config: Config, round_no: int) -> str:
        """``round 2 of 8``, or ``round 2 to 50 points`` for a game to a target."""
        target = config.option("target")
        if target is not None:
            return _("round {n} to {target} points").format(n=round_no, target=target)
        return _("round {n} of {total}").format(n=round_no, total=config.rounds)

    def option_suggestions(self) -> dict[str, tuple[str, Any]]:
        """Per option of the game's (``TrickGame.option_types``): the words a form labels
        it with and the value it suggests (None: left out unless asked for)."""
        return {}

    def hand_sorts_by(self) -> dict[str, Callable[[Any], Any] | None]:
        """The orders a hand may be sorted in, by name, the first the usual one; a key of
        None is the game's own (``TrickGame.sort_key``)."""
        return {"value": None}

    def hand_sorts(self) -> list[str]:
        return list(self.hand_sorts_by())

    def card_name(self, card: Any) -> str:
        """A card as a player says it ("the queen of hearts"): what a page's sentences
        name it by, never its code."""
        return str(card)

    def led_words(self, card: Any) -> str:
        """What a trick's first card asks the others to follow, in words: a game with suits
        names the suit ("hearts"); by default the led card as a player names it (never
        its code: "you must follow the lead (the jack of hearts)")."""
        return self.card_name(card)

    def call_name(self, call: Any) -> str:
        """A lead's call as a player says it ("2 stars")."""
        return str(call)

    def move_words(self, command: Any) -> str:
        """A bid or a play in words, its card named as seen: ``play the queen of hearts``."""
        card = getattr(command, "card", None)
        if card is None:
            return _("bid {bid}").format(bid=getattr(command, "bid", ""))
        call = getattr(command, "call", None)
        if call is not None:
            return _("play {card} calling {call}").format(card=self.card_name(card),
                                                          call=self.call_name(call))
        return _("play {card}").format(card=self.card_name(card))

    def reason(self, reason: str) -> str:
        """A bot's reason for a move (a hint's why) in the reader's language: its template
        through the catalog, its fields as the reader says them (a card code as it is, a
        call in words, a number with the language's decimal sign). A plain text (a
        plug-in bot's own) is shown as given, as is the English where a translation
        breaks its fields."""
        return reason_said(reason, self.call_name)

    # -- teaching
    def topics(self, config: Config) -> dict[str, str]:
        """``rules TOPIC`` topics for this game and mode, in reading order."""
        return {}

    def overview(self, config: Config) -> str:
        return f"{self.title()} ({self.mode_name(config)})."

    def why_won(self, plays: Plays, call: Any, winner: int, turned: Any,
                names: Sequence[str], spoken: bool = False) -> str:
        """One line: why the trick's winner won it, by the rules as implemented; with
        ``spoken`` its cards are named as a player sees them (:meth:`card_name`), for a
        page that draws the cards, else by their text, as a terminal player types them."""
        return _("{card} wins").format(card=self.said(dict(plays)[winner], spoken))

    def said(self, card: Any, spoken: bool) -> str:
        """A card in a sentence: its name (``spoken``) or its text."""
        return self.card_name(card) if spoken else str(card)

    def round_end(self, config: Config, scored: RoundScored, tricks: Sequence[Trick],
                  names: Sequence[str]) -> str:
        """Who made their bid and who missed, in a game with bids; "" without (the score
        table says it all)."""
        if scored.bids is None:
            return ""
        # the seat numbers alone beside "you": the names are in the score table just
        # below; with no "you" (hot-seat, a replay) each seat by its name too
        label = [seat_label(s, names) for s in range(len(scored.points))]
        alone = "you" in label
        label = [_("you") if name == "you" else _("seat {n}").format(n=seat_shown(s))
                 if alone else name for s, name in enumerate(label)]
        made = [_("{who} (bid {bid}: {points})").format(
                    who=label[s], bid=scored.bids[s], points=f"{scored.points[s]:+d}")
                for s in range(len(label)) if scored.bids[s] == scored.tricks[s]]
        missed = [_("{who} (bid {bid}, took {took}: {points})").format(
                      who=label[s], bid=scored.bids[s], took=scored.tricks[s],
                      points=f"{scored.points[s]:+d}")
                  for s in range(len(label)) if scored.bids[s] != scored.tricks[s]]
        lines = []
        if made:
            lines.append(_("made their bid: {list}").format(list=", ".join(made)))
        if missed:
            lines.append(_("missed: {list}").format(list=", ".join(missed)))
        return "\n".join(lines)

    def round_winner(self, config: Config, tricks: Sequence[Trick]) -> int | None:
        """The round's own winner, for games that have one."""
        return None

    def tells_round_points(self, config: Config) -> bool:
        """Whether ``round N scored: ...`` is told, or the round's outcome says it all."""
        return not game_rules(config.game).has_bidding(config)

    def coach(self, kind: str, follow: FollowRule, suggestion: str = "") -> str:
        """The tutorial's line before a move: what to do now and why."""
        why = {"bid": _("tutorial: your bid."), "lead": _("tutorial: your lead."),
               "play": _("tutorial: your play.")}.get(kind, f"tutorial: your {kind}.")
        return self.suggested(why, suggestion)

    @staticmethod
    def suggested(why: str, suggestion: str) -> str:
        """A tutorial line with the hint bot's move after it, where there is one."""
        if not suggestion:
            return why
        return _("{why} The hint bot suggests: {move}.").format(why=why, move=suggestion)

    @staticmethod
    def trumps_cannot_follow(follow: FollowRule) -> str:
        """The line before the prompt for a seat that cannot follow, in a game with a trump
        suit: whether a trump of its own can still take the trick (not if a higher trump
        is in it, nor without a trump)."""
        if follow.trump is None or follow.trump == follow.led:
            return _("you have no {suit}: play any card; it cannot win the trick").format(
                suit=follow.led)
        return _trump_line(follow, (
            _("you have no {suit} and no trump above {card}: play any card; it cannot win "
              "the trick"),
            _("you have no {suit} and no trump ({trump}): play any card; it cannot win the "
              "trick"),
            _("you have no {suit}: play any card; only a trump above {card} takes the trick "
              "from it, anything else loses it"),
            _("you have no {suit}: play any card; a trump ({trump}) wins the trick, anything "
              "else loses it")))

    @staticmethod
    def trumps_tutorial(follow: FollowRule, takes: str) -> str:
        """The tutorial's line for a seat that cannot follow a suit other than trumps;
        ``takes``: the game's words for a trump taking the trick (a template with
        ``{suit}`` and ``{trump}``), where one of the seat's trumps can."""
        return _trump_line(follow, (
            _("tutorial: you have no {suit} and no trump above {card}: any card may be "
              "played, and it cannot win."),
            _("tutorial: you have no {suit} and no trump ({trump}): any card may be played, "
              "and it cannot win."),
            _("tutorial: you have no {suit}: any card may be played; {card} has trumped the "
              "trick, so only a higher trump takes it, anything else loses it."),
            takes))

    @staticmethod
    def cannot_win(follow: FollowRule) -> str:
        """The tutorial's line for a seat that cannot follow and cannot win the trick: the
        trumps were led, or there are none this round (a game with a trump suit)."""
        if follow.trump:
            return _("tutorial: you have no {suit}, the trumps that were led: any card may be "
                     "played, and it cannot win.").format(suit=follow.led)
        return _("tutorial: you have no {suit}: any card may be played; no trumps this "
                 "round, so it cannot win.").format(suit=follow.led)

    # -- the round so far
    def progress(self, config: Config, seen: SeatView | State) -> Progress:
        return Progress(tuple(seen.taken))

    def trump(self, state: State) -> str | None:
        """The round's trump in words, for a table always to show (None: the game has
        none to show)."""
        return None

    def follow_rule(self, state: State, seat: int) -> FollowRule:
        """Whether ``seat``, following the trick in ``state``, holds a card it must play.

        Any game's answer, from its legal cards: fewer than the hand means it must
        follow (a hand that follows with every card reads as free, which it is)."""
        if not state.trick:
            return FollowRule(False)
        legal = game_rules(state.config.game).legal_cards(state, seat)
        return attrs.evolve(self.trick_so_far(state, seat),
                            can_follow=len(legal) < len(state.hands[seat]),
                            led=self.led_words(state.trick[0][1]))

    def trick_so_far(self, state: State, seat: int) -> FollowRule:
        """The trick as the game's own rules see it: the card winning it so far (named as
        a player says it), and whether a card ``seat`` may play would take it from that
        card (``trick_winner`` asked of every legal card), so that no line promises a
        trick that a card already in it has beaten."""
        rules = game_rules(state.config.game)
        plays = tuple(state.trick)
        best = dict(plays)[rules.trick_winner(state, plays, state.call)]
        can_win = any(rules.trick_winner(state, (*plays, (seat, card)), state.call) == seat
                      for card in rules.legal_cards(state, seat))
        return FollowRule(False, winning=self.card_name(best), can_win=can_win)

    def trump_note(self, turned: Any) -> str:
        """What the REPL adds after the turned-up card's trumps (Dix: the joker's rank)."""
        return ""

    def cannot_follow(self, follow: FollowRule, call: Any) -> str:
        """The line before the prompt for a seat that cannot follow."""
        return ("you cannot follow: play any card (it cannot win the trick)"
                if call is not None else "your play: any card")

    # -- moves as typed
    def example_card(self) -> str:
        """:attr:`card_example`, or a card the game really has (its deck's last)."""
        if self.card_example:
            return self.card_example
        try:
            deck = game_rules(self.game).deck
        except ConfigError:  # a game not registered: nothing to ask
            deck = ()
        return str(deck[-1]) if deck else "QH"

    def card_token(self, text: str) -> str:
        """A typed card as :meth:`TrickGame.parse_card` reads it (case, for example)."""
        return text

    def play_usage(self) -> str:
        return f"play takes one card: play 3 (its position) or play {self.example_card()}"

    def call_example(self, options: Sequence[Any]) -> str:
        """What the error for a lead without a call suggests typing after the card."""
        return ""

    def call_aliases(self, call: Any, formatted: str) -> set[str]:
        """Every way a player may type ``call``."""
        return {formatted.lower()}

    def commands(self, config: Config, found: dict[str, str]) -> dict[str, str]:
        """The REPL's commands for this game, from the common list ``found``."""
        if not self.has_stats:
            found.pop("stats", None)
        found["play"] = (f"play a card: play 3 (its position) or play {self.example_card()} "
                         "(its text)")
        return found

    def help_lines(self, config: Config) -> list[str]:
        """How moves are typed, for ``help``."""
        return [f"a bare number is a position in your hand: '3' plays your third card; a "
                f"bare card text plays it: '{self.example_card()}'."]


_PRESENTATIONS: dict[str, Presentation] = {}


def register_presentation(shown: Presentation) -> Presentation:
    """A game's presentation, from its module here or from a plug-in anywhere."""
    _PRESENTATIONS[shown.game] = shown
    return shown


def presentation(game: str) -> Presentation:
    """The game's presentation; a game without one gets the plain default, by its name.

    A built-in one is the module of this package named as the game (``dix.py``),
    imported the first time the game is asked for: a game's name is its key, as in
    core/games/, and a plug-in that registered first takes nothing from the others."""
    if game not in _PRESENTATIONS:
        import_named(__package__, game)
    found = _PRESENTATIONS.get(game)
    return found if found is not None else Presentation(game)


def seat_label(seat: int, names: Sequence[str]) -> str:
    """``seat 1 (heuristic)``; the one human of a practice game is just ``you``."""
    name = names[seat] if seat < len(names) else ""
    if name == "you":
        return "you"  # the caller says it in the reader's language (render.seat_name)
    return (_("seat {n} ({name})").format(n=seat_shown(seat), name=name) if name
            else _("seat {n}").format(n=seat_shown(seat)))


def names_text(items: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    if len(items) == 1:
        return items[0]
    return _("{list} and {last}").format(list=", ".join(items[:-1]), last=items[-1])


__all__ = ["FollowRule", "Presentation", "Progress", "names_text", "presentation",
           "register_presentation", "seat_label"]


def _trump_line(follow: FollowRule, texts: tuple[str, str, str, str]) -> str:
    """Of a seat's lines when it cannot follow a suit other than trumps, the one true of
    the trick: no trump of its own beats the trump in it, it has no trump, only a higher
    trump than the one in it wins, or any trump does."""
    above, none, only_higher, any_trump = texts
    if follow.can_win is False:
        text = above if follow.trumped else none
    else:
        text = only_higher if follow.trumped else any_trump
    return text.format(suit=follow.led, trump=follow.trump, card=follow.winning)

