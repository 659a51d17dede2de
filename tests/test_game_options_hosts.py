"""Every host takes every registered game's own settings (``TrickGame.option_types``):
``serve --game ohhell --top 4``, ``pyspiel.load_game("python_ohhell", {"top": 3})``,
PettingZoo's ``env(options=...)`` and the match's ``--NAME`` flags, each game's config
holding the value given (issue 41)."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from xactika.core.engine.api import Config, game_rules, games
from xactika.core.engine.errors import ConfigError

pyspiel = pytest.importorskip("pyspiel")
pytest.importorskip("pettingzoo")

from xactika.frontends.bridges import openspiel  # noqa: E402
from xactika.frontends.bridges.pettingzoo import env  # noqa: E402
from xactika.frontends.match import runner  # noqa: E402
from xactika.frontends.net import serve  # noqa: E402
from xactika.protocol.net.seating import table_settings  # noqa: E402


def valid_value(game: str, name: str) -> Any:
    """A value of the option the game accepts and that is not its empty value."""
    rules = game_rules(game)
    kind = rules.option_types[name]
    tries: tuple[Any, ...] = rules.option_choices.get(name, ()) if kind is str else (3, 1, 2)
    for value in reversed(tries) if kind is str else tries:
        config = Config(game=game, seed=1, options={name: value})
        try:
            rules.validate(config)
        except ConfigError:  # the next value, then
            continue
        return value
    raise AssertionError(f"no value found for {game}'s option {name}")


OPTIONS = [(game, name, valid_value(game, name))
           for game in sorted(games()) for name in game_rules(game).option_types]


def test_there_are_options_to_test() -> None:
    assert ("ohhell", "top", 3) in OPTIONS and ("dix", "target", 3) in OPTIONS


@pytest.mark.parametrize(("game", "name", "value"), OPTIONS)
def test_serve_takes_every_option(game: str, name: str, value: Any) -> None:
    args = serve.build_parser().parse_args(["--game", game, f"--{name}", str(value)])
    settings = table_settings(serve._pairs(args, 0))
    assert settings.config.game == game
    assert settings.config.option(name) == value


@pytest.mark.parametrize(("game", "name", "value"), OPTIONS)
def test_openspiel_takes_every_option_and_says_nothing_on_stderr(
        game: str, name: str, value: Any, capfd: pytest.CaptureFixture[str]) -> None:
    loaded = pyspiel.load_game(f"python_{game}", {name: value})
    assert openspiel._encoding_of(loaded).config.option(name) == value
    state = loaded.new_initial_state()
    for action in openspiel.seed_actions(5):
        state.apply_action(action)
    rules = game_rules(game)
    config = Config(game=game, seed=5, options={name: value})
    assert state.core.config.option(name) == value
    assert len(state.core.hands[0]) == rules.hand_size(config, 1)
    # the rounds left out are the game's for these options (Oh Hell's follow its top)
    assert openspiel._encoding_of(loaded).config.rounds == config.rounds
    plain = pyspiel.load_game(f"python_{game}")  # the empty value: the game's default
    assert openspiel._encoding_of(plain).config.options == ()
    assert openspiel._encoding_of(plain).config.rounds == rules.default_rounds
    assert capfd.readouterr().err == ""


@pytest.mark.parametrize(("game", "name", "value"), OPTIONS)
def test_pettingzoo_takes_every_option(game: str, name: str, value: Any) -> None:
    e = env(game=game, options={name: value})
    e.reset(seed=5)
    assert e.core is not None and e.core.config.option(name) == value


@pytest.mark.parametrize(("game", "name", "value"), OPTIONS)
def test_match_takes_every_option(game: str, name: str, value: Any) -> None:
    args = runner.build_parser().parse_args(
        ["--game", game, f"--{name}", str(value), "--bot", "random", "--bot", "random"])
    assert runner.given_options(args) == {name: value}
    config = attrs.evolve(Config(game=game, seed=1), options=runner.given_options(args))
    game_rules(game).validate(config)
