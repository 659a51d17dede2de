"""Every registered game as a PettingZoo AEC environment (extra ``[pettingzoo]``).

``env(game="xactika", render_mode=None)`` is one game (players, mode, rounds and the game's
own options default to the game's): agents ``player_0`` ...
``player_{n-1}`` (seat numbers), a ``Discrete`` action space numbered as in
:mod:`xactika.core.engine.encoding` (bids, plays, leads with their call), and observations
``{"observation": view tensor, "action_mask": legal ids}`` built from ``view(state, seat)``
alone, so no seat ever sees another's unplayed card. Every move goes through the core's
``step``. Rewards come at round ends: each seat's points for the round (negated in Play to
Lose, so that more is always better); all agents terminate when the game is over; there is
no truncation (a game has a fixed length). ``reset(seed=N)`` deals exactly what
``xactika selfplay --seed N`` deals. ``render_mode="ansi"`` draws, with the REPL's
renderer, what the seat to act sees.

As PettingZoo's classic environments do, the module also gives ``raw_env`` (the
environment class) and ``parallel_env``: the same game through PettingZoo's turn-based
conversion, where every agent sends an action each step and only the acting seat's (the
one whose ``action_mask`` is not all zeros) is played. ``observation="flat"`` gives one
NumPy array instead of the dict (the view's tensor, then the mask; the mask also in
``info["action_mask"]``), as RLCard and pgx users expect.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import attrs
import gymnasium
import numpy as np
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from xactika.core.engine.api import (
    Config,
    RoundScored,
    State,
    game_rules,
    legal_actions,
    new_game,
    step,
)
from xactika.core.engine.encoding import Encoding
from xactika.core.engine.views import view
from xactika.frontends.repl import render

_SEEDS = 2**32
OBSERVATIONS = ("dict", "flat")
"""``dict``: {"observation", "action_mask"}, as PettingZoo's card games; ``flat``: one
float32 array, the view's tensor then the action mask (its last ``num_actions`` entries),
the mask also in ``info["action_mask"]``."""


class TrickTakingEnv(AECEnv):
    """One game of a registered game per episode, as an AEC environment."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi"], "name": "xactika_v0", "is_parallelizable": False,
    }

    def __init__(self, game: str = "xactika", players: int | None = None,
                 mode: str | None = None, rounds: int | None = None,
                 render_mode: str | None = None, options: dict[str, Any] | None = None,
                 observation: str = "dict") -> None:
        super().__init__()
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        if observation not in OBSERVATIONS:
            raise ValueError(f"observation must be one of {', '.join(map(repr, OBSERVATIONS))}, "
                             f"not {observation!r}")
        self.render_mode = render_mode
        self.flat = observation == "flat"
        given: dict[str, Any] = {k: v for k, v in (
            ("mode", mode), ("players", players), ("rounds", rounds)) if v is not None}
        config = Config(game=game, options=options or {}, **given)  # the rest: the game's
        game_rules(game).validate(attrs.evolve(config, seed=0))
        self.encoding = Encoding(config)
        self.config = self.encoding.config
        self.possible_agents = [f"player_{s}" for s in range(config.players)]
        self.agents = self.possible_agents[:]
        # |totals| and the counts stay within it: the game's own bounds on a total
        lo, hi = game_rules(game).score_bounds(config)
        bound = float(max(-lo, hi, self.encoding.tricks, self.encoding.hand_size))
        size = self.encoding.tensor_size
        actions = self.encoding.num_actions
        self._observation_space: gymnasium.spaces.Space = gymnasium.spaces.Dict({
            "observation": gymnasium.spaces.Box(-bound, bound, (size,), np.float32),
            "action_mask": gymnasium.spaces.Box(0, 1, (actions,), np.int8),
        })
        if self.flat:  # the view, then the mask: one float32 array, as RLCard and pgx give
            low = np.concatenate([np.full(size, -bound), np.zeros(actions)]).astype(np.float32)
            high = np.concatenate([np.full(size, bound), np.ones(actions)]).astype(np.float32)
            self._observation_space = gymnasium.spaces.Box(low, high, dtype=np.float32)
        self._action_space = gymnasium.spaces.Discrete(self.encoding.num_actions)
        self._rng = random.Random()
        self.core: State | None = None
        self.deal_seed: int | None = None  # the last game's deal seed

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self._observation_space

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self._action_space

    def _seat(self, agent: str) -> int:
        return self.possible_agents.index(agent)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game, dealt from ``seed`` (as selfplay deals it), else from the env's RNG."""
        if seed is not None:
            self._rng.seed(seed)
            deal = seed
        else:
            deal = self._rng.randrange(_SEEDS)
        self.deal_seed = deal
        self.core = new_game(attrs.evolve(self.config, seed=deal))
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self._to_act()
        self._set_masks()

    def _to_act(self) -> str:
        core = self.core
        assert core is not None
        seat = core.to_act
        return self.possible_agents[seat if seat is not None else 0]

    def observe(self, agent: str) -> dict[str, np.ndarray] | np.ndarray:
        if self.core is None:
            raise RuntimeError("call reset() first")
        seat = self._seat(agent)
        mask = self._mask(seat)
        tensor = np.zeros(self.encoding.tensor_size, np.float32)
        cells = self.encoding.cells(view(self.core, seat))
        if cells:
            index, values = zip(*cells, strict=True)
            tensor[list(index)] = values
        if self.flat:
            return np.concatenate([tensor, mask.astype(np.float32)])
        return {"observation": tensor, "action_mask": mask}

    def _mask(self, seat: int) -> np.ndarray:
        assert self.core is not None
        mask = np.zeros(self.encoding.num_actions, np.int8)
        legal = legal_actions(self.core)
        if legal.seat == seat:
            mask[self.encoding.legal(legal)] = 1
        return mask

    def _set_masks(self) -> None:
        """With flat observations the mask is also each agent's ``info["action_mask"]``,
        where PettingZoo's ``api_test`` and its tutorials look for it."""
        if self.flat:
            for agent in self.agents:
                self.infos[agent]["action_mask"] = self._mask(self._seat(agent))

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        core = self.core
        assert core is not None
        if action is None:
            raise ValueError(f"{agent}: action None is only for an agent that is done")
        try:
            command = self.encoding.command(int(action), legal_actions(core))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{agent}: {exc}") from None
        self._cumulative_rewards[agent] = 0.0
        self.core, events = step(core, command)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        for event in events:
            if isinstance(event, RoundScored):
                for s, points in enumerate(event.points):
                    self.rewards[self.possible_agents[s]] = float(
                        -points if self.encoding.rules.low_wins(self.config) else points
                    )
        if self.core.over:
            self.terminations = dict.fromkeys(self.agents, True)
        self._accumulate_rewards()
        self.agent_selection = self._to_act()
        self._set_masks()

    def render(self) -> str | None:
        """What the seat to act sees: hand, bids, the trick so far (the REPL's drawing)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode")
            return None
        if self.core is None:
            return "no game yet: call reset()"
        seat = self._seat(self.agent_selection)
        seen = view(self.core, seat)
        game = self.config.game
        style = render.PLAIN
        names = [f"player_{s}" for s in range(self.config.players)]
        lines = [f"round {seen.round} of {self.config.rounds}, as {names[seat]}"]
        if seen.turned is not None:
            lines.append(render.turned_up(seen.turned, style, game))
        if self.encoding.bids:
            lines.append(render.bids(seen.bids, names, seen.taken))
        else:
            lines.append(render.tricks_taken(seen.taken, names))
        lines.append(render.trick(seen.trick, seen.call, names, game, style))
        legal = legal_actions(self.core)
        lines.append(render.hand(seen.hand, game, style,
                                 legal=legal.cards if legal.seat == seat else None))
        if self.core.over:
            lines.append("game over: totals " + " ".join(str(t) for t in seen.totals))
        return "\n".join(lines)

    def close(self) -> None:
        pass


def env(players: int | None = None, mode: str | None = None, render_mode: str | None = None,
        rounds: int | None = None, game: str = "xactika",
        options: dict[str, Any] | None = None, observation: str = "dict") -> TrickTakingEnv:
    """The environment; wrap it with PettingZoo's wrappers as you like. Settings left out
    are the game's defaults."""
    return TrickTakingEnv(game=game, players=players, mode=mode, rounds=rounds,
                          render_mode=render_mode, options=options, observation=observation)


