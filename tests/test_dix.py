"""Dix rule scenarios from preset deals (spec/DIX.md), and the card text."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence

import attrs
import pytest

from xactika.core import (
    Config,
    ConfigError,
    GameOver,
    InvalidEvent,
    MustFollow,
    ParseError,
    Play,
    PresetDeal,
    RoundScored,
    State,
    TrickWon,
    game_rules,
    legal_actions,
    new_game,
    replay,
    start,
    step,
    view,
    visible,
)
from xactika.core.engine.api import Dealt, Event
from xactika.core.engine.check import check_log
from xactika.core.games.dix import DECK, JOKER, DixCard, Drew, round_winner, stock_size
from xactika.protocol.notation.text import format_event, parse_event

RULES = game_rules("dix")

# The test's own pip table (spec/DIX.md), kept apart from core/games/dix.py on purpose.
PIPS = {"A": 1, "T": 10, "J": 0, "Q": 0, "K": 0, **{str(n): n for n in range(2, 10)}}


def pips(card: DixCard) -> int:
    return 0 if str(card) == "JK" else PIPS[str(card)[0]]


def cards(text: str) -> tuple[DixCard, ...]:
    return tuple(DixCard.parse(t) for t in text.split())


def preset(h0: str, h1: str, front: str) -> PresetDeal:
    """Two hands and the rest: ``front`` (turned-up card, then the stock's top) first,
    then every other undealt card in deck order."""
    hands = (cards(h0), cards(h1))
    head = cards(front)
    used = {*hands[0], *hands[1], *head}
    return PresetDeal(hands, head + tuple(c for c in DECK if c not in used))


def config(*deals: PresetDeal, mode: str = "draw", dealer: int = 0) -> Config:
    return Config(game="dix", mode=mode, players=2, rounds=len(deals), dealer=dealer,
                  deals=deals)


def play(state: State, *texts: str) -> tuple[State, list[Event]]:
    """Play the named cards in turn, whoever is to act."""
    events: list[Event] = []
    for text in texts:
        legal = legal_actions(state)
        assert legal.seat is not None
        state, new = step(state, Play(legal.seat, DixCard.parse(text)))
        events += new
    return state, events


def play_first_legal(state: State) -> tuple[State, list[Event]]:
    events: list[Event] = []
    while (legal := legal_actions(state)).seat is not None:
        state, new = step(state, Play(legal.seat, legal.cards[0]))
        events += new
    return state, events


def oracle(events: Sequence[Event]) -> tuple[list[int], list[int], int]:
    """Points, ten-tricks and the last trick's winner, recomputed from the log alone."""
    points, tens, trick, last = [0, 0], [0, 0], [], -1
    for e in events:
        if type(e).__name__ in ("Led", "Played"):
            trick.append(e.card)
        elif isinstance(e, TrickWon):
            ten = sum(pips(c) for c in trick) == 10
            points[e.seat] += -3 if ten else 1
            tens[e.seat] += ten
            trick, last = [], e.seat
    return points, tens, last


# --------------------------------------------------------------------------- cards


def test_the_deck_is_52_cards_and_a_joker() -> None:
    assert len(DECK) == 53 == len(set(DECK))
    assert sum(c.is_joker for c in DECK) == 1
    assert {str(c)[-1] for c in DECK if not c.is_joker} == set("SHDC")


@pytest.mark.parametrize("card", DECK, ids=str)
def test_card_text_round_trips(card: DixCard) -> None:
    assert DixCard.parse(str(card)) is card
    assert RULES.parse_card(str(card).lower()) is card


def test_card_text_forms() -> None:
    assert str(DixCard.parse("AS")) == "AS"
    assert DixCard.parse("10D") is DixCard.parse("TD")
    assert str(DixCard.parse("10d")) == "TD"
    assert DixCard.parse(" 9h ") is DixCard.parse("9H")
    assert DixCard.parse("JK") is JOKER and str(JOKER) == "JK"
    assert repr(DixCard.parse("QC")) == "DixCard.parse('QC')"


@pytest.mark.parametrize("bad", ["1D", "ZZ", "", "JKK", "11D", "TX", "A", "10", "AS,KD", "J K"])
def test_bad_card_errors_name_the_token(bad: str) -> None:
    with pytest.raises(ParseError) as info:
        RULES.parse_card(bad)
    message = str(info.value)
    assert repr(bad) in message and "e.g. AS" in message and "\n" not in message


def test_dix_has_no_calls() -> None:
    with pytest.raises(ParseError, match="no calls"):
        RULES.parse_call("2st")


# --------------------------------------------------------------------------- dealing


def test_seeded_deal_shape_draw_and_nodraw() -> None:
    for mode, size, aside in (("draw", 13, 26), ("nodraw", 17, 18)):
        opening = start(Config(game="dix", mode=mode, players=2, rounds=1, seed=7))
        deal = opening[1]
        assert isinstance(deal, Dealt)
        assert [len(h) for h in deal.hands if h is not None] == [size, size]
        assert deal.aside is not None and len(deal.aside) == aside
        everything = [*deal.hands[0], *deal.hands[1], deal.turned, *deal.aside]  # type: ignore[misc]
        assert sorted(map(str, everything)) == sorted(map(str, DECK))


def test_preset_rest_first_card_is_turned_and_the_stock_follows_in_order() -> None:
    deal = preset("2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
                  "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC", "8H JK 2D")
    state = new_game(config(deal))
    assert str(state.turned) == "8H"
    assert state.aside[:2] == cards("JK 2D") and len(state.aside) == 26
    assert legal_actions(state).seat == 0  # the dealer leads


def test_the_dealer_leads_the_first_trick() -> None:
    for dealer in (0, 1):
        state = new_game(Config(game="dix", mode="draw", players=2, rounds=1, dealer=dealer,
                                seed=3))
        assert legal_actions(state).seat == dealer
        assert legal_actions(state).kind == "lead"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"players": 3}, "dix takes exactly 2 players, not 3"),
        ({"mode": "win"}, "unknown mode 'win' for dix: expected one of nodraw, draw"),
        ({"options": {"target": 0}}, "target must be at least 1"),
        ({"rounds": 2}, "2 rounds need 2 preset deals or a seed"),
        ({"options": {"target": 50}}, "needs a seed"),
    ],
)
def test_bad_settings(change: dict[str, object], message: str) -> None:
    deal = preset("2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
                  "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC", "8H")
    with pytest.raises(ConfigError, match=message):
        start(attrs.evolve(config(deal), **change))


