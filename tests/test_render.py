"""Rendering is pure text: cards, hands, tricks, bids, scores, standings and stats."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from xactika.core import DECK, Card, Config, games, start, stats_table
from xactika.core.bots.agents import make_agent
from xactika.core.engine.api import BidMade, Dealt, Led, Played, RoundScored, TrickWon
from xactika.core.games.xactika import Call
from xactika.frontends.repl import render
from xactika.frontends.repl.cards import xactika as xactika_cards
from xactika.frontends.repl.render import PLAIN, Style, strip_ansi
from xactika.frontends.repl.shell import BOT, HUMAN, SeatSpec, Shell

COLOR = Style(color=True)
ASCII = Style(color=False, ascii=True)
NAMES = ["you", "random", "random", "heuristic"]


@given(st.sampled_from(DECK))
def test_a_card_shows_its_text_each_shape_as_often_as_it_counts_and_its_value(card: Card) -> None:
    text = xactika_cards.XactikaRenderer().card(card, PLAIN)
    words = text.split()
    assert words[0] == str(card)
    assert int(words[-1]) == card.value
    for shape, symbol in enumerate(xactika_cards.SYMBOLS):
        assert text.count(symbol) == card.counts[shape]
    # the drawing keeps its columns: every card renders to the same width
    assert render.width(text) == render.width(xactika_cards.XactikaRenderer().card(DECK[0], PLAIN))


@given(st.sampled_from(DECK))
def test_ascii_mode_is_seven_bit_and_colour_only_adds_escapes(card: Card) -> None:
    draw = xactika_cards.XactikaRenderer()
    ascii_text = draw.card(card, ASCII)
    assert ascii_text.isascii()
    for shape, symbol in enumerate(xactika_cards.ASCII_SYMBOLS):
        assert ascii_text.count(symbol) == card.counts[shape]
    plain = draw.card(card, PLAIN)
    coloured = draw.card(card, COLOR)
    assert "\x1b[" not in plain
    assert "\x1b[" in coloured
    assert strip_ansi(coloured) == plain


def test_games_without_a_renderer_show_card_text() -> None:
    draw = render.card_renderer("no-such-game")
    assert type(draw) is render.CardRenderer and draw.card("QH", PLAIN) == "QH"
    assert isinstance(render.card_renderer("xactika"), xactika_cards.XactikaRenderer)
    for suited in ("dix", "ohhell"):
        assert isinstance(render.card_renderer(suited), render.SuitRenderer)


def test_renderers_are_found_by_the_games_name_and_a_plug_in_takes_none() -> None:
    """Each module of frontends/repl/cards/ is named as a game; a plug-in's renderer,
    registered first in a fresh process, leaves every built-in game its own."""
    folder = Path(render.__file__).parent / "cards"
    assert {p.stem for p in folder.glob("*.py")} - {"__init__"} <= set(games())
    code = ("from xactika.core import games\n"
            "from xactika.frontends.repl import render\n"
            "render.register_card_renderer('plug-in', render.CardRenderer())\n"
            "print(*(type(render.card_renderer(g)).__name__ for g in games()))\n")
    said = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=60).stdout.split()
    assert len(said) == len(games()) and "CardRenderer" not in said


def test_hand_numbers_cards_and_marks_legal_ones_only_when_restricted() -> None:
    hand = [Card.parse(t) for t in ("1111", "2122", "2331")]
    lines = render.hand(hand, "xactika", PLAIN, legal=hand[1:]).splitlines()
    assert [line.split()[0] for line in lines] == ["1", "→", "→"]
    assert [line.split()[-1] for line in lines] == ["4", "7", "9"]
    assert re.match(r"→\s+2\s+2122", lines[1].strip())
    free = render.hand(hand, "xactika", PLAIN, legal=hand).splitlines()
    assert "→" not in "".join(free)
    ascii_marks = render.hand(hand, "xactika", ASCII, legal=hand[:1])
    assert ascii_marks.isascii() and ascii_marks.count("->") == 1
    dimmed = render.hand(hand, "xactika", COLOR, legal=hand[:1]).splitlines()
    assert dimmed[1].count("\x1b[2m") == 1  # illegal cards dimmed, plain inside


def test_trick_shows_the_call_plays_and_who_is_winning() -> None:
    call = Call.parse("2st")
    plays = [(1, Card.parse("1122")), (2, Card.parse("3311")), (3, Card.parse("2132"))]
    text = render.trick(plays, call, NAMES, "xactika", PLAIN, winning=3, number=4)
    lines = text.splitlines()
    assert lines[0] == "trick 4: called 2 stars (★★)"
    assert "does not show the call" in lines[2]
    assert lines[3].endswith("← winning") and "2132" in lines[3]
    assert "1122" in lines[1] and "winning" not in lines[1]
    assert render.trick([], None, NAMES, "xactika", PLAIN) == "trick: nobody has played yet"


def test_bids_table_has_a_column_per_seat_and_the_total() -> None:
    text = render.bids([2, None, 4, 0], NAMES, ())
    head, row = text.splitlines()
    assert head.split() == ["you", "2", "random", "3", "random", "4", "heuristic"]
    assert row.split() == ["bid", "2", "?", "4", "0", "(total", "6)"]
    played = render.bids([2, 1, 4, 0], NAMES, (1, 0, 2, 0)).splitlines()
    assert played[2].split() == ["taken", "1", "0", "2", "0"]


def test_score_table_rows_and_totals_from_the_worked_example() -> None:
    first = RoundScored(9, 1, (2, 4, 0, 3), (2, 2, 0, 4), (2, -2, 0, -1), (2, -2, 0, -1))
    second = RoundScored(20, 2, (1, 1, 1, 1), (1, 0, 3, 4), (1, -1, -2, -3), (3, -3, -2, -4))
    text = render.score_table([first, second], NAMES, PLAIN)
    rows = [line.split("│") for line in text.splitlines()]
    assert [c.strip() for c in rows[2]] == ["1", "2/2 +2", "4/2 -2", "0/0 +0", "3/4 -1"]
    assert [c.strip() for c in rows[3]] == ["2", "1/1 +1", "1/0 -1", "1/3 -2", "1/4 -3"]
    assert [c.strip() for c in rows[5]] == ["total", "3", "-3", "-2", "-4"]
    assert "bid/tricks points" in text
    win = RoundScored(9, 1, None, (3, 5), (3, 5), (3, 5))
    assert "tricks points" in render.score_table([win], NAMES, ASCII)
    assert render.score_table([win], NAMES, ASCII).isascii()


def test_standings_best_first_with_shared_places() -> None:
    text = render.standings((5, 9, 9, 1), (1, 2), NAMES, PLAIN)
    lines = text.splitlines()[1:]
    assert [line.split(".")[0].strip() for line in lines] == ["1", "1", "3", "4"]
    assert "winner" in lines[0] and "winner" in lines[1] and "winner" not in lines[2]
    low = render.standings((5, 9, 9, 1), (3,), NAMES, PLAIN, low_wins=True).splitlines()
    assert "lowest total wins" in low[0] and "heuristic" in low[1] and "winner" in low[1]


def _table_rows(text: str, title: str) -> dict[str, list[int]]:
    part = text.split(title, 1)[1]
    rows: dict[str, list[int]] = {}
    for line in part.splitlines()[2:]:
        words = line.split()
        if not words or not (words[0].isdigit() or words[0] == "all"):
            break
        rows[words[0]] = [int(w) for w in words[1:]]
    return rows


@given(st.lists(st.sampled_from(DECK), max_size=30, unique=True), st.integers(0, 8))
def test_stats_counts_the_cards_not_yet_seen(cards: list[Card], cut: int) -> None:
    hand, seen = cards[:cut], cards[cut:]
    text = xactika_cards.xactika_stats(hand, seen, PLAIN)
    full = _table_rows(text, "stats card")
    assert {int(k): tuple(v) for k, v in full.items()} == stats_table(DECK)
    rows = _table_rows(text, "not yet seen")
    unseen = [c for c in DECK if c not in set(cards)]
    assert rows["all"][0] == len(unseen) == 81 - len(cards)
    for value, counts in rows.items():
        group = unseen if value == "all" else [c for c in unseen if c.value == int(value)]
        want = [len(group)] + [sum(1 for c in group if c.counts[s] == k)
                               for s in range(4) for k in (1, 2, 3)]
        assert counts == want, value


def test_narration_is_public_and_conjugates_for_you() -> None:
    assert render.narrate(BidMade(3, 0, 2), NAMES, "xactika", PLAIN) == "you bid 2"
    assert render.narrate(BidMade(3, 1, 2), NAMES, "xactika", PLAIN) == "seat 2 (random) bids 2"
    led = render.narrate(Led(5, 3, Card.parse("1323"), Call.parse("3cu")), NAMES, "xactika",
                         PLAIN)
    assert led == "seat 4 (heuristic) leads 1323 ● ■■■ ▲▲ ★★★ (9), calling 3 cubes (■■■)".replace(
        "● ■■■ ▲▲ ★★★", "●   ■■■ ▲▲  ★★★")
    assert render.narrate(Played(6, 0, Card.parse("1111")), NAMES, "xactika", PLAIN
                          ).startswith("you play 1111")
    assert render.narrate(TrickWon(7, 2, 1), NAMES, "xactika", PLAIN) == (
        "seat 3 (random) wins trick 1")
    deal = start(Config(seed=5))[1]
    assert isinstance(deal, Dealt)
    told = render.narrate(deal, NAMES, "xactika", PLAIN)
    assert told == "round 1: you deal"
    assert not re.search(r"[1-3]{4}", told)


@pytest.fixture
def session() -> Shell:
    seats = [SeatSpec(HUMAN)] + [SeatSpec(BOT, "random")] * 3
    s = Shell(start(Config(mode="bid", players=4, rounds=2, seed=3)), seats,
                lambda seat: make_agent("random", 3000 + seat))
    s.advance()
    s.handle("2")
    return s


def test_turn_table_snapshot(session: Shell, snapshot: object) -> None:
    """The whole screen a player sees on a turn, plain style (open the .ambr to review)."""
    assert session.table(0) == snapshot


def test_turn_table_ascii_has_no_unicode(session: Shell) -> None:
    session.style = ASCII
    assert session.table(0).isascii()
    assert session.handle("stats").text.isascii()
    assert session.handle("help").text.count("\n") > 5


def test_turned_up_names_the_trump_suit_or_no_trumps() -> None:
    from xactika.core.games.dix import DixCard

    plain = render.Style(color=False, ascii=True)
    assert render.turned_up(DixCard.parse("JH"), plain, "dix") == (
        "turned up: JH (J-H): hearts are trumps; the joker takes JH's place among the "
        "trumps, between TH and QH"
    )
    # issue 34: "the joker is a trump ranked as KC" read as if KC, turned up, were in play
    assert render.turned_up(DixCard.parse("KC"), plain, "dix").endswith(
        "the joker takes KC's place among the trumps, between QC and AC")
    assert render.turned_up(DixCard.parse("AS"), plain, "dix").endswith("trumps, above KS")
    assert render.turned_up(DixCard.parse("2D"), plain, "dix").endswith("trumps, below 3D")
    assert render.turned_up(DixCard.parse("JK"), plain, "dix") == (
        "turned up: the joker: no trumps this round"
    )
    # a game without a joker says nothing of one
    assert render.turned_up(DixCard.parse("JH"), plain, "ohhell") == (
        "turned up: JH (J-H): hearts are trumps"
    )


def test_a_long_rule_title_breaks_between_its_parts_within_the_width() -> None:
    """Issue 34: at 60 columns the replay header wrapped mid-word."""
    plain = render.Style(color=False, ascii=True)
    title = "event 113/370, round 3 of 8, trick 3, view: seat 2 (heuristic-long-name)"
    lines = render.rule(plain, title).splitlines()
    assert lines == ["-- event 113/370, round 3 of 8, trick 3,",
                     "-- view: seat 2 (heuristic-long-name) " + "-" * 22]
    assert all(len(line) <= 60 for line in lines)
    assert render.rule(plain, "round 1 of 8") == "-- round 1 of 8 " + "-" * 44
