"""Issue 41's smaller items at the terminal, each as a player or a script meets it:
``quit`` right after ``save``, the token options' help, ``audit`` of a missing file, the
end screen's words, hot-seat's command and summaries."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from test_first_hour_play import finish, setup

from xactika.frontends import i18n
from xactika.frontends.net import lobby
from xactika.frontends.records import audit
from xactika.frontends.repl import play


def quit_question(session: play.Shell, typed: list[str]) -> str:
    """What the loop asks when ``typed`` ends in quit, answered 'y'."""
    asked: list[str] = []
    lines = iter(typed)

    def read(prompt: str) -> str:
        asked.append(prompt)
        return next(lines, "y")

    out = io.StringIO()
    assert play.Loop(session, read, out, interactive=True, columns=lambda: 200).run() == 0
    return out.getvalue() + "\n".join(asked)


def test_quit_right_after_save_says_it_is_saved(tmp_path: Path) -> None:
    session = setup("--players", "3", "--rounds", "1", "--seed", "5")
    path = tmp_path / "g.rec"
    said = quit_question(session, [f"save {path}", "quit"])
    assert f"everything so far is saved in {path}" in said
    assert "it is not saved" not in said
    moved = setup("--players", "3", "--rounds", "1", "--seed", "5")
    moved.advance()
    bid = moved.legal.bids[0]
    said = quit_question(moved, [f"save {path}", f"bid {bid}", "quit"])
    assert "it is not saved unless you used 'save FILE'" in said  # a move since the save


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_token_file_help_reads(lang: str, capsys: pytest.CaptureFixture[str]) -> None:
    with i18n.using(lang), pytest.raises(SystemExit):
        lobby.build_parser().parse_args(["--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert "read leave, rematch" not in shown
    if lang == "en":
        assert "the seat's token, for leave and rematch: read it from the first line" in shown


def test_audit_of_a_missing_file_has_no_line_zero(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope.log"
    assert audit.main([str(missing)]) == 2
    out = capsys.readouterr().out
    assert out.startswith(f"{missing}: cannot read") and ":0:" not in out


def test_the_end_screen_says_again_and_new_once() -> None:
    session = setup("--players", "3", "--rounds", "1", "--seed", "5")
    finish(session)
    out = io.StringIO()
    loop = play.Loop(session, lambda prompt: "", out, interactive=True, columns=lambda: 200)
    assert loop.run() == 0
    shown = out.getvalue()
    assert shown.count("'again'") == 1 and shown.count("'new'") == 1, shown
