"""The trick-taking machinery every game shares: settings, events, state, the fold.

A game (Xactika, Dix) is a :class:`TrickGame` subclass that answers rule questions:
how to deal, what may be led and followed, who wins a trick, how a round scores.
Seats, turns, tricks, rounds, bidding, the decider loop and the fold are written
once. State is only ever ``reduce(evolve, events)``: :func:`step` decides a command and
folds the events it returns with the same :func:`evolve` a replay uses.

This module gathers the names of its parts, one concern each: ``settings`` (Config,
preset deals), ``events`` (events and commands), ``state`` (State, Legal), ``rules``
(TrickGame and the registry of games), ``fold`` (evolve, replay), ``decide`` (step,
start, legal_actions) and ``fast`` (the builders behind the hot path). Import from here.
"""

from __future__ import annotations

from xactika.core.engine.decide import (
    _check,
    _end_of_trick,
    decide,
    legal_actions,
    new_game,
    start,
    step,
)
from xactika.core.engine.events import (
    Bid,
    BidMade,
    Command,
    Dealt,
    Event,
    GameEvent,
    GameOver,
    GameStarted,
    Led,
    Play,
    Played,
    RoundScored,
    TrickWon,
)
from xactika.core.engine.fast import fast_constructor, fast_new
from xactika.core.engine.fold import evolve, register_evolver, replay
from xactika.core.engine.rules import (
    _GAMES,
    TrickGame,
    game_rules,
    games,
    import_named,
    register_game,
)
from xactika.core.engine.settings import Card, Config, Hand, Option, Options, PresetDeal
from xactika.core.engine.state import (
    EMPTY,
    PHASE_BID,
    PHASE_NEW,
    PHASE_OVER,
    PHASE_PLAY,
    PHASE_SCORED,
    Legal,
    State,
    Trick,
    new_dealt,
)

__all__ = [
    "EMPTY", "PHASE_BID", "PHASE_NEW", "PHASE_OVER", "PHASE_PLAY", "PHASE_SCORED", "_GAMES",
    "Bid", "BidMade", "Card", "Command", "Config", "Dealt", "Event", "GameEvent", "GameOver",
    "GameStarted", "Hand", "Led", "Legal", "Option", "Options", "Play", "Played",
    "PresetDeal", "RoundScored", "State", "Trick", "TrickGame", "TrickWon", "_check",
    "_end_of_trick", "decide", "evolve", "fast_constructor", "fast_new", "game_rules",
    "games", "import_named", "legal_actions", "new_dealt", "new_game", "register_evolver",
    "register_game", "replay", "start", "step",
]
