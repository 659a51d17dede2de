"""Cards, calls, the deck and the stats table (RULES.md, Xactika: Deck)."""

from __future__ import annotations

import copy
import itertools
import pickle
import re
from pathlib import Path

import pytest

from xactika.core import CALLS, DECK, SHAPES, Call, Card, ParseError, stats_table
from xactika.core.games.xactika import SHAPE_TOKENS, card_sort_key

ROOT = Path(__file__).resolve().parent.parent


def test_the_deck_is_every_combination_once() -> None:
    assert len(DECK) == 81
    assert len(set(DECK)) == 81
    combos = set(itertools.product((1, 2, 3), repeat=4))
    assert {c.counts for c in DECK} == combos
    for card in DECK:
        assert card.value == sum(card.counts)
        assert (card.balls, card.cubes, card.cones, card.stars) == card.counts
        assert 4 <= card.value <= 12


@pytest.mark.parametrize("card", DECK, ids=str)
def test_card_text_round_trips(card: Card) -> None:
    text = str(card)
    assert re.fullmatch(r"[123]{4}", text)
    assert text == "".join(str(n) for n in card.counts)  # balls, cubes, cones, stars
    assert Card.parse(text) == card
    assert Card.parse(f"  {text}\n") == card  # surrounding blanks are not part of a card
    assert eval(repr(card)) == card  # repr is Card.parse('....')
    assert Card(*card.counts) == card
    assert hash(Card(*card.counts)) == hash(card)


def test_card_text_names_the_counts_in_shape_order() -> None:
    card = Card.parse("1323")
    assert (card.balls, card.cubes, card.cones, card.stars, card.value) == (1, 3, 2, 3, 9)
    assert [card.count(s) for s in range(4)] == [1, 3, 2, 3]
    assert SHAPES == ("balls", "cubes", "cones", "stars")


@pytest.mark.parametrize("bad", ["", "132", "13233", "1423", "0123", "abcd", "1 3 2 3", "1323x"])
def test_a_bad_card_is_refused_naming_the_token(bad: str) -> None:
    with pytest.raises(ParseError) as err:
        Card.parse(bad)
    message = str(err.value)
    assert repr(bad) in message
    assert "expected four digits 1-3" in message


def test_cards_cannot_be_built_with_impossible_counts() -> None:
    with pytest.raises(ValueError, match="1 to 3 of each shape"):
        Card(0, 1, 2, 3)
    with pytest.raises(ValueError, match="1 to 3 of each shape"):
        Card(1, 4, 2, 3)


def test_cards_survive_pickle_and_copy() -> None:
    card = Card.parse("2313")
    for clone in (pickle.loads(pickle.dumps(card)), copy.deepcopy(card), copy.copy(card)):
        assert clone == card
        assert clone.value == 9
        assert clone.calls == card.calls


def test_the_twelve_calls() -> None:
    assert len(CALLS) == 12
    assert {(c.count, c.shape) for c in CALLS} == set(itertools.product((1, 2, 3), range(4)))
    assert [str(c) for c in CALLS] == [
        f"{n}{t}" for n in (1, 2, 3) for t in SHAPE_TOKENS
    ]


@pytest.mark.parametrize("call", CALLS, ids=str)
def test_call_text_round_trips(call: Call) -> None:
    text = str(call)
    assert re.fullmatch(r"[123](ba|cu|co|st)", text)
    assert Call.parse(text) == call
    assert Call.parse(text.upper()) == call
    assert eval(repr(call)) == call
    # the plain words, as the rules print them, with or without a hyphen
    shape = SHAPES[call.shape]
    word = shape[:-1] if call.count == 1 else shape
    for spelled in (f"{call.count}{word}", f"{call.count}-{word}", f"{call.count} {word}",
                    f"{call.count}{shape}", f"{call.count}{shape[:-1]}"):
        assert Call.parse(spelled) == call, spelled
        assert Call.parse(spelled.upper()) == call, spelled
    assert call.words == f"{call.count} {word}"


@pytest.mark.parametrize(
    ("text", "count", "shape"),
    [("1ball", 1, 0), ("2balls", 2, 0), ("3cubes", 3, 1), ("2cones", 2, 2), ("1star", 1, 3),
     ("1BALL", 1, 0), ("2Stars", 2, 3), ("3CuBeS", 3, 1), ("2st", 2, 3), ("1Ba", 1, 0)],
)
def test_plain_words_parse(text: str, count: int, shape: int) -> None:
    assert Call.parse(text) == Call(count, shape)


@pytest.mark.parametrize("bad", ["", "4st", "0ba", "2", "st", "2 stripes", "2stt", "22st", "2-"])
def test_a_bad_call_is_refused_naming_the_token(bad: str) -> None:
    with pytest.raises(ParseError) as err:
        Call.parse(bad)
    message = str(err.value)
    assert repr(bad) in message
    assert "expected a count 1-3 and a shape" in message


def test_each_card_offers_its_four_calls() -> None:
    for card in DECK:
        assert card.calls == tuple(Call(n, s) for s, n in enumerate(card.counts))
        for call in CALLS:
            assert card.shows(call) == (card.counts[call.shape] == call.count)
        assert all(card.shows(call) for call in card.calls)


def test_hands_sort_by_value_then_counts() -> None:
    ordered = sorted(DECK, key=card_sort_key)
    assert str(ordered[0]) == "1111" and str(ordered[-1]) == "3333"
    assert [c.value for c in ordered] == sorted(c.value for c in DECK)
    assert card_sort_key(Card.parse("1323")) == (9, 1, 3, 2, 3)


# --------------------------------------------------------------------------- the stats table


def rules_stats_table(text: str) -> dict[int, tuple[int, int, int, int]]:
    """The value table under RULES.md's Xactika "Deck" heading, read from the markdown."""
    deck_section = text.split("### Deck", 1)[1].split("###", 1)[0]
    rows: dict[int, tuple[int, int, int, int]] = {}
    header_seen = False
    for line in deck_section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.strip().startswith("|"):
            continue
        if cells == ["value", "cards", "1", "2", "3"]:
            header_seen = True
            continue
        if set("".join(cells)) <= set("-: "):
            continue  # the |---| rule under the header
        value, cards, one, two, three = (int(c) for c in cells)
        rows[value] = (cards, one, two, three)
    assert header_seen, "RULES.md's Deck section lost its value table"
    return rows


# spec/RULES.md carries the stats card: the repository is self-contained.
RULE_FILES = [ROOT / "spec" / "RULES.md"]


@pytest.mark.parametrize("path", RULE_FILES, ids=lambda p: str(p.relative_to(ROOT.parent)))
def test_stats_table_is_derived_and_matches_the_rules(path: Path) -> None:
    table = rules_stats_table(path.read_text(encoding="utf-8"))
    assert sorted(table) == list(range(4, 13))
    assert stats_table() == table
    assert sum(row[0] for row in table.values()) == 81


def test_stats_table_is_the_same_for_every_shape() -> None:
    # the stats card shows one shape and says it holds for all four: check that it does
    for shape in range(4):
        per_shape: dict[int, list[int]] = {}
        for card in DECK:
            row = per_shape.setdefault(card.value, [0, 0, 0, 0])
            row[0] += 1
            row[card.counts[shape]] += 1
        assert {v: tuple(r) for v, r in per_shape.items()} == stats_table()


def test_stats_table_counts_the_cards_it_is_given() -> None:
    few = [Card.parse("1111"), Card.parse("1112"), Card.parse("2111")]
    assert stats_table(few) == {4: (1, 1, 0, 0), 5: (2, 1, 1, 0)}
