"""Agents choose a command from a seat's view; they never see the omniscient state."""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, Protocol

from xactika.core.engine.api import (
    Bid,
    Command,
    Config,
    Event,
    GameStarted,
    Legal,
    Play,
    State,
)
from xactika.core.engine.referee import FaultPolicy, Referee, Turn, run
from xactika.core.engine.views import SeatView, view, visible


class Agent(Protocol):
    """Chooses a legal command for its seat.

    An agent may also define ``observe(seat, event)``: :func:`play_out` then feeds it
    every event as that seat may see it (already passed through ``visible``), which is
    how process bots and trackers keep their own picture of the game.
    """

    def choose(self, view: SeatView, legal: Legal) -> Command: ...


def _choose(agents: Sequence[Agent], turn: Turn) -> Command:
    return agents[turn.seat].choose(view(turn.state, turn.seat), turn.legal)


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

    def choose(self, view: SeatView | None, legal: Legal) -> Command:
        """From ``legal`` alone: the view is never read, so a protocol session need not
        fold the game's events into one for this agent (protocol/player/agentside.py)."""
        if legal.seat is None:
            raise ValueError("nobody may act")
        if legal.kind == "bid":
            return Bid(legal.seat, self.rng.choice(legal.bids))
        card = self.rng.choice(legal.cards)
        return Play(legal.seat, card, self.rng.choice(legal.calls(card)))


def play_out(state: State, agents: Sequence[Agent]) -> tuple[State, list[Event]]:
    """Let ``agents[seat]`` act until the game ends; each sees only its own view.

    The referee's loop (core/engine/referee.py); an agent's error propagates, so no
    fault ever reaches the policy.
    """
    referee = Referee(state, policy=FaultPolicy.abort())
    run(referee, partial(_choose, agents), partial(_tell, agents))
    return referee.state, referee.events


def self_play(config: Config, agents: Sequence[Agent]) -> tuple[State, list[Event]]:
    """A whole game from its settings: the final state and every event."""
    referee = Referee.new(config, policy=FaultPolicy.abort())
    _tell(agents, referee.events)
    run(referee, partial(_choose, agents), partial(_tell, agents))
    return referee.state, referee.events


AgentFactory = Callable[[int | None], Agent]
_AGENTS: dict[str, dict[str | None, AgentFactory]] = {}


def register_agent(name: str, factory: AgentFactory, game: str | None = None) -> None:
    """Make a built-in bot available by name (REPL seats, `xactika bot NAME`).

    ``game`` names the game this implementation plays; ``None`` is the fallback for any
    game without one of its own. One name may so have a different bot per game.
    """
    _AGENTS.setdefault(name, {})[game] = factory


def agent_factory(name: str, game: str | None) -> AgentFactory:
    """The implementation of bot ``name`` for ``game``: its own, else the game-agnostic one,
    else the random bot (a name registered only for other games still plays legally)."""
    impls = _known(name)
    found = impls.get(game) if game is not None else None
    return found or impls.get(None) or RandomAgent


# Modules that register built-in bots. They are imported on first use, not with the
# core, so that `xactika engine` and `xactika bot random` start fast.
BOT_MODULES = (
    "xactika.core.bots.heuristic",
    "xactika.core.bots.search",
    "xactika.core.bots.dixbot",
    "xactika.core.bots.ohhellbot",
    "xactika.core.bots.levels",
)
_loaded = False


def _load_bots() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        for module in BOT_MODULES:
            importlib.import_module(module)


def _known(name: str) -> dict[str | None, AgentFactory]:
    _load_bots()
    try:
        return _AGENTS[name]
    except KeyError:
        raise ValueError(
            f"unknown bot {name!r}: expected one of {', '.join(agent_names())}"
        ) from None


def make_agent(name: str, seed: int | None = None, game: str | None = None) -> Agent:
    """Bot ``name``; with ``game`` unknown and per-game implementations registered, an
    agent that picks the implementation when it first learns the game."""
    impls = _known(name)
    if game is not None or set(impls) == {None}:
        return agent_factory(name, game)(seed)
    return ByGame(name, seed)


class ByGame:
    """Stands for bot ``name`` until the game is known (the first ``game-started`` event
    or the first view), then forwards to that game's implementation. A new game of
    another kind gets a fresh implementation."""

    def __init__(self, name: str, seed: int | None = None) -> None:
        _known(name)
        self.name = name
        self.seed = seed
        self.game: str | None = None
        self.impl: Agent | None = None
        self._pending: list[tuple[int, Event]] = []
        self._think_ms: float | None = None

    @property
    def think_ms(self) -> float | None:
        """The think-time budget, passed on to implementations that have one."""
        return getattr(self.impl, "think_ms", self._think_ms)

    @think_ms.setter
    def think_ms(self, value: float | None) -> None:
        self._think_ms = value
        if value is not None and hasattr(self.impl, "think_ms"):
            setattr(self.impl, "think_ms", value)  # noqa: B010 (budgeted agents)

    def _for(self, game: str) -> Agent:
        if self.impl is None or game != self.game:
            self.impl = agent_factory(self.name, game)(self.seed)
            self.game = game
            if self._think_ms is not None and hasattr(self.impl, "think_ms"):
                setattr(self.impl, "think_ms", self._think_ms)  # noqa: B010
            pending, self._pending = self._pending, []
            for seat, event in pending:
                self._forward(seat, event)
        return self.impl

    def _forward(self, seat: int, event: Event) -> None:
        observe = getattr(self.impl, "observe", None)
        if observe is not None:
            observe(seat, event)

    def observe(self, seat: int, event: Event) -> None:
        if isinstance(event, GameStarted):
            self._for(event.config.game)
        if self.impl is None:
            self._pending.append((seat, event))
        else:
            self._forward(seat, event)

    def choose(self, view: SeatView, legal: Legal) -> Command:
        return self._for(view.config.game).choose(view, legal)

    def explain(self, view: SeatView, legal: Legal) -> tuple[Command, str]:
        """The implementation's move and reason; no reason where it gives none."""
        impl = self._for(view.config.game)
        explain = getattr(impl, "explain", None)
        if explain is not None:
            command, reason = explain(view, legal)
            return command, str(reason)
        return impl.choose(view, legal), ""


def agent_names() -> tuple[str, ...]:
    _load_bots()
    return tuple(sorted(_AGENTS))


Hands = tuple[tuple[Any, ...], ...]
Redeal = Callable[[State, int, random.Random], tuple[Hands, tuple[Any, ...]]]
_REDEALS: dict[str, Redeal] = {}


def register_redeal(game: str, redeal: Redeal) -> None:
    """How ``game``'s hidden cards are drawn anew for a seat (searches' determinizations):
    ``redeal(state, seat, rng)`` returns every hand, the seat's own kept, and the undealt
    cards, consistent with ``view(state, seat)`` and reading nothing else of ``state``."""
    _REDEALS[game] = redeal


def redeal(state: State, seat: int, rng: random.Random) -> tuple[Hands, tuple[Any, ...]]:
    """Every hand and the undealt cards, those ``seat`` cannot see drawn anew by the
    game's own sampler; ValueError for a game with none."""
    _load_bots()
    found = _REDEALS.get(state.config.game)
    if found is None:
        raise ValueError(f"{state.config.game} has no sampler of hidden cards")
    return found(state, seat, rng)


register_agent("random", RandomAgent)
