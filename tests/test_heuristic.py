"""The heuristic bot's choices in set positions (preset deals)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from xactika.core import (
    DECK,
    Bid,
    Call,
    Card,
    Config,
    Play,
    PresetDeal,
    State,
    legal_actions,
    new_game,
    step,
    view,
)
from xactika.core.bots.agents import agent_names, make_agent
from xactika.core.bots.heuristic import HeuristicAgent, bid_estimate, knowledge


def c(text: str) -> Card:
    return Card.parse(text)


def hands(*given: str, avoid: Sequence[str] = ()) -> tuple[tuple[Card, ...], ...]:
    """Four hands of 8: the given cards (seat by seat), each topped up in deck order with
    cards that show none of the calls in ``avoid`` (so they cannot follow those)."""
    fixed = [[c(t) for t in h.split()] for h in given] + [[] for _ in range(4 - len(given))]
    used = {card for h in fixed for card in h}
    bad = [Call.parse(a) for a in avoid]
    pool = [d for d in DECK if d not in used and not any(d.shows(k) for k in bad)]
    for h in fixed:
        while len(h) < 8:
            h.append(pool.pop(0))
    return tuple(tuple(h) for h in fixed)


def game(mode: str, deal: tuple[tuple[Card, ...], ...], dealer: int = 0) -> State:
    return new_game(Config(mode=mode, players=4, rounds=1, dealer=dealer,
                           deals=(PresetDeal(deal),)))


def choose(state: State) -> Bid | Play:
    legal = legal_actions(state)
    cmd = HeuristicAgent().choose(view(state, legal.seat or 0), legal)
    assert cmd in legal
    return cmd


def test_registered_by_name() -> None:
    assert {"heuristic", "strong"} <= set(agent_names())
    assert isinstance(make_agent("heuristic", 1, game="xactika"), HeuristicAgent)


def test_bid_follows_the_encyclopedia_not_the_rule_sheet() -> None:
    # 12 and 11: one each; 10, 9, 9: one per two; the rule sheet would say 5
    hand = "3333 3332 1333 2223 3132 2222 1211 1111"
    assert bid_estimate([c(t) for t in hand.split()]) == 3.5
    state = game("bid", hands("1112 1113 1121 1122 1123 1131 1132 2111", hand))
    assert choose(state) == Bid(1, 4)  # seat 1 bids first; 3.5 rounds up


def test_low_hand_bids_zero() -> None:
    state = game("bid", hands("1112 1113 1121 1122 1123 1131 1132 2111",
                              "1111 1211 2112 1221 2211 1212 2121 1122".replace("1122", "3111")))
    assert choose(state) == Bid(1, 0)


def test_dealer_hook_takes_the_nearest_legal_bid() -> None:
    dealer_hand = "3333 3332 1111 1112 1113 1121 1123 1131"  # two of 11-12: estimate 2
    state = game("bid", hands(dealer_hand, avoid=()), dealer=0)
    for seat, bid in ((1, 3), (2, 2), (3, 1)):
        state, _ = step(state, Bid(seat, bid))
    # 3 + 2 + 1 + 2 = 8 is forbidden: 1 and 3 are equally near, the lower is safer
    assert 2 not in legal_actions(state).bids
    assert choose(state) == Bid(0, 1)


def test_lead_to_win_calls_the_count_fewest_higher_cards_share() -> None:
    # 3332: with 2 stars nothing higher exists; with 3 balls three cards could beat it
    leader = "3332 1333 2122 1211 2112 1121 2211 1112"
    state = game("win", hands("1113 1131 1311 3111 1122 1212 2121 2212", leader))
    cmd = choose(state)
    assert cmd == Play(1, c("3332"), Call.parse("2st"))


def test_lead_to_win_uses_the_cards_already_seen() -> None:
    """3312 calling 1 cone can be beaten by 3313, 2313 and 3213 only; once those three
    are played, it is a sure winner and the heuristic leads it."""
    state = game("win", hands(
        "2313", "3333 3312 1111 1112 1121 1211 2111 1122", "3313", "3213", avoid=("3ba",),
    ))
    first = choose(state)
    assert first == Play(1, c("3333"), Call.parse("3ba"))  # nothing beats the 12
    state, _ = step(state, first)
    for seat, card in ((2, "3313"), (3, "3213"), (0, "2313")):
        state, _ = step(state, Play(seat, c(card)))
    assert state.leader == 1
    know = knowledge(view(state, 1))
    assert not {c("3313"), c("2313"), c("3213")} & set(know.unseen)
    assert choose(state) == Play(1, c("3312"), Call.parse("1co"))


def test_lead_to_lose_plays_low_with_the_most_common_count() -> None:
    # only 1111 shows 1 star in this hand, so 26 unseen cards could beat 1111 with 1st
    leader = "1111 1112 1113 1122 1123 1212 1213 2113"
    state = game("lose", hands("3333 3332 3323 3233 2333 3331 3313 3133", leader))
    assert choose(state) == Play(1, c("1111"), Call.parse("1st"))


def _follow_position(mode: str, bid0: int | None = None) -> State:
    """Seat 1 leads 2222 calling 2 balls; seats 2 and 3 cannot follow; seat 0 (last) holds
    2111 (5), 2122 (7), 2223 (9) and 2333 (11), all with 2 balls."""
    state = game(mode, hands(
        "2111 2122 2223 2333 1111 1112 1113 1121",
        "2222 1122 1123 1131 1132 1133 1211 1212",
        avoid=("2ba",),
    ))
    if mode == "bid":
        for seat, bid in ((1, 2), (2, 2), (3, 2), (0, bid0 if bid0 is not None else 1)):
            state, _ = step(state, Bid(seat, bid))
    state, _ = step(state, Play(1, c("2222"), Call.parse("2ba")))
    for seat in (2, 3):
        legal = legal_actions(state)
        state, _ = step(state, Play(seat, legal.cards[0]))
    return state


def test_follow_to_win_takes_it_cheaply() -> None:
    assert choose(_follow_position("win")) == Play(0, c("2223"))


def test_follow_to_lose_ducks_with_the_highest_card_under() -> None:
    assert choose(_follow_position("lose")) == Play(0, c("2122"))
    state = _follow_position("lose")
    legal = legal_actions(state)
    _, why = HeuristicAgent().explain(view(state, 0), legal)
    # the reason names what the move does: the highest of the cards under, not "a high card"
    assert why == ("duck: 2122 (7) stays under the winning 8; of the cards that do, it is the "
                   "highest: the lower ones stay for later")


def test_reasons_count_in_words_not_card_s() -> None:
    state = _follow_position("bid")
    legal = legal_actions(state)
    _, why = HeuristicAgent().explain(view(state, legal.seat or 0), legal)
    assert "(s)" not in why
    bidding = game("bid", hands("2111 2122 2223 2333 1111 1112 1113 1121",
                                "2222 1122 1123 1131 1132 1133 1211 1212", avoid=("2ba",)))
    legal = legal_actions(bidding)
    _, why = HeuristicAgent().explain(view(bidding, legal.seat or 0), legal)
    assert "(s)" not in why and re.search(r"\b(1 card|\d+ cards) of 11-12", why), why


def test_bid_mode_wins_only_while_it_needs_tricks() -> None:
    assert choose(_follow_position("bid", bid0=1)) == Play(0, c("2223"))
    assert choose(_follow_position("bid", bid0=0)) == Play(0, c("2122"))


def test_slough_keeps_or_sheds_the_strong_cards() -> None:
    """Seat 0 cannot follow 3 stars: wanting tricks it throws its weakest card away;
    avoiding them it throws its most dangerous one."""
    deal = hands(
        "1111 3332 3322 3232 2332 3321 3231 1221",
        "1113 1123 1133 1213 1223 1233 1313 1323",
        avoid=("3st",),
    )
    for mode, expect in (("win", "1111"), ("lose", "3332")):
        state = game(mode, deal)
        state, _ = step(state, Play(1, c("1113"), Call.parse("3st")))
        for seat in (2, 3):
            state, _ = step(state, Play(seat, legal_actions(state).cards[0]))
        assert choose(state) == Play(0, c(expect)), mode


def test_explain_gives_a_one_line_reason() -> None:
    state = _follow_position("win")
    legal = legal_actions(state)
    cmd, why = HeuristicAgent().explain(view(state, 0), legal)
    assert cmd == Play(0, c("2223"))
    assert "\n" not in why and "2223" in why
