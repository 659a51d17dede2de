"""Xactika's batch part (:func:`xactika.core.batch.simulate` with ``game="xactika"``, the
default): many games at once, in lockstep on numpy arrays.

Every game of a batch has the same mode, players, rounds and first dealer, so every game
is at the same point of its round at each step (the n-th bid, the n-th card of the t-th
trick); only who acts and what is held differ, and those are arrays: a hand is its
eight dealt card indices (into :data:`DECK`) and a byte of which are still held, and
leaders, calls, bids and tricks taken are ``N``-long vectors. One step decides one move
in all N games with a few array operations, so a batch costs about what one game costs.

The deals are the core's (:func:`deal_orders` is spec/DEALS.md's shuffle, vectorised), so
a batch game with seed ``s`` is dealt exactly what ``new_game(Config(seed=s, ...))`` is.
Policies, chosen per seat:

* ``"random"``: a uniform choice among the legal moves listed in a fixed order, driven
  by a counter-based generator keyed by (the game's key, the decision's index in the
  game), :func:`draw`; so a single game can make the same choices through
  :func:`xactika.core.step` (:func:`reference_command`).
* ``"greedy"``: a cheap deterministic heuristic: win the trick with the lowest card that
  wins, else throw the lowest; in Play to Lose, and in Play to Bid once the bid is made,
  duck with the highest card that loses. It bids the cards worth 9 or more.
* a function of a :class:`Decision` (the legal moves of every game as masks, the
  actor's hand): a trained model, say. Its answers are checked like any command.

:meth:`BatchResult.events` rebuilds any game's event list, the same events the core
emits, which is what the differential test compares. numpy is the ``batch`` extra; the
rest of the core does not import this module.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import attrs
import numpy as np
from numpy.typing import NDArray

from xactika.core.batch import batch_config, draw, draw_one, shuffle_orders, whole_numbers
from xactika.core.engine.api import (
    Bid,
    BidMade,
    Command,
    Config,
    Dealt,
    Event,
    GameOver,
    GameStarted,
    Led,
    Legal,
    Play,
    Played,
    RoundScored,
    State,
    TrickWon,
    legal_actions,
    replay,
    start,
    step,
)
from xactika.core.games.xactika import (
    CALLS,
    DECK,
    HAND_SIZE,
    TRICKS_PER_ROUND,
    Card,
    card_sort_key,
)
from xactika.core.games.xactika.tables import (
    DECK_COUNTS,
    DECK_INDEX,
    DECK_SHOWS,
    DECK_VALUES,
    NCARDS,
)

POLICIES = ("random", "greedy")
CARDS = NCARDS
_INDEX = DECK_INDEX

# the game's card index tables (core/games/xactika/tables.py), deck order, as arrays
COUNTS: NDArray[np.int8] = np.array(DECK_COUNTS, dtype=np.int8)  # 81 x 4
VALUES: NDArray[np.int16] = np.array(DECK_VALUES, dtype=np.int16)
SHOWS: NDArray[np.bool_] = np.array(DECK_SHOWS, dtype=np.bool_)  # 12 x 81: SHOWS[call, card]
_LOW = VALUES.astype(np.int32) * 128 + np.arange(CARDS, dtype=np.int32)
"""Lowest value first, then deck order: the greedy policy's ranking of cards to throw."""
_HIGH = VALUES.astype(np.int32) * 128 + (127 - np.arange(CARDS, dtype=np.int32))
"""Highest value first, then deck order."""
_STRONG = VALUES >= 9  # what the greedy policy counts as a likely trick when bidding

def deal_orders(seeds: Sequence[int], round_no: int) -> NDArray[np.int8]:
    """Xactika's shuffled decks (:func:`shuffle_orders`)."""
    return shuffle_orders("xactika", DECK, seeds, round_no)


# --------------------------------------------------------------------------- results


