"""What people met at ``xactika play`` (issue 26): level labels, Dix's long game, the
command to continue after a save, undo after a load, and a missing record."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from xactika.core.engine.api import Dealt, Led, Played, RoundScored
from xactika.frontends.repl import play, render
from xactika.frontends.repl.shell import Shell


def setup(*argv: str) -> Shell:
    return play.setup(play.build_parser().parse_args(list(argv)), render.PLAIN)


@pytest.mark.parametrize(("level", "label"), [("1", "beginner"), ("2", "casual"),
                                              ("3", "heuristic"), ("4", "good"),
                                              ("5", "strong")])
def test_levels_are_labelled_as_people_read_them(level: str, label: str) -> None:
    session = setup("--level", level, "--seed", "1", "--rounds", "1")
    try:
        assert session.names[1:] == [label] * 3
        assert "strong:" not in session.intro()
        assert f"2-4 {label} (bot)" in session.intro()  # seats as people count them
        # the record keeps what sits there, so --load sits the same bots again
        assert ("seat.1", f"bot:strong:{level}") in session.headers()
    finally:
        session.close()
    dix = setup("--game", "dix", "--level", level, "--seed", "1")
    assert dix.names[1] == "heuristic"  # Dix's one bot, its heuristic, plays every level
    ohhell = setup("--game", "ohhell", "--level", level, "--seed", "1")
    assert ohhell.names[1] == "strong"  # Oh Hell's search plays every level


def test_dix_plays_to_a_target_and_the_help_lists_every_games_modes() -> None:
    session = setup("--game", "dix", "--target", "50", "--seed", "4")
    assert session.config.option("target") == 50
    assert "to 50 points" in session.intro()
    session.advance()
    seat = session.human_to_act
    assert seat is not None and "round 1 to 50 points" in session.table(seat)
    helped = play.build_parser().format_help()
    assert "nodraw" in helped and "lose" in helped
    with pytest.raises(Exception, match="xactika has no target score"):
        setup("--target", "50", "--seed", "4")


def test_the_command_to_continue_is_never_wrapped(tmp_path: Path) -> None:
    folder = tmp_path / ("a-long-install-path-" * 4)
    folder.mkdir()
    path = folder / "g.rec"
    session = setup("--seed", "2", "--rounds", "1")
    session.width = 60
    out = io.StringIO()
    shell = play.Loop(session, play.pipe_reader(io.StringIO(f"save {path}\n"), out), out,
                       interactive=False, columns=lambda: 60)
    assert shell.run() == 0
    lines = out.getvalue().splitlines()
    said = [line for line in lines if "--load" in line]
    assert len(said) == 1 and said[0].startswith("  ") and said[0].endswith(str(path))
    assert lines[lines.index(said[0]) - 1].endswith("continue:")
    # the prose around it still fits (the echo of what was typed aside)
    assert all(render.width(line) <= 60 for line in lines
               if line not in said and "> save" not in line)


def test_undo_after_a_load_stays_in_the_round(tmp_path: Path) -> None:
    session = setup("--seed", "5", "--rounds", "2", "--bots", "random",
                    "--hint-bot", "random")
    session.advance()
    while session.state.round < 2:
        seat = session.human_to_act
        assert seat is not None
        found = session.hint(seat)
        assert found is not None
        assert session.handle(session.command_text(seat, found[0])).moved
    path = tmp_path / "g.rec"
    session.handle(f"save {path}")
    loaded = setup("--load", str(path))
    loaded.advance()
    before = list(loaded.events)
    assert sum(isinstance(e, Dealt) for e in before) == 2
    said = loaded.handle("undo").text
    assert said.startswith("nothing to undo in this round")
    assert loaded.events == before
    assert len([e for e in loaded.events if isinstance(e, RoundScored)]) == 1
    # inside the round, undo still takes a move back
    seat = loaded.human_to_act
    assert seat is not None
    found = loaded.hint(seat)
    assert found is not None
    mine = len(loaded.events)
    assert loaded.handle(loaded.command_text(seat, found[0])).moved
    shown = any(isinstance(e, Led | Played) and e.seat != seat
                for e in loaded.events[mine + 1:])  # a card another seat showed since
    assert loaded.handle("undo").text.startswith(
        "undo stops at the first card" if shown else "undone: ")
    assert len([e for e in loaded.events if isinstance(e, RoundScored)]) == 1


def test_a_missing_record_gets_one_clear_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert play.main(["--load", "/nope.log"], stdin=io.StringIO("")) == 2
    err = capsys.readouterr().err
    assert err == "xactika play: cannot read /nope.log: No such file or directory\n"


def test_a_fifo_is_refused_not_waited_on(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert play.main(["--load", str(fifo)], stdin=io.StringIO("")) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a regular file but a FIFO" in err