def test_bad_preset_deals() -> None:
    spades = "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS"
    clubs = "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC"
    short = PresetDeal((cards(spades), cards(clubs)[:-1]))
    with pytest.raises(ConfigError, match="seat 1 has 12 cards, expected 13"):
        start(config(short))
    twice = PresetDeal((cards(spades), cards(clubs)[:-1] + cards("AS")))
    with pytest.raises(ConfigError, match="AS is dealt twice"):
        start(config(twice))
    good = preset(spades, clubs, "8H")
    assert good.rest is not None
    bad_rest = PresetDeal(good.hands, good.rest[:-1] + good.rest[:1])
    with pytest.raises(ConfigError, match="the rest must be exactly the 27 undealt cards"):
        start(config(bad_rest))
    with pytest.raises(ConfigError, match="expected 17 in nodraw mode"):
        start(config(good, mode="nodraw"))


# --------------------------------------------------------------------------- tens

SPADES = "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS"
TEN_PAIRS = [("2S", "8H"), ("3S", "7H"), ("4S", "6H"), ("5S", "5H"), ("9S", "AH"),
             ("TS", "KH"), ("TS", "QH"), ("TS", "JH"), ("TS", "JK")]


def _hand_without_spades(card: str) -> str:
    return card + " 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC"


@pytest.mark.parametrize(("lead", "follow"), TEN_PAIRS)
def test_each_ten_pair_scores_minus_three(lead: str, follow: str) -> None:
    # Seat 0 (the dealer) holds every spade; seat 1 has none, so any card follows.
    # Diamonds are trumps: a heart discard loses, the joker (a diamond) trumps and wins.
    state = new_game(config(preset(SPADES, _hand_without_spades(follow), "2D")))
    state, first = play(state, lead, follow)
    winner = 1 if follow == "JK" else 0
    assert [e.seat for e in first if isinstance(e, TrickWon)] == [winner]
    assert oracle(first)[:2] == ([-3 * (winner == 0), -3 * (winner == 1)],
                                 [int(winner == 0), int(winner == 1)])
    state, rest = play_first_legal(state)
    scored = next(e for e in rest if isinstance(e, RoundScored))
    assert scored.points == tuple(oracle(first + rest)[0])
    assert scored.points[winner] == oracle(rest)[0][winner] - 3


