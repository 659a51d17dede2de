"""Properties of random Dix games: conservation, trick counts, scores, replay, secrecy."""

from __future__ import annotations

from collections import Counter
from typing import Any

import attrs
from hypothesis import given
from hypothesis import strategies as st

from xactika.core import (
    Config,
    Dealt,
    GameOver,
    Led,
    Played,
    RandomAgent,
    RoundScored,
    State,
    TrickWon,
    game_rules,
    legal_actions,
    replay,
    start,
    step,
    view,
    visible,
)
from xactika.core.engine.api import Event
from xactika.core.games.dix import DECK, DixCard, Drew
from xactika.protocol.notation.text import format_event, parse_event

RULES = game_rules("dix")
TEN_PIPS = {"A": 1, "T": 10, "J": 0, "Q": 0, "K": 0, **{str(n): n for n in range(2, 10)}}


def pips(card: DixCard) -> int:
    return 0 if str(card) == "JK" else TEN_PIPS[str(card)[0]]


games = st.builds(
    lambda mode, seed, dealer, bots, rounds: (
        Config(game="dix", mode=mode, players=2, rounds=rounds, dealer=dealer, seed=seed),
        bots,
    ),
    st.sampled_from(["draw", "nodraw"]),
    st.integers(0, 2**32),
    st.integers(0, 1),
    st.integers(0, 10**6),
    st.sampled_from([1, 1, 2]),
)


def live(config: Config, bots: int) -> tuple[list[State], list[Event]]:
    """Every state after every event of a random game, and the events."""
    agents = [RandomAgent(bots + s) for s in range(2)]
    events = start(config)
    states = [replay(events[:1]), replay(events)]
    state = states[-1]
    while (legal := legal_actions(state)).seat is not None:
        assert legal.seat == state.to_act
        command = agents[legal.seat].choose(view(state, legal.seat), legal)
        state, new = step(state, command)
        for i in range(len(new)):
            states.append(replay(new[i : i + 1], states[-1]))
        events += new
        assert states[-1] == state
    return states, events


def in_play(state: State) -> Counter[DixCard]:
    """Every card somewhere: hands, stock or unused, turned up, played this round."""
    played = [c for t in state.tricks for _, c in t.plays] + [c for _, c in state.trick]
    return Counter([*(c for h in state.hands for c in h), *state.aside, state.turned, *played])


@given(games)
def test_cards_are_conserved_and_trick_counts_hold(game: tuple[Config, int]) -> None:
    config, bots = game
    states, events = live(config, bots)
    for state in states[1:]:
        assert in_play(state) == Counter(DECK)
    per_round = 26 if config.mode == "draw" else 17
    rounds = sum(isinstance(e, RoundScored) for e in events)
    assert rounds == config.rounds
    assert sum(isinstance(e, TrickWon) for e in events) == per_round * rounds
    assert sum(isinstance(e, Drew) for e in events) == (26 * rounds if config.mode == "draw" else 0)
    dealers = [e.dealer for e in events if isinstance(e, Dealt)]
    assert dealers == [(config.dealer + i) % 2 for i in range(rounds)]


@given(games)
def test_scores_follow_the_formula(game: tuple[Config, int]) -> None:
    config, bots = game
    _, events = live(config, bots)
    totals = [0, 0]
    final: tuple[list[int], list[int], int] = ([0, 0], [0, 0], -1)
    points, tens, trick, tricks, last = [0, 0], [0, 0], [], [0, 0], -1
    for e in events:
        if isinstance(e, (Led, Played)):
            trick.append(e.card)
        elif isinstance(e, TrickWon):
            ten = sum(pips(c) for c in trick) == 10
            points[e.seat] += -3 if ten else 1
            tens[e.seat] += ten
            tricks[e.seat] += 1
            trick, last = [], e.seat
        elif isinstance(e, RoundScored):
            totals = [t + p for t, p in zip(totals, points, strict=True)]
            assert e.points == tuple(points) and e.tricks == tuple(tricks)
            assert e.totals == tuple(totals) and e.bids is None
            final = (points, tens, last)
            points, tens, tricks = [0, 0], [0, 0], [0, 0]
        elif isinstance(e, GameOver):
            p, x, lt = final
            if totals[0] != totals[1]:
                expected = 0 if totals[0] > totals[1] else 1
            else:
                expected = max((0, 1), key=lambda s: (p[s], -x[s], s == lt))
            assert e.winners == (expected,)


@given(games)
def test_replay_equals_live_play_and_event_text_round_trips(game: tuple[Config, int]) -> None:
    config, bots = game
    states, events = live(config, bots)
    assert replay(events) == states[-1]
    lines = [format_event(e, RULES) for e in events]
    assert [parse_event(line, RULES) for line in lines] == events
    for seat in (0, 1):
        for e in events:
            seen = visible(e, seat)
            assert parse_event(format_event(seen, RULES), RULES) == seen


def _cards_in(value: Any) -> set[DixCard]:
    """Every card reachable from an event or a view."""
    if isinstance(value, DixCard):
        return {value}
    if isinstance(value, (tuple, list)):
        return set().union(*(_cards_in(v) for v in value)) if value else set()
    if attrs.has(type(value)):
        return _cards_in([getattr(value, f.name) for f in attrs.fields(type(value))])
    return set()


@given(games)
def test_no_hidden_card_leaks_to_a_seat(game: tuple[Config, int]) -> None:
    config, bots = game
    states, events = live(config, bots)
    for seat in (0, 1):
        other = 1 - seat
        for after, e in zip(states, events, strict=True):
            if not after.hands:  # game-started: nothing dealt yet
                continue
            secret = set(after.hands[other]) | set(after.aside)  # just after ``e``
            seen = visible(e, seat)
            assert not _cards_in(seen) & secret, (seat, e)
            tokens = set(format_event(seen, RULES).replace("=", " ").replace(",", " ").split())
            assert not tokens & {str(c) for c in secret}, (seat, e)
            if isinstance(e, GameOver | RoundScored):
                continue
            v = view(after, seat)
            assert v.hand == after.hands[seat]
            assert not _cards_in(v) & secret
            assert v.config.seed is None and v.config.deals is None
            if after.phase == "play" and after.turned is not None:
                assert v.turned == after.turned  # the turned-up card is public
