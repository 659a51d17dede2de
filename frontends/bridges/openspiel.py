"""Every registered game as an OpenSpiel game: ``python_xactika``, ``python_dix``,
``python_ohhell`` (``python_`` and the game's name).

Importing this module registers them with ``pyspiel.register_game`` (extra
``[openspiel]``)::

    import pyspiel
    import xactika.frontends.bridges.openspiel  # noqa: F401  (registers the games)
    game = pyspiel.load_game("python_xactika", {"players": 4, "mode": "bid", "rounds": 8})

Chance: a game opens with four chance nodes of 256 outcomes each, the bytes (most
significant first) of a 32-bit seed; the core then deals every round from that seed
exactly as ``xactika selfplay --seed N`` does (spec/DEALS.md), so :func:`seed_actions`
replays any seeded game. Nobody observes the seed: the deal reaches each seat only as its
hand. Every move is decided and folded by the core's ``step``; the legal actions are
``legal_actions`` numbered as in :mod:`xactika.core.engine.encoding` (bids, plays, leads
with their call). Strings and tensors, information state and observation alike, are
built from ``view(state, seat)`` and nothing else. A view holds this round's tricks and
the running totals, not earlier rounds' tricks, so the information state string adds the
earlier rounds as the seat saw them (its own events, ``visible`` to it): it has perfect
recall over the whole game, as CFR-style solvers assume. Observations, and the tensors,
are the view alone. Returns are each seat's running total
(negated in Play to Lose, so that more is better in every mode); rewards are the
points of the round just scored.

``resample_from_infostate`` draws the hidden hands among those consistent with what the
seat saw (by the game's own sampler, found with its bots: Xactika's uniformly over the
voids seen, Dix's by the Dix bot's knowledge), with the later rounds dealt from a fresh
seed, so OpenSpiel's ISMCTS can search any game with a sampler; its randomness is
OpenSpiel's (the sampler it is given, or the bot's ``random_state`` by
:func:`seed_resampler`), so a seeded search repeats. A resampled
state is a determinization for search: its history does not replay it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np
import pyspiel

from xactika.core.bots.agents import Agent, make_agent, redeal
from xactika.core.engine.api import (
    Config,
    Event,
    GameStarted,
    RoundScored,
    State,
    game_rules,
    games,
    legal_actions,
    replay,
    start,
    step,
)
from xactika.core.engine.encoding import Encoding
from xactika.core.engine.views import view, visible
from xactika.protocol.notation.text import format_event

SEED_BYTES = 4
_SAMPLER_SPAN = 2**53  # a uniform float in [0, 1) holds 53 random bits
_BYTE = 256
_CHANCE = int(pyspiel.PlayerId.CHANCE)
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)


def seed_actions(seed: int) -> list[int]:
    """The chance actions that deal from ``seed`` (0 to 2**32 - 1), most significant first."""
    if not 0 <= seed < _BYTE**SEED_BYTES:
        raise ValueError(f"seed must be 0 to {_BYTE**SEED_BYTES - 1}, not {seed}")
    return [(seed >> (8 * (SEED_BYTES - 1 - i))) & 0xFF for i in range(SEED_BYTES)]


def _defaults(game: str) -> dict[str, Any]:
    """The parameters a game is loaded with when none are given: the game's defaults, and
    each of its own options (``TrickGame.option_types``) as its type's empty value (0 or
    ""), which stands for the game's default (OpenSpiel wants a value of the type). The
    rounds too are 0, the game's for the options given (Oh Hell's follow its ``top``)."""
    rules = game_rules(game)
    found: dict[str, Any] = {"players": rules.default_players, "mode": rules.default_mode,
                             "rounds": 0}
    found.update({name: kind() for name, kind in rules.option_types.items()})
    return found


def _game_type(game: str) -> pyspiel.GameType:
    rules = game_rules(game)
    rules_range = (rules.min_players, rules.max_players)
    return pyspiel.GameType(
        short_name=f"python_{game}",
        long_name=f"Python {game.capitalize()} (xactika engine)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.REWARDS,
        max_num_players=rules_range[1],
        min_num_players=rules_range[0],
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_defaults(game),
    )


class TrickTakingGame(pyspiel.Game):
    """One game of the core under its settings; states hold a core :class:`State`."""

    game_name = ""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        enc = _encoding(self.game_name, params or {})  # validates the settings
        config = enc.config
        lo, hi = enc.rules.score_bounds(config)
        if enc.rules.low_wins(config):  # returns are negated where low wins
            lo, hi = -hi, -lo
        players_moves = config.players * (enc.tricks + (1 if enc.bids else 0))
        info = pyspiel.GameInfo(
            num_distinct_actions=enc.num_actions,
            max_chance_outcomes=_BYTE,
            num_players=config.players,
            min_utility=float(lo),
            max_utility=float(hi),
            max_game_length=players_moves * config.rounds,
        )
        super().__init__(_game_type(self.game_name), info, params or {})

    def new_initial_state(self) -> TrickTakingState:
        return TrickTakingState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> ViewObserver:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        return ViewObserver(_encoding_of(self))


_ENCODINGS: dict[tuple[Any, ...], Encoding] = {}


def _encoding(game: str, params: dict[str, Any]) -> Encoding:
    """The encoding of a game's settings, made once per settings."""
    merged = {**_defaults(game), **params}
    kinds = game_rules(game).option_types
    options = tuple(sorted((name, merged[name]) for name, kind in kinds.items()
                           if merged[name] != kind()))  # the empty value: the default
    key = (game, str(merged["mode"]), int(merged["players"]), int(merged["rounds"]), options)
    enc = _ENCODINGS.get(key)
    if enc is None:
        rounds: dict[str, Any] = {"rounds": key[3]} if key[3] else {}  # 0: the game's
        enc = _ENCODINGS[key] = Encoding(
            Config(game=game, mode=key[1], players=key[2], options=dict(options), **rounds)
        )
    return enc


