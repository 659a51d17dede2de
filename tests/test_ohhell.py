"""Oh Hell's rules as spec/OHHELL.md writes them (the OpenSpiel comparison is
test_ohhell_openspiel.py): hand sizes, the trump, the hook, scoring, settings."""

from __future__ import annotations

import pytest

from xactika.core import (
    Bid,
    Config,
    ConfigError,
    Dealt,
    Play,
    PresetDeal,
    RandomAgent,
    legal_actions,
    new_game,
    step,
)
from xactika.core.bots.agents import self_play
from xactika.core.engine.errors import MustFollow, ParseError
from xactika.core.games.ohhell import OHHELL, cards_in_round


def _cards(text: str) -> tuple:
    return tuple(OHHELL.parse_card(t) for t in text.split())


def test_a_game_left_to_its_defaults_is_oh_hell_up_and_down_the_river() -> None:
    config = Config(game="ohhell", seed=3)
    assert (config.mode, config.players, config.rounds) == ("exact", 4, 19)
    state, events = self_play(config, [RandomAgent(s) for s in range(4)])
    sizes = [len(e.hands[0]) for e in events if isinstance(e, Dealt)]
    assert sizes == [*range(1, 11), *range(9, 0, -1)]
    lo, hi = OHHELL.score_bounds(config)
    assert lo == 0 and hi == 19 * 10 + sum(sizes)
    assert all(lo <= t <= hi for t in state.totals)


@pytest.mark.parametrize(("pattern", "sizes"), [
    ("updown", [1, 2, 3, 2, 1, 2, 3]),
    ("downup", [3, 2, 1, 2, 3, 2, 1]),
    ("up", [1, 2, 3, 1, 2, 3, 1]),
    ("down", [3, 2, 1, 3, 2, 1, 3]),
    ("fixed", [3] * 7),
])
def test_hand_sizes_follow_the_hands_setting(pattern: str, sizes: list[int]) -> None:
    assert [cards_in_round(pattern, 3, r) for r in range(1, 8)] == sizes
    config = Config(game="ohhell", players=5, rounds=7, seed=1,
                    options={"top": 3, "hands": pattern})
    assert [OHHELL.hand_size(config, r) for r in range(1, 8)] == sizes


def _round(bids_first: str = "", mode: str = "exact", hook: str | None = None) -> Config:
    hands = (_cards("AS KS"), _cards("2H 3H"), _cards("QS 4C"))
    rest = (OHHELL.parse_card("5H"),) + tuple(
        c for c in OHHELL.deck if c not in {*hands[0], *hands[1], *hands[2]}
        and str(c) != "5H")
    return Config(game="ohhell", mode=mode, players=3, rounds=1, dealer=2,
                  deals=(PresetDeal(hands, rest),),
                  options={"top": 2, "hands": "fixed", "hook": hook})


def test_the_dealer_bids_last_and_may_not_make_the_bids_total_the_tricks() -> None:
    state = new_game(_round())
    assert legal_actions(state).seat == 0 and state.turned == OHHELL.parse_card("5H")
    state, _ = step(state, Bid(0, 2))
    assert legal_actions(state).bids == (0, 1, 2)
    state, _ = step(state, Bid(1, 0))
    assert legal_actions(state).seat == 2 and legal_actions(state).bids == (1, 2)
    free = new_game(_round(hook="none"))
    free, _ = step(free, Bid(0, 2))
    free, _ = step(free, Bid(1, 0))
    assert legal_actions(free).bids == (0, 1, 2)


def _play_out(mode: str) -> tuple[int, ...]:
    """Seat 0 leads AS; seat 1 cannot follow and trumps with 2H; seat 2 follows QS."""
    state = new_game(_round(mode=mode))
    for seat, bid in ((0, 0), (1, 1), (2, 0)):
        state, _ = step(state, Bid(seat, bid))
    state, _ = step(state, Play(0, OHHELL.parse_card("AS")))
    state, _ = step(state, Play(1, OHHELL.parse_card("2H")))
    with pytest.raises(MustFollow, match="does not follow spades"):
        step(state, Play(2, OHHELL.parse_card("4C")))
    state, _ = step(state, Play(2, OHHELL.parse_card("QS")))
    assert state.taken == (0, 1, 0) and state.to_act == 1  # the trump took it
    state, _ = step(state, Play(1, OHHELL.parse_card("3H")))
    state, _ = step(state, Play(2, OHHELL.parse_card("4C")))
    state, _ = step(state, Play(0, OHHELL.parse_card("KS")))
    assert state.over
    return state.totals


def test_scoring_by_mode() -> None:
    # taken 0, 2, 0 against bids 0, 1, 0: seat 1 misses by one with two tricks
    assert _play_out("exact") == (10, 0, 10)
    assert _play_out("bonus") == (10, 2, 10)
    assert _play_out("penalty") == (10, -1, 10)


def test_a_round_that_deals_every_card_has_no_trumps() -> None:
    state = new_game(Config(game="ohhell", players=4, rounds=1, seed=2,
                            options={"top": 13, "hands": "fixed"}))
    assert state.turned is None and state.aside == ()


def test_bad_settings_and_cards_get_one_line_errors() -> None:
    with pytest.raises(ConfigError, match=r"top must be from 1 to 13 with 4 players"):
        new_game(Config(game="ohhell", seed=1, options={"top": 14}))
    with pytest.raises(ConfigError, match="hands must be one of updown"):
        new_game(Config(game="ohhell", seed=1, options={"hands": "wave"}))
    with pytest.raises(ConfigError, match="takes 3 to 7 players"):
        new_game(Config(game="ohhell", players=2, seed=1))
    with pytest.raises(ParseError, match="Oh Hell has no joker"):
        OHHELL.parse_card("JK")
    assert str(OHHELL.parse_card("10d")) == "TD"
