"""Bots are found by the game's name (core/bots/games/<game>.py), as games and
presentations are: imported only when that game's bots are asked for, a plug-in that
registers first takes nothing from them, and a seat is labelled as what really plays."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from xactika.core import games
from xactika.core.bots import agents, levels
from xactika.core.bots.agents import plays

GAME_BOTS = Path(agents.__file__).parent / "games"


def _fresh(code: str) -> list[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=60).stdout.split()


def test_a_games_bots_load_without_any_other_games() -> None:
    loaded = _fresh(
        "import sys\n"
        "from xactika.core.bots.agents import make_agent\n"
        "print(type(make_agent('heuristic', 1, game='dix')).__name__)\n"
        "print(*sorted(m for m in sys.modules if m.startswith('xactika.core.bots')))\n")
    assert loaded[0] == "DixHeuristicAgent"
    assert "xactika.core.bots.games.dix" in loaded
    others = [m for m in loaded[1:] if m.endswith((".xactika", ".ohhell", ".search",
                                                    ".heuristic", ".levels", ".ohhellbot"))]
    assert others == []


def test_a_plug_in_registering_first_takes_nothing_from_the_built_ins() -> None:
    said = _fresh(
        "import random\n"
        "from xactika.core import Config, new_game\n"
        "from xactika.core.bots.agents import RandomAgent, agent_factory, redeal,"
        " register_agent, register_redeal\n"
        "register_agent('mine', RandomAgent, game='xactika')\n"
        "register_agent('heuristic', RandomAgent, game='plug-in')\n"
        "register_redeal('plug-in', lambda state, seat, rng: ((), ()))\n"
        "print(*(type(agent_factory(n, g)(1)).__name__ for n in ('heuristic', 'strong:1')"
        " for g in ('xactika', 'dix', 'ohhell')))\n"
        "hands, _ = redeal(new_game(Config(players=3, seed=1)), 0, random.Random(2))\n"
        "print(len(hands))\n")
    assert said == ["HeuristicAgent", "DixHeuristicAgent", "OhHellHeuristicAgent",
                    "ByMode", "DixHeuristicAgent", "OhHellSearchAgent", "3"]


def test_every_module_of_game_bots_is_named_as_a_registered_game() -> None:
    modules = {p.stem for p in GAME_BOTS.glob("*.py")} - {"__init__"}
    assert modules and modules <= set(games())


def test_the_levels_are_the_same_everywhere() -> None:
    assert agents.LEVELS == levels.LEVELS
    assert [agents.level_bot(n) for n in agents.LEVELS] == [
        levels.level_name(n) for n in levels.LEVELS]


@pytest.mark.parametrize(("game", "name", "label"), [
    ("xactika", "strong:1", "beginner"), ("xactika", "strong:3", "heuristic"),
    ("xactika", "strong:5", "strong"), ("xactika", "strong", "strong"),
    ("dix", "strong:1", "heuristic"), ("dix", "strong:5", "heuristic"),
    ("dix", "strong", "heuristic"),  # Dix's strong bot is its heuristic
    ("ohhell", "strong:1", "strong"), ("ohhell", "heuristic", "heuristic"),
    ("no-such-game", "heuristic", "random"), ("no-such-game", "strong:4", "random"),
    ("dix", "random", "random"),
])
def test_a_seat_is_labelled_as_what_plays_it(game: str, name: str, label: str) -> None:
    assert plays(name, game) == label


def test_an_unknown_bot_is_still_an_error() -> None:
    with pytest.raises(ValueError, match="unknown bot 'nope': expected one of"):
        plays("nope", "dix")


def test_a_game_with_only_a_heuristic_plays_it_at_every_level(
        monkeypatch: pytest.MonkeyPatch) -> None:
    agents.agent_names()  # the built-ins first, then a copy the test may change
    monkeypatch.setattr(agents, "_AGENTS", {k: dict(v) for k, v in agents._AGENTS.items()})
    class Mine(agents.RandomAgent):
        """The plug-in's heuristic."""

    agents.register_agent("heuristic", Mine, game="plug-in")
    assert [plays(agents.level_bot(n), "plug-in") for n in agents.LEVELS] == ["heuristic"] * 5
    assert plays("strong", "plug-in") == "random"  # no strong bot: not passed off as one
    assert not agents.implemented("strong", "plug-in")
    assert agents.implemented("strong:1", "plug-in")