def _encoding_of(game: pyspiel.Game) -> Encoding:
    """From the game's parameters: OpenSpiel may hand states a game object that has lost
    its Python attributes (after deserializing), but never its parameters."""
    name = game.get_type().short_name.removeprefix("python_")
    return _encoding(name, game.get_parameters())


GAME_CLASSES: dict[str, type[TrickTakingGame]] = {
    name: type(f"{name.capitalize()}Game", (TrickTakingGame,), {"game_name": name})
    for name in games()
}
"""A :class:`TrickTakingGame` subclass per registered game, ``python_<name>`` in OpenSpiel."""
XactikaGame = GAME_CLASSES["xactika"]
DixGame = GAME_CLASSES["dix"]


@attrs.frozen(slots=True)
class _Shared:
    """What clones of a state may share, because none of it ever changes."""

    game: TrickTakingGame
    encoding: Encoding
    core: State | None
    past: tuple[str, ...] = ()  # per seat: the finished rounds' events as it saw them
    round_events: tuple[Event, ...] = ()  # this round's events so far, from its deal

    def __deepcopy__(self, memo: dict[int, Any]) -> _Shared:
        return self


class TrickTakingState(pyspiel.State):
    """Seed bytes first (chance), then the core's state, moved only by ``step``."""

    def __init__(self, game: TrickTakingGame) -> None:
        super().__init__(game)
        # OpenSpiel clones a Python state with deepcopy: the game, its encoding and the
        # immutable core state are shared through a box, not copied card by card
        self._box = _Shared(game, _encoding_of(game), None)
        self._player = _CHANCE  # OpenSpiel asks several times a move
        self.seed_bytes: list[int] = []
        self._rewards = [0.0] * self.encoding.config.players

    @property
    def _game(self) -> TrickTakingGame:
        return self._box.game

    @property
    def encoding(self) -> Encoding:
        return self._box.encoding

    @property
    def core(self) -> State | None:
        """The core state, None until the seed is drawn."""
        return self._box.core

    @core.setter
    def core(self, value: State | None) -> None:
        self._box = attrs.evolve(self._box, core=value)
        if value is None:
            self._player = _CHANCE
        elif value.over or value.to_act is None:
            self._player = _TERMINAL
        else:
            self._player = value.to_act

    # -- the OpenSpiel state API
    def current_player(self) -> int:
        return self._player

    def _legal_actions(self, player: int) -> list[int]:
        if self.core is None or player != self.core.to_act:
            return []
        return self.encoding.legal(legal_actions(self.core))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.core is not None:
            return []
        p = 1.0 / _BYTE
        return [(b, p) for b in range(_BYTE)]

    def _apply_action(self, action: int) -> None:
        if self.core is None:
            if not 0 <= action < _BYTE:
                raise ValueError(f"chance action {action} is not a byte")
            self.seed_bytes.append(int(action))
            self._rewards = [0.0] * self.encoding.config.players
            if len(self.seed_bytes) == SEED_BYTES:
                seed = 0
                for b in self.seed_bytes:
                    seed = seed * _BYTE + b
                events = start(attrs.evolve(self.encoding.config, seed=seed))
                self.core = replay(events)
                self._remember(events)
            return
        command = self.encoding.command(int(action), legal_actions(self.core))
        self.core, events = step(self.core, command)
        rewards = [0.0] * self.encoding.config.players
        for event in events:
            if isinstance(event, RoundScored):
                rewards = [self._signed(p) for p in event.points]
        self._rewards = rewards
        self._remember(events)

    def _remember(self, events: Sequence[Event]) -> None:
        """Keep this round's events; at its end, add them to each seat's past as the
        seat saw them (for information states with perfect recall across rounds)."""
        box = self._box
        past, kept = box.past, list(box.round_events)
        for event in events:
            if isinstance(event, GameStarted):
                continue
            kept.append(event)
            if isinstance(event, RoundScored):
                rules = game_rules(self.encoding.config.game)
                past = tuple(
                    before + "".join("\n" + format_event(visible(e, seat), rules) for e in kept)
                    for seat, before in enumerate(past or ("",) * self.encoding.config.players)
                )
                kept = []
        self._box = attrs.evolve(box, past=past, round_events=tuple(kept))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"seed byte {action}"
        return self.encoding.describe(action)

    def is_terminal(self) -> bool:
        return self._player == _TERMINAL

    def returns(self) -> list[float]:
        if self.core is None:
            return [0.0] * self.encoding.config.players
        return [self._signed(t) for t in self.core.totals]

    def rewards(self) -> list[float]:
        return list(self._rewards)

    def _signed(self, points: int) -> float:
        encoding = self.encoding
        return float(-points if encoding.rules.low_wins(encoding.config) else points)

    def information_state_string(self, player: int | None = None) -> str:
        """The view, then every earlier round's events as this seat saw them."""
        seat = self._seat(player)
        past = self._box.past
        return self._text(seat) + (past[seat] if past else "")

    def observation_string(self, player: int | None = None) -> str:
        return self._text(self._seat(player))

    def information_state_tensor(self, player: int | None = None) -> list[float]:
        return self._tensor(self._seat(player))

    def observation_tensor(self, player: int | None = None) -> list[float]:
        return self._tensor(self._seat(player))

    def _seat(self, player: int | None) -> int:
        seat = self.current_player() if player is None else player
        if not 0 <= seat < self.encoding.config.players:
            raise ValueError(f"player {seat} is not a seat")
        return seat

    def _text(self, seat: int) -> str:
        if self.core is None:
            return f"seat={seat} dealing"
        return self.encoding.text(view(self.core, seat))

    def _tensor(self, seat: int) -> list[float]:
        if self.core is None:
            out = [0.0] * self.encoding.tensor_size
            out[seat] = 1.0
            return out
        return self.encoding.tensor(view(self.core, seat))

    def __str__(self) -> str:
        if self.core is None:
            return f"dealing: {len(self.seed_bytes)} of {SEED_BYTES} seed bytes drawn"
        core = self.core
        hands = " | ".join(",".join(str(c) for c in h) for h in core.hands)
        return f"round {core.round} seq {core.seq} to_act={core.to_act} hands {hands}"

    # -- determinization for ISMCTS
    def resample_from_infostate(self, player_id: int, probability_sampler: Any = None,
                                rng: random.Random | None = None) -> TrickTakingState:
        """A state ``player_id`` cannot tell from this one, hidden hands drawn uniformly.

        The randomness is OpenSpiel's: its ``probability_sampler`` (a callable giving a
        uniform float in [0, 1)) seeds the draw, never an unseeded generator of ours.
        ``ISMCTSBot`` passes an unseeded sampler of its own; :func:`seed_resampler` (which
        our :func:`evaluate_bots` applies) makes it draw from the bot's ``random_state``."""
        if rng is None and probability_sampler is not None:
            rng = random.Random(int(float(probability_sampler()) * _SAMPLER_SPAN))
        return resample(self, player_id, rng)


