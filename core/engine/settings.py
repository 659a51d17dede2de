"""What fixes a game before its first card: :class:`Config` and preset deals."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import attrs

Card = Any  # each game has its own card type; the machinery only hashes and compares them
Hand = tuple[Card, ...]


@attrs.frozen(slots=True)
class PresetDeal:
    """One round's cards fixed in advance: every seat's hand, and optionally the rest.

    ``rest`` is the undealt cards in order (Dix draws from it); when it is None the
    rest is every other card of the deck in deck order.
    """

    hands: tuple[Hand, ...]
    rest: Hand | None = None


Option = int | str
"""A game's own setting's value (Dix's ``target``)."""
Options = tuple[tuple[str, Option], ...]


def _options(value: Mapping[str, Option | None] | Iterable[tuple[str, Option | None]]) -> Options:
    """A game's own settings as sorted (name, value) pairs, None values left out: one
    spelling for equal settings, and hashable like the rest of :class:`Config`."""
    items = value.items() if isinstance(value, Mapping) else value
    return tuple(sorted((str(k), v) for k, v in items if v is not None))


def options_of(value: Mapping[str, Option | None] | Iterable[tuple[str, Option | None]]
               ) -> Options:
    """The same, for a game's settings kept outside a Config (a match's)."""
    return _options(value)


class _GameDefault(int):
    """A count the game's default gave (left out of ``Config(...)``), not one given:
    ``__attrs_post_init__`` asks the game again once the options are known."""


def _game_default(name: str, fallback: Any) -> Any:
    """An attrs default: the game's own ``default_<name>`` (its last mode, its players,
    its rounds), so ``Config(game="dix", seed=1)`` is a Dix game as the protocol's
    defaults make it. A game not registered (yet) gets ``fallback``; validating names it."""

    def default(config: Config) -> Any:
        from xactika.core.engine.rules import _GAMES  # the registry imports this module

        game = _GAMES.get(config.game)
        value = getattr(game, f"default_{name}") if game is not None else fallback
        return _GameDefault(value) if name == "rounds" else value

    return attrs.Factory(default, takes_self=True)


@attrs.frozen(slots=True)
class Config:
    """Everything that fixes a game before the first card: the game-started event.

    ``mode``, ``players`` and ``rounds`` left out are the game's defaults
    (:attr:`TrickGame.default_mode` and the others): Xactika's are Play to Bid, 4 players
    and 8 rounds.

    ``options`` holds the settings only some games take (Dix's ``target``), by name;
    the game declares them (:attr:`TrickGame.option_types`) and validates them. Give a
    mapping: ``Config(game="dix", options={"target": 50})``.
    """

    game: str = "xactika"
    mode: str = attrs.field(default=_game_default("mode", ""))
    players: int = attrs.field(default=_game_default("players", 0))
    rounds: int = attrs.field(default=_game_default("rounds", 0))
    dealer: int = 0
    seed: int | None = None
    deals: tuple[PresetDeal, ...] | None = None
    options: Options = attrs.field(default=(), converter=_options)
    # tamper evidence (spec/TAMPER.md): commit = SHA-256 of the seed and a secret nonce;
    # seats see the commitment, the seed and nonce are revealed by game-over.
    nonce: str | None = None
    commit: str | None = None

    def __attrs_post_init__(self) -> None:
        if type(self.rounds) is _GameDefault:  # the rounds follow the options (Oh Hell's top)
            from xactika.core.engine.rules import _GAMES

            game = _GAMES.get(self.game)
            rounds = game.rounds_for(dict(self.options)) if game is not None else self.rounds
            object.__setattr__(self, "rounds", int(rounds))

    def option(self, name: str) -> Option | None:
        """The game's own setting ``name``, or None where it is not given."""
        for key, value in self.options:
            if key == name:
                return value
        return None
