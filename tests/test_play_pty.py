"""End to end in a real pseudo-terminal: the installed ``xactika`` command, typed at.

It plays part of a game with typed lines (asking ``hint`` what to play), uses Tab
completion, Ctrl-C and bad input, saves and leaves; then ``--load`` continues the saved
game to its end, saves again, and the two records are checked.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

pexpect = pytest.importorskip("pexpect")

from xactika.core.engine.check import check_log  # noqa: E402
from xactika.protocol.records.textform import read_record  # noqa: E402

XACTIKA = Path(sys.executable).with_name("xactika")
PROMPT = re.compile(r"(bid|lead|play)>")
HINT = re.compile(r"hint: (bid \d+|play \d{4}(?: \d[a-z]{2})?)")
MOVED = re.compile(r"you (bid|play|lead) ")


def spawn(args: list[str], tmp_path: Path) -> pexpect.spawn:
    env = dict(os.environ)
    env.update(NO_COLOR="1", TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1",
               XACTIKA_HISTORY=str(tmp_path / "history"), COLUMNS="120", LINES="40")
    child = pexpect.spawn(str(XACTIKA), ["play", *args], env=env, encoding="utf-8",
                          timeout=30, dimensions=(40, 120))
    child.logfile_read = open(tmp_path / "screen.log", "a", encoding="utf-8")
    return child


def move_by_hint(child: pexpect.spawn) -> None:
    """At a prompt: ask for a hint, then type the move it names."""
    child.sendline("hint")
    child.expect(HINT)
    move = child.match.group(1)
    child.expect(PROMPT)
    child.sendline(move)
    child.expect(MOVED)


@pytest.mark.skipif(not XACTIKA.exists(), reason="needs the installed console script")
def test_play_save_and_load_in_a_real_terminal(tmp_path: Path) -> None:
    first = tmp_path / "first.rec"
    child = spawn(["--seed", "3", "--rounds", "1"], tmp_path)
    child.expect("your bid")
    child.expect(PROMPT)
    # Tab completes a command
    child.send("sc\t")
    child.expect("scores")
    child.send("\r")
    child.expect("no round has been scored yet")
    child.expect(PROMPT)
    # bad input is refused with what is legal
    child.sendline("play 99")
    child.expect("it is time to bid, not to play a card")
    child.expect("legal bids: ")
    child.expect(PROMPT)
    child.sendline("bid 42")
    child.expect("bid 42 is out of range")
    child.expect(PROMPT)
    # Ctrl-C drops the half-typed line and the game goes on
    child.send("junk")
    child.sendcontrol("c")
    child.expect(PROMPT)
    for _ in range(3):
        move_by_hint(child)
        child.expect(PROMPT)
    child.sendline(f"save {first}")
    child.expect("saved")
    child.expect(PROMPT)
    child.sendline("quit")
    child.expect(r"leave this unfinished game\?")
    child.sendline("y")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0

    saved = read_record(first)
    assert not check_log(list(saved.events)).complete

    second = tmp_path / "second.rec"
    child = spawn(["--load", str(first)], tmp_path)
    while True:
        found = child.expect([PROMPT, "the game is over"])
        if found == 1:
            break
        move_by_hint(child)
    child.expect(">")
    child.sendline(f"save {second}")
    child.expect("saved")
    child.expect(">")  # control keys only once the prompt owns the terminal (raw mode)
    child.sendcontrol("d")  # Ctrl-D leaves a finished game without asking
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0

    done = read_record(second)
    assert check_log(list(done.events)).complete
    assert done.events[: len(saved.events)] == saved.events
    screen = (tmp_path / "screen.log").read_text(encoding="utf-8")
    assert "Traceback" not in screen
    assert "final standings" in screen
    history = (tmp_path / "history").read_text(encoding="utf-8")
    assert "+hint" in history and "+scores" in history
