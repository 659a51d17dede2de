"""Xactika's rules as small JAX functions of one game, shared by the environment and the
fast path, so each rule is written once here (spec/RULES.md says what they mean).

Cards are indices into the core's deck (:data:`xactika.core.games.xactika.DECK`), calls
indices into its :data:`CALLS`; the tables are the game's (deck order of
``core/games/xactika/tables.py``), never typed in.
A round's hands are one ``owner`` vector: ``owner[card]`` is the seat holding the card, or
-1 once played or set aside, so a seat's hand is ``owner == seat`` and nothing else.
Move ids are the bridges' (:class:`xactika.core.engine.encoding.Encoding`), read from it.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from xactika.core.engine.api import Bid, Config, Play
from xactika.core.engine.encoding import Encoding
from xactika.core.games.xactika import DECK, HAND_SIZE, TRICKS_PER_ROUND
from xactika.core.games.xactika.tables import (
    DECK_CALLS_OF,
    DECK_COUNTS,
    DECK_SHOWS,
    DECK_VALUES,
    NCARDS,
)

Array = jax.Array

CARDS = NCARDS
SHAPES = 4
MAX_BID = TRICKS_PER_ROUND
MODES = ("win", "lose", "bid")

# the game's card index tables (core/games/xactika/tables.py), deck order, on the device
COUNTS_J = jnp.asarray(DECK_COUNTS, dtype=jnp.int32)  # 81 x 4
VALUES_J = jnp.asarray(DECK_VALUES, dtype=jnp.int32)  # 81
SHOWS_J = jnp.asarray(DECK_SHOWS, dtype=jnp.bool_)  # 12 x 81: SHOWS_J[call, card]
CALL_OF = jnp.asarray(np.array(DECK_CALLS_OF, dtype=np.int32))
"""CALL_OF[card, shape]: the call a lead of ``card`` makes naming ``shape``."""

BID, PLAY, LEAD = 0, 1, 2


class Actions:
    """The move ids of a mode, read from the bridges' :class:`Encoding`, and their
    inverse tables (what each id does), as arrays for the device."""

    def __init__(self, mode: str) -> None:
        enc = Encoding(Config(mode=mode, players=4, rounds=1, seed=0))
        self.num_actions: int = enc.num_actions
        self.bidding = enc.bids > 0
        bid_ids = [enc.action(Bid(0, b)) for b in range(MAX_BID + 1)] if self.bidding else []
        play_ids = [enc.action(Play(0, card)) for card in DECK]
        lead_ids = [[enc.action(Play(0, card, card.calls[k])) for k in range(SHAPES)]
                    for card in DECK]
        kind = np.full(self.num_actions, -1, dtype=np.int32)
        card = np.zeros(self.num_actions, dtype=np.int32)
        shape = np.zeros(self.num_actions, dtype=np.int32)
        bid = np.zeros(self.num_actions, dtype=np.int32)
        for b, a in enumerate(bid_ids):
            kind[a], bid[a] = BID, b
        for i, a in enumerate(play_ids):
            kind[a], card[a] = PLAY, i
        for i, row in enumerate(lead_ids):
            for k, a in enumerate(row):
                kind[a], card[a], shape[a] = LEAD, i, k
        if (kind < 0).any():
            raise ValueError(f"{mode}: some move ids name no move")
        self.kind, self.card = jnp.asarray(kind), jnp.asarray(card)
        self.shape, self.bid = jnp.asarray(shape), jnp.asarray(bid)
        self.bid_ids = np.array(bid_ids, dtype=np.int32)
        self.play_ids = np.array(play_ids, dtype=np.int32)
        self.lead_ids = np.array(lead_ids, dtype=np.int32)  # 81 x 4
        # the bridges' layout today: bids, then plays, then leads, each in deck order; a
        # mask is then three blocks joined, no gather (any other layout is gathered)
        self.blocks = bool(
            (self.bid_ids == np.arange(len(bid_ids))).all()
            and (self.play_ids == len(bid_ids) + np.arange(CARDS)).all()
            and (self.lead_ids.reshape(-1) == len(bid_ids) + CARDS
                 + np.arange(CARDS * SHAPES)).all())

    def mask(self, bidding: Array, leading: Array, bids: Array, follow: Array,
             mine: Array) -> Array:
        """The legal ids: ``bids`` (9) while bidding, else a lead of a held card with any
        of its calls, else a ``follow`` card (81 each)."""
        if self.blocks:
            playing = ~bidding
            parts = [bidding & bids] if self.bidding else []
            return jnp.concatenate([*parts, playing & ~leading & follow,
                                    jnp.repeat(playing & leading & mine, SHAPES)])
        k, c = self.kind, self.card
        bid_ok = bids[self.bid] if self.bidding else jnp.zeros(self.num_actions, dtype=bool)
        return jnp.where(
            k == BID, bidding & bid_ok,
            jnp.where(k == LEAD, ~bidding & leading & mine[c], ~bidding & ~leading & follow[c]))


def deal_positions(dealer: Array | int, players: Array | int, seats: int) -> Array:
    """``seats x 8``: where in the shuffled deck each seat's cards lie (spec/DEALS.md,
    section 5): card ``i`` of the first ``8 players`` goes to seat ``(dealer + 1 + i) %
    players``, so seat ``s``'s ``k``-th is card ``(s - dealer - 1) % players + k players``.
    Rows past the players (``seats`` may be more) repeat real seats' and are never used."""
    first = (jnp.arange(seats)[:, None] - dealer - 1) % players
    return first + players * jnp.arange(HAND_SIZE)[None, :]