def resample(state: TrickTakingState, seat: int,
             rng: random.Random | None = None) -> TrickTakingState:
    """A determinization of ``state`` for ``seat``: its view is unchanged, the other
    hands are drawn among those consistent with that view (the game's own sampler,
    :func:`xactika.core.bots.agents.redeal`), and
    the rounds after this one are dealt from a fresh seed.

    In Xactika the core state is the one the fold gives for the same events with this
    round's deal holding the drawn hands and game-started the fresh seed
    (tests/test_openspiel.py checks it); it is built by replacing those fields, as a
    replay costs a whole game's steps and ISMCTS asks for one determinization per
    simulation."""
    rng = rng or random.Random()
    core = state.core
    game = state._game
    if core is None:
        return game.new_initial_state()
    hands, aside = redeal(core, seat, rng)
    config = attrs.evolve(core.config, seed=rng.randrange(_BYTE**SEED_BYTES), deals=None)
    copy = game.new_initial_state()
    copy.seed_bytes = list(state.seed_bytes)
    # the history as ``seat`` saw it, for every seat: nothing hidden from it survives
    box = state._box
    copy._box = attrs.evolve(
        box, core=attrs.evolve(core, config=config, hands=hands, aside=aside),
        past=(box.past[seat],) * len(box.past) if box.past else (),
        round_events=tuple(visible(e, seat) for e in box.round_events))
    copy.core = copy.core  # sets who acts
    copy._rewards = list(state._rewards)
    return copy


