"""A seating watched live as the web page draws it: the replay viewer's frames, made
from the public lines of the arena's live file (frontends/arena/live.py) alone.

Each line is read, passed through the spectator's view once more (``seat_event`` as
``PUBLIC``: should a line ever hold a hand, it is dropped here) and folded by the core's
own fold, which keeps the hands it cannot see empty; the frames are then
:func:`record_view`'s, less what a spectator has not got (the hands, the thinking
times, the analysis), so the page draws what the server says and derives no rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xactika.core.engine.api import GameStarted, game_rules
from xactika.core.engine.errors import XactikaError
from xactika.core.engine.fold import evolve
from xactika.core.engine.state import EMPTY
from xactika.frontends.match.game import seat_event
from xactika.frontends.records.replay import Game
from xactika.frontends.web.replaydata import MAX_VIEW_EVENTS, record_view
from xactika.protocol.net.link import PUBLIC
from xactika.protocol.notation.text import parse_event

HIDDEN = ("hands", "think", "analysis", "where")  # what a spectator's frame leaves out


def live_view(lines: Sequence[str], names: Sequence[str]) -> dict[str, Any] | None:
    """The frames of a seating's lines (the complete ones; a line that does not read or
    does not follow ends them); None before its game-started."""
    events, states = [], []
    state, rules = EMPTY, None
    for line in lines[:MAX_VIEW_EVENTS]:
        try:
            event = seat_event(parse_event(line, rules), PUBLIC)
            state = evolve(state, event)
        except (XactikaError, ValueError, IndexError, AttributeError, TypeError):
            break
        if isinstance(event, GameStarted):
            rules = game_rules(event.config.game)
        events.append(event)
        states.append(state)
    if not events or not isinstance(events[0], GameStarted):
        return None
    players = states[0].config.players
    shown = list(names) if len(names) == players else [""] * players
    view = record_view(Game((), tuple(events), tuple(states), tuple(shown)), None)
    for frame in view["events"]:
        for key in HIDDEN:
            frame.pop(key, None)
    return view
