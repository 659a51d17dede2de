"""Counts on the command line (``--rounds``, ``--players``): the error names what works."""

from __future__ import annotations

import importlib

import pytest

from xactika.frontends.cli import COMMANDS


@pytest.mark.parametrize("command", ["play", "selfplay", "serve"])
def test_rounds_and_players_say_1_or_more(command: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """`--rounds -3` must not suggest 0, which is refused too: both name 1 or more."""
    parser = importlib.import_module(COMMANDS[command][0]).build_parser()
    for flag in ("--rounds", "--players"):
        for bad in ("-3", "0"):
            with pytest.raises(SystemExit):
                parser.parse_args([flag, bad])
            err = capsys.readouterr().err.splitlines()[-1]
            assert err.endswith(f"argument {flag}: expected 1 or more, not {bad}"), err
        with pytest.raises(SystemExit):
            parser.parse_args([flag, "x"])
        assert "expected a whole number, not 'x'" in capsys.readouterr().err
    assert parser.parse_args(["--rounds", "2", "--players", "3"]).rounds == 2