class ViewObserver:
    """OpenSpiel's PyObserver: the tensor and string of ``view(state, seat)``."""

    def __init__(self, encoding: Encoding) -> None:
        self.encoding = encoding
        self.tensor = np.zeros(encoding.tensor_size, np.float32)
        self.dict: dict[str, np.ndarray] = {}
        for piece in encoding.pieces:
            self.dict[piece.name] = self.tensor[piece.start:piece.start + piece.size].reshape(
                piece.shape
            )

    def set_from(self, state: TrickTakingState, player: int) -> None:
        self.tensor[:] = state._tensor(player)

    def string_from(self, state: TrickTakingState, player: int) -> str:
        return state._text(player)


class AgentBot(pyspiel.Bot):
    """A built-in bot (``random``, ``heuristic``, ``strong``) as an OpenSpiel bot.

    It is given only ``view(state, seat)`` and ``legal_actions``, like every agent; it
    plays its implementation for the game it is shown (``game`` fixes one in advance).
    """

    def __init__(self, name: str, seat: int, seed: int | None = None,
                 game: str | None = None, agent: Agent | None = None) -> None:
        pyspiel.Bot.__init__(self)
        self.name = name
        self.seat = seat
        self.agent = agent if agent is not None else make_agent(name, seed, game)

    def step(self, state: TrickTakingState) -> int:
        core = state.core
        if core is None or core.to_act != self.seat:
            raise ValueError(f"bot {self.name!r} asked to move for seat {self.seat} out of turn")
        legal = legal_actions(core)
        command = self.agent.choose(view(core, self.seat), legal)
        return state.encoding.action(command)

    def restart_at(self, state: Any) -> None:
        pass

    def inform_action(self, state: Any, player_id: int, action: int) -> None:
        pass

    def provides_policy(self) -> bool:
        return False


