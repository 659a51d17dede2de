"""The game hooks: :class:`TrickGame`, the rule questions a game answers, and the
registry of games by name."""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from xactika.core.engine.errors import ConfigError, IllegalCommand
from xactika.core.engine.events import Dealt, Event, GameEvent
from xactika.core.engine.reason import Reason
from xactika.core.engine.settings import Card, Config, PresetDeal

if TYPE_CHECKING:
    from xactika.core.engine.state import State


class TrickGame:
    """Rule questions with the answers most trick-taking games share.

    A game subclasses this and overrides what differs. Every method is pure.
    """

    name: ClassVar[str] = ""
    modes: ClassVar[tuple[str, ...]] = ()
    """The modes, the default last (what a setting left out takes)."""
    mode_names: ClassVar[Mapping[str, str]] = {}
    """How people call a mode (Xactika's "Play to Win"); a mode not here is its own name."""
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 2
    default_players: ClassVar[int] = 2
    default_rounds: ClassVar[int] = 1
    option_types: ClassVar[Mapping[str, type]] = {}
    """The game's own settings (``Config.options``) and their types, int or str: Dix's
    ``target``. The game checks their values in :meth:`validate_options`."""
    option_help: ClassVar[Mapping[str, str]] = {}
    """Each option in a few words, for the command lines' ``--NAME`` help."""
    option_choices: ClassVar[Mapping[str, tuple[str, ...]]] = {}
    """The values a text option takes, where it takes only a few (a form offers them)."""
    events: ClassVar[tuple[type[GameEvent], ...]] = ()
    """The game's own event classes (Dix's draws), each with ``kind`` and ``field_types``;
    it registers their folds (:func:`register_evolver`) and views itself."""

    # -- settings
    @property
    def default_mode(self) -> str:
        return self.modes[-1]

    def rounds_for(self, options: Mapping[str, Any]) -> int:
        """The rounds played when none are given, for the game's own settings ``options``
        (Oh Hell's follow its ``top``): :attr:`default_rounds` unless a game says."""
        return self.default_rounds

    def mode_name(self, mode: str) -> str:
        """The mode as people call it: "Play to Lose", or "draw" where it has no other."""
        return self.mode_names.get(mode, mode)

    def low_wins(self, config: Config) -> bool:
        """Whether the lowest total wins (Xactika's Play to Lose)."""
        return False

    def validate_options(self, config: Config) -> None:
        """Every option is one this game takes, of its type; games check the values."""
        for key, value in config.options:
            kind = self.option_types.get(key)
            if kind is None:
                raise ConfigError(Reason("{game} takes no setting {key} ({key}={value})",
                                         game=self.name, key=key, value=value))
            if type(value) is not kind:
                raise ConfigError(Reason("{key} must be {kind}, not {value!r}", key=key,
                                         kind=_TYPE_WORDS.get(kind, kind.__name__),
                                         value=value))

    def validate(self, config: Config) -> None:
        if config.mode not in self.modes:
            raise ConfigError(Reason("unknown mode {mode!r} for {game}: expected one of {modes}",
                                     mode=config.mode, game=self.name,
                                     modes=", ".join(self.modes)))
        if not self.min_players <= config.players <= self.max_players:
            if self.min_players == self.max_players:
                raise ConfigError(Reason("{game} takes exactly {most} players, not {players}",
                                         game=self.name, most=self.max_players,
                                         players=config.players))
            raise ConfigError(Reason("{game} takes {least} to {most} players, not {players}",
                                     game=self.name, least=self.min_players,
                                     most=self.max_players, players=config.players))
        if config.rounds < 1:
            raise ConfigError(Reason("rounds must be at least 1, not {rounds}",
                                     rounds=config.rounds))
        if not 0 <= config.dealer < config.players:
            raise ConfigError(Reason("dealer must be a seat from 0 to {last}, not {dealer}",
                                     last=config.players - 1, dealer=config.dealer))
        if config.seed is None and config.deals is None:
            raise ConfigError(Reason("a game needs a seed or preset deals"))
        if config.seed is not None and config.seed < 0:
            raise ConfigError(Reason("seed must be 0 or more, not {seed}", seed=config.seed))
        self.validate_options(config)
        if config.deals is not None:
            for i, preset in enumerate(config.deals):
                self.check_preset(config, preset, i + 1)
            if config.seed is None:
                self.check_presets_without_seed(config)

    def check_presets_without_seed(self, config: Config) -> None:
        """Preset deals and no seed: a deal for every round (Dix adds its target)."""
        assert config.deals is not None
        if len(config.deals) < config.rounds:
            raise ConfigError(
                f"{len(config.deals)} preset deals for {config.rounds} rounds: give a "
                "deal for every round, or a seed for the rounds after the last preset deal"
            )

    # what a preset deal is checked against; a game without a deck takes no presets
    deck: ClassVar[tuple[Any, ...]] = ()
    card_type: ClassVar[type] = object
    rest_order: ClassVar[str] = ""  # how the rest is ordered, for the error message

    def hand_size(self, config: Config, round_no: int = 1) -> int:
        """The cards each seat is dealt in round ``round_no`` (from 1)."""
        raise NotImplementedError

    def max_hand_size(self, config: Config) -> int:
        """The largest hand of any round: what fixed-size encodings make room for."""
        return max(self.hand_size(config, r) for r in range(1, config.rounds + 1))

    def tricks_per_round(self, config: Config, round_no: int = 1) -> int:
        """The tricks of round ``round_no``: a hand's size unless the game draws."""
        return self.hand_size(config, round_no)

    def round_score_bounds(self, config: Config, round_no: int = 1) -> tuple[int, int]:
        """The least and most one seat can score in round ``round_no`` (points as
        ``RoundScored`` has them: not negated where low wins). Default: a point a trick."""
        return 0, self.tricks_per_round(config, round_no)

    def score_bounds(self, config: Config) -> tuple[int, int]:
        """The least and most one seat's total can be after ``config.rounds`` rounds."""
        rounds = [self.round_score_bounds(config, r) for r in range(1, config.rounds + 1)]
        return sum(lo for lo, _ in rounds), sum(hi for _, hi in rounds)

    def check_preset(self, config: Config, preset: PresetDeal, round_no: int) -> None:
        """Every seat holds a full hand of this game's cards, each card once, and the
        rest, when given, is exactly the undealt cards."""
        if not self.deck:
            raise ConfigError(f"{self.name} does not take preset deals")
        where = f"preset deal for round {round_no}"
        if len(preset.hands) != config.players:
            raise ConfigError(f"{where} has {len(preset.hands)} hands, expected {config.players}")
        size = self.hand_size(config, round_no)
        seen: set[Card] = set()
        for seat, hand in enumerate(preset.hands):
            if len(hand) != size:
                raise ConfigError(
                    f"{where}: seat {seat} has {len(hand)} cards, expected {size} "
                    f"in {config.mode} mode"
                )
            for card in hand:
                if not isinstance(card, self.card_type):
                    raise ConfigError(f"{where}: {card!r} is not a {self.name} card")
                if card in seen:
                    raise ConfigError(f"{where}: {card} is dealt twice")
                seen.add(card)
        if preset.rest is not None:
            undealt = set(self.deck) - seen
            if set(preset.rest) != undealt or len(preset.rest) != len(undealt):
                raise ConfigError(
                    f"{where}: the rest must be exactly the {len(undealt)} undealt cards, "
                    f"each once{self.rest_order}"
                )

    # -- dealing
    def deal(self, config: Config, round_no: int, dealer: int) -> Dealt:
        """The Dealt event (seq 0) for a round: from the preset if any, else the seed."""
        raise NotImplementedError

    def first_leader(self, config: Config, dealer: int) -> int:
        return (dealer + 1) % config.players

    # -- bidding
    def has_bidding(self, config: Config) -> bool:
        return False

    def legal_bids(self, state: State) -> tuple[int, ...]:
        return ()

    # -- play
    def calls_for(self, card: Card) -> tuple[Any, ...]:
        """The calls a leader may make with ``card``; (None,) for games without calls."""
        return (None,)

    def legal_cards(self, state: State, seat: int) -> tuple[Card, ...]:
        raise NotImplementedError

    def may_play(self, state: State, seat: int, card: Card) -> bool:
        """Whether the follow rule lets ``seat`` play ``card``, which it holds.

        Must agree with :meth:`legal_cards`; games override it when they can answer
        without building the whole list (the referee asks on every card played).
        """
        return card in self.legal_cards(state, seat)

    def explain_illegal_card(self, state: State, seat: int, card: Card) -> IllegalCommand:
        """The error for a held card that the follow rule forbids."""
        return IllegalCommand(f"{card} may not be played now")

    def trick_winner(self, state: State, plays: Sequence[tuple[int, Card]], call: Any) -> int:
        raise NotImplementedError

    def after_trick(self, state: State) -> list[Event]:
        """Events (seq 0) that follow a trick, such as Dix's draws from the stock."""
        return []

    def round_over(self, state: State) -> bool:
        return not any(state.hands)

    # -- scoring
    def score_round(self, state: State) -> tuple[int, ...]:
        raise NotImplementedError

    def game_over(self, state: State) -> bool:
        return state.round >= state.config.rounds

    def winners(self, config: Config, totals: tuple[int, ...]) -> tuple[int, ...]:
        best = max(totals)
        return tuple(s for s, t in enumerate(totals) if t == best)

    def game_winners(self, state: State) -> tuple[int, ...]:
        """The game-over winners, given the state with the last round scored.

        Games whose ties are broken by play (Dix: ten-tricks, the last trick) override this.
        """
        return self.winners(state.config, state.totals)

    def next_dealer(self, config: Config, dealer: int) -> int:
        return (dealer + 1) % config.players

    # -- card text (for the protocol's edge; kept with the game that owns the cards)
    def parse_card(self, text: str) -> Card:
        raise NotImplementedError

    def parse_call(self, text: str) -> Any:
        raise NotImplementedError

    def format_call(self, call: Any) -> str:
        return str(call)

    def sort_key(self, card: Card) -> Any:
        return str(card)


