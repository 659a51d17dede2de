"""Whole Xactika games on the accelerator in one call: the fast path.

Where the environment takes one decision a step and works out who acts and what is legal
from its state, a whole game here is loops of fixed shape (rounds, bids, tricks, the seats
of a trick), so who acts and whether it leads is known from the loop: much less work a
move, and a hand is 8 dealt cards and a byte of those held, as ``xactika.core.batch``
plays. The rules are :mod:`xactika.core.accel.rules`, the functions the environment uses
(the follow rule on a byte: ``follow_bits``). Policies: ``"random"`` (uniform among
the legal moves, a lead among its (card, call) pairs, from a JAX key), ``"greedy"``
(``xactika.core.batch``'s heuristic, move for move) or a function ``policy(key,
decision) -> move id`` of one game's :class:`Decision` (it is vmapped over the batch;
an illegal answer is counted and refused by :func:`simulate`).

:func:`play_orders` is the jitted batch on device arrays; :func:`simulate` deals the
core's seeded deals on the host and returns a :class:`xactika.core.batch.BatchResult`,
whose ``events(game)`` rebuilds the core's events of any game played with ``record``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import attrs
import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike
from numpy.typing import NDArray

from xactika.core.accel import rules
from xactika.core.accel.deals import core_orders, device_orders
from xactika.core.accel.rules import (
    CARDS,
    HAND_SIZE,
    MAX_BID,
    SHAPES,
    TRICKS_PER_ROUND,
    Actions,
    Array,
)
from xactika.core.batch import whole_numbers
from xactika.core.batch.xactika import _NTH as batch_NTH
from xactika.core.batch.xactika import BatchResult
from xactika.core.engine.api import Config, PresetDeal
from xactika.core.games.xactika import DECK, card_sort_key


class Decision(NamedTuple):
    """One game's decision as a policy function sees it: what the acting seat may know.
    Seat arrays are :data:`MAX_PLAYERS` long; places past the players are padding."""

    kind: Array  # rules.BID, rules.LEAD or rules.PLAY
    seat: Array
    legal_action_mask: Array  # bool (num_actions,), the bridges' move ids
    hand: Array  # bool (81,)
    call: Array  # the call led (index into CALLS), -1 for a bid or a lead
    best: Array  # the highest value showing the call in this trick, -1 before the lead
    bids: Array  # (players,), -1 where not made (or not Play to Bid)
    taken: Array  # (players,) this round
    totals: Array  # (players,) before this round
    round: Array
    trick: Array


PolicyFn = Callable[[Array, Decision], Array]
Policy = str | PolicyFn

_LOW = rules.VALUES_J * 128 + jnp.arange(CARDS)  # lowest value, then deck order
_HIGH = rules.VALUES_J * 128 + (127 - jnp.arange(CARDS))  # highest value, then deck order
_STRONG = rules.VALUES_J >= 9
_BITS = 1 << jnp.arange(HAND_SIZE, dtype=jnp.int32)
_NTH = jnp.asarray(batch_NTH, dtype=jnp.int32)
"""_NTH[m * 8 + r]: the slot of the r-th set bit of the 8-bit mask m (core.batch's table)."""


def greedy(mode: str) -> PolicyFn:
    """``xactika.core.batch``'s greedy policy as a policy function: win the trick with the
    lowest card that wins, else throw the lowest; duck with the highest card that loses
    in Play to Lose and once a bid is made; lead the highest (or, ducking, the lowest)
    card calling its most plentiful shape; bid the cards worth 9 or more."""
    acts = Actions(mode)
    play_ids, lead_ids = jnp.asarray(acts.play_ids), jnp.asarray(acts.lead_ids)
    bid_ids = jnp.asarray(acts.bid_ids if acts.bidding else np.zeros(1, np.int32))

    def policy(key: Array, d: Decision) -> Array:
        if mode == "lose":
            duck = jnp.bool_(True)
        elif mode == "bid":
            duck = d.taken[d.seat] >= d.bids[d.seat]
        else:
            duck = jnp.bool_(False)
        guess = (d.hand & _STRONG).sum()
        ok = d.legal_action_mask[bid_ids[jnp.minimum(guess, len(bid_ids) - 1)]]
        guess = jnp.where(ok, guess, jnp.where(guess < MAX_BID, guess + 1, guess - 1))
        bid = bid_ids[jnp.minimum(guess, len(bid_ids) - 1)]
        big = jnp.int32(1 << 20)
        lead_card = jnp.where(duck, jnp.argmin(jnp.where(d.hand, _LOW, big)),
                              jnp.argmax(jnp.where(d.hand, _HIGH, -1)))
        lead = lead_ids[lead_card, jnp.argmax(rules.COUNTS_J[lead_card])]
        legal = d.legal_action_mask[play_ids]
        wins = legal & rules.SHOWS_J[jnp.maximum(d.call, 0)] & (rules.VALUES_J >= d.best)
        loses = legal & ~wins
        lowest = jnp.argmin(jnp.where(legal, _LOW, big))
        take = jnp.where(wins.any(), jnp.argmin(jnp.where(wins, _LOW, big)), lowest)
        dodge = jnp.where(loses.any(), jnp.argmax(jnp.where(loses, _HIGH, -1)), lowest)
        follow = play_ids[jnp.where(duck, dodge, take)]
        return jnp.where(d.kind == rules.BID, bid, jnp.where(d.kind == rules.LEAD, lead, follow))

    return policy


MAX_PLAYERS = 10
"""Seat arrays are this long whatever the players (those past them stay empty), so one
compiled program plays every table size of a mode: the players are an argument."""


class _Game:
    """One game's loops under a mode, rounds, first dealer and policy; vmapped and jitted
    by :func:`_compiled`. The number of players is traced, not fixed."""

    def __init__(self, mode: str, rounds: int, dealer: int, policy: Policy) -> None:
        self.mode, self.rounds, self.dealer = mode, rounds, dealer
        self.acts = Actions(mode)
        self.fn: PolicyFn | None = None
        if policy == "greedy":
            self.fn = greedy(mode)
        elif callable(policy):
            self.fn = policy
        elif policy != "random":
            raise ValueError(f"policy must be 'random', 'greedy' or a function, not {policy!r}")

    def _ask(self, key: Array, kind: int, seat: Array, bids: Array, follow: Array,
             mine: Array, ctx: dict[str, Array]) -> tuple[Array, Array, Array, Array]:
        """A policy function's (bid, card, shape, legal) for this decision."""
        assert self.fn is not None
        no81 = jnp.zeros(CARDS, dtype=bool)
        mask = self.acts.mask(jnp.bool_(kind == rules.BID), jnp.bool_(kind == rules.LEAD),
                              bids, follow if kind == rules.PLAY else no81, mine)
        d = Decision(kind=jnp.int32(kind), seat=seat, legal_action_mask=mask, hand=mine, **ctx)
        a = jnp.asarray(self.fn(key, d), dtype=jnp.int32)
        inside = (a >= 0) & (a < self.acts.num_actions)
        a = jnp.clip(a, 0, self.acts.num_actions - 1)
        return self.acts.bid[a], self.acts.card[a], self.acts.shape[a], inside & mask[a]

    def _hand(self, slots: Array, bits: Array) -> Array:
        """The 81-card mask of the slots set in ``bits`` (for a policy function)."""
        chosen = (bits & _BITS) != 0
        return ((jnp.arange(CARDS)[None, :] == slots[:, None]) & chosen[:, None]).any(axis=0)

    def __call__(self, orders: Array, key: Array, n: Array) -> dict[str, Array]:
        """One game. A hand is its 8 dealt cards (``slots``) and a byte of those still
        held; ``follows[seat, call]`` is the byte of its slots showing the call. So a move
        is a few table reads, whatever the deck: as ``xactika.core.batch`` plays."""
        m = MAX_PLAYERS
        decisions = m * (TRICKS_PER_ROUND + 1)  # a round's words: the bids, then the cards
        seats = jnp.arange(m)
        no9, no81 = jnp.zeros(MAX_BID + 1, bool), jnp.zeros(CARDS, bool)

        def round_body(carry: tuple[Array, Array], r: Array) -> tuple[Any, Any]:
            totals, bad = carry
            rkey = jax.random.fold_in(key, r)
            words = jax.random.bits(rkey, (decisions,), dtype=jnp.uint32)
            keys = jax.random.split(rkey, decisions) if self.fn is not None else None
            dealer = (self.dealer + r) % n
            slots = orders[r].astype(jnp.int32)[rules.deal_positions(dealer, n, m)]  # m x 8
            held = jnp.where(seats < n, 0xFF, 0)
            follows = (rules.SHOWS_J.T[slots] * _BITS[None, :, None]).sum(axis=1)  # m x 12
            ctx = dict(call=jnp.int32(-1), best=jnp.int32(-1), taken=jnp.zeros(m, jnp.int32),
                       totals=totals, round=r, trick=jnp.int32(0))
            bids = jnp.full(m, -1, jnp.int32)
            if self.acts.bidding:
                def bid_body(j: Array, c: tuple[Array, Array]) -> tuple[Array, Array]:
                    bids, bad = c
                    seat = (dealer + 1 + j) % n
                    legal = rules.bid_mask(jnp.where(bids >= 0, bids, 0).sum(), seat == dealer)
                    if self.fn is None:
                        bid, ok = rules.random_choice(words[j], legal), jnp.bool_(True)
                    else:
                        assert keys is not None
                        bid, _, _, ok = self._ask(keys[j], rules.BID, seat, legal, no81,
                                                  self._hand(slots[seat], held[seat]),
                                                  {**ctx, "bids": bids})
                    return rules.put(bids, seat, bid), bad + ~ok
                bids, bad = jax.lax.fori_loop(0, n, bid_body, (bids, bad))

            def choose(word: Array, k: Array, seat: Array, hand: Array, legal: Array,
                       kind: int, tctx: dict[str, Array]) -> tuple[Array, Array, Array, Array]:
                """(slot, card, shape, legal) of a lead (``kind`` LEAD) or a follow, from
                the seat's held slots ``hand`` and its legal ones (bytes)."""
                if self.fn is None:
                    count = jax.lax.population_count(legal).astype(jnp.uint32)
                    lead = kind == rules.LEAD
                    pick = (word % (count * (SHAPES if lead else 1))).astype(jnp.int32)
                    slot = _NTH[legal * HAND_SIZE + (pick // SHAPES if lead else pick)]
                    shape = pick % SHAPES if lead else jnp.int32(0)
                    return slot, slots[seat, slot], shape, jnp.bool_(True)
                mine = self._hand(slots[seat], hand)
                follow = self._hand(slots[seat], legal) if kind == rules.PLAY else no81
                _, card, shape, ok = self._ask(k, kind, seat, no9, follow, mine, tctx)
                return jnp.argmax(slots[seat] == card), card, shape, ok

            def trick_body(c: tuple[Array, ...], t: Array) -> tuple[Any, Any]:
                held, leader, taken, bad = c
                base = m + t * m
                tctx = {**ctx, "bids": bids, "taken": taken, "trick": t}
                hand = held[leader]
                slot, card, shape, ok = choose(words[base], keys[base] if keys is not None
                                               else key, leader, hand, hand, rules.LEAD, tctx)
                held = rules.put(held, leader, held[leader] & ~(1 << slot))
                call = rules.lead_call(card, shape)
                cards = rules.put(jnp.zeros(m, jnp.int32), 0, card)

                def follow_body(j: Array, c: tuple[Array, ...]) -> tuple[Array, ...]:
                    held, best, winner, cards, bad = c
                    seat = (leader + j) % n
                    legal = rules.follow_bits(held[seat], follows[seat, call])
                    slot, card, _, ok = choose(
                        words[base + j], keys[base + j] if keys is not None else key, seat,
                        held[seat], legal, rules.PLAY, {**tctx, "call": call, "best": best})
                    takes = rules.beats(card, call, best)
                    return (rules.put(held, seat, held[seat] & ~(1 << slot)),
                            jnp.where(takes, rules.VALUES_J[card], best),
                            jnp.where(takes, seat, winner), rules.put(cards, j, card), bad + ~ok)

                held, _, winner, cards, bad = jax.lax.fori_loop(
                    1, n, follow_body, (held, rules.VALUES_J[card], leader, cards, bad + ~ok))
                taken = taken + (seats == winner)
                return (held, winner, taken, bad), (leader, call, winner, cards)

            first = (dealer + 1) % n
            (_, _, taken, bad), (leaders, calls, winners, cards) = jax.lax.scan(
                trick_body, (held, first, jnp.zeros(m, jnp.int32), bad),
                jnp.arange(TRICKS_PER_ROUND))
            score = rules.points(self.mode, bids, taken)
            return (totals + score, bad), dict(bids=bids, taken=taken, points=score,
                                               leaders=leaders, calls=calls, winners=winners,
                                               cards=cards)

        (totals, bad), per_round = jax.lax.scan(
            round_body, (jnp.zeros(m, jnp.int32), jnp.int32(0)), jnp.arange(self.rounds))
        return dict(totals=totals, illegal=bad, **per_round)


CPU_CHUNK = 4096
"""Games a pass on a CPU backend: a batch is played as a ``lax.map`` over chunks of this
many vmapped games, whose arrays stay in cache (one pass over 65,536 games played half
as many hands a second). On an accelerator the whole batch is one vmap."""


def _chunk() -> int | None:
    return CPU_CHUNK if jax.default_backend() == "cpu" else None


def _over_games(fn: Callable[..., dict[str, Array]], chunk: int | None, *games: Array
                ) -> dict[str, Array]:
    """``fn`` of one game over a batch (arguments batched along axis 0)."""
    if chunk is None or games[0].shape[0] <= chunk:
        return jax.vmap(fn)(*games)
    return jax.lax.map(lambda xs: fn(*xs), games, batch_size=chunk)


_KEEP = ("totals", "points", "taken", "bids", "illegal")


@functools.cache
def _compiled(mode: str, rounds: int, dealer: int, policy: Policy, record: bool,
              chunk: int | None) -> Callable[[ArrayLike, Array, Array], dict[str, Array]]:
    game = _Game(mode, rounds, dealer, policy)

    def batch(orders: ArrayLike, keys: Array, players: Array) -> dict[str, Array]:
        out = _over_games(lambda o, k: game(o, k, players), chunk, jnp.asarray(orders), keys)
        return out if record else {k: out[k] for k in _KEEP}

    return jax.jit(batch)


@functools.cache
def _compiled_device(mode: str, players: int, rounds: int, dealer: int, policy: Policy,
                     record: bool, chunk: int | None) -> Callable[[Array], dict[str, Array]]:
    game = _Game(mode, rounds, dealer, policy)

    def one(key: Array) -> dict[str, Array]:
        deal, play = jax.random.split(key)
        orders = device_orders(deal, rounds, players)
        out = game(orders, play, jnp.int32(players))
        return {**out, "orders": orders} if record else {k: out[k] for k in _KEEP}

    return jax.jit(lambda keys: _over_games(one, chunk, keys))


def _trim(out: dict[str, Array], players: int) -> dict[str, Array]:
    """The seat arrays cut to the players (the last axis of all but the per-trick ones)."""
    seat_axis = ("totals", "points", "taken", "bids", "cards")
    return {k: v[..., :players] if k in seat_axis else v for k, v in out.items()}


def play_orders(orders: ArrayLike, keys: Array, *, mode: str = "win", players: int = 4,
                rounds: int = 8, dealer: int = 0, policy: Policy = "random",
                record: bool = False) -> dict[str, Array]:
    """Play one game per deck set ``orders`` (``N x rounds x 81``), its policy's
    randomness from ``keys`` (``N`` JAX keys). Device arrays, by game first: ``totals``
    (``N x players``), ``points``/``taken``/``bids`` (``N x rounds x players``; bids -1
    outside Play to Bid), ``illegal`` (a policy function's illegal answers, each played
    as its decoded card) and, with ``record``, ``leaders``/``calls``/``winners``
    (``N x rounds x 8``) and ``cards`` (``N x rounds x 8 x players``, in the order
    played). Compiled once per settings, policy and shape (not per players)."""
    rules.check_settings(mode, players, rounds, dealer)
    run = _compiled(mode, rounds, dealer, policy, record, _chunk())
    return _trim(run(orders, keys, jnp.int32(players)), players)


def play_device(key: Array, games: int, *, mode: str = "win", players: int = 4,
                rounds: int = 8, dealer: int = 0, policy: Policy = "random",
                record: bool = False) -> dict[str, Array]:
    """:func:`play_orders` of ``games`` games dealt on the device by
    :func:`device_orders` (not the core's deals); with ``record`` the decks come back
    too, as ``orders``. Each game deals and plays from its own key."""
    rules.check_settings(mode, players, rounds, dealer)
    run = _compiled_device(mode, players, rounds, dealer, policy, record, _chunk())
    return _trim(run(jax.random.split(key, games)), players)


@attrs.frozen(eq=False)
class PresetResult(BatchResult):
    """A :class:`BatchResult` of games dealt on the device: each game's settings carry
    its decks as preset deals (spec/RULES.md, Preset deals), so ``events(game)`` is a
    game the core replays, records and audits, though no seed deals it."""

    def config(self, game: int) -> Config:
        assert self.orders is not None
        n = self.players
        deals = []
        for r in range(self.rounds):
            order = [DECK[i] for i in self.orders[game, r]]
            dealer = (self.dealer + r) % n
            hands = tuple(tuple(sorted(order[(s - dealer - 1) % n : HAND_SIZE * n : n],
                                       key=card_sort_key)) for s in range(n))
            deals.append(PresetDeal(hands, tuple(order[HAND_SIZE * n:])))
        return Config(mode=self.mode, players=n, rounds=self.rounds, dealer=self.dealer,
                      deals=tuple(deals))


def simulate(seeds: Sequence[int] | NDArray[Any], *, mode: str = "win", players: int = 4,
             rounds: int = 8, dealer: int = 0, policy: Policy = "random", key: int = 0,
             record: bool = False) -> BatchResult:
    """One game per seed, dealt as the core deals the seed, played on the device: the
    :class:`BatchResult` of :func:`xactika.core.batch.simulate`, so ``events(game)``
    gives the core's events. The random policy's draws come from JAX keys made from
    ``key`` and the game's place in ``seeds`` (not the numpy simulator's draws)."""
    seeds_arr = whole_numbers(seeds, "seeds")
    rules.check_settings(mode, players, rounds, dealer)
    orders = core_orders(seeds_arr, rounds)
    keys = jax.random.split(jax.random.key(key), len(seeds_arr))
    out = play_orders(orders, keys, mode=mode, players=players, rounds=rounds, dealer=dealer,
                      policy=policy, record=record)
    return _result(BatchResult, out, orders, seeds_arr, mode, players, rounds, dealer, record)


def simulate_device(key: Array, games: int, *, mode: str = "win", players: int = 4,
                    rounds: int = 8, dealer: int = 0, policy: Policy = "random",
                    record: bool = False) -> PresetResult:
    """:func:`play_device` as a :class:`PresetResult` on the host: games dealt on the
    device, each replayable in the core from its preset deals (``events(game)``)."""
    out = play_device(key, games, mode=mode, players=players, rounds=rounds, dealer=dealer,
                      policy=policy, record=True)
    orders = np.asarray(out.pop("orders"))
    return _result(PresetResult, out, orders, np.arange(games), mode, players, rounds, dealer,
                   record)


def _result(cls: type[BatchResult], out: dict[str, Array], orders: NDArray[np.int8],
            seeds: NDArray[Any], mode: str, players: int, rounds: int, dealer: int,
            record: bool) -> Any:
    """The host's result of a played batch; a policy's illegal answer is a ValueError."""
    host = rules.as_numpy(out)
    if host["illegal"].any():
        g = int(np.flatnonzero(host["illegal"])[0])
        raise ValueError(f"the policy chose {int(host['illegal'][g])} illegal moves in game {g}")

    def arr(name: str, dtype: Any) -> Any:
        return host[name].astype(dtype) if record or name in _SCORES else None

    return cls(mode, players, rounds, dealer, seeds, arr("totals", np.int32),
               arr("points", np.int32), arr("taken", np.int8),
               arr("bids", np.int8) if mode == "bid" else None,
               orders if record else None, arr("cards", np.int8), arr("leaders", np.int8),
               arr("calls", np.int8), arr("winners", np.int8))


_SCORES = ("totals", "points", "taken", "bids")
