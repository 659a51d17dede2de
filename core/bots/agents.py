"""Agents choose a command from a seat's view; they never see the omniscient state."""

from __future__ import annotations

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
    import_named,
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
_LABELS: dict[tuple[str, str | None], str] = {}
_ALIASES: dict[str, tuple[str, ...]] = {}

LEVELS = (1, 2, 3, 4, 5)
"""The levels people pick from, ``strong:1`` to ``strong:5`` (core/bots/levels.py): a
game with levels of its own registers them; in any other game every level is an alias
of that game's best bot, its ``strong``, else its ``heuristic`` (random where it has
neither, and labelled so)."""


def level_bot(level: int) -> str:
    """The bot name of a level, as ``--seat bot:strong:2`` takes it."""
    return f"strong:{level}"


def register_agent(name: str, factory: AgentFactory, game: str | None = None,
                   label: str = "") -> None:
    """Make a bot available by name (REPL seats, matches, `xactika bot NAME`).

    ``game`` names the game this implementation plays; ``None`` is the fallback for any
    game without one of its own. One name may so have a different bot per game.
    ``label`` is what people read for it at that game where not its name (Xactika's
    ``strong:1`` is a ``beginner``). A game's built-in bots are registered by its module
    in core/bots/games/, found by the game's name; a plug-in game registers its own
    wherever it lives (its own module, imported with the game).
    """
    _AGENTS.setdefault(name, {})[game] = factory
    if label:
        _LABELS[(name, game)] = label


def register_alias(name: str, *targets: str) -> None:
    """Make ``name`` stand for the first of bots ``targets`` that a game has, in every
    game without an implementation of ``name`` itself (a level is the game's ``strong``,
    else its ``heuristic``, where it has no levels)."""
    _ALIASES[name] = targets
    _AGENTS.setdefault(name, {})


def _own(name: str, game: str | None) -> tuple[str, AgentFactory | None]:
    """The registered name that plays ``name`` at ``game`` (through an alias) and its
    factory: the game's own, else the game-agnostic one, else None."""
    impls = _known(name, game)
    found = impls.get(game) if game is not None else None
    found = found or impls.get(None)
    if found is None:
        for target in _ALIASES.get(name, ()):
            own = _own(target, game)
            if own[1] is not None:
                return own
    return name, found


def agent_factory(name: str, game: str | None) -> AgentFactory:
    """The implementation of bot ``name`` for ``game``: its own, else the game-agnostic one,
    else the random bot (a name registered only for other games still plays legally;
    :func:`plays` says when that happens, for the frontends to refuse it or to say so)."""
    return _own(name, game)[1] or RandomAgent


def implemented(name: str, game: str) -> bool:
    """Whether ``game`` has bot ``name`` (its own, through an alias or game-agnostic),
    rather than the random bot standing in for it. Unknown names: ValueError."""
    return _own(name, game)[1] is not None


def plays(name: str, game: str) -> str:
    """What bot ``name`` really is at ``game``, as people read it: ``random`` where the
    game has no such bot (a "heuristic" seat at a game without a heuristic), the name of
    the bot it is the same as (Dix's ``strong`` is its heuristic), a level's label
    (Xactika's ``strong:1`` is a ``beginner``), else the name. Unknown names: ValueError."""
    own, factory = _own(name, game)
    if factory is None or factory is RandomAgent:
        return "random"
    label = _LABELS.get((own, game)) or _LABELS.get((own, None))
    if label:
        return label
    if own != "heuristic" and factory is _own("heuristic", game)[1]:
        return "heuristic"
    return own


# A game's built-in bots: the module of core/bots/games/ named as the game, imported the
# first time that game's bots are asked for (not with the core, so that `xactika engine`
# and `xactika bot random` start fast, and one game's bots never load another's).
GAME_BOTS = f"{__package__}.games"


def load_game_bots(game: str) -> None:
    """Register ``game``'s built-in bots (once). A plug-in that registered bots of its
    own first, for this game or another, takes nothing from them."""
    import_named(GAME_BOTS, game)


def _load_all() -> None:
    """Every registered game's bots: to list every name, or to know one asked for before
    its game is (``xactika bot heuristic``)."""
    from xactika.core.engine.api import games

    for game in games():
        load_game_bots(game)


def _known(name: str, game: str | None = None) -> dict[str | None, AgentFactory]:
    if game is not None:
        load_game_bots(game)
    if name not in _AGENTS:
        _load_all()
    try:
        return _AGENTS[name]
    except KeyError:
        raise ValueError(
            f"unknown bot {name!r}: expected one of {', '.join(agent_names())}"
        ) from None


def make_agent(name: str, seed: int | None = None, game: str | None = None) -> Agent:
    """Bot ``name``; with ``game`` unknown and per-game implementations registered, an
    agent that picks the implementation when it first learns the game."""
    impls = _known(name, game)
    if game is not None or (set(impls) == {None} and name not in _ALIASES):
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
    """Every bot's name, over every registered game."""
    _load_all()
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
    load_game_bots(state.config.game)
    found = _REDEALS.get(state.config.game)
    if found is None:
        raise ValueError(f"{state.config.game} has no sampler of hidden cards")
    return found(state, seat, rng)


register_agent("random", RandomAgent)
for _level in LEVELS:
    register_alias(level_bot(_level), "strong", "heuristic")