_TYPE_WORDS = {int: Reason("a whole number"), str: Reason("text")}

_GAMES: dict[str, TrickGame] = {}
plugin_problems: list[str] = []
"""Why a plug-in named in ``XACTIKA_PLUGINS`` did not load (core/games/__init__.py)."""


def register_game(game: TrickGame) -> TrickGame:
    _GAMES[game.name] = game
    return game


def game_rules(name: str) -> TrickGame:
    try:
        return _GAMES[name]
    except KeyError:
        why = "".join(f" ({problem})" for problem in plugin_problems[:1])
        raise ConfigError(Reason("unknown game {name!r}: expected one of {games}{why}",
                                 name=name, games=", ".join(sorted(_GAMES)), why=why)
                          ) from None


def games() -> tuple[str, ...]:
    return tuple(sorted(_GAMES))


_LOOKED: set[str] = set()


def import_named(package: str, game: str) -> None:
    """Import ``package.game`` once, where there is such a module: how what a game has
    beyond its rules (its presentation, its cards on a terminal, its bots) is found by
    the game's name, as core/games/ finds the rules, and only when first asked for. A
    name that is no identifier (a plug-in's ``tiny-test``) has none in a package."""
    module = f"{package}.{game}"
    if module in _LOOKED:
        return
    _LOOKED.add(module)
    if game.isidentifier() and importlib.util.find_spec(module) is not None:
        importlib.import_module(module)
