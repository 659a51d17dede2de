"""Deciding: the events a command causes (:func:`step`, :func:`decide`), the opening
events of a game (:func:`start`) and what is legal now (:func:`legal_actions`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from xactika.core.engine.errors import (
    BadBid,
    BadCall,
    GameIsOver,
    IllegalCommand,
    NotInHand,
    NotYourTurn,
    WrongPhase,
)
from xactika.core.engine.events import (
    Bid,
    BidMade,
    Command,
    Dealt,
    Event,
    GameOver,
    GameStarted,
    Led,
    Play,
    Played,
)
from xactika.core.engine.fast import fast_constructor
from xactika.core.engine.fold import (
    _evolve_bid_made,
    _evolve_led,
    _evolve_played,
    _evolve_trick_won,
    evolve,
    replay,
)
from xactika.core.engine.rules import _GAMES, TrickGame, game_rules
from xactika.core.engine.settings import Config
from xactika.core.engine.state import (
    EMPTY,
    PHASE_BID,
    PHASE_NEW,
    PHASE_OVER,
    PHASE_PLAY,
    Legal,
    State,
    _new_bid_made,
    _new_led,
    _new_played,
    _new_round_scored,
    _new_trick_won,
    new_dealt,
)


def _renumber(event: Event, seq: int) -> Event:
    if event.__class__ is Dealt:  # once a round: attrs.evolve is the slow way
        return new_dealt(seq, event.round, event.dealer, event.hands, event.aside, event.turned)
    return attrs.evolve(event, seq=seq)


def start(config: Config) -> list[Event]:
    """The events that open a game: game-started and the first deal."""
    rules = game_rules(config.game)
    rules.validate(config)
    events: list[Event] = [GameStarted(1, config)]
    state = evolve(EMPTY, events[0])
    deal = _renumber(rules.deal(config, 1, config.dealer), 2)
    evolve(state, deal)
    events.append(deal)
    return events


def new_game(config: Config) -> State:
    return replay(start(config))


_NOBODY = Legal(None, "none")
_new_legal = fast_constructor(Legal)


def legal_actions(state: State) -> Legal:
    """Who must act and what is legal. ``kind`` is "none" when nobody may act."""
    seat = state.to_act
    if seat is None:
        return _NOBODY
    phase = state.phase
    # ``==``, not ``is``: an unpickled state holds its own copies of the phase strings
    if phase != PHASE_PLAY and phase != PHASE_BID:
        return _NOBODY
    rules = _GAMES.get(state.config.game) or game_rules(state.config.game)
    if phase == PHASE_PLAY:
        return _new_legal(seat, "play" if state.trick else "lead", (),
                          rules.legal_cards(state, seat), rules)
    return _new_legal(seat, "bid", rules.legal_bids(state), (), None)


def _check(state: State, command: Command) -> None:
    phase = state.phase
    if phase == PHASE_OVER:
        raise GameIsOver("the game is over")
    if phase == PHASE_NEW:
        raise WrongPhase("no game has started")
    if not isinstance(command, (Play, Bid)):  # a tuple: faster than Play | Bid
        raise IllegalCommand(f"not a command: {command!r}")
    rules = game_rules(state.config.game)
    n = state.config.players
    seat = command.seat
    if type(seat) is not int or not 0 <= seat < n:
        raise NotYourTurn(f"no seat {seat!r}: seats are 0 to {n - 1}")
    if isinstance(command, Bid):
        if phase != PHASE_BID:
            raise WrongPhase("bidding is over: it is time to play a card")
        if seat != state.to_act:
            raise NotYourTurn(f"seat {state.to_act} bids next, not seat {seat}")
        bids = rules.legal_bids(state)
        if type(command.bid) is not int or command.bid not in bids:
            raise BadBid(_bid_message(state, command.bid, bids))
        return
    if isinstance(command, Play):
        if phase == PHASE_BID:
            raise WrongPhase(f"bidding is not over: seat {state.to_act} bids next")
        seat = command.seat
        if seat != state.to_act:
            raise NotYourTurn(f"seat {state.to_act} plays next, not seat {seat}")
        card = command.card
        if not _holds(state.hands[seat], card):
            raise NotInHand(f"{card} is not in seat {seat}'s hand")
        if not rules.may_play(state, seat, card):
            raise rules.explain_illegal_card(state, seat, card)
        call = command.call
        if state.trick:
            if call is not None:
                raise BadCall("only the leader makes a call")
            return
        calls = rules.calls_for(card)
        if not _holds(calls, call):
            raise BadCall(
                f"leading {card} needs one of the calls "
                + " ".join(rules.format_call(c) for c in calls)
            )
        return
    raise IllegalCommand(f"not a command: {command!r}")


def _holds(items: tuple[Any, ...], item: Any) -> bool:
    """``item in items``, trying identity first: cards and calls are shared instances,
    so this mostly avoids calling ``__eq__`` on every card before the one sought."""
    for held in items:
        if held is item:
            return True
    return item in items


def _bid_message(state: State, bid: Any, bids: tuple[int, ...]) -> str:
    if type(bid) is not int:
        return f"bid {bid!r} is not a whole number: legal bids are {_ranges(bids)}"
    top = max(bids) if bids else 0
    if not 0 <= bid <= max(top, len(state.hands[0]) if state.hands else 0):
        return f"bid {bid} is out of range: legal bids are {_ranges(bids)}"
    return (
        f"the dealer may not bid {bid}: the bids would total exactly the tricks "
        f"in the round; legal bids are {_ranges(bids)}"
    )


def _ranges(values: Sequence[int]) -> str:
    return " ".join(str(v) for v in values)


def step(state: State, command: Command) -> tuple[State, list[Event]]:
    """Decide a command and fold its events: the new state and the events.

    Raises an IllegalCommand subclass, leaving ``state`` as it was (it is immutable).
    """
    # The common moves, a legal card or bid from the seat to act, are recognised by a
    # few identity tests; anything else, or anything in doubt, goes through _check,
    # which raises the one error a bad command gets (or passes what is legal after all).
    seat = state.to_act
    rules = _GAMES.get(state.config.game) or game_rules(state.config.game)
    seq = state.seq + 1
    first: Event
    phase = state.phase
    if seat is not None and type(command) is Play and command.seat is seat and phase == PHASE_PLAY:
        card = command.card
        trick = state.trick
        for held in state.hands[seat]:  # _holds, written out
            if held is card:
                break
        else:
            _check(state, command)
        if not (
            rules.may_play(state, seat, card)
            and (command.call is None if trick else _holds(rules.calls_for(card), command.call))
        ):
            _check(state, command)
        if trick:
            first = _new_played(seq, seat, card)
            state = _evolve_played(first, state)
            if state.to_act is not None:  # _after_command, written out
                return state, [first]
            return _end_of_trick(state, [first], rules)
        first = _new_led(seq, seat, card, command.call)
        state = _evolve_led(first, state)
        if state.to_act is not None:
            return state, [first]
        return _end_of_trick(state, [first], rules)
    if seat is not None and type(command) is Bid and command.seat is seat and phase == PHASE_BID:
        bid = command.bid
        if type(bid) is not int or bid not in rules.legal_bids(state):
            _check(state, command)
        first = _new_bid_made(seq, seat, bid)
        state = _evolve_bid_made(first, state)
        if state.to_act is not None:
            return state, [first]
        return _end_of_trick(state, [first], rules)
    _check(state, command)
    if isinstance(command, Bid):
        first = BidMade(seq, command.seat, command.bid)
    elif state.trick:
        first = Played(seq, command.seat, command.card)
    else:
        first = Led(seq, command.seat, command.card, command.call)
    return _after_command(evolve(state, first), first, rules)


def _after_command(state: State, first: Event, rules: TrickGame) -> tuple[State, list[Event]]:
    if state.to_act is not None:  # the common case: one event, someone else to act
        return state, [first]
    return _end_of_trick(state, [first], rules)


def _end_of_trick(state: State, events: list[Event], rules: TrickGame) -> tuple[State, list[Event]]:
    """The events that follow the last card of a trick: who won it, the game's own
    (Dix's draws), and at the end of a round its score and the next deal or game-over."""
    if len(state.trick) < state.config.players:
        return state, events
    winner = rules.trick_winner(state, state.trick, state.call)
    won = _new_trick_won(state.seq + 1, winner, len(state.tricks) + 1)
    state = _evolve_trick_won(won, state)
    events.append(won)
    for extra in rules.after_trick(state):
        state = _emit(state, events, extra)
    if not rules.round_over(state):
        return state, events
    config = state.config
    points = rules.score_round(state)
    totals = tuple([t + p for t, p in zip(state.totals, points, strict=True)])
    bids = None
    if rules.has_bidding(config):
        bids = state.bids
        if None in bids:
            bids = tuple([0 if b is None else b for b in bids])
    state = _emit(state, events, _new_round_scored(state.seq + 1, state.round, bids,
                                                   state.taken, points, totals))
    if rules.game_over(state):
        over = GameOver(state.seq + 1, totals, rules.game_winners(state), *_reveal(config))
        state = _emit(state, events, over)
    else:
        dealer = rules.next_dealer(config, state.dealer)
        state = _emit(state, events, rules.deal(config, state.round + 1, dealer))
    return state, events


def _emit(state: State, events: list[Event], event: Event) -> State:
    """Fold ``event``, numbered to follow ``state``, and append it to ``events``."""
    if event.seq != state.seq + 1:
        event = _renumber(event, state.seq + 1)
    events.append(event)
    return evolve(state, event)


def _reveal(config: Config) -> tuple[int | None, str | None]:
    """What game-over reveals: a committed seed and its nonce (spec/TAMPER.md)."""
    if config.commit is None:
        return None, None
    return config.seed, config.nonce


def decide(state: State, command: Command) -> list[Event]:
    """The events a command causes; raises on anything illegal."""
    return step(state, command)[1]