@attrs.frozen(eq=False)
class BatchResult:
    """What a batch played: per game scores, and with ``record`` every move.

    Arrays are indexed by game first. ``points``/``taken``/``bids`` are ``N x rounds x
    players``; ``orders`` (the shuffled decks) is ``N x rounds x 81``; ``cards`` is
    ``N x rounds x 8 x players`` in the order played, ``leaders``/``calls``/``winners``
    are ``N x rounds x 8`` (calls as indices into :data:`CALLS`).
    """

    mode: str
    players: int
    rounds: int
    dealer: int
    seeds: NDArray[np.int64]
    totals: NDArray[np.int32]
    points: NDArray[np.int32]
    taken: NDArray[np.int8]
    bids: NDArray[np.int8] | None
    orders: NDArray[np.int8] | None = None
    cards: NDArray[np.int8] | None = None
    leaders: NDArray[np.int8] | None = None
    calls: NDArray[np.int8] | None = None
    winners: NDArray[np.int8] | None = None

    @property
    def games(self) -> int:
        return len(self.seeds)

    def won(self) -> NDArray[np.bool_]:
        """``N x players``: who shares the best total (the lowest in Play to Lose)."""
        best = self.totals.min(1) if self.mode == "lose" else self.totals.max(1)
        return self.totals == best[:, None]

    def config(self, game: int) -> Config:
        return Config(mode=self.mode, players=self.players, rounds=self.rounds,
                      dealer=self.dealer, seed=int(self.seeds[game]))

    def events(self, game: int) -> list[Event]:
        """Game ``game`` as the core's events (needs ``record=True``)."""
        if self.orders is None or self.cards is None or self.leaders is None \
                or self.calls is None or self.winners is None:
            raise ValueError("events need a batch played with record=True")
        n = self.players
        config = self.config(game)
        events: list[Event] = [GameStarted(1, config)]
        totals = [0] * n
        dealer = self.dealer
        for r in range(self.rounds):
            order = [DECK[i] for i in self.orders[game, r]]
            count = HAND_SIZE * n
            hands = tuple(
                tuple(sorted(order[(s - dealer - 1) % n : count : n], key=card_sort_key))
                for s in range(n)
            )
            events.append(Dealt(len(events) + 1, r + 1, dealer, hands, tuple(order[count:])))
            bids = None
            if self.bids is not None:
                bids = tuple(int(b) for b in self.bids[game, r])
                for j in range(n):
                    seat = (dealer + 1 + j) % n
                    events.append(BidMade(len(events) + 1, seat, bids[seat]))
            for t in range(TRICKS_PER_ROUND):
                leader = int(self.leaders[game, r, t])
                call = CALLS[self.calls[game, r, t]]
                for j in range(n):
                    seat = (leader + j) % n
                    card = DECK[self.cards[game, r, t, j]]
                    if j == 0:
                        events.append(Led(len(events) + 1, seat, card, call))
                    else:
                        events.append(Played(len(events) + 1, seat, card))
                events.append(TrickWon(len(events) + 1, int(self.winners[game, r, t]), t + 1))
            points = tuple(int(p) for p in self.points[game, r])
            totals = [a + b for a, b in zip(totals, points, strict=True)]
            events.append(RoundScored(len(events) + 1, r + 1, bids,
                                      tuple(int(x) for x in self.taken[game, r]), points,
                                      tuple(totals)))
            dealer = (dealer + 1) % n
        won = self.won()[game]
        events.append(GameOver(len(events) + 1, tuple(totals),
                               tuple(s for s in range(n) if won[s])))
        return events


# --------------------------------------------------------------------------- the simulator


def _pick(mask: NDArray[np.bool_], score: NDArray[Any], low: bool) -> NDArray[np.intp]:
    """Per row, the True column of ``mask`` with the lowest (or highest) ``score``."""
    if low:
        return np.argmin(np.where(mask, score, np.int32(1 << 20)), axis=1)
    return np.argmax(np.where(mask, score, np.int32(-1)), axis=1)


