"""Every command's bad option is one line, ``xactika CMD: MESSAGE``, exit 2 (issue 34:
``play --level 9``, ``--rounds 0`` and ``--seed abc`` printed argparse's 12-line usage
where the other errors print one line)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

from xactika.frontends.cli import completion
from xactika.frontends.match import checkbot
from xactika.frontends.match import runner as match
from xactika.frontends.records import audit, convert, keygen, replay
from xactika.frontends.repl import play

Main = Callable[[Sequence[str]], int]

CASES: list[tuple[str, Main, list[str], str]] = [
    ("play", play.main, ["--level", "9"], "argument --level: invalid choice: 9"),
    ("play", play.main, ["--rounds", "0"], "argument --rounds: expected 1 or more, not 0"),
    ("play", play.main, ["--seed", "abc"], "argument --seed: expected a whole number"),
    ("play", play.main, ["--bogus"], "unrecognized arguments: --bogus"),
    ("match", match.main, ["--deals", "abc"], "argument --deals: invalid int value"),
    ("audit", audit.main, ["--bogus"], "unrecognized arguments: --bogus"),
    ("audit", audit.main, [], "give a LOG, a folder or --manifest FILE"),
    ("replay", replay.main, ["--bogus"], "the following arguments are required: LOG"),
    ("convert", convert.main, ["--to", "x"], "argument --to: invalid choice: 'x'"),
    ("keygen", keygen.main, ["--x"], "unrecognized arguments: --x"),
    ("completion", completion.main, ["fish"], "invalid choice: 'fish'"),
    ("check-bot", checkbot.main, ["--bogus"], "arguments"),
]


@pytest.mark.parametrize(("command", "main", "args", "message"), CASES,
                         ids=[f"{c[0]} {' '.join(c[2])}" for c in CASES])
def test_a_bad_option_is_one_line(command: str, main: Main, args: list[str], message: str,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(args)
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert err.startswith(f"xactika {command}: ") and message in err, err
