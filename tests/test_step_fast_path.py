"""The referee's shortcuts: fast_constructor, fast_new and step's identity tests.

``step`` recognises a legal move by identity (the seat object is ``to_act``, the card
object is in the hand) and sends everything else through the full check; objects that
are equal but not the same must still be accepted, and look-alikes (``True`` for seat
1) still refused, with the error the full check gives.
"""

from __future__ import annotations

import copy
import pickle

import attrs
import pytest

from xactika.core import (
    CALLS,
    Bid,
    BidMade,
    Call,
    Card,
    Config,
    Dealt,
    IllegalCommand,
    Led,
    Play,
    Played,
    RoundScored,
    SeatView,
    State,
    legal_actions,
    new_game,
    step,
)
from xactika.core.engine.api import Legal, Trick, TrickWon, _check, fast_constructor, fast_new


def _fresh(card: Card) -> Card:
    """An equal card that is not the deck's instance."""
    copy = Card(card.balls, card.cubes, card.cones, card.stars)
    assert copy == card and copy is not card
    return copy


def _play_until(state: State, stop: str) -> State:
    """Advance by first legal commands until the next to act faces ``stop`` kind."""
    while legal_actions(state).kind != stop:
        state, _ = step(state, next(legal_actions(state).commands()))
    return state


@pytest.mark.parametrize(
    "cls", [State, Legal, Trick, Dealt, BidMade, Led, Played, TrickWon, RoundScored, SeatView]
)
def test_fast_constructor_builds_the_frozen_class(cls: type) -> None:
    names = [a.name for a in attrs.fields(cls)]
    values = [object() for _ in names]
    built = fast_constructor(cls)(*values)
    assert type(built) is cls
    assert built == cls(*values)
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        setattr(built, names[0], 1)


@pytest.mark.parametrize(
    "command", [Play(1, Card(1, 2, 3, 1)), Play(0, Card(1, 1, 1, 1), CALLS[3]),
                Play(seat=2, card=Card(3, 3, 3, 3), call=None), Bid(3, 0), Bid(seat=1, bid=8)],
)
def test_commands_built_by_fast_new_behave_as_attrs_classes(command: Bid | Play) -> None:
    cls = type(command)
    values = [getattr(command, a.name) for a in attrs.fields(cls)]
    assert type(command) is cls and command == cls(*values) and hash(command) == hash(cls(*values))
    assert repr(command).startswith(f"{cls.__name__}(seat=")
    for clone in (pickle.loads(pickle.dumps(command)), copy.copy(command), copy.deepcopy(command)):
        assert type(clone) is cls and clone == command
    assert attrs.evolve(command, seat=command.seat) == command
    assert attrs.evolve(command, seat=command.seat + 1) != command
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        command.seat = 0  # type: ignore[misc]
    with pytest.raises(TypeError):
        cls(*values, None)  # one argument too many
    with pytest.raises(TypeError):
        cls()


def test_play_keeps_its_default_call() -> None:
    card = Card(2, 2, 2, 2)
    assert Play(1, card) == Play(1, card, None) and Play(1, card).call is None


def test_fast_new_refuses_what_it_cannot_build() -> None:
    @attrs.frozen(slots=True, weakref_slot=False)
    class WithFactory:
        a: list[int] = attrs.Factory(list)

    with pytest.raises(TypeError, match="plain defaults"):
        fast_new(WithFactory)

    @attrs.frozen(slots=True)
    class Weak:
        a: int

    with pytest.raises(TypeError, match="weakref_slot=False"):
        fast_new(Weak)


def test_fast_constructor_refuses_a_class_with_a_weakref_slot() -> None:
    @attrs.frozen(slots=True)
    class Weak:
        a: int

    with pytest.raises(TypeError, match="weakref_slot=False"):
        fast_constructor(Weak)


