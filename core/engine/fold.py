"""The fold: :func:`evolve` applies one event to a state, :func:`replay` many."""

from __future__ import annotations

from collections.abc import Iterable
from functools import singledispatch
from typing import Any

import attrs

from xactika.core.engine.errors import InvalidEvent
from xactika.core.engine.events import (
    BidMade,
    Dealt,
    Event,
    GameOver,
    GameStarted,
    Led,
    Played,
    RoundScored,
    TrickWon,
)
from xactika.core.engine.rules import game_rules
from xactika.core.engine.settings import Card, Hand
from xactika.core.engine.state import (
    EMPTY,
    PHASE_BID,
    PHASE_NEW,
    PHASE_OVER,
    PHASE_PLAY,
    PHASE_SCORED,
    State,
    _new_state,
    _new_trick,
)


def _without(hand: Hand, card: Card, seat: int) -> Hand:
    """``hand`` less ``card``. An empty hand is one the fold cannot see (a seat's own
    fold of redacted events) and stays empty."""
    if not hand:
        return hand
    i = 0
    for held in hand:  # identity first: dealt cards are shared instances
        if held is card:
            return hand[:i] + hand[i + 1 :]
        i += 1
    if card in hand:
        i = hand.index(card)
        return hand[:i] + hand[i + 1 :]
    raise InvalidEvent(f"seat {seat} plays {card}, which it does not hold")


def _replace_at(items: tuple[Any, ...], i: int, value: Any) -> tuple[Any, ...]:
    # through a list: two allocations, where slicing and joining make five
    out = list(items)
    out[i] = value
    return tuple(out)


@singledispatch
def _evolve(event: Any, state: State) -> State:
    raise InvalidEvent(f"unknown event type {type(event).__name__}")


# The fold runs once per event, so it looks evolvers up by exact type in a plain dict
# rather than through singledispatch's MRO walk; a registration empties the cache.
_EVOLVERS: dict[type, Any] = {}
_EVOLVERS_SEEN = [0]


def evolve(state: State, event: Event) -> State:
    """Apply one event. Raises InvalidEvent when it is out of sequence."""
    if event.seq != state.seq + 1:
        raise InvalidEvent(f"event seq {event.seq} does not follow seq {state.seq}")
    cls = event.__class__
    fn = _EVOLVERS.get(cls)
    registered = len(_evolve.registry)
    if fn is None or registered != _EVOLVERS_SEEN[0]:
        if registered != _EVOLVERS_SEEN[0]:
            _EVOLVERS.clear()
            _EVOLVERS_SEEN[0] = registered
        fn = _EVOLVERS[cls] = _evolve.dispatch(cls)
    return fn(event, state)


register_evolver = _evolve.register

# The evolvers below build State with _new_state, every field given in order (each
# line says which): attrs.evolve is several times slower, and attrs' own frozen
# __init__ four times slower, on the referee's hot path (bench/random_play.py). The
# check below fails at import if the fields change without the evolvers being brought
# along.
_STATE_FIELDS = (
    "config", "seq", "phase", "round", "dealer", "hands", "aside", "turned", "bids",
    "taken", "trick", "call", "leader", "to_act", "totals", "tricks", "extra",
)
if tuple(a.name for a in attrs.fields(State)) != _STATE_FIELDS:
    raise RuntimeError("State's fields changed: update the evolvers in core/engine/fold.py")


@_evolve.register
def _(event: GameStarted, state: State) -> State:
    if state.phase != PHASE_NEW:
        raise InvalidEvent("game-started after the game had begun")
    config = event.config
    n = config.players
    return State(
        config=config,
        seq=event.seq,
        phase=PHASE_SCORED,
        dealer=config.dealer,
        totals=(0,) * n,
    )


@_evolve.register
def _(event: Dealt, state: State) -> State:
    config = state.config
    rules = game_rules(config.game)
    n = config.players
    bidding = rules.has_bidding(config)
    leader = rules.first_leader(config, event.dealer)
    hands = event.hands
    if None in hands:  # a seat's own fold of a redacted deal
        hands = tuple(h if h is not None else () for h in hands)
    return _new_state(
        config,  # config
        event.seq,  # seq
        PHASE_BID if bidding else PHASE_PLAY,  # phase
        event.round,  # round
        event.dealer,  # dealer
        hands,  # hands
        event.aside if event.aside is not None else (),  # aside
        event.turned,  # turned
        (None,) * n,  # bids
        (0,) * n,  # taken
        (),  # trick
        None,  # call
        leader,  # leader
        (event.dealer + 1) % n if bidding else leader,  # to_act
        state.totals,  # totals
        (),  # tricks
        state.extra,  # extra
    )


