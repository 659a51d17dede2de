"""End to end through real processes: the built-in bot and the two example bots play
whole games driven by ProcessAgent + play_out, and leave no process behind."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_client import assert_gone
from test_player_hidden import find_leaks

from xactika.core import Config, GameOver, RandomAgent, game_rules, games
from xactika.core.bots.agents import agent_names, self_play
from xactika.protocol.player.process import PlayerProcess, ProcessAgent

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = Path(sys.executable).parent / "xactika"  # the console script, as users run it
BUILTIN = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "xactika.frontends.cli"]

BOTS = {
    "xactika-bot-random": [*BUILTIN, "bot", "random", "--seed", "7"],
    "example-python": [sys.executable, str(ROOT / "examples" / "random_bot.py"), "7"],
    "example-shell": ["sh", str(ROOT / "examples" / "random_bot.sh"), "7"],
}

# (settings, seats played by the bot process, time budget in ms); each bot seat sits
# left of a dealer, so it leads a trick
GAMES = [
    # two players, bid mode: each bot deals once under the hook and leads tricks
    (Config(mode="bid", players=2, rounds=2, seed=21, dealer=0), (0, 1), None),
    (Config(mode="win", players=3, rounds=1, seed=22, dealer=0), (1,), 2000),
    (Config(mode="lose", players=5, rounds=1, seed=23, dealer=3), (4,), None),
]
# the other games as they are registered, each with its fewest players: two bot seats,
# so one of them leads
GAMES += [
    (Config(game=name, mode=mode, players=game_rules(name).min_players, rounds=1,
            seed=24 + i), (0, 1), None)
    for name in games() if name != "xactika"
    for i, mode in enumerate(game_rules(name).modes)
]


@pytest.mark.parametrize("bot", sorted(BOTS))
def test_bot_process_plays_whole_games(bot: str, tmp_path: Path) -> None:
    for number, (config, seats, time_ms) in enumerate(GAMES):
        sent: dict[int, list[str]] = {s: [] for s in seats}
        answers: dict[int, list[tuple[str, str]]] = {s: [] for s in seats}
        players: dict[int, PlayerProcess] = {}
        for seat in seats:
            def hook(direction: str, line: str, out: list[str] = sent[seat],
                     back: list[tuple[str, str]] = answers[seat]) -> None:
                if direction == ">":
                    out.append(line)
                elif not line.startswith("info"):
                    back.append((out[-1], line))

            players[seat] = PlayerProcess(
                BOTS[bot], startup_timeout=10, move_timeout=10, on_line=hook,
                stderr_path=tmp_path / f"{number}-{seat}.err",
            )
        agents = [
            ProcessAgent(players[s], time_ms=time_ms) if s in players else RandomAgent(s)
            for s in range(config.players)
        ]
        try:
            for player in players.values():
                player.start()
            state, events = self_play(config, agents)
        finally:
            codes = {s: p.quit() for s, p in players.items()}
        assert state.over and isinstance(events[-1], GameOver)
        assert codes == {s: 0 for s in seats}
        for seat, player in players.items():
            assert_gone(player)
            assert find_leaks(events, seat, sent[seat]) == []
            # one answer to every request, in order
            requests = [line for line in sent[seat]
                        if line.split()[0] in ("hello", "isready", "go")]
            assert [request for request, _ in answers[seat]] == requests
            asked = [go for go in requests if go.startswith("go ")]
            assert sent[seat][-1] == "quit"
            if time_ms is not None:
                assert all(go.endswith(f" time={time_ms}") for go in asked)
            leads = [(go, a) for go, a in answers[seat] if go.startswith("go lead")]
            for go, answer in leads:  # a lead names its call where the game has calls
                assert len(answer.split()) == (3 if ":" in go else 2)
        assert any(go.startswith("go lead") for s in seats for go, _ in answers[s]), (
            "the bot never led"
        )
        if config.game == "xactika" and config.mode == "bid":
            for seat in seats:
                bids = [go for go, _ in answers[seat] if go.startswith("go bid")]
                hooked = [go for go in bids if len(go.split("=")[1].split(",")) < 9]
                assert hooked, "the bot was never dealer under the hook"


def test_bot_command_rejects_an_unknown_name() -> None:
    out = subprocess.run([*BUILTIN, "bot", "nosuch"], capture_output=True, text=True,
                         timeout=30)
    assert out.returncode == 2
    names = ", ".join(agent_names())
    assert out.stderr == f"xactika bot: unknown bot 'nosuch': expected one of {names}\n"
    assert out.stdout == ""


def test_bot_answers_a_piped_script_and_stops_at_quit() -> None:
    script = "hello 1\r\nisready\n\nnewgame seat=0\nquit\nisready\n"
    out = subprocess.run([*BUILTIN, "bot", "random"], input=script, capture_output=True,
                         text=True, timeout=30)
    assert out.returncode == 0
    assert out.stdout == "hello 1 name=random\nreadyok\n"  # nothing after quit
    assert out.stderr == ""


def test_the_bot_path_does_not_import_prompt_toolkit() -> None:
    code = (
        "import sys, xactika.frontends.cli, xactika.frontends.stdio.bot, "
        "xactika.protocol.player.process; "
        "print(sorted(m for m in sys.modules if m.startswith('prompt_toolkit')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=30, env={**os.environ, "PYTHONPATH": ""})
    assert out.stdout.strip() == "[]"
