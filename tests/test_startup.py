"""``xactika bot random`` starts without the core (protocol/player/lean.py), and answers
exactly as PlayerSession with RandomAgent, the reference, would for the same seed."""

from __future__ import annotations

import subprocess
import sys

import pytest

from xactika.core import Config, RandomAgent, game_rules, games
from xactika.core.bots.agents import agent_factory, self_play
from xactika.frontends.stdio.bot import build_parser, plain_args
from xactika.protocol.player.agentside import PlayerSession
from xactika.protocol.player.lean import LeanRandomSession
from xactika.protocol.player.process import LoopbackPlayer, ProcessAgent

HEAVY = (
    "xactika.core", "attrs", "attr", "xactika.protocol.player.agentside",
    "xactika.protocol.notation.text",
)
# Runs ``python -m xactika.frontends.cli ARGS...`` as the match runner does, and names on
# stderr, at exit, every module the process loaded (-X importtime would miss those that
# importlib.import_module loads).
PROBE = """
import atexit, runpy, sys
atexit.register(lambda: print("MODULES", *sorted(sys.modules), file=sys.stderr))
sys.argv[0] = "xactika"
runpy.run_module("xactika.frontends.cli", run_name="__main__", alter_sys=True)
"""


def run_cli(*args: str, script: str = "") -> tuple[list[str], set[str]]:
    """What ``xactika ARGS`` prints given ``script`` on stdin, and the modules it loaded."""
    out = subprocess.run([sys.executable, "-c", PROBE, *args], input=script,
                         capture_output=True, text=True, timeout=60, check=True)
    listed = [line for line in out.stderr.splitlines() if line.startswith("MODULES ")]
    assert len(listed) == 1, out.stderr
    return out.stdout.splitlines(), set(listed[0].split()[1:])


def under(modules: set[str], *packages: str) -> list[str]:
    return sorted(m for m in modules if any(m == p or m.startswith(p + ".") for p in packages))


def test_the_random_bot_process_plays_without_importing_the_core() -> None:
    script = ("hello 1\nisready\nnewgame seat=0\n"
              "event 1 game-started game=xactika mode=bid players=2 rounds=1 dealer=0\n"
              "event 2 deal round=1 dealer=0 hands=2112,2121/? aside=?\n"
              "go bid options=0,1,2\n"
              "go lead options=2112:2ba,2112:1cu,2112:1co,2112:2st,2121:2ba\nquit\n")
    lines, modules = run_cli("bot", "random", "--seed", "5", script=script)
    assert lines[:2] == ["hello 1 name=random", "readyok"]
    assert lines[2] in ("bid 0", "bid 1", "bid 2") and lines[3].startswith("play 21")
    assert "xactika.protocol.player.lean" in modules  # the probe sees our own imports
    assert under(modules, *HEAVY) == []


def test_the_engine_answers_readyok_without_the_bots() -> None:
    lines, modules = run_cli("engine", script="isready\n")
    assert lines == ["readyok"]
    assert "xactika.protocol.referee.sansio" in modules
    assert under(modules, "xactika.core.bots") == []


def test_the_core_loads_the_bots_and_seed_hashing_only_when_used() -> None:
    code = ("import sys, xactika.core as core\n"
            "print(*sorted(sys.modules))\n"
            "core.RandomAgent(1)\n"
            "print('xactika.core.bots.agents' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, check=True).stdout.splitlines()
    modules = set(out[0].split())
    assert "xactika.core.engine.api" in modules
    assert under(modules, "xactika.core.bots", "hashlib", "secrets") == []
    assert out[1] == "True"


def test_no_game_has_a_random_bot_of_its_own() -> None:
    """The lean session stands for RandomAgent in every game; a per-game ``random`` bot
    registered later would need ``xactika bot random`` to take the full path again."""
    assert all(agent_factory("random", game) is RandomAgent for game in games())


def answers(session: object, config: Config, seat: int) -> list[str]:
    """Every line ``session`` says while playing ``seat`` of a whole game."""
    said: list[str] = []
    player = LoopbackPlayer(session, on_line=lambda d, line: d == "<" and said.append(line))
    player.start()
    agents = [ProcessAgent(player) if s == seat else RandomAgent(100 + s)
              for s in range(config.players)]
    state, _ = self_play(config, agents)
    assert state.over
    player.quit()
    return said


SHAPES = [(game, mode, players)
          for game in games()
          for mode in game_rules(game).modes
          for players in sorted({game_rules(game).min_players, game_rules(game).max_players})]


@pytest.mark.parametrize(("game", "mode", "players"), SHAPES)
def test_the_lean_session_answers_as_random_agent(game: str, mode: str, players: int) -> None:
    for seed in range(4):
        config = Config(game=game, mode=mode, players=players, rounds=2, seed=seed)
        seat = seed % players
        lean = answers(LeanRandomSession(seed), config, seat)
        full = answers(PlayerSession(RandomAgent(seed), "random"), config, seat)
        assert lean == full
        assert sum(line.startswith(("bid ", "play ")) for line in lean) > 2
        assert not any(line.startswith("info") for line in lean)


ODD_LINES = [
    "hello 1", "  isready  \r\n", "", "# a comment", "frobnicate now",
    "event 1 deal round=1", "go bid options=0,1", "newgame seat=x", "newgame", "newgame seat=1",
    "go bid options=0,1",  # before game-started
    "event 1 game-started game=xactika mode=bid players=2 rounds=1 dealer=0",
    "go", "go pass options=1", "go bid", "go bid options=", "go bid options=a,1",
    "go bid options=,,3 time=soon", "go play options=1123 extra=field",
    "go lead options=1123:1ba,1123:1cu,1123:2co,1123:3st time=100", "isready", "quit",
]


def test_odd_lines_get_the_same_answers_and_infos() -> None:
    lean, full = LeanRandomSession(9), PlayerSession(RandomAgent(9), "random")
    for line in ODD_LINES:
        assert lean.feed(line) == full.feed(line), line
    assert lean.done and full.done


@pytest.mark.parametrize("argv", [
    ["random"], ["random", "--seed", "5"], ["heuristic", "--seed", "-4"],
    ["strong:3", "--seed", "+7"], ["random", "--seed", " 8 "], ["random", "--seed", "1_0"],
])
def test_the_plain_forms_read_as_argparse_reads_them(argv: list[str]) -> None:
    args = build_parser(list_names=False).parse_args(argv)
    assert plain_args(argv) == (args.name, args.seed)


@pytest.mark.parametrize("argv", [
    [], ["-h"], ["random", "--seed", "x"], ["random", "--seed=3"], ["--seed", "3", "random"],
    ["random", "--seed"], ["random", "extra"], ["random", "--sed", "3"],
])
def test_every_other_form_goes_to_argparse(argv: list[str]) -> None:
    assert plain_args(argv) is None
