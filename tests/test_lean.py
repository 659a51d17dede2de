"""Xactika's lean rules on bitmasks (core/games/xactika/lean.py) against the engine: fed
the moves of the engine's games, they derive the engine's events; a move they refuse
leaves them as they were."""

from __future__ import annotations

import pytest

from xactika.core import Config, RandomAgent
from xactika.core.bots.agents import self_play
from xactika.core.engine.api import BidMade, Dealt, GameOver, Led, Played, RoundScored, TrickWon
from xactika.core.games.xactika.lean import BID, LEAD, PLAY, LeanGame
from xactika.core.games.xactika.tables import CALL_INDEX, CMASK, INDEX, SHOW

GAMES = [(mode, players, seed) for mode in ("bid", "win", "lose") for players in (2, 4, 7)
         for seed in (1, 2)]


def _state(game: LeanGame) -> tuple[object, ...]:
    return tuple(list(v) if isinstance(v, list) else v
                 for v in (getattr(game, k) for k in LeanGame.__slots__))


@pytest.mark.parametrize(("mode", "players", "seed"), GAMES)
def test_the_lean_rules_derive_the_engines_events(mode: str, players: int, seed: int) -> None:
    config = Config(mode=mode, players=players, rounds=3, seed=seed)
    _, events = self_play(config, [RandomAgent(seed * 10 + s) for s in range(players)])
    game = LeanGame(config)
    derived = [e for e in events[1:] if isinstance(e, Dealt | TrickWon | RoundScored | GameOver)]
    told: list[tuple[object, ...]] = []
    for event in events[1:]:
        told.extend(game.derived)
        game.derived.clear()
        if isinstance(event, BidMade):
            assert (game.wants, game.to_act) == (BID, event.seat)
            assert game.bid(event.bid)
        elif isinstance(event, Led):
            assert (game.wants, game.to_act) == (LEAD, event.seat)
            assert game.lead(INDEX[event.card], CALL_INDEX[event.call])
        elif isinstance(event, Played):
            assert (game.wants, game.to_act) == (PLAY, event.seat)
            assert game.play(INDEX[event.card])
    told.extend(game.derived)
    assert game.over
    assert len(told) == len(derived)
    for mine, theirs in zip(told, derived, strict=True):
        match theirs:
            case Dealt():
                assert mine[:2] == ("deal", theirs.round) and mine[3].hands == theirs.hands
            case TrickWon():
                assert mine == ("trick-won", theirs.seat, theirs.trick)
            case RoundScored():
                assert mine[0] == "round-scored"
                assert [tuple(x) if x is not None else None for x in mine[2:]] == \
                    [theirs.bids, theirs.tricks, theirs.points, theirs.totals]
            case GameOver():
                assert mine == ("game-over", list(theirs.totals), list(theirs.winners))


def test_a_refused_move_changes_nothing() -> None:
    config = Config(mode="bid", players=3, rounds=1, seed=5)
    game = LeanGame(config)
    game.derived.clear()
    before = _state(game)
    assert not game.lead(0, 0)  # a lead while bids are due
    assert not game.bid(9)  # more than the tricks of a round
    assert _state(game) == before
    for _ in range(3):  # the dealer, last, may bid anything but what makes the bids total 8
        assert game.bid(0 if game.to_act != game.dealer else 1)
    before = _state(game)
    assert not game.play(0)  # a play before the lead
    leader = game.hands[game.to_act]
    missing = next(c for c in range(81) if not leader >> c & 1)
    assert not game.lead(missing, 0) and not game.lead(missing, 5)  # a card not held
    assert _state(game) == before
    held = next(c for c in range(81) if leader >> c & 1)
    call = next(k for k in range(12) if SHOW[held] >> k & 1)
    assert game.lead(held, call)
    before = _state(game)
    assert not game.play(held)  # led already: no longer held
    hand = game.hands[game.to_act]
    sloughs = [c for c in range(81) if hand >> c & 1 and not CMASK[call] >> c & 1]
    if hand & CMASK[call]:
        assert sloughs and not game.play(sloughs[0])  # a slough while holding a follower
    assert _state(game) == before
