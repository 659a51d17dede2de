"""``xactika check-bot``: passes conforming bots, fails broken ones with clear lines."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from xactika.frontends.match import checkbot

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
FAULT_BOT = str(ROOT / "tests" / "bots" / "fault_bot.py")


def check(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str]]:
    code = checkbot.main(list(argv))
    return code, capsys.readouterr().out.splitlines()


@pytest.mark.parametrize(
    "cmd",
    [
        [PY, "-m", "xactika.frontends.cli", "bot", "random"],
        [PY, str(ROOT / "examples" / "random_bot.py")],
        ["sh", str(ROOT / "examples" / "random_bot.sh")],
    ],
    ids=["xactika-bot-random", "random_bot.py", "random_bot.sh"],
)
def test_conforming_bots_pass_every_check(cmd: list[str],
                                          capsys: pytest.CaptureFixture[str]) -> None:
    code, lines = check(capsys, "--rounds", "2", "--", *cmd)
    assert code == 0, "\n".join(lines)
    assert not [line for line in lines if line.startswith("FAIL")]
    names = [line.split(":")[0] for line in lines if line.startswith("PASS")]
    for wanted in ("PASS handshake", "PASS isready", "PASS game xactika mode=bid players=10",
                   "PASS game xactika mode=lose players=2", "PASS lead with a call (xactika)",
                   "PASS dealer under the hook (xactika)", "PASS quit"):
        assert any(n.startswith(wanted) for n in names), wanted
    hook = next(line for line in lines if "under the hook" in line)
    assert "offered bids 0,1,2,4,5,6,7,8 (not 3)" in hook
    assert lines[-1].startswith("all checks passed")


def test_a_garbage_bot_fails_with_what_it_sent_and_what_was_expected(
    capsys: pytest.CaptureFixture[str]
) -> None:
    code, lines = check(capsys, "--rounds", "1", "--move", "500ms", "--", PY, FAULT_BOT,
                        "garbage")
    assert code == 1
    fails = [line for line in lines if line.startswith("FAIL")]
    assert fails
    assert all("'I think I will play the blue one'" in line and "expected" in line
               for line in fails)
    assert lines[-1].endswith("failed)") and "checks failed" in lines[-1]


def test_a_bot_that_ignores_quit_fails_the_quit_check(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines = check(capsys, "--rounds", "1", "--", PY, FAULT_BOT, "ignore-quit")
    assert code == 1
    quit_line = next(line for line in lines if line.split(":")[0].endswith("quit"))
    assert quit_line.startswith("FAIL quit: still running")


def test_a_bot_that_crashes_at_start_fails_the_handshake(
    capsys: pytest.CaptureFixture[str]
) -> None:
    code, lines = check(capsys, "--", PY, FAULT_BOT, "crash-start")
    assert code == 1
    assert lines[0].startswith("FAIL handshake:") and "exited with code 3" in lines[0]
    assert "expected 'hello 1 name=<name>'" in lines[0]


def test_a_bot_that_answers_illegally_fails(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines = check(capsys, "--rounds", "1", "--move", "300ms", "--", PY, FAULT_BOT,
                        "illegal")
    assert code == 1
    assert any("not one of the options offered" in line or "bid 99" in line
               for line in lines if line.startswith("FAIL"))


def test_no_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert checkbot.main([]) == 2
    assert "no bot command" in capsys.readouterr().err


def test_game_option_limits_the_checks(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines = check(capsys, "--game", "xactika", "--rounds", "1", "--", PY,
                        str(ROOT / "examples" / "random_bot.py"))
    assert code == 0
    assert any(line.startswith("PASS game xactika") for line in lines)
    assert not any("dix" in line for line in lines)
    assert checkbot.main(["--game", "chess", "--", "true"]) == 2
    assert "unknown game 'chess'" in capsys.readouterr().err