@attrs.frozen(eq=False)
class Decision:
    """One move in every game of a chunk, as a callable policy sees it.

    ``kind`` is "bid", "lead" or "play"; ``seat`` the acting seat of each game;
    ``legal`` the legal choices (``N x 9`` bids, or ``N x 81`` cards in deck order);
    ``hand`` the actor's cards (``N x 81``); ``call`` the call led (:data:`CALLS`
    indices, plays only); ``index`` the decision's index in every game; ``keys`` the
    games' keys. The policy returns the bids, or the cards (deck indices), as an
    ``N``-long array; for a lead, a pair ``(cards, shapes)`` with the shape to call.
    """

    kind: str
    seat: NDArray[np.intp]
    legal: NDArray[np.bool_]
    hand: NDArray[np.bool_]
    call: NDArray[np.intp] | None
    index: int
    keys: NDArray[np.uint64]


Policy = str | Callable[[Decision], Any]


def simulate(
    seeds: Sequence[int] | NDArray[Any],
    *,
    mode: str | None = None,
    players: int | None = None,
    rounds: int | None = None,
    dealer: int = 0,
    policy: Policy | Sequence[Policy] = "random",
    keys: Sequence[int] | NDArray[Any] | None = None,
    record: bool = False,
) -> BatchResult:
    """Play one Xactika game per seed, all in lockstep, and return what they scored.

    ``policy`` is one policy for every seat or one per seat: a name from
    :data:`POLICIES`, or a function of a :class:`Decision` (a trained model, say);
    ``keys`` key the random policy's draws (default: the seeds). ``record`` keeps every
    move, for :meth:`BatchResult.events`. Settings left out are the game's (Play to Bid,
    4 players, 8 rounds); they are checked as the core checks them.
    """
    seeds_arr = whole_numbers(seeds, "seeds")
    config = batch_config("xactika", mode, players, rounds, dealer)
    mode, players, rounds = config.mode, config.players, config.rounds
    seat_policy: tuple[Policy, ...]
    if isinstance(policy, str) or callable(policy):
        seat_policy = (policy,) * players
    else:
        seat_policy = tuple(policy)
    if len(seat_policy) != players or any(
        not callable(p) and p not in POLICIES for p in seat_policy
    ):
        raise ValueError(f"policy must be one of {', '.join(POLICIES)} or a function, "
                         "or one per seat")
    keys_arr = (seeds_arr if keys is None else whole_numbers(keys, "keys")).astype(np.uint64)
    if keys_arr.shape != seeds_arr.shape:
        raise ValueError("keys must have one key per seed")
    parts = []
    for lo in range(0, len(seeds_arr), CHUNK):
        sim = _Sim(seeds_arr[lo : lo + CHUNK], keys_arr[lo : lo + CHUNK], mode, players,
                   rounds, dealer, seat_policy, record)
        sim.play()
        parts.append(sim.result())
    if len(parts) == 1:
        return parts[0]
    first = parts[0]
    arrays: list[Any] = [
        None if getattr(first, name) is None
        else np.concatenate([getattr(part, name) for part in parts])
        for name in _ARRAYS
    ]
    return BatchResult(first.mode, first.players, first.rounds, first.dealer, *arrays)


CHUNK = 8192
"""Games per lockstep pass: larger batches are played in chunks of this size, which keeps
a pass's arrays in cache (50,000 games at once ran a third slower per game)."""
_ARRAYS = ("seeds", "totals", "points", "taken", "bids", "orders", "cards", "leaders",
           "calls", "winners")


_BIT = (1 << np.arange(HAND_SIZE)).astype(np.uint8)
_POPCOUNT = np.array([bin(m).count("1") for m in range(256)], dtype=np.intp)
_NTH = np.array(
    [[([k for k in range(HAND_SIZE) if m >> k & 1] + [0] * HAND_SIZE)[r] for r in range(HAND_SIZE)]
     for m in range(256)], dtype=np.intp,
).reshape(-1)
"""_NTH[m * 8 + r]: the slot of the r-th (0-based) set bit of the 8-bit mask m."""


_SHOWN_BITS = [(SHOWS.T * np.uint8(1 << k)).astype(np.uint8) for k in range(HAND_SIZE)]
"""_SHOWN_BITS[k][card, call]: bit k when ``card`` shows ``call``: a card in slot k's
contribution to the byte of slots that follow ``call``."""


