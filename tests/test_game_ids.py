"""Short game ids (issue 41): the end of a game prints ``xactika play --again ID``, not a
command carrying a 39-digit seed; the id names the game's flags in a local store."""

from __future__ import annotations

import io
import shlex
from pathlib import Path

import pytest
from test_first_hour_play import finish, setup

from xactika.frontends.repl import play, render
from xactika.frontends.repl.gameids import GameIdError, keep, recall, store

SEED = 2**127 + 12345  # as long as a fresh seed: 39 digits


@pytest.fixture(autouse=True)
def _own_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def test_the_printed_command_is_short_and_plays_the_same_deals(tmp_path: Path) -> None:
    session = setup("--players", "3", "--rounds", "1", "--seed", str(SEED), "--level", "2")
    said = finish(session)
    assert session.again is not None and str(SEED) not in session.again
    words = shlex.split(session.again)
    assert words[-2:-1] == ["--again"] and len(words[-1]) <= 8
    assert f"\n{render.command(session.again)}" in said
    assert all(render.width(line) <= 80 for line in said.splitlines())
    assert recall(words[-1]) == ["--players", "3", "--rounds", "1", "--bots", "strong:2",
                                 "--seed", str(SEED)]
    session.save(str(tmp_path / "g.rec"))  # the seed itself is whole where the game is kept
    assert f"seed={SEED}" in (tmp_path / "g.rec").read_text(encoding="utf-8")
    out = io.StringIO()
    assert play.main(["--again", words[-1].upper(), "--color", "never"],
                     stdin=io.StringIO("quit\n"), stdout=out) == 0
    assert f"3 players, 1 round, seed {SEED}" in " ".join(out.getvalue().split())


def test_later_flags_change_a_kept_game() -> None:
    game_id = keep(["--players", "3", "--rounds", "1", "--seed", "7"])
    out = io.StringIO()
    assert play.main(["--again", game_id, "--rounds", "2", "--color", "never"],
                     stdin=io.StringIO("quit\n"), stdout=out) == 0
    assert "3 players, 2 rounds, seed 7" in out.getvalue()


def test_the_same_flags_keep_one_id_and_a_clash_gets_a_longer_one() -> None:
    flags = ["--seed", "5"]
    first = keep(flags)
    assert keep(flags) == first and len(list(store().glob("*.json"))) == 1
    (store() / f"{keep(['--seed', '6'])}.json").rename(store() / "x.json")
    (store() / f"{first}.json").write_text('{"play": ["--seed", "9"]}', encoding="utf-8")
    other = keep(flags)  # its id is taken by another game: a longer id, not a lost one
    assert other.startswith(first) and len(other) == len(first) + 1
    assert recall(other) == flags and recall(first) == ["--seed", "9"]


@pytest.mark.parametrize(("typed", "why"), [
    ("zz23zz", "no game 'zz23zz' kept here"),
    ("../etc", "bad game id '../etc'"),
    ("ab", "bad game id 'ab'"),
    ("", "bad game id ''"),
])
def test_a_bad_or_unknown_id_is_one_line(typed: str, why: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(GameIdError, match="^" + why.replace("(", r"\(").replace(".", r"\.")):
        recall(typed)
    assert play.main(["--again", typed], stdin=io.StringIO(""), stdout=io.StringIO()) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"xactika play: {why}") and err.count("\n") == 1


def test_a_damaged_entry_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    game_id = keep(["--seed", "5"])
    (store() / f"{game_id}.json").write_text("{not json", encoding="utf-8")
    assert play.main(["--again", game_id], stdin=io.StringIO(""), stdout=io.StringIO()) == 2
    err = capsys.readouterr().err
    assert f"game {game_id!r} cannot be read" in err and err.count("\n") == 1


def test_again_with_load_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    game_id = keep(["--seed", "5"])
    assert play.main(["--again", game_id, "--load", "x.rec"], stdin=io.StringIO(""),
                     stdout=io.StringIO()) == 2
    assert "--again plays a kept game: drop --load" in capsys.readouterr().err