def dix_env(mode: str = "draw", render_mode: str | None = None,
            rounds: int = 1, observation: str = "dict") -> TrickTakingEnv:
    """Dix, two players."""
    return TrickTakingEnv(game="dix", players=2, mode=mode, rounds=rounds,
                          render_mode=render_mode, observation=observation)


raw_env = TrickTakingEnv
"""The environment class itself, as PettingZoo's classic modules name it."""


def parallel_env(players: int | None = None, mode: str | None = None,
                 render_mode: str | None = None, rounds: int | None = None,
                 game: str = "xactika", options: dict[str, Any] | None = None,
                 observation: str = "dict") -> ParallelEnv:
    """:func:`env` as a ParallelEnv (PettingZoo's ``turn_based_aec_to_parallel``)."""
    return turn_based_aec_to_parallel(env(players=players, mode=mode, render_mode=render_mode,
                                          rounds=rounds, game=game, options=options,
                                          observation=observation))


def dix_parallel_env(mode: str = "draw", render_mode: str | None = None,
                     rounds: int = 1, observation: str = "dict") -> ParallelEnv:
    """:func:`dix_env` as a ParallelEnv."""
    return turn_based_aec_to_parallel(dix_env(mode=mode, render_mode=render_mode,
                                              rounds=rounds, observation=observation))
