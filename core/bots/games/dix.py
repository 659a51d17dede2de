"""Dix's bots: the heuristic, which is also its ``strong`` (the search works on
Xactika's cards only), and the sampler of the hidden hand and the stock."""

from __future__ import annotations

from xactika.core.bots.agents import register_agent, register_redeal
from xactika.core.bots.dixbot import DixHeuristicAgent, redeal
from xactika.core.games.dix import DIX

register_agent("heuristic", DixHeuristicAgent, game=DIX.name)
register_agent("strong", DixHeuristicAgent, game=DIX.name)
register_redeal(DIX.name, redeal)