@pytest.mark.parametrize(("lead", "follow"), [("2S", "9H"), ("AS", "AH"), ("KS", "QH"),
                                              ("TS", "TH"), ("5S", "4H"), ("TS", "2H")])
def test_pairs_that_are_not_ten_score_plus_one(lead: str, follow: str) -> None:
    state = new_game(config(preset(SPADES, _hand_without_spades(follow), "2D")))
    state, first = play(state, lead, follow)
    assert oracle(first)[:2] == ([1, 0], [0, 0])
    state, rest = play_first_legal(state)
    scored = next(e for e in rest if isinstance(e, RoundScored))
    assert scored.points == tuple(oracle(first + rest)[0])
    assert scored.points[0] == oracle(rest)[0][0] + 1


# --------------------------------------------------------------------------- the joker


def _joker_deal(turned: str) -> PresetDeal:
    # Seat 0: two hearts and eleven spades; seat 1: the joker and twelve clubs.
    return preset("7H 9H 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS",
                  "JK 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC", turned)


def test_joker_ranks_as_the_turned_card_between_its_neighbours() -> None:
    state = new_game(config(_joker_deal("8H")))
    state, _ = play(state, "7H")
    assert legal_actions(state).cards == (JOKER,)  # the joker is a heart: it must follow
    state, events = play(state, "JK")
    assert [e.seat for e in events if isinstance(e, TrickWon)] == [1]  # JK (8) beats 7H

    state = new_game(config(_joker_deal("8H")))
    state, events = play(state, "9H", "JK")
    assert [e.seat for e in events if isinstance(e, TrickWon)] == [0]  # 9H beats JK (8)


def test_joker_is_a_trump_even_ranked_low() -> None:
    state = new_game(config(_joker_deal("2H")))
    state, events = play(state, "QS", "JK")  # no spades: the joker trumps and wins
    assert [e.seat for e in events if isinstance(e, TrickWon)] == [1]
    state = new_game(config(_joker_deal("2H")))
    state, events = play(state, "7H", "JK")  # the joker ranks 2 in hearts: 7H wins
    assert [e.seat for e in events if isinstance(e, TrickWon)] == [0]


def test_joker_led_must_be_followed_with_trumps() -> None:
    deal = preset("JK 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS",
                  "2H 3H 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC", "AH")
    state = new_game(config(deal))
    state, _ = play(state, "JK")
    assert legal_actions(state).cards == cards("2H 3H")
    with pytest.raises(MustFollow) as info:
        step(state, Play(1, DixCard.parse("2C")))
    assert str(info.value) == (
        "2C does not follow hearts (the joker counts as a trump); JK was led, "
        "so you must play one of 2H 3H"
    )
    state, events = play(state, "3H")
    assert [e.seat for e in events if isinstance(e, TrickWon)] == [0]  # JK ranks as AH


def test_the_joker_trumps_a_suit_its_holder_cannot_follow() -> None:
    deal = preset("JK 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS",
                  "2H 3H 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC", "AD")
    state = new_game(config(deal, dealer=1))
    state, _ = play(state, "2H")  # seat 1 leads a heart; hearts are not trumps
    assert legal_actions(state).cards == state.hands[0]  # no heart: anything goes
    assert JOKER in state.hands[0]
    state, events = play(state, "JK")
    assert [e.seat for e in events if isinstance(e, TrickWon)] == [0]  # the joker trumps


def test_must_follow_suit_when_able() -> None:
    deal = preset("2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AH",
                  "AS 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC", "2D")
    state = new_game(config(deal))
    state, _ = play(state, "2S")
    assert legal_actions(state).cards == cards("AS")
    with pytest.raises(MustFollow, match="2C does not follow spades"):
        step(state, Play(1, DixCard.parse("2C")))