@_evolve.register
def _evolve_bid_made(event: BidMade, state: State) -> State:
    bids = _replace_at(state.bids, event.seat, event.bid)
    done = None not in bids
    return _new_state(
        state.config,  # config
        event.seq,  # seq
        PHASE_PLAY if done else PHASE_BID,  # phase
        state.round,  # round
        state.dealer,  # dealer
        state.hands,  # hands
        state.aside,  # aside
        state.turned,  # turned
        bids,  # bids
        state.taken,  # taken
        state.trick,  # trick
        state.call,  # call
        state.leader,  # leader
        state.leader if done else (event.seat + 1) % state.config.players,  # to_act
        state.totals,  # totals
        state.tricks,  # tricks
        state.extra,  # extra
    )


def _after_card(state: State, seq: int, seat: int, card: Card, trick: tuple[Any, ...],
                call: Any) -> State:
    n = state.config.players
    hands = list(state.hands)
    hands[seat] = _without(hands[seat], card, seat)
    return _new_state(
        state.config,  # config
        seq,  # seq
        state.phase,  # phase
        state.round,  # round
        state.dealer,  # dealer
        tuple(hands),  # hands
        state.aside,  # aside
        state.turned,  # turned
        state.bids,  # bids
        state.taken,  # taken
        trick,  # trick
        call,  # call
        state.leader,  # leader
        None if len(trick) == n else (seat + 1) % n,  # to_act
        state.totals,  # totals
        state.tricks,  # tricks
        state.extra,  # extra
    )


@_evolve.register
def _evolve_led(event: Led, state: State) -> State:
    return _after_card(state, event.seq, event.seat, event.card,
                       ((event.seat, event.card),), event.call)


@_evolve.register
def _evolve_played(event: Played, state: State) -> State:
    # _after_card written out: this is the most frequent event of all
    seat = event.seat
    card = event.card
    hands = list(state.hands)  # _replace_at written out
    hand = hands[seat]
    i = 0
    for held in hand:
        if held is card:
            hands[seat] = hand[:i] + hand[i + 1 :]
            break
        i += 1
    else:
        hands[seat] = _without(hand, card, seat)
    trick = state.trick + ((seat, card),)
    n = state.config.players
    return _new_state(
        state.config,  # config
        event.seq,  # seq
        state.phase,  # phase
        state.round,  # round
        state.dealer,  # dealer
        tuple(hands),  # hands
        state.aside,  # aside
        state.turned,  # turned
        state.bids,  # bids
        state.taken,  # taken
        trick,  # trick
        state.call,  # call
        state.leader,  # leader
        None if len(trick) == n else (seat + 1) % n,  # to_act
        state.totals,  # totals
        state.tricks,  # tricks
        state.extra,  # extra
    )


@_evolve.register
def _evolve_trick_won(event: TrickWon, state: State) -> State:
    seat = event.seat
    taken = list(state.taken)
    taken[seat] += 1
    return _new_state(
        state.config,  # config
        event.seq,  # seq
        state.phase,  # phase
        state.round,  # round
        state.dealer,  # dealer
        state.hands,  # hands
        state.aside,  # aside
        state.turned,  # turned
        state.bids,  # bids
        tuple(taken),  # taken
        (),  # trick
        None,  # call
        seat,  # leader
        seat,  # to_act
        state.totals,  # totals
        state.tricks + (_new_trick(state.call, state.trick, seat),),  # tricks
        state.extra,  # extra
    )


@_evolve.register
def _(event: RoundScored, state: State) -> State:
    return _new_state(
        state.config,  # config
        event.seq,  # seq
        PHASE_SCORED,  # phase
        state.round,  # round
        state.dealer,  # dealer
        state.hands,  # hands
        state.aside,  # aside
        state.turned,  # turned
        state.bids,  # bids
        state.taken,  # taken
        state.trick,  # trick
        state.call,  # call
        state.leader,  # leader
        None,  # to_act
        event.totals,  # totals
        state.tricks,  # tricks
        state.extra,  # extra
    )


@_evolve.register
def _(event: GameOver, state: State) -> State:
    return attrs.evolve(state, seq=event.seq, phase=PHASE_OVER, to_act=None)


def replay(events: Iterable[Event], state: State = EMPTY) -> State:
    """Fold events into a state: the only way a state is made."""
    for event in events:
        state = evolve(state, event)
    return state
