"""Oh Hell's bots: the heuristic, the search (``strong``) and the sampler of hidden
hands that respects the voids shown."""

from __future__ import annotations

from xactika.core.bots.agents import register_agent, register_redeal
from xactika.core.bots.ohhellbot import OhHellHeuristicAgent, OhHellSearchAgent, redeal
from xactika.core.games.ohhell import OHHELL

register_agent("heuristic", OhHellHeuristicAgent, game=OHHELL.name)
register_agent("strong", OhHellSearchAgent, game=OHHELL.name)
register_redeal(OHHELL.name, redeal)
