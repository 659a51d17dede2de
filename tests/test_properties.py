"""Properties of whole games played by random legal moves (hypothesis).

Each example is a seeded game (2-10 players, every mode, 1-2 rounds) played out by a
seeded random mover. Every check recomputes what it checks from the rules in
spec/RULES.md rather than asking the engine again.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from xactika.core import (
    CALLS,
    DECK,
    BadBid,
    BadCall,
    Bid,
    BidMade,
    Card,
    Config,
    Dealt,
    GameIsOver,
    GameOver,
    IllegalCommand,
    Led,
    MustFollow,
    NotInHand,
    NotYourTurn,
    Play,
    Played,
    RoundScored,
    State,
    TrickWon,
    WrongPhase,
    evolve,
    legal_actions,
    replay,
    start,
    step,
    view,
    visible,
)
from xactika.core.games.xactika import XACTIKA
from xactika.protocol.notation.text import format_event, parse_event


@attrs.frozen
class Game:
    config: Config
    events: tuple[Any, ...]
    states: tuple[State, ...]  # states[i] is the state just after events[i]


def play_game(config: Config, mover: int,
              at_each_state: Any = None) -> Game:
    """Play ``config`` out with random legal moves; ``at_each_state(state, events)`` is
    called on every state where someone must act (before the move)."""
    rng = random.Random(mover)
    events = list(start(config))
    states = []
    state = replay([])
    for e in events:
        state = evolve(state, e)
        states.append(state)
    while True:
        legal = legal_actions(state)
        if legal.seat is None:
            break
        if at_each_state is not None:
            at_each_state(state, events)
        command = rng.choice(list(legal.commands()))
        state, new = step(state, command)
        for e in new:
            events.append(e)
        # the live state after a step is the last of the states the fold passes through
        fold = states[-1]
        for e in new:
            fold = evolve(fold, e)
            states.append(fold)
        assert fold == state
    return Game(config, tuple(events), tuple(states))


configs = st.builds(
    lambda seed, players, mode, rounds, dealer: Config(
        mode=mode, players=players, rounds=rounds, dealer=dealer % players, seed=seed
    ),
    st.integers(0, 2**32),
    st.integers(2, 10),
    st.sampled_from(("win", "lose", "bid")),
    st.integers(1, 2),
    st.integers(0, 9),
)
movers = st.integers(0, 2**32)


def shows(card: Card, call: Any) -> bool:
    return (card.balls, card.cubes, card.cones, card.stars)[call.shape] == call.count


# --------------------------------------------------------------------------- conservation


@given(configs, movers)
def test_cards_are_conserved(config: Config, mover: int) -> None:
    game = play_game(config, mover)
    for state in game.states[1:]:
        played = [c for t in state.tricks for _, c in t.plays] + [c for _, c in state.trick]
        every = [c for h in state.hands for c in h] + list(state.aside) + played
        assert Counter(every) == Counter(DECK), "a card is lost or doubled"
        assert len(state.aside) == 81 - 8 * config.players


@given(configs, movers)
def test_each_round_has_exactly_8_tricks(config: Config, mover: int) -> None:
    game = play_game(config, mover)
    per_round: dict[int, list[int]] = {}
    current = 0
    for e in game.events:
        if isinstance(e, Dealt):
            current = e.round
            assert all(len(h) == 8 for h in e.hands if h is not None)
        elif isinstance(e, TrickWon):
            per_round.setdefault(current, []).append(e.trick)
    assert per_round == {r: list(range(1, 9)) for r in range(1, config.rounds + 1)}
    assert game.states[-1].over


# --------------------------------------------------------------------------- tricks


@given(configs, movers)
def test_every_trick_goes_to_the_highest_card_showing_the_call(config: Config,
                                                               mover: int) -> None:
    game = play_game(config, mover)
    n = config.players
    last_round_tricks = [s.tricks for s in game.states if len(s.tricks) == 8]
    assert last_round_tricks
    for state in game.states:
        for trick in state.tricks:
            assert len(trick.plays) == n
            lead_seat, lead = trick.plays[0]
            assert shows(lead, trick.call)  # a lead always shows its own call
            seats = [s for s, _ in trick.plays]
            assert seats == [(lead_seat + k) % n for k in range(n)]  # clockwise
            best = max(c.value for _, c in trick.plays if shows(c, trick.call))
            winner = [s for s, c in trick.plays if shows(c, trick.call) and c.value == best][-1]
            assert trick.winner == winner


@given(configs, movers)
def test_a_seat_follows_when_it_can(config: Config, mover: int) -> None:
    game = play_game(config, mover)
    for before, e in zip(game.states, game.events[1:], strict=False):
        if isinstance(e, Played):
            hand = before.hands[e.seat]
            if any(shows(c, before.call) for c in hand):
                assert shows(e.card, before.call)


# --------------------------------------------------------------------------- scores


@given(configs, movers)
def test_scores_match_the_formula(config: Config, mover: int) -> None:
    game = play_game(config, mover)
    n = config.players
    totals = [0] * n
    bids: list[int | None] = [None] * n
    taken = [0] * n
    for e in game.events:
        if isinstance(e, Dealt):
            bids, taken = [None] * n, [0] * n
        elif isinstance(e, BidMade):
            bids[e.seat] = e.bid
        elif isinstance(e, TrickWon):
            taken[e.seat] += 1
        elif isinstance(e, RoundScored):
            assert e.tricks == tuple(taken)
            assert sum(e.tricks) == 8
            if config.mode == "bid":
                assert e.bids == tuple(bids)
                assert sum(b or 0 for b in bids) != 8  # the dealer's hook did its work
                points = [t if b == t else -abs((b or 0) - t) for b, t in zip(bids, taken,
                                                                               strict=True)]
            else:
                assert e.bids is None
                points = list(taken)
            assert e.points == tuple(points)
            totals = [t + p for t, p in zip(totals, points, strict=True)]
            assert e.totals == tuple(totals)
    over = game.events[-1]
    assert isinstance(over, GameOver)
    assert over.totals == tuple(totals)
    best = min(totals) if config.mode == "lose" else max(totals)
    assert over.winners == tuple(s for s in range(n) if totals[s] == best)


# --------------------------------------------------------------------------- the fold


@given(configs, movers)
def test_replay_of_the_log_is_the_live_state(config: Config, mover: int) -> None:
    game = play_game(config, mover)
    assert replay(game.events) == game.states[-1]
    cut = mover % len(game.events) + 1
    assert replay(game.events[:cut]) == game.states[cut - 1]


# --------------------------------------------------------------------------- illegal commands


def illegal_commands(state: State) -> list[tuple[Any, type[IllegalCommand]]]:
    """Commands the rules forbid here, each with the error it must raise."""
    n = state.config.players
    legal = legal_actions(state)
    out: list[tuple[Any, type[IllegalCommand]]] = []
    if state.over:
        return [(Bid(0, 0), GameIsOver), (Play(0, DECK[0], CALLS[0]), GameIsOver)]
    seat = legal.seat
    assert seat is not None
    other = (seat + 1) % n
    hand = state.hands[seat]
    card = hand[0]
    out.append((Bid(n, 0), NotYourTurn))
    out.append((Play(-1, card), NotYourTurn))
    not_held = [c for c in DECK if c not in hand]
    if legal.kind == "bid":
        out.append((Bid(other, 0), NotYourTurn))
        out.append((Bid(seat, -1), BadBid))
        out.append((Bid(seat, 9), BadBid))
        if seat == state.dealer:
            others = sum(b for b in state.bids if b is not None)
            if others <= 8:
                out.append((Bid(seat, 8 - others), BadBid))  # the hook
        out.append((Play(seat, card, card.calls[0]), WrongPhase))
        return out
    out.append((Bid(seat, 0), WrongPhase))
    their = state.hands[other][0] if state.hands[other] else DECK[0]
    if legal.kind == "lead":
        out.append((Play(other, their, their.calls[0]), NotYourTurn))
        out.append((Play(seat, not_held[0], not_held[0].calls[0]), NotInHand))
        out.append((Play(seat, card), BadCall))  # no call
        wrong = [c for c in CALLS if c not in card.calls]
        out.append((Play(seat, card, wrong[len(hand) % len(wrong)]), BadCall))
    else:
        out.append((Play(other, their), NotYourTurn))
        out.append((Play(seat, not_held[-1]), NotInHand))
        follow = [c for c in hand if shows(c, state.call)]
        if follow:
            out.append((Play(seat, follow[0], follow[0].calls[0]), BadCall))
            out.extend((Play(seat, c), MustFollow) for c in hand if c not in follow)
        else:
            out.append((Play(seat, card, card.calls[0]), BadCall))
    return out


def check_refusals(state: State, events: list[Any]) -> None:
    before = legal_actions(state)
    for command, error in illegal_commands(state):
        with pytest.raises(error) as err:
            step(state, command)
        assert type(err.value) is error, (command, err.value)
        assert str(err.value) and "\n" not in str(err.value)
    assert legal_actions(state) == before
    assert replay(events) == state  # nothing was changed behind the immutable front


@given(configs, movers)
def test_every_illegal_command_is_refused_with_the_state_unchanged(config: Config,
                                                                    mover: int) -> None:
    game = play_game(config, mover, at_each_state=check_refusals)
    check_refusals(game.states[-1], list(game.events))  # and after game-over


@settings(max_examples=15)
@given(configs, movers, st.integers(0, 10**6))
def test_a_command_is_accepted_exactly_when_legal_actions_lists_it(
    config: Config, mover: int, pick: int
) -> None:
    """Try every bid -1..9 and every card with every call (and none) in one state."""
    game = play_game(config, mover)
    live = [s for s in game.states if legal_actions(s).seat is not None]
    state = live[pick % len(live)]
    legal = legal_actions(state)
    accepted = 0
    for seat in range(config.players):
        tries: list[Any] = [Bid(seat, b) for b in range(-1, 10)]
        if seat == legal.seat:
            tries += [Play(seat, c, k) for c in DECK for k in (None, *CALLS)]
        else:
            tries += [Play(seat, c, None) for c in state.hands[seat]]
        for command in tries:
            try:
                step(state, command)
            except IllegalCommand:
                assert command not in legal
            else:
                assert command in legal
                accepted += 1
    assert accepted == len(list(legal.commands())) == len(legal)


# --------------------------------------------------------------------------- hidden cards


def cards_in(value: Any) -> set[Card]:
    if isinstance(value, Card):
        return {value}
    if isinstance(value, tuple | list):
        return set().union(*(cards_in(v) for v in value))
    if attrs.has(type(value)):
        return cards_in([getattr(value, f.name) for f in attrs.fields(type(value))])
    return set()


@given(configs, movers)
def test_views_never_hold_another_seats_cards(config: Config, mover: int) -> None:
    game = play_game(config, mover)
    n = config.players
    for state, e in zip(game.states, game.events, strict=True):
        if not state.hands:
            continue
        for seat in range(n):
            secret = set(state.aside).union(*(state.hands[s] for s in range(n) if s != seat))
            v = view(state, seat)
            assert v.hand == state.hands[seat]
            assert v.hand_sizes == tuple(len(h) for h in state.hands)
            assert not cards_in(v) & secret
            assert v.config.seed is None and v.config.deals is None
            seen = visible(e, seat)
            assert not cards_in(seen) & secret
            if isinstance(e, Dealt):
                assert seen.hands[seat] == e.hands[seat]
                assert seen.aside is None
                assert all(h is None for s, h in enumerate(seen.hands) if s != seat)


# --------------------------------------------------------------------------- event text


@given(configs, movers)
def test_every_event_round_trips_through_its_text(config: Config, mover: int) -> None:
    game = play_game(config, mover)
    kinds = set()
    for e in game.events:
        line = format_event(e, XACTIKA)
        assert "\n" not in line
        assert parse_event(line, XACTIKA) == e
        kinds.add(line.split()[2])
        for seat in {0, config.players - 1}:
            seen = visible(e, seat)
            assert parse_event(format_event(seen, XACTIKA), XACTIKA) == seen
    expected = {"game-started", "deal", "lead", "play", "trick-won", "round-scored",
                "game-over"}
    assert kinds == expected | ({"bid"} if config.mode == "bid" else set())


def test_led_events_carry_the_call_and_plays_do_not() -> None:
    game = play_game(Config(mode="bid", players=3, rounds=1, seed=3), 1)
    leads = [e for e in game.events if isinstance(e, Led)]
    assert len(leads) == 8
    assert all(e.call in e.card.calls for e in leads)
    assert all(not hasattr(e, "call") for e in game.events if isinstance(e, Played))


@given(configs, movers)
def test_a_seat_folding_what_it_sees_tracks_its_own_view(config: Config, mover: int) -> None:
    """A bot that folds its visible events (others' hands hidden) keeps its own hand and
    every public fact in step with the referee."""
    game = play_game(config, mover)
    for seat in {0, config.players - 1}:
        fold = replay([])
        for state, e in zip(game.states, game.events, strict=True):
            fold = evolve(fold, visible(e, seat))
            if not state.hands:
                continue
            mine, theirs = view(fold, seat), view(state, seat)
            assert mine.hand == theirs.hand
            assert attrs.evolve(mine, hand_sizes=theirs.hand_sizes) == theirs
            assert all(not h for s, h in enumerate(fold.hands) if s != seat)
            assert not fold.aside
