"""Issue 41: every game's own options (``option_types``: Oh Hell's top, hands and hook,
Dix's target) survive the end's ``again`` and ``new``, the printed shell command, and
``save``/``--load``. ``again`` after ``--top 2 --hands fixed`` dealt a 1-card game "up to
10", and the printed command dropped them."""

from __future__ import annotations

import io
import shlex
from pathlib import Path

import pytest
from test_first_hour_play import finish, setup

from xactika.core.engine.api import Config, game_rules, games
from xactika.core.engine.errors import ConfigError
from xactika.frontends.repl import play
from xactika.frontends.repl.gameids import recall
from xactika.frontends.repl.shell import Shell


def given(game: str) -> dict[str, str]:
    """A value for each of the game's options that is not its default: a listed choice
    other than the first, the smallest whole number above 1 the game takes."""
    rules = game_rules(game)
    values: dict[str, str] = {}
    for name, kind in rules.option_types.items():
        choices = rules.option_choices.get(name)
        if choices:
            values[name] = choices[-1]
            continue
        assert kind is int
        for n in range(2, 100):
            try:
                rules.validate_options(Config(game=game, options={name: n}))
            except ConfigError:
                continue
            values[name] = str(n)
            break
    return values


GAMES = [g for g in sorted(games()) if game_rules(g).option_types]


def argv(game: str) -> list[str]:
    flags = [f for name, value in given(game).items() for f in (f"--{name}", value)]
    return ["--game", game, "--players", str(game_rules(game).min_players), *flags,
            "--seed", "4"]


def options(session: Shell) -> dict[str, object]:
    return dict(session.config.options)


def test_every_game_with_options_is_tried() -> None:
    assert {"ohhell", "dix"} <= set(GAMES)


@pytest.mark.parametrize("game", GAMES)
def test_the_printed_command_keeps_every_option(game: str) -> None:
    session = setup(*argv(game))
    assert {k: str(v) for k, v in options(session).items()} == given(game)
    finish(session)
    assert session.again is not None
    command = recall(shlex.split(session.again)[-1])  # the flags its short id keeps
    for name, value in given(game).items():
        assert command[command.index(f"--{name}") + 1] == value
    again = setup(*command)
    assert again.config.options == session.config.options
    assert again.config.rounds == session.config.rounds


@pytest.mark.parametrize("game", GAMES)
def test_again_and_new_keep_every_option(game: str, monkeypatch: pytest.MonkeyPatch) -> None:
    played: list[Shell] = []
    answers = iter(["again", "new", ""])

    def run(shell: play.Loop) -> int:
        finish(shell.session)
        played.append(shell.session)
        assert shell.session.handle(next(answers) or "quit").quit
        return 0

    monkeypatch.setattr(play.Loop, "run", run)
    assert play.main(argv(game), stdin=io.StringIO(""), stdout=io.StringIO()) == 0
    assert len(played) == 3
    for session in played:
        assert options(session) == options(played[0]) != {}
        assert session.config.rounds == played[0].config.rounds


@pytest.mark.parametrize("game", GAMES)
def test_save_and_load_keep_every_option(game: str, tmp_path: Path) -> None:
    session = setup(*argv(game))
    session.advance()
    path = tmp_path / "game.rec"
    assert "saved" in session.save(str(path))
    loaded = setup("--load", str(path))
    assert loaded.config.options == session.config.options
