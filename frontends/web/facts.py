"""The game's facts a page draws from, so that no script re-derives a rule or names a game.

``/api/games`` lists every registered game as the lobby and the table need it (names,
modes, players, options); :class:`PageFacts` reads one connection's fold (narrate.py)
and adds a ``say table`` line whenever what a table shows changes: whose turn and what
kind of move, every hand's size, the stock, the trump, and the seat's own hand in the
game's orders. It reads only what that connection was sent, so it can never tell more.
"""

from __future__ import annotations

from typing import Any

from xactika.core.bots.agents import LEVELS, level_bot, plays
from xactika.core.engine.api import (
    PHASE_BID,
    PHASE_PLAY,
    Config,
    game_rules,
    games,
)
from xactika.frontends.i18n import said
from xactika.frontends.people.presentation import presentation
from xactika.protocol.net.lobby import MAX_OPTION, MAX_ROUNDS
from xactika.protocol.net.weblines import SayTable
from xactika.protocol.player.agentside import SeatTracker
from xactika.protocol.player.wire import format_line


def _mode_facts(name: str, mode: str) -> dict[str, Any]:
    rules = game_rules(name)
    config = Config(game=name, mode=mode, players=rules.default_players,
                    rounds=rules.default_rounds, seed=0)
    return {"id": mode, "name": said(rules.mode_name(mode)), "bidding": rules.has_bidding(config),
            "hand": rules.hand_size(config), "low_wins": rules.low_wins(config)}


def _option_label(key: str, kind: type, rules: Any, suggested: dict[str, Any]) -> str:
    """The presentation's label, else the option's help in the reader's words (the
    catalog has every game's ``option_help``: i18n_extract); the name typed at a terminal
    (``top``) only where the game gives no help."""
    label = suggested.get(key, ("", None))[0]
    if label:
        return said(label)
    help_text = rules.option_help.get(key)
    return said(help_text) if help_text else key


def game_facts(name: str) -> dict[str, Any]:
    """One game as a page needs it: its title, modes (the default first), players,
    rounds, own options (their type, and the value the form suggests) and its bots'
    levels as people read them."""
    rules = game_rules(name)
    shown = presentation(name)
    modes = [rules.default_mode, *(m for m in rules.modes if m != rules.default_mode)]
    suggested = shown.option_suggestions()
    return {"name": name, "title": said(shown.title()), "cards": shown.card_face,
            "calls": shown.has_calls,
            "modes": [_mode_facts(name, m) for m in modes],
            "players": {"min": rules.min_players, "max": rules.max_players,
                        "default": rules.default_players},
            "rounds": rules.default_rounds, "maxRounds": MAX_ROUNDS,  # the lobby's bound
            "options": [{"name": key, "type": "int" if kind is int else "text",
                         "max": MAX_OPTION if kind is int else None,
                         "label": _option_label(key, kind, rules, suggested),
                         "suggest": suggested.get(key, ("", None))[1],
                         "choices": list(rules.option_choices.get(key, ())),
                         "choiceNames": {c: said(c) for c in rules.option_choices.get(key, ())}}
                        for key, kind in rules.option_types.items()],
            "sorts": shown.hand_sorts(),
            "sortNames": {sort: said(sort) for sort in shown.hand_sorts()},
            "levels": _levels(name)}


PAGE_LEVEL = 3
"""The level a page seats a bot at unless asked (lobby.js), as ``xactika play``."""


def _levels(game: str) -> list[dict[str, str]]:
    """The levels worth offering, each labelled as what plays it: where several levels
    are the same bot (every level of Dix is its heuristic), only the one nearest the
    page's default, so that a list never offers five names for one bot."""
    by_label: dict[str, int] = {}
    for level in sorted(LEVELS, key=lambda n: (abs(n - PAGE_LEVEL), n)):
        by_label.setdefault(plays(level_bot(level), game), level)
    return [{"id": str(level), "name": label}
            for label, level in sorted(by_label.items(), key=lambda item: item[1])]


def all_games() -> list[dict[str, Any]]:
    """Every registered game's facts (``/api/games``), the engine's default game first."""
    first = Config().game
    return [game_facts(name) for name in sorted(games(), key=lambda n: (n != first, n))]


class PageFacts:
    """Says what a table shows when it changes, read from the connection's one fold (its
    narrator's tracker: a seat's view, or a spectator's, every unseen hand as that many
    face-down cards), so it can never tell more than the connection was sent. The page
    draws these and folds nothing; a seat's hand is said again only when it changed."""

    def __init__(self) -> None:
        self.said = ""  # the last line, without the hand
        self._hand: object = None  # the seat's hand as last said (its cards, unsorted)

    def after(self, tracker: SeatTracker, config: Config) -> list[str]:
        """The ``say table`` line now (none when nothing shown changed); the seat's hand
        in it only when the hand changed (the page keeps the hand it has)."""
        state, seat = tracker.state, tracker.seat
        own = state.hands[seat] if 0 <= seat < len(state.hands or ()) else None
        if own == self._hand:
            line = format_line(self.shown(tracker, config, hand=False))
            if line == self.said:
                return []
            self.said = line
            return [line]
        shown = self.shown(tracker, config)
        self.said, self._hand = format_line(_without_hand(shown)), own
        return [format_line(shown)]

    @staticmethod
    def shown(tracker: SeatTracker, config: Config, hand: bool = True) -> SayTable:
        """What the table shows now; the seat's own hand with ``hand``."""
        state, seat = tracker.state, tracker.seat
        shown = presentation(config.game)
        rules = game_rules(config.game)
        move: str | None = None
        if state.to_act is not None and state.phase == PHASE_BID:
            move = "bid"
        elif state.to_act is not None and state.phase == PHASE_PLAY:
            move = "play" if state.trick else "lead"
        hands = state.hands or ()
        stock = shown.progress(config, state).stock if hands else None
        trump = shown.trump(state) if hands else None
        orders: list[tuple[str, list[str]]] = []
        if hand and 0 <= seat < len(hands):
            orders = [(sort, [str(c) for c in sorted(hands[seat], key=key or rules.sort_key)])
                      for sort, key in shown.hand_sorts_by().items()]
        dealt = bool(hands) and state.round > 0
        return SayTable(
            None if move is None else state.to_act, move, [len(h) for h in hands], stock,
            trump, orders, round=state.round if dealt else None,
            dealer=state.dealer if dealt else None,
            bids=state.bids if dealt and rules.has_bidding(config) else (),
            taken=state.taken if dealt else (), totals=state.totals,
            trick=[(s, str(c)) for s, c in state.trick],
            call=None if state.call is None else rules.format_call(state.call))


def _without_hand(said: SayTable) -> SayTable:
    return SayTable(said.turn, said.move, said.sizes, said.stock, said.trump,
                    **{key: getattr(said, key) for key in SayTable.SHOWN})