def _flags(bits: NDArray[np.uint8]) -> NDArray[np.bool_]:
    return (bits[:, None] & _BIT) != 0


class _Sim:
    """The arrays of one batch and the step that advances all its games.

    A seat's hand is its eight dealt cards in deck order (``slots``: card indices) and
    one byte saying which it still holds; what follows each call is a byte per seat
    and call worked out at the deal. A decision is then a few operations on N-long
    vectors, where 81-wide boolean masks cost several times more (bench/batch.py);
    :meth:`hand_masks` gives the ``N x players x 81`` masks for features.
    """

    def __init__(self, seeds: NDArray[np.int64], keys: NDArray[np.uint64], mode: str,
                 players: int, rounds: int, dealer: int, policy: tuple[Policy, ...],
                 record: bool) -> None:
        n_games = len(seeds)
        self.seeds, self.keys, self.mode, self.n = seeds, keys, mode, players
        self.rounds, self.dealer0 = rounds, dealer
        self.rows = np.arange(n_games)
        # which policy each seat uses: the masks select per game by who is acting
        self.uses = {p: np.array([q is p or q == p for q in policy])
                     for p in dict.fromkeys(policy)}
        self.slots = np.zeros((n_games * players, HAND_SIZE), dtype=np.intp)  # per game, seat
        self.held = np.zeros(n_games * players, dtype=np.uint8)
        self.follows = np.zeros(n_games * players * len(CALLS), dtype=np.uint8)
        self.totals = np.zeros((n_games, players), dtype=np.int32)
        self.points = np.zeros((n_games, rounds, players), dtype=np.int32)
        self.taken_all = np.zeros((n_games, rounds, players), dtype=np.int8)
        self.bids_all = np.zeros((n_games, rounds, players), dtype=np.int8) \
            if mode == "bid" else None
        shape = (n_games, rounds, TRICKS_PER_ROUND)
        self.orders = np.zeros((n_games, rounds, CARDS), dtype=np.int8) if record else None
        self.cards = np.zeros((*shape, players), dtype=np.int8) if record else None
        self.leaders = np.zeros(shape, dtype=np.int8) if record else None
        self.calls = np.zeros(shape, dtype=np.int8) if record else None
        self.winners = np.zeros(shape, dtype=np.int8) if record else None
        self.decision = 0  # the same in every game: lockstep

    def hand_masks(self) -> NDArray[np.bool_]:
        """``N x players x 81``: which cards each seat holds now."""
        masks = np.zeros((len(self.held), CARDS), dtype=np.bool_)
        i, k = np.nonzero(_flags(self.held))
        masks[i, self.slots[i, k]] = True
        return masks.reshape(len(self.rows), self.n, CARDS)

    def play(self) -> None:
        n = self.n
        for r in range(self.rounds):
            dealer = (self.dealer0 + r) % n
            self._deal(r, dealer)
            taken = np.zeros((len(self.rows), n), dtype=np.int8)
            bids = self._bid(dealer) if self.mode == "bid" else None
            leader = np.full(len(self.rows), (dealer + 1) % n, dtype=np.intp)
            for t in range(TRICKS_PER_ROUND):
                leader = self._trick(r, t, leader, taken, bids)
            if bids is not None:
                assert self.bids_all is not None
                self.bids_all[:, r] = bids
                points = np.where(bids == taken, taken, -np.abs(bids.astype(np.int32) - taken))
            else:
                points = taken
            self.points[:, r] = points
            self.taken_all[:, r] = taken
            self.totals += points

    def _deal(self, r: int, dealer: int) -> None:
        n = self.n
        order = deal_orders(self.seeds.tolist(), r + 1)
        if self.orders is not None:
            self.orders[:, r] = order
        count = HAND_SIZE * n
        slots = self.slots.reshape(len(self.rows), n, HAND_SIZE)
        for s in range(n):
            slots[:, s] = np.sort(order[:, (s - dealer - 1) % n : count : n], axis=1)
        self.held[:] = 0xFF
        # follows[(game * n + seat) * 12 + call]: the slots whose cards show the call
        follows = self.follows.reshape(len(self.slots), len(CALLS))
        follows[:] = 0
        for k in range(HAND_SIZE):
            follows |= _SHOWN_BITS[k][self.slots[:, k]]

    def _choose(self, actor: NDArray[Any] | int) -> dict[Policy, NDArray[np.bool_]]:
        """For each policy in use, the games whose acting seat uses it."""
        if len(self.uses) == 1:
            return {p: np.ones(len(self.rows), dtype=np.bool_) for p in self.uses}
        return {p: np.broadcast_to(m[actor], self.rows.shape) for p, m in self.uses.items()}

    def _bid(self, dealer: int) -> NDArray[np.int8]:
        n, games = self.n, len(self.rows)
        bids = np.zeros((games, n), dtype=np.int8)
        for j in range(n):
            seat = (dealer + 1 + j) % n
            if seat == dealer:
                others = bids.sum(axis=1, dtype=np.int32)
                restricted = others <= TRICKS_PER_ROUND
                banned = TRICKS_PER_ROUND - others
            else:
                restricted = np.zeros(games, dtype=np.bool_)
                banned = np.full(games, -1)
            bid = np.zeros(games, dtype=np.int32)
            pick: NDArray[Any]
            for p, where in self._choose(seat).items():
                if p == "random":
                    k = np.where(restricted, TRICKS_PER_ROUND, TRICKS_PER_ROUND + 1)
                    pick = (draw(self.keys, self.decision) % k.astype(np.uint64)).astype(np.int32)
                    pick += restricted & (pick >= banned)
                elif p == "greedy":
                    pick = _STRONG[self.slots[self.rows * n + seat]].sum(axis=1, dtype=np.int32)
                    clash = restricted & (pick == banned)
                    pick = np.where(clash, np.where(pick < TRICKS_PER_ROUND, pick + 1, pick - 1),
                                    pick)
                else:
                    assert not isinstance(p, str)
                    legal = np.ones((games, TRICKS_PER_ROUND + 1), dtype=np.bool_)
                    legal[np.flatnonzero(restricted), banned[restricted]] = False
                    hand = self.rows * n + seat
                    pick, _ = self._ask(p, "bid", hand, legal, None, where)
                bid = np.where(where, pick, bid)
            bids[:, seat] = bid
            self.decision += 1
        return bids

    def _trick(self, r: int, t: int, leader: NDArray[np.intp], taken: NDArray[np.int8],
               bids: NDArray[np.int8] | None) -> NDArray[np.intp]:
        n, rows = self.n, self.rows
        played = np.zeros((len(rows), n), dtype=np.intp)
        call = np.zeros(len(rows), dtype=np.intp)
        best = np.zeros(len(rows), dtype=np.int16)  # the value to beat among cards showing
        base = rows * n
        flat_slots = self.slots.reshape(-1)
        for j in range(n):
            actor = (leader + j) % n
            hand = base + actor  # the (game, seat) row of each game's actor
            held = np.take(self.held, hand)
            if j:
                shows = np.take(self.follows, hand * len(CALLS) + call)
                follow = held & shows
                legal = np.where(follow != 0, follow, held)
            else:
                shows = None
                legal = held
            slot = np.zeros(len(rows), dtype=np.intp)
            shape = np.zeros(len(rows), dtype=np.intp)
            for p, where in self._choose(actor).items():
                if p == "random":
                    k, s = self._random_move(legal, j == 0)
                elif p == "greedy":
                    k, s = self._greedy_move(hand, legal, shows, best, actor, taken, bids)
                else:
                    assert not isinstance(p, str)
                    k, s = self._ask(p, "play" if j else "lead", hand, legal, call if j else None,
                                     where)
                slot = np.where(where, k, slot)
                shape = np.where(where, s, shape)
            card = np.take(flat_slots, hand * HAND_SIZE + slot)
            self.held[hand] = held & ~np.take(_BIT, slot)
            played[:, j] = card
            value = np.take(VALUES, card)
            if j == 0:
                call = (COUNTS[card, shape].astype(np.intp) - 1) * 4 + shape
                best = value
            else:
                best = np.where(SHOWS[call, card] & (value >= best), value, best)
            self.decision += 1
        # the trick: of the cards showing the call the highest value wins, the later of equals
        score = np.where(SHOWS[call[:, None], played], VALUES[played] * 16 + np.arange(n), -1)
        winner = (leader + np.argmax(score, axis=1)) % n
        taken[rows, winner] += 1
        if self.cards is not None:
            assert self.leaders is not None and self.calls is not None
            assert self.winners is not None
            self.cards[:, r, t] = played
            self.leaders[:, r, t] = leader
            self.calls[:, r, t] = call
            self.winners[:, r, t] = winner
        return winner

    def _random_move(self, legal: NDArray[np.uint8], lead: bool
                     ) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
        """A slot, and for a lead a shape to call, uniformly: a lead chooses among
        (card, shape) pairs in deck then shape order, a follow among cards in deck order
        (slots are in deck order)."""
        legal_i = legal.astype(np.intp)
        count = np.take(_POPCOUNT, legal_i).astype(np.uint64)
        word = draw(self.keys, self.decision)
        if lead:
            pick = (word % (count * np.uint64(4))).astype(np.intp)
            rank, shape = pick // 4, pick % 4
        else:
            rank = (word % count).astype(np.intp)
            shape = np.zeros_like(rank)
        return np.take(_NTH, legal_i * HAND_SIZE + rank), shape

    def _greedy_move(self, hand: NDArray[np.intp], legal_bits: NDArray[np.uint8],
                     shows_bits: NDArray[np.uint8] | None, best: NDArray[np.int16],
                     actor: NDArray[np.intp], taken: NDArray[np.int8],
                     bids: NDArray[np.int8] | None) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
        rows = self.rows
        if self.mode == "lose":
            duck = np.ones(len(rows), dtype=np.bool_)
        elif bids is not None:
            duck = taken[rows, actor] >= bids[rows, actor]
        else:
            duck = np.zeros(len(rows), dtype=np.bool_)
        slots = np.take(self.slots, hand, axis=0)
        legal = _flags(legal_bits)
        low, high = _LOW[slots], _HIGH[slots]
        if shows_bits is None:  # a lead: the highest card to win, the lowest to duck
            slot = np.where(duck, _pick(legal, low, True), _pick(legal, high, False))
            return slot, np.argmax(COUNTS[slots[rows, slot]], axis=1)
        wins = legal & _flags(shows_bits) & (VALUES[slots] >= best[:, None])
        loses = legal & ~wins
        lowest = _pick(legal, low, True)
        take = np.where(wins.any(axis=1), _pick(wins, low, True), lowest)
        dodge = np.where(loses.any(axis=1), _pick(loses, high, False), lowest)
        slot = np.where(duck, dodge, take)
        return slot, np.zeros_like(slot)

    def _masks(self, hand: NDArray[np.intp], bits: NDArray[np.uint8]) -> NDArray[np.bool_]:
        """``N x 81``: the cards of the slots set in ``bits`` of each game's ``hand``."""
        masks = np.zeros((len(hand), CARDS), dtype=np.bool_)
        g, k = np.nonzero(_flags(bits))
        masks[g, self.slots[hand[g], k]] = True
        return masks

    def _ask(self, policy: Callable[[Decision], Any], kind: str, hand: NDArray[np.intp],
             legal: NDArray[Any], call: NDArray[np.intp] | None, where: NDArray[np.bool_]
             ) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
        """A callable policy's choice, checked: the slot (or bid) and the shape called.

        Only the games in ``where`` (whose actor uses this policy) must be legal."""
        held = np.take(self.held, hand)
        cards = legal if kind == "bid" else self._masks(hand, legal)
        decision = Decision(kind, hand % self.n, cards, self._masks(hand, held), call,
                            self.decision, self.keys)
        answer = policy(decision)
        choice, shape = answer if kind == "lead" else (answer, np.zeros(len(hand), dtype=np.intp))
        choice = np.asarray(choice)
        shape = np.asarray(shape)
        if choice.shape != hand.shape or shape.shape != hand.shape \
                or choice.dtype.kind not in "iu" or shape.dtype.kind not in "iu":
            raise ValueError(f"a {kind} policy must return one whole number a game")
        width = cards.shape[1]
        bad = where & ((choice < 0) | (choice >= width) | (shape < 0) | (shape > 3))
        inside = np.clip(choice, 0, width - 1).astype(np.intp)
        bad |= where & ~cards[self.rows, inside]
        if bad.any():
            g = int(np.flatnonzero(bad)[0])
            raise ValueError(f"the policy chose an illegal {kind} in game {g} "
                             f"(decision {self.decision}): {choice[g]}")
        if kind == "bid":
            return inside, np.zeros_like(inside)
        slots = np.take(self.slots, hand, axis=0)
        return np.argmax(slots == inside[:, None], axis=1), shape.astype(np.intp)

    def result(self) -> BatchResult:
        return BatchResult(self.mode, self.n, self.rounds, self.dealer0, self.seeds,
                           self.totals, self.points, self.taken_all, self.bids_all,
                           self.orders, self.cards, self.leaders, self.calls, self.winners)


