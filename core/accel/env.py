"""Xactika as a functional environment in the manner of pgx: one decision a step.

``env = make("xactika/bid-4p")`` (or ``Env(mode="bid", players=4)``), named as pgx names
its environments (``env.id``, ``env.version``, :func:`available_envs`); ``env.init(key)``
starts a game (dealt on the
device), ``env.init_with_orders(orders)`` one with given decks (the core's, from
:func:`xactika.core.accel.deals.core_orders`); ``env.step(state, action)`` plays the move
id ``action`` (the bridges' numbering) of ``state.current_player``. Both work on one game
and are pure: ``jax.jit(jax.vmap(env.step))`` runs a batch, ``lax.scan`` a whole game.

A :class:`State` holds, as arrays: ``current_player``, ``legal_action_mask`` (of the seat
to act), ``observation`` (the seat to act's, :meth:`Env.observe` gives any seat's),
``rewards`` (each seat's points of a round just scored, else 0; negated in Play to Lose so
that more is better), ``terminated`` (after the last round) and ``truncated`` (never).
Stepping a terminated game changes nothing; an illegal move ends the game with
``illegal_action_penalty`` for the seat that made it, as pgx does.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

import jax.numpy as jnp

from xactika.core.accel import rules
from xactika.core.accel.deals import device_orders
from xactika.core.accel.rules import CARDS, MAX_BID, TRICKS_PER_ROUND, Actions, Array
from xactika.core.games.xactika import CALLS, XACTIKA

VERSION = "v0"
"""Every environment's version, as pgx gives one: raised when the same id would play,
observe or reward differently, so that results name the dynamics they were made under."""
_ID = re.compile(r"xactika/(?P<mode>[a-z]+)-(?P<players>[0-9]+)p(?:-(?P<rounds>[0-9]+)r)?")


class State(NamedTuple):
    """One game (a batch when vmapped). The fields after ``truncated`` are the whole
    game, hidden cards included: an agent reads ``observation`` and
    ``legal_action_mask``, never those."""

    current_player: Array  # int32; -1 once terminated
    observation: Array  # float32 (observation_size,), the seat to act's
    legal_action_mask: Array  # bool (num_actions,)
    rewards: Array  # float32 (players,)
    terminated: Array  # bool
    truncated: Array  # bool
    step_count: Array
    orders: Array  # int8 (rounds, 81): every round's deck
    owner: Array  # int8 (81,): the seat holding each card, -1 if none
    round: Array  # from 0
    bidding: Array  # bool
    pos: Array  # bids made, or cards played in this trick
    bids: Array  # (players,), -1 until made
    leader: Array
    call: Array  # index into CALLS, -1 before the lead
    best: Array  # the highest value showing the call so far
    winner: Array  # who holds the trick so far
    trick: Array  # from 0
    trick_cards: Array  # (players,), the card each seat put in this trick, -1 if none
    played: Array  # bool (81,): the cards played this round
    taken: Array  # (players,)
    totals: Array  # (players,)


def _select(cond: Array, a: State, b: State) -> State:
    """``a`` where ``cond`` else ``b``, field by field; a field both share (the decks,
    mostly) is kept as it is rather than selected."""
    return State(*(x if x is y else jnp.where(cond, x, y) for x, y in zip(a, b, strict=True)))


class Env:
    """Xactika under fixed settings (mode, players, rounds, first dealer)."""

    def __init__(self, mode: str = "bid", players: int = 4, rounds: int = 8, dealer: int = 0,
                 *, observe: bool = True, illegal_action_penalty: float = -1.0) -> None:
        rules.check_settings(mode, players, rounds, dealer)
        self.mode, self.players, self.rounds, self.dealer = mode, players, rounds, dealer
        self.actions = Actions(mode)
        self.num_actions = self.actions.num_actions
        self.with_observation = observe
        self.illegal_action_penalty = illegal_action_penalty
        n = players
        # hand, cards played this round, this trick's cards, the call, the value to beat,
        # then per seat (counted from the observer): leader, holder of the trick, to act,
        # dealer, bid made, the bid, tricks taken, total; the phase, the trick, the round
        self.observation_size = 3 * CARDS + len(CALLS) + 1 + 8 * n + 1 + TRICKS_PER_ROUND \
            + rounds
        self.observation_shape = (self.observation_size,)
        self.num_players = players

    @property
    def id(self) -> str:
        """The environment's name, as :func:`make` takes it: ``xactika/bid-4p``, with the
        rounds where they are not the game's 8 (``xactika/win-3p-2r``)."""
        rounds = "" if self.rounds == XACTIKA.default_rounds else f"-{self.rounds}r"
        return f"xactika/{self.mode}-{self.players}p{rounds}"

    @property
    def version(self) -> str:
        return VERSION

    # ------------------------------------------------------------------ the game

    def init(self, key: Array) -> State:
        """A game dealt on the device from ``key`` (not the core's deals)."""
        return self.init_with_orders(device_orders(key, self.rounds, self.players))

    def init_with_orders(self, orders: Array) -> State:
        """A game dealt from ``orders`` (``rounds x 81`` shuffled decks)."""
        n = self.players
        i32 = jnp.int32
        zeros = jnp.zeros(n, dtype=i32)
        state = State(
            current_player=i32(0), observation=jnp.zeros(self.observation_size, jnp.float32),
            legal_action_mask=jnp.zeros(self.num_actions, dtype=bool),
            rewards=jnp.zeros(n, jnp.float32), terminated=jnp.bool_(False),
            truncated=jnp.bool_(False), step_count=i32(0),
            orders=jnp.asarray(orders, dtype=jnp.int8), owner=jnp.full(CARDS, -1, jnp.int8),
            round=i32(0), bidding=jnp.bool_(False), pos=i32(0), bids=zeros - 1,
            leader=i32(0), call=i32(-1), best=i32(-1), winner=i32(0), trick=i32(0),
            trick_cards=zeros - 1, played=jnp.zeros(CARDS, dtype=bool), taken=zeros,
            totals=zeros)
        return self._finish(self._new_round(state, i32(0)))

    def _dealer(self, round_no: Array) -> Array:
        return (self.dealer + round_no) % self.players

    def _new_round(self, s: State, round_no: Array) -> State:
        """Round ``round_no`` dealt: bidding (Play to Bid) or the first lead next."""
        n = self.players
        dealer = self._dealer(round_no)
        order = s.orders[jnp.minimum(round_no, self.rounds - 1)]
        first = (dealer + 1) % n
        return s._replace(
            owner=rules.deal_owner(order, dealer, n), round=round_no,
            bidding=jnp.bool_(self.actions.bidding), pos=jnp.int32(0),
            bids=jnp.full(n, -1, jnp.int32), leader=first, call=jnp.int32(-1),
            best=jnp.int32(-1), winner=first, trick=jnp.int32(0),
            trick_cards=jnp.full(n, -1, jnp.int32), played=jnp.zeros(CARDS, dtype=bool),
            taken=jnp.zeros(n, jnp.int32), current_player=first)

    def legal_action_mask(self, s: State) -> Array:
        seat = s.current_player
        mine = s.owner == seat
        others = jnp.where(s.bids >= 0, s.bids, 0).sum()
        bids = rules.bid_mask(others, seat == self._dealer(s.round))
        follow = rules.follow_mask(mine, jnp.maximum(s.call, 0))
        mask = self.actions.mask(s.bidding, s.pos == 0, bids, follow, mine)
        return mask & ~s.terminated

    def _finish(self, s: State) -> State:
        """The derived fields: the mask and the observation of the seat to act."""
        s = s._replace(legal_action_mask=self.legal_action_mask(s))
        if self.with_observation:
            s = s._replace(observation=self.observe(s, s.current_player))
        return s

    def step(self, state: State, action: Array) -> State:
        """``state.current_player`` plays move id ``action``."""
        action = jnp.asarray(action, dtype=jnp.int32)
        inside = (action >= 0) & (action < self.num_actions)
        a = jnp.clip(action, 0, self.num_actions - 1)
        legal = inside & state.legal_action_mask[a]
        played = self._play(state._replace(rewards=jnp.zeros_like(state.rewards)), a)
        n = self.players
        seat = state.current_player
        foul = state._replace(
            rewards=jnp.where(jnp.arange(n) == seat, self.illegal_action_penalty, 0.0
                              ).astype(jnp.float32),
            terminated=jnp.bool_(True), current_player=jnp.int32(-1),
            step_count=state.step_count + 1)
        after = _select(legal, played, foul)
        after = self._finish(after)
        done = state._replace(rewards=jnp.zeros_like(state.rewards))
        return _select(state.terminated, done, after)

    def _play(self, s: State, a: Array) -> State:
        n, acts = self.players, self.actions
        seat = s.current_player
        kind, card, shape = acts.kind[a], acts.card[a], acts.shape[a]
        dealer = self._dealer(s.round)
        # a bid
        bids = rules.put(s.bids, seat, acts.bid[a])
        bidding_on = s.pos + 1 < n
        after_bid = s._replace(
            bids=bids, bidding=bidding_on, pos=jnp.where(bidding_on, s.pos + 1, 0),
            current_player=(dealer + 2 + s.pos) % n)  # the first lead: left of the dealer
        # a card: a lead makes the call; the trick goes to the highest card showing it
        lead = kind == rules.LEAD
        call = jnp.where(lead, rules.lead_call(card, shape), s.call)
        takes = lead | rules.beats(card, call, s.best)
        best = jnp.where(takes, rules.VALUES_J[card], s.best)
        winner = jnp.where(takes, seat, s.winner)
        trick_over = s.pos + 1 == n
        taken = s.taken + ((jnp.arange(n) == winner) & trick_over)
        trick = s.trick + trick_over
        round_over = trick_over & (trick == TRICKS_PER_ROUND)
        score = rules.points(self.mode, s.bids, taken)
        totals = s.totals + jnp.where(round_over, score, 0)
        last = s.round + 1 == self.rounds
        after_card = s._replace(
            owner=rules.put(s.owner, card, -1), played=rules.put(s.played, card, True),
            call=jnp.where(trick_over, -1, call), best=jnp.where(trick_over, -1, best),
            winner=winner, leader=jnp.where(trick_over, winner, s.leader),
            pos=jnp.where(trick_over, 0, s.pos + 1), trick=trick,
            trick_cards=jnp.where(trick_over, -1, rules.put(s.trick_cards, seat, card)),
            taken=taken, totals=totals,
            current_player=jnp.where(trick_over, winner, (seat + 1) % n),
            rewards=jnp.where(round_over, rules.reward_sign(self.mode) * score, 0
                              ).astype(jnp.float32),
            terminated=round_over & last)
        next_round = self._new_round(after_card, s.round + 1)
        after_card = _select(round_over & ~last, next_round, after_card)
        after_card = after_card._replace(
            current_player=jnp.where(after_card.terminated, -1, after_card.current_player))
        out = _select(kind == rules.BID, after_bid, after_card)
        return out._replace(step_count=s.step_count + 1)

    # ------------------------------------------------------------------ what a seat sees

    def observe(self, s: State, seat: Array) -> Array:
        """What ``seat`` may know, as floats: its own hand and everything public (the
        cards played this round and in this trick, the call, bids, tricks, totals); seats
        are counted from ``seat``. Never another seat's hand, the set-aside cards or a
        later deal: it reads ``owner`` only as ``owner == seat``."""
        n, f32 = self.players, jnp.float32
        seat = jnp.asarray(seat, jnp.int32)
        rel = (jnp.arange(n) + seat) % n  # the seat k places after the observer

        def one_hot(x: Array, size: int) -> Array:
            return (jnp.arange(size) == x).astype(f32)

        def seat_hot(x: Array) -> Array:
            return one_hot((x - seat) % n, n)

        in_trick = (s.trick_cards[:, None] == jnp.arange(CARDS)).any(axis=0)
        bids = s.bids[rel]
        started = s.pos > 0
        parts = [
            ((s.owner == seat) & (seat >= 0)).astype(f32),  # -1 marks no seat's cards
            s.played.astype(f32),
            in_trick.astype(f32),
            one_hot(s.call, len(CALLS)),
            jnp.maximum(s.best, 0)[None].astype(f32) / 12.0,
            seat_hot(s.leader) * (started & ~s.bidding),
            seat_hot(s.winner) * (started & ~s.bidding),
            seat_hot(s.current_player),
            seat_hot(self._dealer(s.round)),
            (bids >= 0).astype(f32),
            jnp.maximum(bids, 0).astype(f32) / MAX_BID,
            s.taken[rel].astype(f32) / TRICKS_PER_ROUND,
            s.totals[rel].astype(f32) / (TRICKS_PER_ROUND * self.rounds),
            s.bidding[None].astype(f32),
            one_hot(s.trick, TRICKS_PER_ROUND),
            one_hot(s.round, self.rounds),
        ]
        return jnp.concatenate(parts)


def available_envs() -> tuple[str, ...]:
    """Every id :func:`make` takes with the game's 8 rounds: each mode at 2 to 10 players."""
    return tuple(f"xactika/{mode}-{n}p" for mode in XACTIKA.modes
                 for n in range(XACTIKA.min_players, XACTIKA.max_players + 1))


def make(env_id: str, **settings: Any) -> Env:
    """The environment named ``env_id`` (``xactika/MODE-Np``, ``-Rr`` for R rounds), as
    ``pgx.make`` makes one; ``settings`` are :class:`Env`'s others (``dealer``,
    ``observe``, ``illegal_action_penalty``). A name it does not know: one ValueError."""
    found = _ID.fullmatch(env_id) if isinstance(env_id, str) else None
    if found is None or found["mode"] not in XACTIKA.modes:
        raise ValueError(f"unknown environment {env_id!r}: expected xactika/MODE-Np (MODE "
                         f"one of {', '.join(XACTIKA.modes)}), e.g. xactika/bid-4p, "
                         "or xactika/bid-4p-2r for 2 rounds")
    rounds = int(found["rounds"]) if found["rounds"] else XACTIKA.default_rounds
    return Env(found["mode"], int(found["players"]), rounds, **settings)

