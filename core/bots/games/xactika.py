"""Xactika's bots: the heuristic, the strong bot's search, its five levels for people,
and the deal sampler the searches (ours and OpenSpiel's ISMCTS) draw hidden hands with."""

from __future__ import annotations

from functools import partial

from xactika.core.bots.agents import register_agent, register_redeal
from xactika.core.bots.heuristic import HeuristicAgent
from xactika.core.bots.levels import LEVEL_NAMES, LEVELS, level_name, make_level
from xactika.core.bots.sampler import redeal
from xactika.core.bots.search import StrongAgent
from xactika.core.games.xactika import XACTIKA

GAME = XACTIKA.name

register_agent("heuristic", HeuristicAgent, game=GAME)
register_agent("strong", StrongAgent, game=GAME)
for _level in LEVELS:
    register_agent(level_name(_level), partial(make_level, _level), game=GAME,
                   label=LEVEL_NAMES[_level])
register_redeal(GAME, redeal)
