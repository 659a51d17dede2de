"""Issue 41: German players type German. Commands (``hilfe``, ``tipp``, ``ansage 2``),
rules topics (``regeln karten``) and shape names in a call (``1 Kugeln``) are taken in
the reader's language, the English ones always too; a call refused in a German sentence
is named in German words. Before, ``tipp`` and ``hilfe`` were unknown commands and ``1
Kugeln`` was refused."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from test_first_hour_play import hint_line, setup

from xactika.core.engine.api import BidMade, Led
from xactika.frontends import i18n
from xactika.frontends.people import teach
from xactika.frontends.repl.shell import Shell


@pytest.fixture
def german() -> Iterator[None]:
    with i18n.using("de"):
        yield


def to_lead(session: Shell) -> int:
    """Play by hints until the person leads; their seat."""
    session.advance()
    while session.legal.kind != "lead":
        assert not session.over
        assert session.handle(hint_line(session)).moved
    seat = session.human_to_act
    assert seat is not None
    return seat


def test_german_commands_are_the_english_ones(german: None) -> None:
    session = setup("--players", "3", "--rounds", "1", "--seed", "5")
    session.advance()
    assert session.handle("hilfe").text == session.handle("help").text
    assert "tipp, hint" in session.handle("hilfe").text  # help names both words
    assert session.handle("Tipp").text.startswith("Tipp: ")
    assert session.handle("regeln").text == session.handle("rules").text
    assert session.handle("regeln karten").text == session.handle("rules cards").text
    assert session.handle("regeln Karten").text != session.handle("regeln quatsch").text
    assert "karten" in session.handle("regeln quatsch").text  # topics named in German
    assert session.handle("punkte").text == session.handle("scores").text
    assert session.handle("ende").quit
    before = len(session.events)
    bid = session.legal.bids[0]
    assert session.handle(f"ansage {bid}").moved
    made = session.events[before]
    assert isinstance(made, BidMade) and made.bid == bid


def test_english_commands_stay_in_german_and_german_words_are_not_english(
        german: None) -> None:
    session = setup("--players", "3", "--rounds", "1", "--seed", "5")
    session.advance()
    assert session.handle("hint").text.startswith("Tipp: ")
    with i18n.using("en"):
        assert "unknown command 'tipp'" in session.handle("tipp").text


def test_a_call_typed_in_german(german: None) -> None:
    session = setup("--players", "3", "--rounds", "2", "--seed", "5")
    seat = to_lead(session)
    card = session.legal.cards[0]
    position = session.shown_hand(seat).index(card) + 1
    call = session.legal.calls(card)[0]
    words = {0: "Kugeln", 1: "Würfel", 2: "Kegel", 3: "Sterne"}
    wrong = f"{call.count % 3 + 1}{words[call.shape]}"  # a count the card does not show
    refused = session.handle(f"{position} {wrong}").text
    assert "kann" in refused and "möglich sind" in refused
    assert "Kugel" in refused or "Würfel" in refused or "Kegel" in refused  # words, not codes
    before = len(session.events)
    assert session.handle(f"{position} {words[call.shape]}").moved
    led = session.events[before]
    assert isinstance(led, Led) and (led.seat, led.card, led.call) == (seat, card, call)


def test_rules_topics_in_german(german: None) -> None:
    session = setup("--game", "ohhell", "--players", "3", "--seed", "5")
    overview = teach.rules_text(session.config)
    assert "karten" in overview and "bedienen" in overview
    assert teach.rules_text(session.config, "bedienen") == teach.rules_text(
        session.config, "follow")
    assert teach.rules_text(session.config, "alle") == teach.rules_text(session.config, "all")


def test_the_lead_line_names_the_calls_in_german(german: None) -> None:
    session = setup("--players", "3", "--rounds", "2", "--seed", "5")
    seat = to_lead(session)
    line = session.what_to_do(seat)
    assert "Kugel (1ba)" in line or "Kugeln (2ba)" in line or "Kugeln (3ba)" in line, line
    with i18n.using("en"):
        assert "calls 1ba " in session.what_to_do(seat) or "ba " in session.what_to_do(seat)