def test_no_trumps_when_the_joker_is_turned_up() -> None:
    deal = preset(SPADES, "AH KH QH 2C 3C 4C 5C 6C 7C 8C 9C TC JC", "JK")
    state = new_game(config(deal))
    assert state.turned is JOKER
    assert JOKER not in (*state.hands[0], *state.hands[1], *state.aside)
    assert "turned=JK" in format_event(start(config(deal))[1], RULES)
    state, events = play(state, "2S", "AH")  # a discard: nothing trumps in no trumps
    assert [e.seat for e in events if isinstance(e, TrickWon)] == [0]
    state, events = play(state, "3S", "2C")
    assert [e.seat for e in events if isinstance(e, TrickWon)] == [0]


def test_trumps_beat_the_led_suit_and_the_higher_trump_wins() -> None:
    deal = preset("2S 3S 4S 5S 6S 7S 8S 9S TS JS QS AS 5D",
                  "2D AD 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC", "3D")
    state = new_game(config(deal))
    state, events = play(state, "AS", "2D")  # the lowest trump beats the ace led
    assert [e.seat for e in events if isinstance(e, TrickWon)] == [1]
    state, events = play(state, "2C", "5D")  # seat 1 leads clubs; seat 0 trumps
    assert [e.seat for e in events if isinstance(e, TrickWon)] == [0]


# --------------------------------------------------------------------------- draws


def test_draws_come_winner_first_and_are_private() -> None:
    deal = preset("2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS 4C",
                  "AS 2C 3C 5C 6C 7C 8C 9C TC JC QC KC AC", "5H 2H 3H 4H 6H")
    state = new_game(config(deal))
    state, first = play(state, "2S", "AS")  # seat 1 takes trick 1
    state, second = play(state, "3C", "4C")  # seat 1 leads, seat 0 takes trick 2
    assert [e.seat for e in first + second if isinstance(e, TrickWon)] == [1, 0]
    assert [type(e).__name__ for e in first[-3:]] == ["TrickWon", "Drew", "Drew"]
    draws = [e for e in first + second if isinstance(e, Drew)]
    assert [(d.seat, str(d.card)) for d in draws] == [(1, "2H"), (0, "3H"), (0, "4H"), (1, "6H")]
    for d in draws:
        assert visible(d, d.seat) == d
        hidden = visible(d, 1 - d.seat)
        assert hidden.card is None
        assert format_event(hidden, RULES) == f"event {d.seq} draw seat={d.seat} card=?"
        assert parse_event(format_event(hidden, RULES), RULES) == hidden
    assert set(cards("2H 6H")) <= set(state.hands[1]) and set(cards("3H 4H")) <= set(state.hands[0])
    assert not set(cards("2H 6H")) & set(view(state, 0).hand)
    assert len(state.aside) == 22


def test_the_last_trick_of_the_stock() -> None:
    deal = preset(SPADES, "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC", "5H")
    assert deal.rest is not None
    state = new_game(config(deal))
    log: list[Event] = []
    sizes = []
    for trick in range(1, 27):
        assert stock_size(state.config, trick - 1) == len(state.aside) == max(0, 28 - 2 * trick)
        while True:
            legal = legal_actions(state)
            state, new = step(state, Play(legal.seat, legal.cards[0]))  # type: ignore[arg-type]
            log += new
            if any(isinstance(e, TrickWon) for e in new):
                break
        sizes.append(tuple(len(h) for h in state.hands))
        draws = [e for e in new if isinstance(e, Drew)]
        if trick <= 13:
            winner = state.tricks[-1].winner
            assert [d.seat for d in draws] == [winner, 1 - winner]
            if trick == 13:  # the last two cards of the stock, in order
                assert [d.card for d in draws] == list(deal.rest[-2:])
                assert state.aside == ()
        else:
            assert draws == []
    assert sizes[:13] == [(13, 13)] * 13
    assert sizes[13:] == [(n, n) for n in range(12, -1, -1)]
    assert sum(isinstance(e, Drew) for e in log) == 26
    assert isinstance(log[-1], GameOver)


