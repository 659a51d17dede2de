"""Every legal option of a decision scored by the strong bot's search, from a seat's view.

``xactika analyse`` (frontends/records/analyse.py) asks this of each decision in a
record, as lichess's computer analysis asks an engine of each chess move. The search is
:class:`.search.StrongAgent`'s own (its deal sampler, its rollouts), told to keep every
option to the end and to draw a fixed number of deals, so a seed gives the same figures
on any machine and at any load; nothing but the seat's view and its legal moves comes
in, so the hidden cards cannot change an answer.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import attrs

from xactika.core.bots.search import StrongAgent
from xactika.core.engine.api import Command, Legal, Play, game_rules
from xactika.core.engine.views import SeatView
from xactika.core.games.xactika import TRICKS_PER_ROUND, XACTIKA
from xactika.core.games.xactika.tables import CALL_INDEX, INDEX

DEFAULT_DEALS = 100
"""Sampled deals a decision by default: on shared deals a loss (a paired difference)
varies by about 0.15 points a round from seed to seed, and a whole 8-round game of 4
seats takes 11 to 14 s of CPU on the Python search (bench/analyse_speed.py)."""


class Unsupported(ValueError):
    """The game has no search to analyse with."""


@attrs.frozen
class Option:
    """One legal move and its expected points for the round, higher better in every
    mode (Play to Lose counts the tricks down)."""

    command: Command
    points: float


@attrs.frozen
class Assessment:
    """A decision's options in the order of ``Legal.commands()``; empty when the move
    was forced (one legal option: nothing to weigh)."""

    options: tuple[Option, ...]
    deals: int

    @property
    def best(self) -> float:
        return max(o.points for o in self.options)

    def points(self, command: Command) -> float:
        """The expected points of ``command``; KeyError for a move not among them."""
        for option in self.options:
            if option.command == command:
                return option.points
        raise KeyError(command)


class _Analyst(StrongAgent):
    """The strong search keeping every legal option (each call of a lead, each bid) on
    the same ``deals`` sampled deals, and reporting every mean."""

    def __init__(self, seed: int, deals: int) -> None:
        super().__init__(seed, max_deals=deals, min_deals=deals, prune_z=math.inf,
                         bid_span=TRICKS_PER_ROUND + 1.0)
        self.moves: list[tuple[int, int]] = []
        self.means: list[float] = []

    def _candidates(self, view: SeatView, legal: Legal, unseen: object
                    ) -> list[tuple[int, int]]:
        self.moves = [(INDEX[c.card], CALL_INDEX[c.call] if c.call is not None else -1)
                      for c in legal.commands() if isinstance(c, Play)]
        return list(self.moves)

    def _race(self, k: int, deal: Callable[[], list[list[int]]],
              evaluate: Callable[[list[list[int]], int], int], deadline: float,
              prefer: int, switch_z: float = 0.0) -> tuple[int, list[float], int]:
        best, means, deals = super()._race(k, deal, evaluate, deadline, prefer, switch_z)
        self.means = means
        return best, means, deals


def supported(game: str) -> bool:
    """Whether ``game``'s decisions can be analysed (the strong search plays it)."""
    return game_rules(game) is XACTIKA


def assess(view: SeatView, legal: Legal, seed: int, deals: int = DEFAULT_DEALS
           ) -> Assessment:
    """Every legal option of ``legal`` (the seat's to act in ``view``) with its expected
    points over ``deals`` deals drawn from the view, seeded by ``seed``."""
    if not supported(view.config.game):
        raise Unsupported(f"{view.config.game} has no search to analyse with: "
                          "only Xactika's decisions can be analysed")
    if deals < 1:
        raise ValueError(f"deals must be at least 1, not {deals}")
    commands = list(legal.commands())
    if len(commands) < 2:
        return Assessment((), 0)
    agent = _Analyst(seed, deals)
    agent.explain(view, legal)
    if legal.kind == "bid":
        return Assessment(tuple(Option(c, m) for c, m in zip(commands, agent.means,
                                                             strict=True)), agent.last_deals)
    seat = legal.seat or 0
    by_move = dict(zip(agent.moves, agent.means, strict=False))
    options = tuple(Option(c, by_move[(INDEX[c.card], CALL_INDEX[c.call]
                                       if c.call is not None else -1)])
                    for c in commands if isinstance(c, Play) and c.seat == seat)
    return Assessment(options, agent.last_deals)