def test_equal_but_distinct_objects_are_legal_as_the_same_ones() -> None:
    lead = _play_until(new_game(Config(mode="win", seed=11)), "lead")
    legal = legal_actions(lead)
    card = legal.cards[0]
    call = card.calls[2]
    same = step(lead, Play(legal.seat, card, call))
    other = step(lead, Play(legal.seat, _fresh(card), Call(call.count, call.shape)))
    assert other == same
    follow, _ = same
    legal = legal_actions(follow)
    card = legal.cards[-1]
    assert step(follow, Play(legal.seat, _fresh(card))) == step(follow, Play(legal.seat, card))


def test_bid_fast_path_matches_the_full_check() -> None:
    state = new_game(Config(mode="bid", seed=3))
    seat = legal_actions(state).seat
    assert seat is not None
    for command in (Bid(seat, 2), Bid(seat, True), Bid(seat, 9), Bid(seat, -1), Bid(True, 2),
                    Bid((seat + 1) % 4, 2), Play(seat, state.hands[seat][0], None)):
        _assert_same_verdict(state, command)


def test_play_fast_path_matches_the_full_check() -> None:
    state = _play_until(new_game(Config(mode="win", seed=5)), "play")
    seat = legal_actions(state).seat
    assert seat is not None
    held = state.hands[seat]
    someone_elses = state.hands[(seat + 1) % 4][0]
    call = state.call
    commands = [Play(seat, card) for card in held]  # legal follows and forbidden sloughs
    commands += [Play(seat, held[0], call), Play(seat, someone_elses), Play(True, held[0]),
                 Play(seat, "1111"), Bid(seat, 1), Play((seat + 1) % 4, held[0])]
    for command in commands:
        _assert_same_verdict(state, command)
    lead = _play_until(state, "lead")
    seat = legal_actions(lead).seat
    assert seat is not None
    card = lead.hands[seat][0]
    wrong = next(c for c in CALLS if c not in card.calls)
    for command in (Play(seat, card, None), Play(seat, card, wrong), Play(seat, card, "2st"),
                    Play(seat, card, card.calls[1])):
        _assert_same_verdict(lead, command)


def _assert_same_verdict(state: State, command: object) -> None:
    """step refuses exactly what _check refuses, with the same error and message."""
    try:
        _check(state, command)  # type: ignore[arg-type]
    except IllegalCommand as expected:
        with pytest.raises(type(expected)) as got:
            step(state, command)  # type: ignore[arg-type]
        assert str(got.value) == str(expected)
        return
    new, events = step(state, command)  # type: ignore[arg-type]
    assert events and new.seq == state.seq + len(events)


def test_the_last_public_config_is_reused_only_for_the_same_config() -> None:
    """view() keeps the last public config: alternating games must each get their own,
    equal to the config less its seed, nonce and preset deals."""
    from xactika.core import view

    games = [new_game(Config(mode=mode, players=players, seed=seed))
             for mode, players, seed in (("win", 4, 1), ("bid", 3, 2), ("win", 4, 1))]
    for _ in range(2):
        for state in games:
            seen = view(state, 0).config
            assert seen == attrs.evolve(state.config, seed=None, deals=None, nonce=None)
            assert seen.seed is None and seen.players == state.config.players


def test_interleaved_games_each_get_their_own_rules() -> None:
    """Nothing step or legal_actions keep between calls (a cache of rules or of legal
    moves) may leak from one game into another: two games played move by move in turn
    (Xactika and Dix) fold exactly as each played alone."""
    configs = [Config(mode="bid", players=4, rounds=2, seed=5),
               Config(game="dix", mode="draw", players=2, rounds=1, seed=5)]

    def alone(config: Config) -> list[object]:
        state, log = new_game(config), []
        while (legal := legal_actions(state)).seat is not None:
            state, events = step(state, next(legal.commands()))
            log += events
        return log

    expected = [alone(c) for c in configs]
    states = [new_game(c) for c in configs]
    logs: list[list[object]] = [[], []]
    while any(legal_actions(s).seat is not None for s in states):
        for i, state in enumerate(states):
            legal = legal_actions(state)
            if legal.seat is not None:
                states[i], events = step(state, next(legal.commands()))
                logs[i] += events
    assert logs == expected
    assert all(s.over for s in states)
