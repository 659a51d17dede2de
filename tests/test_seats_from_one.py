"""Issue 41: seats are numbered from 1 wherever a person reads or types them (BGA and BBO
count from 1); the protocol, records and programs keep counting from 0."""

from __future__ import annotations

import io
import re

import pytest
from test_first_hour_play import finish, setup

from xactika.core.engine.api import Config, game_rules
from xactika.frontends import i18n
from xactika.frontends.people import teach
from xactika.frontends.people.seats import seat_shown, seat_typed
from xactika.frontends.repl import play
from xactika.frontends.repl.suggest import Context, suggest

SEAT = {"en": "seat", "de": "Platz"}


def test_one_helper_converts_both_ways() -> None:
    assert [seat_shown(s) for s in range(3)] == [1, 2, 3]
    assert [seat_typed(str(n), 3) for n in (1, 2, 3)] == [0, 1, 2]
    for bad, why in [("0", "no seat 0: seats are 1 to 3"), ("4", "no seat 4: seats are 1 to 3"),
                     ("x", "bad seat 'x'")]:
        with pytest.raises(ValueError, match=why):
            seat_typed(bad, 3)


@pytest.mark.parametrize("lang", ["en", "de"])
@pytest.mark.parametrize("game", ["xactika", "dix", "ohhell"])
def test_a_whole_terminal_game_counts_seats_from_one(game: str, lang: str) -> None:
    players = game_rules(game).default_players
    with i18n.using(lang):
        session = setup("--game", game, "--seed", "4", "--rounds", "2", "--hot-seat", "2")
        said = session.intro() + "\n" + finish(session) + "\n" + session.scores_text()
    word = SEAT[lang]
    numbers = {int(n) for n in re.findall(rf"\b{word} (\d+)", said)}
    assert numbers and min(numbers) == 1 and max(numbers) == players, said
    seats_line = next(line for line in said.splitlines() if ": 1 " in line)
    assert re.match(r"\S+: 1 \S+, 2 ", seats_line), seats_line


def test_people_type_seats_from_one_and_the_printed_command_agrees(
        capsys: pytest.CaptureFixture[str]) -> None:
    session = setup("--players", "3", "--rounds", "1", "--seed", "2", "--seat", "3=bot:random",
                    "--dealer", "2")
    assert [s.name for s in session.seats] == ["", "heuristic", "random"]
    assert session.config.dealer == 1  # the second seat, as the record counts it
    intro = session.intro()
    assert "seats: 1 you, 2 heuristic (bot), 3 random (bot)" in intro
    out = io.StringIO()
    assert play.main(["--seat", "5=bot:random"], stdin=io.StringIO(""), stdout=out) == 2
    assert "no seat 5: seats are 1 to 4" in capsys.readouterr().err


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_hot_seat_names_prompt_counts_from_one(lang: str) -> None:
    session = setup("--hot-seat", "2", "--players", "2", "--rounds", "1", "--seed", "3")
    asked: list[str] = []
    with i18n.using(lang):
        assert play.ask_names(session, lambda prompt: asked.append(prompt) or "")
    assert [re.findall(r"\d+", p)[0] for p in asked] == ["1", "2"]


def test_german_dix_rules_count_players_not_persons() -> None:
    """Issue 41: "zwei Personen", "jede Person" where a bot plays too."""
    with i18n.using("de"):
        for mode in game_rules("dix").modes:
            config = Config(game="dix", mode=mode, players=2, seed=1)
            texts = [teach.overview(config), *teach.topics(config).values()]
            said = " ".join(i18n.said(t) if not isinstance(t, str) else t for t in texts)
            assert "Person" not in said, said


def test_tab_completes_the_german_command_words_too() -> None:
    ctx = Context(kind="bid", bids=(0, 1), topics=("cards", "win"))
    with i18n.using("de"):
        assert [s.text for s in suggest("ti", ctx)] == ["tipp ", "tisch "]
        assert "hilfe " in [s.text for s in suggest("h", ctx)]
        assert "help " in [s.text for s in suggest("h", ctx)]  # the English ones too
        assert [s.text for s in suggest("regeln k", ctx)] == ["karten"]
        assert {"karten", "cards", "alle", "all"} <= {s.text for s in suggest("regeln ", ctx)}
        assert "tipp" in [s.text for s in suggest("hilfe ", ctx)]  # help TOPIC: the commands
    assert [s.text for s in suggest("ti", ctx)] == []  # English: no German words


@pytest.mark.parametrize("lang", ["en", "de"])
def test_a_quoted_command_never_wraps_inside_at_80_columns(lang: str) -> None:
    """tmux at 80 columns: "... e.g. 'play" / "1 ba')" split the command to type."""
    from xactika.frontends.repl import render

    with i18n.using(lang):
        session = setup("--seed", "5", "--rounds", "1", "--players", "4")
        session.width = 80
        said = "\n".join(session.advance())
        while session.legal.kind != "lead":
            seat = session.human_to_act
            assert seat is not None
            said += session.handle(session.command_text(seat, session.hint(seat)[0])).text
            if session.over:
                pytest.fail("no lead of ours in this deal")
        said = render.fit(session.handle("play 1").text, 80) + "\n" + session.what_now(0)
    quoted = re.findall(r"'[^']*'", " ".join(said.split("\n  ")))
    for line in said.splitlines():
        assert line.count("'") % 2 == 0, (line, said)
    assert quoted


def test_a_german_hint_says_the_command_in_german() -> None:
    """Issue 41: "calls inside German sentences are German words": 'Tipp: bid 2'."""
    with i18n.using("de"):
        session = setup("--seed", "1", "--rounds", "1")
        session.advance()
        said = session.handle("tipp").text
        assert said.startswith("Tipp: ansage "), said
        move = said.split("  (")[0][len("Tipp: "):]
        assert session.handle(move).moved  # typed as it was said