def deal_owner(order: Array, dealer: Array | int, players: int) -> Array:
    """``owner`` of a round from its shuffled deck: each dealt card's seat, -1 for the
    cards set aside."""
    hands = order.astype(jnp.int32)[deal_positions(dealer, players, players)]
    seat = jnp.repeat(jnp.arange(players, dtype=jnp.int8), HAND_SIZE)
    return jnp.full(CARDS, -1, jnp.int8).at[hands.reshape(-1)].set(seat)


def put(array: Array, index: Array | int, value: Array | int) -> Array:
    """``array`` with ``array[index] = value``, as a select over the whole (short) array:
    under ``vmap`` on a CPU a select runs several times faster than a scatter."""
    return jnp.where(jnp.arange(array.shape[0]) == index, value, array)


def bid_mask(others: Array, is_dealer: Array) -> Array:
    """The legal bids (9): any 0..8, but the dealer may not make the total exactly 8
    (spec/RULES.md, the dealer's hook). ``others`` is the sum of the bids made so far."""
    b = jnp.arange(MAX_BID + 1)
    return ~(is_dealer & (b == TRICKS_PER_ROUND - others))


def follow_mask(mine: Array, call: Array) -> Array:
    """The cards a follower may play: those showing the call, or any when none does."""
    showing = mine & SHOWS_J[call]
    return jnp.where(showing.any(), showing, mine)


def follow_bits(held: Array, showing: Array) -> Array:
    """:func:`follow_mask` on a hand of 8 slots as bits (the fast path's hands): the held
    slots whose cards show the call, or every held slot when none does."""
    follow = held & showing
    return jnp.where(follow != 0, follow, held)


def beats(card: Array, call: Array, best: Array) -> Array:
    """Whether ``card``, played after cards whose best showing value is ``best``, takes
    the trick over them: it shows the call and is at least as high (ties go to the card
    played later)."""
    return SHOWS_J[call, card] & (VALUES_J[card] >= best)


def lead_call(card: Array, shape: Array) -> Array:
    """The call a lead of ``card`` naming ``shape`` makes: its count of that shape."""
    return CALL_OF[card, shape]


def points(mode: str, bids: Array, taken: Array) -> Array:
    """A round's points: a point a trick, or in Play to Bid the tricks when exactly the
    bid, else minus the miss."""
    if mode != "bid":
        return taken
    return jnp.where(bids == taken, taken, -jnp.abs(bids - taken))


def reward_sign(mode: str) -> int:
    """-1 where the lowest total wins (Play to Lose), so more reward is always better."""
    return -1 if mode == "lose" else 1


def nth_set(mask: Array, k: Array, width: int = 32) -> Array:
    """The index of the ``k``-th (from 0) True of ``mask``: a uniform choice among the
    legal moves costs one random word, not a word a move. Counted in blocks of ``width``
    (the block, then the place in it): a running sum over 400 places costs a CPU six
    times the work of the two short ones."""
    blocks = -(-mask.shape[0] // width)
    rows = jnp.pad(mask, (0, blocks * width - mask.shape[0])).reshape(blocks, width)
    sizes = rows.sum(axis=1, dtype=jnp.int32)
    ends = jnp.cumsum(sizes)
    block = jnp.argmax(ends > k)
    rest = k - (ends[block] - sizes[block])
    return block * width + jnp.argmax(jnp.cumsum(rows[block].astype(jnp.int32)) > rest)


def random_choice(word: Array, mask: Array) -> Array:
    """A legal index of ``mask`` picked by the 32-bit ``word`` (modulo bias below 1e-6)."""
    count = jnp.maximum(mask.sum(dtype=jnp.uint32), 1)
    return nth_set(mask, (word % count).astype(jnp.int32))


def random_action(key: Array, mask: Array) -> Array:
    """A uniformly random legal move id of one game's ``legal_action_mask``."""
    return random_choice(jax.random.bits(key, dtype=jnp.uint32), mask)


def check_settings(mode: str, players: int, rounds: int, dealer: int) -> None:
    """The settings as the core checks them (the same one-line errors)."""
    from xactika.core.engine.api import game_rules

    game_rules("xactika").validate(Config(mode=mode, players=players, rounds=rounds,
                                          dealer=dealer, seed=0))


def as_numpy(tree: Any) -> Any:
    """A pytree of device arrays on the host."""
    return jax.tree_util.tree_map(np.asarray, tree)
