"""End to end in a 60-column pseudo-terminal: the tutorial, rules, Tab completion of a
command word, and a whole game of Dix, typed at the installed ``xactika`` command."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

pexpect = pytest.importorskip("pexpect")

XACTIKA = Path(sys.executable).with_name("xactika")
PROMPT = re.compile(r"(bid|lead|play)>")
HINT = re.compile(r"hint: (bid \d+|play [0-9A-Z]{2,4}(?: \d[a-z]{2})?)")
pytestmark = pytest.mark.skipif(not XACTIKA.exists(), reason="needs the installed script")


def spawn(args: list[str], tmp_path: Path, columns: int = 60) -> pexpect.spawn:
    env = dict(os.environ)
    env.update(NO_COLOR="1", TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1",
               XACTIKA_HISTORY="", COLUMNS=str(columns), LINES="40")
    child = pexpect.spawn(str(XACTIKA), ["play", *args], env=env, encoding="utf-8",
                          timeout=30, dimensions=(40, columns))
    child.logfile_read = open(tmp_path / "screen.log", "a", encoding="utf-8")
    return child


def play_by_hints(child: pexpect.spawn, until: str) -> None:
    """At each prompt ask for a hint and type it, until ``until`` is printed."""
    while True:
        if child.expect([PROMPT, until]) == 1:
            return
        child.sendline("hint")
        child.expect(HINT)
        move = child.match.group(1)
        child.expect(PROMPT)
        child.sendline(move)
        child.expect(r"you (bid|play|lead) ")  # the move was made, not refused


def leave_finished_game(child: pexpect.spawn, tmp_path: Path) -> str:
    """At the end: the standings, Ctrl-D leaves cleanly; the whole screen, for checks."""
    child.expect("final standings")
    child.expect(">")
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    screen = (tmp_path / "screen.log").read_text(encoding="utf-8")
    assert "Traceback" not in screen
    return screen


def test_the_tutorial_guides_round_one_at_60_columns(tmp_path: Path) -> None:
    child = spawn(["--tutorial", "--rounds", "1"], tmp_path)
    child.expect("guided first round")
    child.expect("tutorial: first everyone bids")
    child.expect("The hint bot suggests")
    child.expect("tutorial bid>")
    # Tab completes the command word with a blank after it, so the topic follows at once
    child.send("ru\t")
    child.send("bi\t")
    child.send("\r")
    child.expect(r"bidding \(Play to Bid\)")
    child.expect("dealer bids last")
    child.expect(PROMPT)
    child.sendline("rules nonsense")
    child.expect("no rules topic 'nonsense'")
    play_by_hints(child, "that was the guided round")
    screen = leave_finished_game(child, tmp_path)
    assert "tutorial: the call is" in screen or "tutorial: none of your cards" in screen
    assert re.search(r"wins: (the highest card|the only card|it ties)", screen)
    assert "made their bid" in screen or "missed:" in screen


def test_a_whole_dix_game_at_60_columns(tmp_path: Path) -> None:
    child = spawn(["--game", "dix", "--seed", "1"], tmp_path)
    child.expect("draw mode: 13 cards each")
    child.expect(PROMPT)
    child.sendline("help")
    child.expect("Dix has no calls")
    child.expect(PROMPT)
    child.sendline("rules ten")
    child.expect("-3")
    child.expect(PROMPT)
    child.sendline("bid 2")
    child.expect("there is no bidding in Dix")
    play_by_hints(child, "the game is over")
    screen = leave_finished_game(child, tmp_path)
    assert re.search(r"you draw [0-9TJQKA][SHDC] ", screen)
    assert "draws a card from the stock (face down)" in screen
    assert re.search(r"(you win|wins) the round \(", screen)
    assert "ten-tricks" in screen and "stock: " in screen
    assert "call" not in screen.split("help")[1].split("rules ten")[0].replace(
        "no calls", "")


TMUX = __import__("shutil").which("tmux")


@pytest.mark.skipif(TMUX is None, reason="needs tmux")
@pytest.mark.parametrize(("columns", "args"), [
    (60, ["--players", "7", "--seed", "5", "--rounds", "1"]),
    (80, ["--players", "10", "--seed", "4", "--rounds", "1"]),
    (60, ["--game", "dix", "--seed", "4"]),
])
def test_a_real_terminal_never_wraps_a_line(tmp_path: Path, columns: int,
                                            args: list[str]) -> None:
    """In tmux at the given width, play a whole game by hints; `capture-pane -J` joins the
    lines the terminal had to wrap, so any joined line wider than the screen was cut."""
    import subprocess
    import time

    assert TMUX is not None
    sock = f"xactika-test-{os.getpid()}-{columns}"
    tmux = [TMUX, "-L", sock]
    env = f"env PATH={XACTIKA.parent}:/usr/bin:/bin XACTIKA_HISTORY= NO_COLOR=1 TERM=xterm"
    subprocess.run([*tmux, "new-session", "-d", "-s", "t", "-x", str(columns), "-y", "50",
                    f"sleep 0.5; {env} {XACTIKA} play {' '.join(args)}; sleep 30"], check=True)

    def screen(joined: bool = False) -> str:
        flags = ["-J"] if joined else []
        return subprocess.run([*tmux, "capture-pane", "-p", *flags, "-t", "t", "-S", "-"],
                              capture_output=True, text=True, check=True).stdout

    try:
        for _ in range(400):
            text = screen()
            last = text.rstrip().splitlines()[-1] if text.strip() else ""
            if "final standings" in text and last.strip() == ">":
                break
            if not PROMPT.search(last):
                time.sleep(0.2)
                continue
            subprocess.run([*tmux, "send-keys", "-t", "t", "hint", "Enter"], check=True)
            for _ in range(50):
                found = HINT.findall(screen())
                if len(found) > 0 and screen().rstrip().endswith(">"):
                    break
                time.sleep(0.1)
            move = HINT.findall(screen())[-1]
            subprocess.run([*tmux, "send-keys", "-t", "t", move, "Enter"], check=True)
            time.sleep(0.3)
        joined = screen(joined=True)
        assert "final standings" in joined
        wide = [line for line in joined.splitlines() if len(line.rstrip()) > columns]
        assert wide == []
    finally:
        subprocess.run([*tmux, "kill-server"], check=False)
