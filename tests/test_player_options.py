"""options.py, a go's options and answers from tables: the same go lines as the options
listed afresh, every option's answer looked up, and any other line read (and judged)
exactly as wire.py's reader judges it, for every game."""

from __future__ import annotations

import pytest
from test_player_wire import SHAPES, positions

from xactika.core.engine.api import Legal, TrickGame
from xactika.core.engine.errors import ParseError
from xactika.protocol.player import options, wire


def read(line: str, legal: Legal, rules: TrickGame, tables: bool) -> object:
    """parse_answer's command or error, with the tables or by reading the words only."""
    saved = wire.answer_command
    if not tables:
        wire.answer_command = lambda *_: None  # type: ignore[assignment]
    try:
        return wire.parse_answer(line, legal, rules)
    except ParseError as exc:
        return f"ParseError: {exc}"
    finally:
        wire.answer_command = saved


@pytest.mark.parametrize(("game", "mode", "players"), SHAPES)
def test_the_tables_give_every_go_and_answer_as_the_reader(game: str, mode: str,
                                                           players: int) -> None:
    seen = positions(game, mode, players, seed=5)
    looked_up = 0
    for i, (legal, rules) in enumerate(seen):
        listed = options.go_options(legal, rules)
        assert wire.format_go(legal, rules) == f"go {legal.kind} options={','.join(listed)}"
        answers = [wire.answer_line(c, rules) for c in legal.commands()]
        for answer, command in zip(answers, legal.commands(), strict=True):
            assert options.answer_command(answer, legal, rules) == command
            looked_up += 1
        other, _ = seen[i - 1]  # the previous go's options: often illegal here
        lines = [*answers, *(wire.answer_line(c, rules) for c in other.commands()),
                 f" {answers[0]}", f"{answers[0]}\t", answers[0].replace(" ", "  "),
                 answers[0].rpartition(" ")[0], f"{answers[0]} 1ba", "bid 99", "play 0000"]
        for line in lines:
            assert read(line, legal, rules, tables=True) == read(line, legal, rules,
                                                                 tables=False), line
        assert options.answer_command(f" {answers[0]}", legal, rules) is None  # read instead
    assert looked_up > len(seen)
