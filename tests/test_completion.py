"""``xactika completion bash|zsh``: scripts made from the CLI's own parsers, that work."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from xactika.core import game_rules, games
from xactika.frontends.cli import COMMANDS, completion

BASH = shutil.which("bash")


def _bash_complete(script: str, words: list[str]) -> list[str]:
    """Run the bash function on a command line, the cursor in its last word, with
    COMP_WORDS split as bash splits them (at '=' and ':' too) and COMP_LINE set."""
    assert BASH is not None
    typed = " ".join(words)
    split: list[str] = []
    for word in words:
        parts = [p for p in re.split(r"([=:])", word) if p] if "/" not in word else [word]
        split.extend(parts or [""])
    if words[-1] == "":
        split[-1:] = [""]
    line = " ".join(shlex.quote(w) if w else '""' for w in split)
    code = (f"{script}\nCOMP_WORDS=({line}); COMP_CWORD={len(split) - 1}; "
            f"COMP_LINE={shlex.quote(typed)}; COMP_POINT={len(typed)}; _xactika; "
            'printf "%s\\n" "${COMPREPLY[@]}"')
    done = subprocess.run([BASH, "--norc", "-c", code], capture_output=True, text=True,
                          check=True)
    return [w for w in done.stdout.splitlines() if w]


@pytest.mark.skipif(BASH is None, reason="needs bash")
def test_bash_completes_commands_flags_and_choices(tmp_path: Path) -> None:
    script = completion.bash()
    assert "completion" in COMMANDS  # the command that prints it is listed itself
    assert _bash_complete(script, ["xactika", "pl"]) == ["play"]
    assert set(_bash_complete(script, ["xactika", ""])) >= set(COMMANDS)
    assert "--tutorial" in _bash_complete(script, ["xactika", "play", "--t"])
    assert _bash_complete(script, ["xactika", "play", "--color", "a"]) == ["auto", "always"]
    assert _bash_complete(script, ["xactika", "convert", "x", "--to", ""]) == ["jsonl", "text"]
    assert _bash_complete(script, ["xactika", "play", "--game", ""]) == list(games())
    assert _bash_complete(script, ["xactika", "play", "--players", ""]) == []
    record = tmp_path / "game.rec"
    record.write_text("x")
    assert _bash_complete(script, ["xactika", "audit", str(tmp_path / "ga")]) == [str(record)]


@pytest.mark.skipif(BASH is None, reason="needs bash")
def test_bash_completes_bot_names_modes_and_seat_specs() -> None:
    """`xactika bot <Tab>` offers the bots, not files; `--mode` every game's modes;
    `--seat 1=bot:<Tab>` the bots, cut after the last ':' as bash inserts them."""
    script = completion.bash()
    bots = _bash_complete(script, ["xactika", "bot", ""])
    assert {"random", "heuristic", "strong", "strong:3"} <= set(bots)
    assert _bash_complete(script, ["xactika", "bot", "heu"]) == ["heuristic"]
    modes = list(dict.fromkeys(m for g in games() for m in game_rules(g).modes))
    assert {"draw", "win", "bid"} <= set(modes)
    assert _bash_complete(script, ["xactika", "play", "--mode", ""]) == modes
    assert _bash_complete(script, ["xactika", "selfplay", "--mode", "l"]) == ["lose"]
    after_bot = _bash_complete(script, ["xactika", "play", "--seat", "1=bot:"])
    assert {"random", "heuristic", "strong"} <= set(after_bot)
    assert _bash_complete(script, ["xactika", "play", "--seat", "1=bot:heu"]) == ["heuristic"]
    assert _bash_complete(script, ["xactika", "play", "--seat", "1=bot:strong:"]) \
        == ["1", "2", "3", "4", "5"]
    assert set(_bash_complete(script, ["xactika", "play", "--seat", "2="])) \
        >= {"human", "cmd:", "bot:random"}
    assert _bash_complete(script, ["xactika", "play", "--seat", "2=h"]) == ["human"]
    assert _bash_complete(script, ["xactika", "play", "--hint-bot", "r"]) == ["random"]
    assert _bash_complete(script, ["xactika", "replay", "--seat", ""]) == []  # a number


@pytest.mark.skipif(BASH is None, reason="needs bash")
def test_bash_completes_the_lobbys_commands_not_file_names(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    """Issue 34: ``lobby HOST <Tab>`` completed file names."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tables.txt").write_text("x")  # a file that must not be offered
    script = completion.bash()
    lobby = ["tables", "create", "join", "leave", "rematch", "watch"]
    assert _bash_complete(script, ["xactika", "lobby", "127.0.0.1:7000", ""]) == lobby
    assert _bash_complete(script, ["xactika", "lobby", "example.org:7000", "j"]) == ["join"]
    assert _bash_complete(script, ["xactika", "lobby", "t"]) == []  # HOST:PORT
    assert _bash_complete(script, ["xactika", "lobby", "h:1", "join", ""]) == []  # a table
    assert _bash_complete(script, ["xactika", "lobby", "h:1", "--tls", "t"]) == ["tables.txt"]
    assert _bash_complete(script, ["xactika", "connect", "t"]) == []
    assert _bash_complete(script, ["xactika", "audit", "t"]) == ["tables.txt"]
    assert _bash_complete(script, ["xactika", "audit", "a.log", "t"]) == ["tables.txt"]


def test_every_flag_of_every_command_is_in_both_scripts() -> None:
    bash, zsh = completion.bash(), completion.zsh()
    for name in COMMANDS:
        for flag in completion.flags(name):
            for spelling in flag.names:
                assert spelling in bash, (name, spelling)
                assert f"{spelling}[" in zsh, (name, spelling)


@pytest.mark.skipif(shutil.which("zsh") is None, reason="needs zsh")
def test_the_zsh_script_parses() -> None:
    done = subprocess.run(["zsh", "-n"], input=completion.zsh(), capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stderr


def test_the_cli_prints_them() -> None:
    run = [sys.executable, "-m", "xactika.frontends.cli", "completion"]
    done = subprocess.run([*run, "bash"], capture_output=True, text=True, check=False)
    # (not compared byte for byte with completion.bash(): this process may hold modules
    # imported before a parser changed on disk)
    assert done.returncode == 0 and done.stdout.startswith("# bash completion for xactika")
    assert "complete -o filenames -F _xactika xactika" in done.stdout
    assert all(f"        {name}) opts=" in done.stdout for name in COMMANDS)
    bad = subprocess.run([*run, "fish"], capture_output=True, text=True, check=False)
    assert bad.returncode == 2 and "invalid choice: 'fish'" in bad.stderr
