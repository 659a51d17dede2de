"""Every rule of spec/RULES.md, each on a deal chosen for it (preset deals)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

from xactika.core import (
    DECK,
    BadBid,
    BadCall,
    Bid,
    Call,
    Card,
    Config,
    ConfigError,
    Dealt,
    GameIsOver,
    GameOver,
    IllegalCommand,
    Led,
    MustFollow,
    NotInHand,
    NotYourTurn,
    Play,
    PresetDeal,
    RandomAgent,
    RoundScored,
    State,
    TrickWon,
    WrongPhase,
    legal_actions,
    new_game,
    replay,
    start,
    step,
)
from xactika.core.bots.agents import self_play
from xactika.core.games.xactika import XACTIKA, bid_points, card_sort_key


def cards(text: str) -> tuple[Card, ...]:
    return tuple(Card.parse(t) for t in text.split())


def fill(players: int, wanted: Sequence[str],
         allowed: Callable[[int, Card], bool] = lambda seat, card: True) -> PresetDeal:
    """A preset deal: each seat's ``wanted`` cards, topped up to 8 in deck order with
    unused cards that ``allowed(seat, card)`` lets it hold."""
    used = {c for text in wanted for c in cards(text)}
    hands = []
    for seat in range(players):
        hand = list(cards(wanted[seat]) if seat < len(wanted) else ())
        for card in DECK:
            if len(hand) == 8:
                break
            if card not in used and allowed(seat, card):
                hand.append(card)
                used.add(card)
        assert len(hand) == 8, f"no 8 cards for seat {seat}"
        hands.append(tuple(hand))
    return PresetDeal(tuple(hands))


def game(deal: PresetDeal, mode: str = "win", dealer: int = 0, rounds: int = 1) -> State:
    return new_game(Config(mode=mode, players=len(deal.hands), rounds=rounds, dealer=dealer,
                           deals=(deal,) * rounds if rounds == 1 else None,
                           seed=None if rounds == 1 else 1))


def play(state: State, *moves: str) -> State:
    """Moves as ``seat:card[:call]`` or ``seat:bid=N``."""
    for move in moves:
        seat, _, rest = move.partition(":")
        if rest.startswith("bid="):
            state, _ = step(state, Bid(int(seat), int(rest[4:])))
            continue
        card, _, call = rest.partition(":")
        state, _ = step(state, Play(int(seat), Card.parse(card),
                                    Call.parse(call) if call else None))
    return state


def refused(state: State, command: object, error: type[IllegalCommand], message: str) -> None:
    """The command is refused with ``error`` and ``message``, and nothing changed."""
    before = legal_actions(state)
    with pytest.raises(error) as err:
        step(state, command)  # type: ignore[arg-type,unused-ignore]
    assert message in str(err.value), str(err.value)
    assert "\n" not in str(err.value)
    assert legal_actions(state) == before
    assert replay(start(state.config)).config == state.config


def last_trick_winner(state: State) -> int:
    return state.tricks[-1].winner


# --------------------------------------------------------------------------- set-up


def test_eight_rounds_by_default_and_configurable() -> None:
    assert Config().rounds == 8
    for rounds in (1, 3, 8):
        state, events = self_play(Config(rounds=rounds, seed=5),
                                  [RandomAgent(s) for s in range(4)])
        assert state.over
        assert [e.round for e in events if isinstance(e, RoundScored)] == list(
            range(1, rounds + 1)
        )
    state, events = self_play(Config(seed=5), [RandomAgent(s) for s in range(4)])
    assert sum(isinstance(e, RoundScored) for e in events) == 8
    with pytest.raises(ConfigError, match="rounds must be at least 1, not 0"):
        start(Config(rounds=0, seed=1))


@pytest.mark.parametrize("players", range(2, 11))
def test_two_to_ten_players_get_eight_cards_each(players: int) -> None:
    dealt = start(Config(players=players, seed=players))[1]
    assert isinstance(dealt, Dealt)
    assert [len(h) for h in dealt.hands] == [8] * players
    assert dealt.aside is not None
    every = [c for h in dealt.hands for c in h if h is not None] + list(dealt.aside)
    assert sorted(every, key=str) == sorted(DECK, key=str)  # each card once, none lost
    assert len(dealt.aside) == 81 - 8 * players


def test_ten_players_use_80_cards() -> None:
    for seed in range(5):
        dealt = start(Config(players=10, seed=seed))[1]
        in_hands = {c for h in dealt.hands for c in h}
        assert len(in_hands) == 80
        assert len(dealt.aside) == 1
        assert in_hands | set(dealt.aside) == set(DECK)


@pytest.mark.parametrize(("players", "message"), [
    (1, "xactika takes 2 to 10 players, not 1"),
    (11, "xactika takes 2 to 10 players, not 11"),
])
def test_player_count_is_checked(players: int, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        start(Config(players=players, seed=1))


def test_the_deal_passes_clockwise_from_the_first_dealer() -> None:
    for players, first in ((4, 0), (4, 2), (3, 1), (10, 9)):
        _, events = self_play(Config(players=players, dealer=first, seed=3),
                              [RandomAgent(s) for s in range(players)])
        dealers = [e.dealer for e in events if isinstance(e, Dealt)]
        assert dealers == [(first + r) % players for r in range(8)]


def test_first_dealer_is_seat_0_unless_named() -> None:
    assert start(Config(seed=1))[1].dealer == 0
    assert start(Config(seed=1, dealer=3))[1].dealer == 3
    with pytest.raises(ConfigError, match="dealer must be a seat from 0 to 3, not 4"):
        start(Config(seed=1, dealer=4))


def test_left_of_the_dealer_leads_first_and_the_winner_leads_next() -> None:
    for mode in ("win", "bid"):
        _, events = self_play(Config(mode=mode, players=5, dealer=3, seed=9),
                              [RandomAgent(s) for s in range(5)])
        dealer = None
        expect = None
        for e in events:
            if isinstance(e, Dealt):
                dealer, expect = e.dealer, (e.dealer + 1) % 5
            elif isinstance(e, Led):
                assert e.seat == expect, (mode, e)
            elif isinstance(e, TrickWon):
                expect = e.seat
        assert dealer is not None


def test_unknown_mode_and_missing_deal_source_are_refused() -> None:
    with pytest.raises(ConfigError,
                       match="unknown mode 'high' for xactika: expected one of win, lose, bid"):
        start(Config(mode="high", seed=1))
    with pytest.raises(ConfigError, match="a game needs a seed or preset deals"):
        start(Config())
    deal = fill(4, [])
    with pytest.raises(ConfigError, match="1 preset deals for 2 rounds"):
        start(Config(rounds=2, deals=(deal,)))
    # presets first, then the seed
    events = self_play(Config(rounds=2, deals=(deal,), seed=4),
                       [RandomAgent(s) for s in range(4)])[1]
    deals = [e for e in events if isinstance(e, Dealt)]
    assert deals[0].hands == tuple(tuple(sorted(h, key=card_sort_key)) for h in deal.hands)
    assert deals[1].hands == XACTIKA.deal(Config(seed=4), 2, 1).hands


def test_xactika_has_no_target_score() -> None:
    with pytest.raises(ConfigError, match="xactika has no target score"):
        start(Config(seed=1, options={"target": 50}))


def test_preset_deals_are_checked() -> None:
    good = fill(4, [])
    with pytest.raises(ConfigError, match="has 3 hands, expected 4"):
        start(Config(deals=(PresetDeal(good.hands[:3]),)))
    short = (good.hands[0][:7], *good.hands[1:])
    with pytest.raises(ConfigError, match="seat 0 has 7 cards, expected 8"):
        start(Config(deals=(PresetDeal(short),)))
    twice = (good.hands[0], (good.hands[0][0], *good.hands[1][1:]), *good.hands[2:])
    with pytest.raises(ConfigError, match=f"{good.hands[0][0]} is dealt twice"):
        start(Config(deals=(PresetDeal(twice),)))
    with pytest.raises(ConfigError, match="the rest must be exactly the 49 undealt cards"):
        start(Config(deals=(PresetDeal(good.hands, rest=DECK[:5]),)))


def test_preset_hands_are_dealt_sorted_and_the_rest_set_aside() -> None:
    deal = fill(3, ["3333 1111 2222 1231 3121 1112 2111 1211"])
    dealt = start(Config(players=3, rounds=1, deals=(deal,)))[1]
    assert [str(c) for c in dealt.hands[0]] == [
        "1111", "1112", "1211", "2111", "1231", "3121", "2222", "3333"
    ]
    dealt_cards = {c for h in deal.hands for c in h}
    assert dealt.aside == tuple(c for c in DECK if c not in dealt_cards)
    rest = tuple(reversed(dealt.aside))
    again = start(Config(players=3, rounds=1, deals=(PresetDeal(deal.hands, rest),)))[1]
    assert again.aside == rest


# --------------------------------------------------------------------------- bidding


def bid_game(dealer: int = 3) -> State:
    return game(fill(4, []), mode="bid", dealer=dealer)


def test_bids_go_from_the_dealers_left_with_the_dealer_last() -> None:
    state = bid_game(dealer=1)
    order = []
    while legal_actions(state).kind == "bid":
        seat = legal_actions(state).seat
        assert seat is not None
        order.append(seat)
        state = play(state, f"{seat}:bid=0")
    assert order == [2, 3, 0, 1]
    assert legal_actions(state).kind == "lead"
    assert legal_actions(state).seat == 2


def test_two_three_two_means_the_dealer_may_not_bid_one() -> None:
    state = play(bid_game(), "0:bid=2", "1:bid=3", "2:bid=2")
    legal = legal_actions(state)
    assert legal.seat == 3 and legal.kind == "bid"
    assert legal.bids == (0, 2, 3, 4, 5, 6, 7, 8)
    refused(state, Bid(3, 1), BadBid,
            "the dealer may not bid 1: the bids would total exactly the tricks in the round; "
            "legal bids are 0 2 3 4 5 6 7 8")
    for ok in (0, 2, 8):
        after = play(state, f"3:bid={ok}")
        assert after.bids == (2, 3, 2, ok)


def test_the_dealer_is_hooked_even_at_zero() -> None:
    state = play(bid_game(), "0:bid=3", "1:bid=3", "2:bid=2")
    assert legal_actions(state).bids == (1, 2, 3, 4, 5, 6, 7, 8)
    refused(state, Bid(3, 0), BadBid, "the dealer may not bid 0")


def test_the_dealer_is_free_when_the_others_already_bid_more_than_8() -> None:
    state = play(bid_game(), "0:bid=4", "1:bid=3", "2:bid=2")
    assert legal_actions(state).bids == tuple(range(9))
    for ok in range(9):
        assert play(state, f"3:bid={ok}").bids[3] == ok


def test_only_the_dealer_is_hooked() -> None:
    state = play(bid_game(), "0:bid=8")
    assert legal_actions(state).bids == tuple(range(9))  # seat 1 could make it 8 with 0
    state = play(state, "1:bid=0")
    assert legal_actions(state).bids == tuple(range(9))


@pytest.mark.parametrize(("bid", "message"), [
    (9, "bid 9 is out of range: legal bids are 0 1 2 3 4 5 6 7 8"),
    (-1, "bid -1 is out of range"),
])
def test_bids_out_of_range_are_refused(bid: int, message: str) -> None:
    refused(bid_game(), Bid(0, bid), BadBid, message)


def test_a_bid_that_is_not_a_number_is_refused() -> None:
    not_a_number: Any = "2"
    refused(bid_game(), Bid(0, not_a_number), BadBid, "bid '2' is not a whole number")


def test_no_bidding_when_playing_to_win_or_lose() -> None:
    for mode in ("win", "lose"):
        state = game(fill(4, []), mode=mode)
        assert legal_actions(state).kind == "lead"
        refused(state, Bid(1, 2), WrongPhase, "bidding is over: it is time to play a card")


def test_no_card_before_the_bidding_is_over() -> None:
    state = bid_game()
    card = state.hands[0][0]
    refused(state, Play(0, card, card.calls[0]), WrongPhase,
            "bidding is not over: seat 0 bids next")


def test_bid_out_of_turn_is_refused() -> None:
    refused(bid_game(), Bid(2, 1), NotYourTurn, "seat 0 bids next, not seat 2")


# --------------------------------------------------------------------------- tricks


def no_balls(n: int) -> Callable[[int, Card], bool]:
    """Seats other than 0 hold no card with ``n`` balls."""
    return lambda seat, card: seat == 0 or card.balls != n


def test_the_leader_may_lead_any_card_with_any_of_its_four_calls() -> None:
    state = game(fill(4, ["1111 3333"]))
    legal = legal_actions(state)
    assert legal.kind == "lead" and legal.seat == 1
    state = game(fill(4, ["", "1111 3333"]))
    legal = legal_actions(state)
    assert legal.cards == state.hands[1]
    low = Card.parse("1111")
    assert legal.calls(low) == cards("1111")[0].calls
    assert [str(c) for c in legal.calls(Card.parse("3333"))] == ["3ba", "3cu", "3co", "3st"]
    assert {str(c) for c in legal.calls(low)} == {"1ba", "1cu", "1co", "1st"}
    assert Play(1, low, Call.parse("1st")) in legal


def test_a_lead_needs_a_call_the_card_shows() -> None:
    state = game(fill(4, ["", "3213"]))
    card = Card.parse("3213")
    refused(state, Play(1, card), BadCall, "leading 3213 needs one of the calls 3ba 2cu 1co 3st")
    refused(state, Play(1, card, Call.parse("2ba")), BadCall, "needs one of the calls")
    assert play(state, "1:3213:2cu").call == Call.parse("2cu")


def test_only_the_leader_makes_a_call() -> None:
    state = play(game(fill(4, ["", "3213"])), "1:3213:1co")
    card = legal_actions(state).cards[0]
    refused(state, Play(2, card, card.calls[0]), BadCall, "only the leader makes a call")


def test_follow_rule_is_the_exact_shape_count() -> None:
    # seat 2 holds 2 balls (1211 and 3211 do not count: 1 and 3 balls); it must follow 2ba
    deal = fill(4, ["", "2222", "2111 1211 3211", ""],
                lambda seat, card: seat != 2 or card.balls != 2)
    state = play(game(deal), "1:2222:2ba")
    legal = legal_actions(state)
    assert legal.seat == 2
    assert [str(c) for c in legal.cards] == ["2111"]
    refused(state, Play(2, Card.parse("1211")), MustFollow,
            "1211 does not show 2 balls (2ba); you must follow with one of 2111")
    refused(state, Play(2, Card.parse("3211")), MustFollow, "you must follow with one of 2111")
    assert play(state, "2:2111").trick[-1] == (2, Card.parse("2111"))


def test_showing_the_count_of_another_shape_is_not_following() -> None:
    # 1222 has 2 cubes, cones and stars, but 1 ball: it does not follow 2ba
    deal = fill(4, ["", "2222", "1222", ""], lambda seat, card: seat != 2 or card.balls != 2)
    state = play(game(deal), "1:2222:2ba")
    legal = legal_actions(state)
    assert legal.cards == state.hands[2]  # cannot follow: any card may be sloughed
    assert play(state, "2:1222").trick[-1] == (2, Card.parse("1222"))


def test_a_seat_that_cannot_follow_may_play_any_card() -> None:
    deal = fill(4, ["", "1111"], no_balls(1))
    state = play(game(deal), "1:1111:1ba")
    legal = legal_actions(state)
    assert legal.cards == state.hands[2]


def test_a_sloughed_high_card_loses() -> None:
    # 1111 (value 4) calls 1 ball; nobody else holds one ball, so 3333 (12) is a slough
    deal = fill(4, ["3333", "1111", "2222", "2333"], lambda seat, card: card.balls != 1)
    state = play(game(deal), "1:1111:1ba", "2:2222", "3:2333", "0:3333")
    assert last_trick_winner(state) == 1
    assert state.taken == (0, 1, 0, 0)
    assert legal_actions(state).seat == 1 and legal_actions(state).kind == "lead"


def test_the_highest_card_showing_the_call_wins() -> None:
    deal = fill(4, ["1213", "1111", "1333", "1122"])
    state = play(game(deal), "1:1111:1ba", "2:1333", "3:1122", "0:1213")
    assert last_trick_winner(state) == 2  # 1333 is 10; 1213 is 7, 1122 is 6, 1111 is 4


def test_a_tie_goes_to_the_later_card() -> None:
    # 2213 and 2321 and 2222 are all value 8 with 2 balls: the last of them wins
    deal = fill(4, ["2321", "2213", "2222", "1111"],
                lambda seat, card: seat != 3 or card.balls != 2)
    state = play(game(deal), "1:2213:2ba", "2:2222", "3:1111", "0:2321")
    assert last_trick_winner(state) == 0
    state = play(game(deal), "1:2213:2ba", "2:2222")
    state = play(state, "3:1111", "0:2321")
    assert state.tricks[-1].plays == ((1, Card.parse("2213")), (2, Card.parse("2222")),
                                      (3, Card.parse("1111")), (0, Card.parse("2321")))
    # a tie with the lead: the later card beats the leader
    deal = fill(2, ["2213", "2222"])
    state = play(game(deal, dealer=1), "0:2213:2ba", "1:2222")
    assert last_trick_winner(state) == 1


def test_a_later_lower_card_does_not_win() -> None:
    deal = fill(3, ["1113", "3333", "1123"])
    state = play(game(deal), "1:3333:3st", "2:1123", "0:1113")
    assert last_trick_winner(state) == 1


def test_a_tie_with_a_slough_is_no_tie() -> None:
    # 2222 (8) calls 2 balls; 3221 (8) sloughs after it and does not take the trick
    deal = fill(3, ["3221", "2222"], lambda seat, card: seat == 1 or card.balls != 2)
    state = play(game(deal), "1:2222:2ba")
    state = play(state, f"2:{legal_actions(state).cards[0]}", "0:3221")
    assert last_trick_winner(state) == 1


def test_play_out_of_turn_is_refused() -> None:
    state = game(fill(4, []))
    card = state.hands[2][0]
    refused(state, Play(2, card, card.calls[0]), NotYourTurn, "seat 1 plays next, not seat 2")
    refused(state, Play(7, card, card.calls[0]), NotYourTurn, "no seat 7: seats are 0 to 3")


def test_a_card_not_in_hand_is_refused() -> None:
    state = game(fill(4, []))
    theirs = state.hands[2][0]
    refused(state, Play(1, theirs, theirs.calls[0]), NotInHand,
            f"{theirs} is not in seat 1's hand")
    aside = state.aside[0]
    refused(state, Play(1, aside, aside.calls[0]), NotInHand, "is not in seat 1's hand")


def test_a_card_is_played_once() -> None:
    deal = fill(2, ["", "3333 1111"])
    state = play(game(deal), "1:3333:3st")
    state = play(state, f"0:{legal_actions(state).cards[0]}")
    refused(state, Play(1, Card.parse("3333"), Call.parse("3st")), NotInHand,
            "3333 is not in seat 1's hand")


def test_something_that_is_not_a_command_is_refused() -> None:
    refused(game(fill(4, [])), "play 1111", IllegalCommand, "not a command")


def test_each_round_is_eight_tricks_then_the_next_deal() -> None:
    state = new_game(Config(players=3, rounds=2, seed=2))
    agent = RandomAgent(1)
    from xactika.core import view

    tricks = 0
    while state.round == 1:
        legal = legal_actions(state)
        assert legal.seat is not None
        before = state.round
        state, events = step(state, agent.choose(view(state, legal.seat), legal))
        tricks += sum(isinstance(e, TrickWon) for e in events)
        if before == 1 and state.round == 2:
            kinds = [type(e).__name__ for e in events]
            assert kinds[-3:] == ["TrickWon", "RoundScored", "Dealt"]
    assert tricks == 8
    assert all(len(h) == 8 for h in state.hands)


# --------------------------------------------------------------------------- scoring


@pytest.mark.parametrize(("bid", "took", "points"), [
    (2, 2, 2), (4, 2, -2), (0, 0, 0), (3, 4, -1),  # the German table
    (2, 3, -1), (3, 5, -2), (8, 8, 8), (0, 8, -8), (8, 0, -8), (1, 1, 1),
])
def test_bid_points(bid: int, took: int, points: int) -> None:
    assert bid_points(bid, took) == points


# The German rules' example as a real round: A..D are seats 0..3, D deals, A leads.
GERMAN_DEAL = PresetDeal(tuple(cards(h) for h in (
    "2121 3111 1133 2312 2133 3123 3213 3312",
    "1111 1211 1122 1131 1313 1322 3313 3333",
    "1121 1331 2213 2321 3131 1233 3222 2333",
    "1231 3112 1223 3122 3221 2322 2331 2233",
)))
GERMAN_PLAY = (
    "0:3312:1co 1:1313 2:2213 3:3112",
    "0:3111:3ba 1:3313 2:3131 3:3221",
    "1:1211:1ba 2:1331 3:1231 0:1133",
    "0:2121:1cu 1:1122 2:1121 3:3122",
    "3:2331:1st 0:2133 1:1111 2:2321",
    "3:2233:3st 0:3213 1:3333 2:1233",
    "1:1131:1ba 2:2333 3:1223 0:2312",
    "3:2322:3cu 0:3123 1:1322 2:3222",
)


def test_the_german_example_played_as_a_round() -> None:
    state = new_game(Config(mode="bid", players=4, rounds=1, dealer=3, deals=(GERMAN_DEAL,)))
    state = play(state, "0:bid=2", "1:bid=4", "2:bid=0", "3:bid=3")
    events = []
    for trick in GERMAN_PLAY:
        for move in trick.split():
            seat, card, *call = move.split(":")
            state, new = step(state, Play(int(seat), Card.parse(card),
                                          Call.parse(call[0]) if call else None))
            events += new
    scored = [e for e in events if isinstance(e, RoundScored)]
    assert len(scored) == 1
    assert scored[0].bids == (2, 4, 0, 3)
    assert scored[0].tricks == (2, 2, 0, 4)
    assert scored[0].points == (2, -2, 0, -1)
    assert scored[0].totals == (2, -2, 0, -1)
    assert state.over
    assert events[-1] == GameOver(events[-1].seq, (2, -2, 0, -1), (0,))
    # each trick went to the seat that leads the next one
    winners = [e.seat for e in events if isinstance(e, TrickWon)]
    leads = [int(t.split(":")[0]) for t in GERMAN_PLAY]
    assert winners[:-1] == leads[1:]


def test_win_and_lose_score_one_point_per_trick() -> None:
    for mode in ("win", "lose"):
        _, events = self_play(Config(mode=mode, players=3, rounds=2, seed=8),
                              [RandomAgent(s) for s in range(3)])
        scored = [e for e in events if isinstance(e, RoundScored)]
        for e in scored:
            assert e.bids is None
            assert e.points == e.tricks
            assert sum(e.tricks) == 8
        assert scored[-1].totals == tuple(map(sum, zip(*(e.points for e in scored),
                                                        strict=True)))


@pytest.mark.parametrize(("mode", "totals", "winners"), [
    ("win", (3, 9, 4), (1,)),
    ("lose", (3, 9, 4), (0,)),
    ("bid", (-3, 2, 1), (1,)),
    ("win", (9, 2, 9), (0, 2)),
    ("lose", (1, 1, 5), (0, 1)),
    ("bid", (-1, -1, -1), (0, 1, 2)),
])
def test_winners_by_mode_and_ties_share(mode: str, totals: tuple[int, ...],
                                        winners: tuple[int, ...]) -> None:
    assert XACTIKA.winners(Config(mode=mode, players=3), totals) == winners


@pytest.mark.parametrize(("mode", "seed"), [("win", 1), ("lose", 1), ("bid", 7)])
def test_a_tied_game_is_a_shared_win(mode: str, seed: int) -> None:
    config = Config(mode=mode, players=2, rounds=1, seed=seed)
    _, events = self_play(config, [RandomAgent(seed * 10 + s) for s in range(2)])
    over = events[-1]
    assert isinstance(over, GameOver)
    assert over.totals[0] == over.totals[1]
    assert over.winners == (0, 1)


def test_nothing_after_game_over() -> None:
    state, _ = self_play(Config(rounds=1, seed=3), [RandomAgent(s) for s in range(4)])
    assert state.over
    assert legal_actions(state).kind == "none" and legal_actions(state).seat is None
    refused(state, Bid(0, 1), GameIsOver, "the game is over")
    refused(state, Play(0, DECK[0], DECK[0].calls[0]), GameIsOver, "the game is over")
