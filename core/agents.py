"""Agents choose a command from a seat's view; they never see the omniscient state."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Protocol

from .table import (
    Bid,
    Command,
    Config,
    Event,
    Legal,
    Play,
    State,
    legal_actions,
    replay,
    start,
    step,
)
from .views import SeatView, view, visible


class Agent(Protocol):
    """Chooses a legal command for its seat.

    An agent may also define ``observe(seat, event)``: :func:`play_out` then feeds it
    every event as that seat may see it (already passed through ``visible``), which is
    how process bots and trackers keep their own picture of the game.
    """

    def choose(self, view: SeatView, legal: Legal) -> Command: ...


def _tell(agents: Sequence[Agent], events: Sequence[Event]) -> None:
    for seat, agent in enumerate(agents):
        observe = getattr(agent, "observe", None)
        if observe is not None:
            for event in events:
                observe(seat, visible(event, seat))


class RandomAgent:
    """Uniform over cards (then over the card's calls), or over bids. Seeded."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: SeatView, legal: Legal) -> Command:
        if legal.seat is None:
            raise ValueError("nobody may act")
        if legal.kind == "bid":
            return Bid(legal.seat, self.rng.choice(legal.bids))
        card = self.rng.choice(legal.cards)
        return Play(legal.seat, card, self.rng.choice(legal.calls(card)))


def play_out(state: State, agents: Sequence[Agent]) -> tuple[State, list[Event]]:
    """Let ``agents[seat]`` act until the game ends; each sees only its own view."""
    events: list[Event] = []
    while True:
        legal = legal_actions(state)
        if legal.seat is None:
            return state, events
        command = agents[legal.seat].choose(view(state, legal.seat), legal)
        state, new = step(state, command)
        _tell(agents, new)
        events.extend(new)


def self_play(config: Config, agents: Sequence[Agent]) -> tuple[State, list[Event]]:
    """A whole game from its settings: the final state and every event."""
    opening = start(config)
    _tell(agents, opening)
    state, events = play_out(replay(opening), agents)
    return state, opening + events


AgentFactory = Callable[[int | None], Agent]
_AGENTS: dict[str, AgentFactory] = {}


def register_agent(name: str, factory: AgentFactory) -> None:
    """Make a built-in bot available by name (REPL seats, `xactika bot NAME`)."""
    _AGENTS[name] = factory


def make_agent(name: str, seed: int | None = None) -> Agent:
    try:
        factory = _AGENTS[name]
    except KeyError:
        raise ValueError(
            f"unknown bot {name!r}: expected one of {', '.join(agent_names())}"
        ) from None
    return factory(seed)


def agent_names() -> tuple[str, ...]:
    return tuple(sorted(_AGENTS))


register_agent("random", RandomAgent)
