"""Par: what the strong bot and the all-seeing bot score on a deal in the person's seat,
against the same three bots (core/bots/levels.py, core/bots/cheater.py). Slowish (the
strong bot thinks 100 ms a move), so computed once a day, after the close."""

from __future__ import annotations

from typing import Any

from xactika.core.bots.agents import make_agent
from xactika.core.bots.cheater import CheaterAgent, play_with_cheaters
from xactika.frontends.daily.deals import DailySettings, bot_seed


def _agent(name: str, seed: int, game: str) -> Any:
    return CheaterAgent() if name == "cheater" else make_agent(name, seed, game)


def par_scores(settings: DailySettings, seed: int, deal: int) -> tuple[float, ...]:
    """Each par bot's points in the person's seat, the strong bot's first."""
    config = settings.config(seed, deal)
    scores = []
    for name in settings.par:
        agents = [_agent(name if seat == settings.seat else bot, bot_seed(seed, deal, seat),
                         settings.game)
                  for seat, bot in enumerate(settings.agents())]
        _state, events = play_with_cheaters(config, agents)
        scores.append(float(events[-1].totals[settings.seat]))
    return tuple(scores)