# --------------------------------------------------------------------------- one game, in Python


def reference_command(policy: str, state: State, legal: Legal, key: int, index: int
                      ) -> Command:
    """The move the batch's ``policy`` makes in ``state``, worked out in plain Python on
    the core's own state: drive :func:`xactika.core.step` with it and a single game
    makes the batch's choices. ``index`` counts the game's decisions from 0."""
    seat = legal.seat
    if seat is None:
        raise ValueError("nobody is to act")
    if legal.kind == "bid":
        if policy == "random":
            return Bid(seat, legal.bids[draw_one(key, index) % len(legal.bids)])
        guess = sum(1 for c in state.hands[seat] if c.value >= 9)
        if guess not in legal.bids:
            guess = guess + 1 if guess < TRICKS_PER_ROUND else guess - 1
        return Bid(seat, guess)
    cards = sorted(legal.cards, key=_INDEX.__getitem__)
    if policy == "random":
        word = draw_one(key, index)
        if legal.kind == "lead":
            pick = word % (4 * len(cards))
            card = cards[pick // 4]
            return Play(seat, card, card.calls[pick % 4])
        return Play(seat, cards[word % len(cards)])
    mode = state.config.mode
    bids = state.bids
    duck = mode == "lose" or (
        mode == "bid" and state.taken[seat] >= (bids[seat] or 0)
    )

    def low(c: Card) -> tuple[int, int]:
        return c.value, _INDEX[c]

    def high(c: Card) -> tuple[int, int]:
        return -c.value, _INDEX[c]

    if legal.kind == "lead":
        card = min(cards, key=low if duck else high)
        shape = card.counts.index(max(card.counts))
        return Play(seat, card, card.calls[shape])
    call = state.call
    best = max(c.value for _, c in state.trick if c.shows(call))
    wins = [c for c in cards if c.shows(call) and c.value >= best]
    loses = [c for c in cards if c not in wins]
    lowest = min(cards, key=low)
    if duck:
        return Play(seat, min(loses, key=high) if loses else lowest)
    return Play(seat, min(wins, key=low) if wins else lowest)


def reference_game(config: Config, policy: str | Sequence[str] = "random",
                   key: int | None = None) -> list[Event]:
    """One game through :func:`xactika.core.step` with :func:`reference_command`: the
    events the batch must reproduce for the same seed."""
    seat_policy = (policy,) * config.players if isinstance(policy, str) else tuple(policy)
    events = start(config)
    state = replay(events)
    if key is None:
        if config.seed is None:
            raise ValueError("a game without a seed needs a key")
        key = config.seed
    index = 0
    while True:
        legal = legal_actions(state)
        if legal.seat is None:
            return events
        command = reference_command(seat_policy[legal.seat], state, legal, key, index)
        state, new = step(state, command)
        events.extend(new)
        index += 1
