"""The event-sourced core: rules, events, the fold and per-seat views. No I/O."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

# The games register themselves on import: core/games/ imports every module it holds, so
# a new game is a new module there and nothing else. They come first: importing the
# subpackage binds the name ``games`` here, which the function ``games`` below replaces.
from xactika.core import games as _games  # registers every game

# isort: split
from xactika.core.engine.api import (
    Bid,
    BidMade,
    Command,
    Config,
    Dealt,
    Event,
    GameOver,
    GameStarted,
    Led,
    Legal,
    Play,
    Played,
    PresetDeal,
    RoundScored,
    State,
    Trick,
    TrickGame,
    TrickWon,
    decide,
    evolve,
    game_rules,
    games,
    legal_actions,
    new_game,
    replay,
    start,
    step,
)
from xactika.core.engine.errors import (
    BadBid,
    BadCall,
    ConfigError,
    GameIsOver,
    IllegalCommand,
    InvalidEvent,
    MustFollow,
    NotInHand,
    NotYourTurn,
    ParseError,
    WrongPhase,
    XactikaError,
)
from xactika.core.engine.views import SeatView, view, visible
from xactika.core.games.xactika import CALLS, DECK, SHAPES, Call, Card, Xactika, stats_table

if TYPE_CHECKING:
    from xactika.core.bots.agents import Agent, RandomAgent

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    """The bots' module (and ``random``) loads on first use: ``xactika engine`` never needs it."""
    if name in ("Agent", "RandomAgent"):
        from xactika.core.bots import agents

        value = getattr(agents, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "CALLS", "DECK", "SHAPES", "Agent", "BadBid", "BadCall", "Bid", "BidMade", "Call",
    "Card", "Command", "Config", "ConfigError", "Dealt", "Event", "GameIsOver",
    "GameOver", "GameStarted", "IllegalCommand", "InvalidEvent", "Led", "Legal",
    "MustFollow", "NotInHand", "NotYourTurn", "ParseError", "Play", "Played",
    "PresetDeal", "RandomAgent", "RoundScored", "SeatView", "State", "Trick",
    "TrickGame", "TrickWon", "WrongPhase", "Xactika", "XactikaError", "decide",
    "evolve", "game_rules", "games", "legal_actions", "new_game", "replay", "start",
    "stats_table", "step", "view", "visible",
]

# Plug-in games (XACTIKA_PLUGINS) last, once every name above exists, so that a plug-in
# may import anything of ours, ``from xactika.core import ...`` included.
_games.load_plugins()
