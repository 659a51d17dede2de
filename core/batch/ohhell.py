"""Oh Hell's batch part (:func:`xactika.core.batch.simulate` with ``game="ohhell"``): many
games at once, in lockstep on numpy arrays, with the random policy.

As :mod:`xactika.core.batch.xactika` does for Xactika: every game of a batch has the same
settings, so all are at the same decision at each step; a hand is a row of 52 flags.
The deals are the core's (:func:`~xactika.core.batch.shuffle_orders`), and each choice is
the ``k``-th legal move in deck order (bids from 0) with ``k`` from the same counter-based
generator (:func:`~xactika.core.batch.draw`, keyed by the game's key and the decision's
index), so one game replays move for move through :func:`xactika.core.step`
(:func:`reference_game`), which is what the test compares. numpy is the ``batch`` extra.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs
import numpy as np
from numpy.typing import NDArray

from xactika.core.batch import batch_config, draw, draw_one, shuffle_orders, whole_numbers
from xactika.core.engine.api import (
    Bid,
    Config,
    Event,
    Play,
    State,
    legal_actions,
    replay,
    start,
    step,
)
from xactika.core.games.dix import SUITS
from xactika.core.games.ohhell import DECK, OHHELL, points

CARDS = len(DECK)
SUIT: NDArray[np.int8] = np.array([SUITS.index(c.suit) for c in DECK], dtype=np.int8)
RANK: NDArray[np.int8] = np.array([c.rank for c in DECK], dtype=np.int8)


@attrs.frozen(eq=False)
class OhHellBatch:
    """What a batch scored: ``bids``, ``taken`` and ``points`` are ``N x rounds x players``,
    ``totals`` is ``N x players``."""

    config: Config
    bids: NDArray[np.int16]
    taken: NDArray[np.int16]
    points: NDArray[np.int32]
    totals: NDArray[np.int32]


def _kth(mask: NDArray[np.bool_], words: NDArray[np.uint64]) -> NDArray[np.intp]:
    """Per row, the column of the ``words % count``-th True cell (count: the row's)."""
    running = mask.cumsum(axis=1, dtype=np.int8)  # at most 53 columns: int8 is enough
    k = (words % running[:, -1].astype(np.uint64)).astype(np.int8)
    return np.argmax(running > k[:, None], axis=1)


def _points(mode: str, bids: NDArray[Any], taken: NDArray[Any]) -> NDArray[np.int32]:
    """:func:`xactika.core.games.ohhell.points` on arrays, through a table of its answers."""
    table = np.array([[points(mode, b, t) for t in range(CARDS + 1)]
                      for b in range(CARDS + 1)], dtype=np.int32)
    return table[bids, taken]


def simulate(seeds: Sequence[int] | NDArray[Any], *, mode: str | None = None,
             players: int | None = None, rounds: int | None = None, dealer: int = 0,
             options: Mapping[str, Any] | None = None,
             keys: Sequence[int] | NDArray[Any] | None = None) -> OhHellBatch:
    """Play one Oh Hell game per seed, all in lockstep, every seat uniformly at random;
    settings left out are the game's, and are checked as the core checks them."""
    seeds_arr = whole_numbers(seeds, "seeds")
    config = batch_config(OHHELL.name, mode, players, rounds, dealer, options)
    mode, players, rounds = config.mode, config.players, config.rounds
    keys_arr = (whole_numbers(keys, "keys") if keys is not None else seeds_arr)
    keys_u = keys_arr.astype(np.uint64)
    n, p = len(seeds_arr), players
    rows = np.arange(n)
    hook = config.option("hook") != "none"
    all_bids = np.zeros((n, rounds, p), dtype=np.int16)
    all_taken = np.zeros((n, rounds, p), dtype=np.int16)
    index = 0
    d = dealer
    for r in range(1, rounds + 1):
        size = OHHELL.hand_size(config, r)
        order = shuffle_orders(OHHELL.name, DECK, seeds_arr.tolist(), r).astype(np.intp)
        count = size * p
        hand = np.zeros((n, p, CARDS), dtype=np.bool_)
        for seat in range(p):
            hand[rows[:, None], seat, order[:, (seat - d - 1) % p : count : p]] = True
        trump = SUIT[order[:, count]] if count < CARDS else np.full(n, -1, dtype=np.int8)
        bids = all_bids[:, r - 1]
        for k in range(p):
            seat = (d + 1 + k) % p
            legal = np.ones((n, size + 1), dtype=np.bool_)
            if seat == d and hook:
                banned = size - bids.sum(axis=1)
                ok = (banned >= 0) & (banned <= size)
                legal[rows[ok], banned[ok]] = False
            bids[:, seat] = _kth(legal, draw(keys_u, index))
            index += 1
        taken = all_taken[:, r - 1]
        leader: NDArray[np.intp] = np.full(n, (d + 1) % p, dtype=np.intp)
        for _ in range(size):
            card = _kth(hand[rows, leader], draw(keys_u, index))
            index += 1
            hand[rows, leader, card] = False
            led, best, winner = SUIT[card], card, leader
            for k in range(1, p):
                at = (leader + k) % p
                held = hand[rows, at]
                follow = held & (SUIT[None, :] == led[:, None])
                legal_cards = np.where(follow.any(axis=1)[:, None], follow, held)
                card = _kth(legal_cards, draw(keys_u, index))
                index += 1
                hand[rows, at, card] = False
                same = SUIT[card] == SUIT[best]
                wins = (same & (RANK[card] > RANK[best])) | (~same & (SUIT[card] == trump))
                best = np.where(wins, card, best)
                winner = np.where(wins, at, winner)
            np.add.at(taken, (rows, winner), 1)
            leader = winner
        d = (d + 1) % p
    pts = _points(mode, all_bids, all_taken)
    return OhHellBatch(config, all_bids, all_taken, pts, pts.sum(axis=1))


def reference_game(config: Config, key: int) -> tuple[State, list[Event]]:
    """One game through the core, each choice the batch's: the ``draw_one(key, i) % count``-th
    legal move (bids from 0, cards in deck order); the final state and every event."""
    events: list[Event] = start(config)
    state = replay(events)
    index = 0
    while True:
        legal = legal_actions(state)
        if legal.seat is None:
            return state, events
        word = draw_one(key, index)
        index += 1
        if legal.kind == "bid":
            command: Bid | Play = Bid(legal.seat, legal.bids[word % len(legal.bids)])
        else:
            cards = sorted(legal.cards, key=DECK.index)
            command = Play(legal.seat, cards[word % len(cards)])
        state, more = step(state, command)
        events += more