class _NoRestart(pyspiel.Bot):
    """A bot without ``restart_at``, restarted by doing nothing: it keeps no state between
    moves (OpenSpiel's Python ``ISMCTSBot`` searches afresh from each state it is given)."""

    def __init__(self, bot: pyspiel.Bot) -> None:
        pyspiel.Bot.__init__(self)
        self.bot = bot

    def step(self, state: Any) -> int:
        return int(self.bot.step(state))

    def restart_at(self, state: Any) -> None:
        pass

    def inform_action(self, state: Any, player_id: int, action: int) -> None:
        self.bot.inform_action(state, player_id, action)

    def provides_policy(self) -> bool:
        return False


def _restartable(bot: pyspiel.Bot, state: Any) -> pyspiel.Bot:
    if isinstance(bot, pyspiel.Bot) and type(bot).restart_at is pyspiel.Bot.restart_at:
        # a Python bot that does not override it: pyspiel.Bot's default would print
        # "OpenSpiel exception: RestartAt(state) not implemented." on stderr and raise
        return _NoRestart(bot)
    try:
        bot.restart_at(state)
    except pyspiel.SpielError as exc:  # pyspiel.Bot's default: "not implemented"
        if "not implemented" not in str(exc):
            raise
        return _NoRestart(bot)
    return bot


def seed_resampler(bot: Any, rng: np.random.RandomState | np.random.Generator | None = None,
                   ) -> Any:
    """Make OpenSpiel's ``ISMCTSBot`` repeat under its seed: its determinizations drawn
    from ``rng`` (the bot's own ``random_state`` by default) rather than from the unseeded
    sampler it hands to ``resample_from_infostate``. Still the game's own, void-aware
    sampler. A bot that has a resampler of its own keeps it. Returns the bot."""
    if not hasattr(bot, "set_resampler") or getattr(bot, "_resampler_cb", None) is not None:
        return bot
    source = rng if rng is not None else getattr(bot, "_random_state", None)
    if source is None:
        return bot

    def draw(state: Any, seat: int) -> Any:
        return resample(state, seat, random.Random(int(source.integers(2**62))
                                                   if isinstance(source, np.random.Generator)
                                                   else int(source.randint(2**62))))

    bot.set_resampler(draw)
    return bot


def evaluate_bots(state: Any, bots: Sequence[pyspiel.Bot],
                  rng: np.random.RandomState | np.random.Generator | int) -> list[float]:
    """OpenSpiel's own ``evaluate_bots`` for any mix of our bots and theirs.

    Theirs fails on a bot that does not implement ``restart_at``, as ``ISMCTSBot`` does
    not (``SpielError: RestartAt(state) not implemented``); such a bot keeps nothing
    between moves, so it is wrapped to restart by doing nothing, and an ``ISMCTSBot``
    resamples from its own ``random_state`` (:func:`seed_resampler`), so the same seeds
    play the same game. ``rng`` is a numpy random state, or an int seed for one. Returns
    each seat's returns at the end."""
    from open_spiel.python.algorithms import evaluate_bots as spiel

    if isinstance(rng, int):
        rng = np.random.RandomState(rng)
    players = [_restartable(seed_resampler(bot), state) for bot in bots]
    return [float(r) for r in spiel.evaluate_bots(state, players, rng)]


def play_bots(state: TrickTakingState, bots: Sequence[pyspiel.Bot],
              rng: random.Random) -> TrickTakingState:
    """Play ``state`` to the end: chance by ``rng``, seat ``s`` by ``bots[s]``."""
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(actions, probs)[0])
        else:
            state.apply_action(int(bots[state.current_player()].step(state)))
    return state


for _name, _cls in GAME_CLASSES.items():
    globals().setdefault(_cls.__name__, _cls)  # found by name, as pickle looks for it
    pyspiel.register_game(_game_type(_name), _cls)
