"""Names for people: hot-seat asks each person once; ``connect --name`` renames a bot."""

from __future__ import annotations

import io
from pathlib import Path

from xactika.frontends.net.connect import renamed
from xactika.frontends.repl import play
from xactika.protocol.records.textform import read_record


def test_hot_seat_asks_each_name_once_and_never_gives_one_twice(tmp_path: Path) -> None:
    saved = tmp_path / "game.rec"
    keys = ["Ann", "Ann", "Bob", "", f"save {saved}", "quit"]
    out = io.StringIO()
    code = play.main(["--hot-seat", "2", "--players", "3", "--rounds", "1", "--seed", "3",
                      "--color", "never"], stdin=io.StringIO("\n".join(keys) + "\n"),
                     stdout=out)
    text = out.getvalue()
    assert code == 0
    assert text.count("name of the player at seat 1") == 1
    assert text.count("name of the player at seat 2") == 2  # 'Ann' was taken
    assert "seats: 1 Ann, 2 Bob, 3 heuristic (bot)" in text
    assert "Bob bid> " in text  # the prompt says whose turn it is
    record = read_record(saved)
    assert record.header("seats") == "Ann,Bob,heuristic"
    assert record.header("seat.0") == "human:Ann" and record.header("seat.1") == "human:Bob"


def test_an_empty_name_is_the_seat_number() -> None:
    out = io.StringIO()
    play.main(["--hot-seat", "2", "--players", "2", "--rounds", "1", "--seed", "3",
               "--color", "never"], stdin=io.StringIO("\n\n\nquit\n"), stdout=out)
    assert "seats: 1 player1, 2 player2" in out.getvalue()


def test_connect_name_replaces_the_bots_own() -> None:
    assert renamed("hello 1 name=python-random author=x", "Ann B") == \
        "hello 1 name=Ann-B author=x"
    assert renamed("hello 1", "cbot") == "hello 1 name=cbot"