def test_nodraw_has_17_tricks_and_no_draws() -> None:
    state = new_game(Config(game="dix", mode="nodraw", players=2, rounds=1, seed=5))
    assert [len(h) for h in state.hands] == [17, 17] and len(state.aside) == 18
    state, log = play_first_legal(state)
    assert sum(isinstance(e, TrickWon) for e in log) == 17
    assert not any(isinstance(e, Drew) for e in log)
    scored = next(e for e in log if isinstance(e, RoundScored))
    assert sum(scored.tricks) == 17
    assert scored.points == tuple(oracle(log)[0])


# --------------------------------------------------------------------------- tie-breaks

# Deals found by playing every seat's first legal card; each lands on one tie-break.
TIE_DEALS = {
    # points 9-13, ten-tricks 0-1, last trick seat 0: points decide (seat 1).
    "points-1": ("2S 3S QS 3H 7H 2D 4D 5D 7D 3C 5C JC QC",
               "7S TS 2H 4H 9H KH 3D JD AD 2C 6C 8C AC",
               "JS KD JH 4C 5S 6S 8D 8H 7C 9S KS TH 4S KC 5H QH 9C 8S TD QD JK AS 6H AH TC "
               "9D 6D"),
    # points 9-9, ten-tricks 2-0, last trick seat 0: fewer ten-tricks decide (seat 1).
    "tens-1": ("2S KS AS 4H 8H JH 5D 8D JD 4C 8C 9C QC",
               "5S 7S JS 2H 3H 9H QH 2D TD KD 2C 6C AC",
               "AD 3C 7H 6D QS 5H TH 7C 6S 8S KC 3S 6H 4D 5C 4S 9D 7D 9S TC JK 3D AH TS KH "
               "QD JC"),
    # points 9-9, ten-tricks 0-2, last trick seat 1: fewer ten-tricks decide (seat 0).
    "tens-0": ("7S 9S KS 2H 7H KH 2D 3D 5D 6D 2C 4C 5C",
               "6S QS 3H 9H TH QH 4D 9D TD QD 6C 7C AC",
               "8D 3C 7D KC QC 8S TS JC JS JH AH 6H 4H 9C 8H 3S AS JK 2S 8C TC 4S KD AD 5S "
               "JD 5H"),
    # points and ten-tricks equal, last trick seat 1: the last trick decides (seat 1).
    "last-1": ("2S 6S 7S 9S 4H 9H JH KH 6D 3C 6C 9C QC",
               "4S 5S JS QS KS AS 5H 6H 7H AH TD 2C 8C",
               "9D 8D TH 8S TC TS AD 5D QH 8H KD 5C QD JC 3S 7C JD 7D 2H 2D AC 4C 4D JK 3H "
               "3D KC"),
    # points and ten-tricks equal, last trick seat 0: the last trick decides (seat 0).
    "last-0": ("3S 4H 7H 8H AH 2D 4D 8D 2C 3C 6C TC AC",
               "8S JS AS 2H 6H TH JH 3D 5D 6D 4C QC JK",
               "7C 9H 7D 4S 8C TS 6S 5C JD 5S JC 9S 9C 3H 5H QS QD AD 2S KD KH TD 9D QH KS "
               "7S KC"),
}


@pytest.mark.parametrize("name", TIE_DEALS)
def test_round_winner_tie_breaks(name: str) -> None:
    h0, h1, rest = TIE_DEALS[name]
    deal = PresetDeal((cards(h0), cards(h1)), cards(rest))
    state, log = play_first_legal(new_game(config(deal)))
    points, tens, last = oracle(log)
    scored = next(e for e in log if isinstance(e, RoundScored))
    over = log[-1]
    assert isinstance(over, GameOver)
    assert scored.points == tuple(points) == over.totals
    kind, _, seat = name.partition("-")
    assert seat == str(round_winner(state.tricks))
    if kind == "points":
        assert points[0] != points[1] and tens[1] > tens[0] and last == 0
        expected = 0 if points[0] > points[1] else 1
    elif kind == "tens":
        assert points[0] == points[1] and tens[0] != tens[1] and last != int(seat)  # not last
        expected = 0 if tens[0] < tens[1] else 1
    else:
        assert points[0] == points[1] and tens[0] == tens[1]
        expected = last
    assert over.winners == (expected,) == (int(seat),)


# --------------------------------------------------------------------------- the long game


def _first_legal_game(**settings: object) -> tuple[State, list[Event]]:
    cfg = Config(**{"game": "dix", "mode": "draw", "players": 2, **settings})  # type: ignore[arg-type]
    opening = start(cfg)
    state, log = play_first_legal(replay(opening))
    return state, opening + log


def test_the_game_to_50_alternates_the_deal() -> None:
    state, log = _first_legal_game(rounds=1, seed=3, options={"target": 50})
    deals = [e for e in log if isinstance(e, Dealt)]
    scores = [e for e in log if isinstance(e, RoundScored)]
    assert len(deals) == len(scores) > 1
    assert [d.dealer for d in deals] == [i % 2 for i in range(len(deals))]
    assert all(max(s.totals) < 50 for s in scores[:-1]) and max(scores[-1].totals) >= 50
    running = [0, 0]
    for s in scores:
        running = [t + p for t, p in zip(running, s.points, strict=True)]
        assert list(s.totals) == running
    over = log[-1]
    assert isinstance(over, GameOver) and over.totals == state.totals
    assert over.winners == (max((0, 1), key=lambda s: state.totals[s]),)


@pytest.mark.parametrize(("seed", "expected"), [(6, 0), (22, 1)])
def test_tied_totals_go_to_the_final_rounds_winner(seed: int, expected: int) -> None:
    # Seeds where two rounds of first-legal play end level on totals.
    _state, log = _first_legal_game(rounds=2, seed=seed)
    over = log[-1]
    assert isinstance(over, GameOver)
    assert over.totals[0] == over.totals[1]
    final = log[max(i for i, e in enumerate(log) if isinstance(e, Dealt)):]
    points, tens, last = oracle(final)
    by_rule = max((0, 1), key=lambda s: (points[s], -tens[s], s == last))
    assert over.winners == (by_rule,) == (expected,)


def test_event_lines_of_a_dix_game_parse_back() -> None:
    _, log = _first_legal_game(rounds=1, seed=11)
    for e in log:
        line = format_event(e, RULES)
        assert parse_event(line, RULES) == e
    assert any(format_event(e, RULES).startswith(f"event {e.seq} draw seat=") for e in log)


def test_cli_selfplay_dix() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "xactika.frontends.cli", "selfplay", "--game", "dix",
         "--seed", "1"],
        capture_output=True, text=True, check=True,
    ).stdout
    lines = out.splitlines()
    assert lines[0] == "event 1 game-started game=dix mode=draw players=2 rounds=1 dealer=0 seed=1"
    assert sum(" trick-won " in line for line in lines) == 26
    assert sum(" draw " in line for line in lines) == 26
    assert "final standings:" in lines
    assert sum(line.endswith("winner") for line in lines) == 1


def test_the_log_checker_accepts_dix_and_rejects_a_false_draw() -> None:
    _, log = _first_legal_game(rounds=1, seed=9)
    assert check_log(log).complete
    i = next(i for i, e in enumerate(log) if isinstance(e, Drew))
    first, second = log[i], log[i + 1]
    swapped = [*log[:i], attrs.evolve(second, seq=first.seq), attrs.evolve(first, seq=second.seq),
               *log[i + 2 :]]
    with pytest.raises(InvalidEvent, match=f"seq {first.seq}: .*does not match the rules"):
        check_log(swapped)
    wrong = [*log[:i], attrs.evolve(first, card=second.card), *log[i + 1 :]]
    with pytest.raises(InvalidEvent, match=f"seq {first.seq}: "):
        check_log(wrong)
    with pytest.raises(InvalidEvent, match="top of the stock"):
        replay(wrong)


def test_a_draw_out_of_place_is_an_invalid_event() -> None:
    nodraw = start(Config(game="dix", mode="nodraw", players=2, rounds=1, seed=1))
    with pytest.raises(InvalidEvent, match="only in Dix's draw mode"):
        replay([*nodraw, Drew(3, 0, DECK[0])])
    opening = start(Config(game="dix", mode="draw", players=2, rounds=1, seed=1))
    state = replay(opening)
    state, _ = step(state, Play(0, state.hands[0][0]))
    top = state.aside[0]
    with pytest.raises(InvalidEvent, match="only between tricks"):
        replay([Drew(state.seq + 1, 1, top)], state)
