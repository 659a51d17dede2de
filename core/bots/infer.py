"""Policy-based inference: how likely a sampled deal makes the bids and plays seen.

Rebstock, Solinas, Buro and Sturtevant ("Policy Based Inference in Trick-Taking Card
Games", 2019) weight each sampled world by the probability, under a learned policy of the
other players, of the actions those players were seen to take. Here two small networks
(``inference.npz``, trained by ``study/train_inference.py`` on self-play of the built-in
bots) give a seat's bid and its card play (and the call of a lead) from that seat's view:
its own hand plus what is public. A sampled deal puts a hand in each hidden seat, so every
bid and play of that seat this round gets a probability; their product is the deal's
likelihood, and :class:`SeatMix` draws deals by it.

The first layer of each network is split into a public part and a hand part, so a deal's
hand enters as a sum of 81-row embeddings: scoring many deals costs one small matrix
product per layer after the first. Only numpy is needed at run time; the module is
imported when a decision first needs it, so ``xactika bot`` starts without numpy.
"""

from __future__ import annotations

import json
import math
import os
import random
import sys
from collections.abc import Callable, Sequence
from importlib import resources
from typing import Any

if "numpy" not in sys.modules:  # pragma: no branch
    # a decision's products are small: BLAS threads only fight over the cores (and the
    # other seats' processes), several times slower than one thread on a loaded machine
    for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_var, "1")

import numpy as np

from xactika.core.bots.sampler import Deal
from xactika.core.bots.search import legal_bids, walk_plays
from xactika.core.engine.views import SeatView
from xactika.core.games.xactika import TRICKS_PER_ROUND, Card
from xactika.core.games.xactika.tables import CALL_INDEX, CMASK, INDEX, NCALLS, NCARDS, SHOW

MAX_PLAYERS = 10
MODES = ("win", "lose", "bid")

# -- the play network's public input, in this order
_P_PLAYED = 0  # cards played this round before this play (81)
_P_TRICK = _P_PLAYED + NCARDS  # cards in the current trick (81)
_P_CALL = _P_TRICK + NCARDS  # the trick's call (12; none when leading)
_P_LEAD = _P_CALL + NCALLS  # leading (1)
_P_BEST = _P_LEAD + 1  # the trick's best value, 4..12 (9)
_P_COUNT = _P_BEST + 9  # cards already in the trick, 0..9 (10)
_P_PLAYERS = _P_COUNT + MAX_PLAYERS  # players, 2..10 (9)
_P_MODE = _P_PLAYERS + 9  # win, lose, bid (3)
_P_WANT = _P_MODE + 3  # still wants tricks (1)
_P_NEED = _P_WANT + 1  # Play to Bid: bid minus taken, -1..5 clipped (7)
_P_LEFT = _P_NEED + 7  # cards left in hand, 1..8 (8)
_P_VOIDS = _P_LEFT + TRICKS_PER_ROUND  # the next seats' voids, 9 x 12 (108)
_P_ALLVOID = _P_VOIDS + (MAX_PLAYERS - 1) * NCALLS  # every later seat void in call (1)
PLAY_PUBLIC = _P_ALLVOID + 1

# -- the bid network's public input
_B_BIDS = 0  # the next seats' bids so far, 9 x (none, 0..8)
_B_POS = _B_BIDS + (MAX_PLAYERS - 1) * 10  # place in the bidding order, 0..9 (10)
_B_DEALER = _B_POS + MAX_PLAYERS  # is the dealer (1)
_B_PLAYERS = _B_DEALER + 1  # players, 2..10 (9)
BID_PUBLIC = _B_PLAYERS + 9
NBIDS = TRICKS_PER_ROUND + 1

CARD_CALLS: tuple[tuple[int, ...], ...] = tuple(
    tuple(k for k in range(NCALLS) if SHOW[c] >> k & 1) for c in range(NCARDS)
)
_SHOW_ROWS = np.array([[bool(CMASK[k] >> c & 1) for c in range(NCARDS)]
                       for k in range(NCALLS)])


def mask_bits(mask: int) -> np.ndarray:
    """An 81-card bitmask as a 0/1 float vector."""
    raw = np.frombuffer(mask.to_bytes(11, "little"), dtype=np.uint8)
    return np.unpackbits(raw, bitorder="little")[:NCARDS].astype(np.float32)


def encode_play(out: np.ndarray, n: int, seat: int, mode: str, played: int, trick: int,
                count: int, call: int, best: int, voids: Sequence[int], want: bool,
                need: int, left: int) -> None:
    """Write the play network's public input for ``seat`` into ``out`` (zeros).

    ``played`` and ``trick`` are card bitmasks (``played`` holds the trick's cards too),
    ``call`` the trick's call index (-1 leading), ``best`` its best value, ``voids[s]``
    the call bits seat s failed to follow, ``need`` its bid minus tricks taken (Play to
    Bid) and ``left`` the cards in its hand. The data script and the run time share it.
    """
    out[_P_PLAYED:_P_PLAYED + NCARDS] = mask_bits(played)
    if trick:
        out[_P_TRICK:_P_TRICK + NCARDS] = mask_bits(trick)
    if count:
        out[_P_CALL + call] = 1
        out[_P_BEST + best - 4] = 1
    else:
        out[_P_LEAD] = 1
    out[_P_COUNT + min(count, MAX_PLAYERS - 1)] = 1
    out[_P_PLAYERS + min(n, MAX_PLAYERS) - 2] = 1
    out[_P_MODE + MODES.index(mode)] = 1
    out[_P_WANT] = float(want)
    if mode == "bid":
        out[_P_NEED + min(max(need, -1), 5) + 1] = 1
    out[_P_LEFT + min(max(left, 1), TRICKS_PER_ROUND) - 1] = 1
    allvoid = count > 0
    for i in range(1, min(n, MAX_PLAYERS)):
        v = voids[(seat + i) % n]
        base = _P_VOIDS + (i - 1) * NCALLS
        for k in range(NCALLS):
            if v >> k & 1:
                out[base + k] = 1
        if count and i < n - count and not v >> call & 1:
            allvoid = False
    out[_P_ALLVOID] = float(allvoid)


def encode_bid(out: np.ndarray, n: int, seat: int, dealer: int,
               bids: Sequence[int | None]) -> None:
    """Write the bid network's public input for ``seat`` into ``out`` (zeros)."""
    for i in range(1, min(n, MAX_PLAYERS)):
        b = bids[(seat + i) % n]
        out[_B_BIDS + (i - 1) * 10 + (0 if b is None else b + 1)] = 1
    out[_B_POS + min((seat - dealer - 1) % n, MAX_PLAYERS - 1)] = 1
    out[_B_DEALER] = float(seat == dealer)
    out[_B_PLAYERS + min(n, MAX_PLAYERS) - 2] = 1


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0, out=x)


class Model:
    """The two networks' weights, as :func:`load` reads them from the package."""

    def __init__(self, arrays: dict[str, np.ndarray]) -> None:
        self.meta: dict[str, Any] = json.loads(str(arrays["meta"]))
        f = {k: v.astype(np.float32) for k, v in arrays.items() if k != "meta"}
        # play: public -> h1 (plus the hand's embedding) -> h2 -> card and call logits
        self.p_pub, self.p_hand, self.p_b1 = f["p_pub"], f["p_hand"], f["p_b1"]
        self.p_w2, self.p_b2 = f["p_w2"], f["p_b2"]
        self.p_card, self.p_cardb = f["p_card"], f["p_cardb"]
        self.p_call, self.p_callb = f["p_call"], f["p_callb"]
        self.b_pub, self.b_hand, self.b_b1 = f["b_pub"], f["b_hand"], f["b_b1"]
        self.b_w2, self.b_b2 = f["b_w2"], f["b_b2"]
        self.b_out, self.b_outb = f["b_out"], f["b_outb"]

    def play_logits(self, pub: np.ndarray, hand: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray]:
        """Card and call logits for rows of public inputs and 0/1 hands."""
        h = _relu(pub @ self.p_pub + hand @ self.p_hand + self.p_b1)
        h = _relu(h @ self.p_w2 + self.p_b2)
        return h @ self.p_card + self.p_cardb, h @ self.p_call + self.p_callb

    def bid_logits(self, pub: np.ndarray, hand: np.ndarray) -> np.ndarray:
        h = _relu(pub @ self.b_pub + hand @ self.b_hand + self.b_b1)
        h = _relu(h @ self.b_w2 + self.b_b2)
        return h @ self.b_out + self.b_outb


WEIGHTS = "inference.npz"
_LOADED: dict[str, Any] = {}


def _arrays(path: str | None, shipped: str) -> dict[str, np.ndarray]:
    """The arrays of the .npz at ``path``, or of the package's file ``shipped``."""
    if path is not None:
        with np.load(path, allow_pickle=False) as z:
            return dict(z)
    ref = resources.files("xactika.core.bots").joinpath(shipped)
    with resources.as_file(ref) as p, np.load(p, allow_pickle=False) as z:
        return dict(z)


def load(path: str | None = None) -> Model:
    """The shipped model (read once), or the one at ``path``."""
    if path is not None:
        return Model(_arrays(path, WEIGHTS))
    model = _LOADED.get(WEIGHTS)
    if not isinstance(model, Model):
        model = _LOADED[WEIGHTS] = Model(_arrays(None, WEIGHTS))
    return model


class Evidence:
    """The other seats' bids and plays this round from one view, ready to score deals.

    Each observation is of one hidden seat (its number in ``seats``): its public input,
    the cards it is known to have held then (those it played from then on), and what it
    chose. ``floor`` mixes each probability with a uniform choice, so one move the model
    finds absurd (a person's whim) cannot rule a deal out.
    """

    def __init__(self, view: SeatView, seats: Sequence[int], model: Model,
                 floor: float = 0.05, bids: bool = True, plays: bool = True) -> None:
        self.model = model
        self.floor = floor
        self.seats = tuple(seats)
        n = view.config.players
        mode = view.config.mode
        pos = {s: i for i, s in enumerate(seats)}
        bid_of = [b if b is not None else 0 for b in view.bids]
        rows: list[np.ndarray] = []
        who: list[int] = []
        chose: list[int] = []
        calls: list[int] = []
        follow: list[int] = []  # the call to follow, -1 when leading
        held = [0] * n  # cards each seat has shown so far
        seen: list[tuple[int, int]] = []  # (seat, row) of each observed play
        for t, i, s, c, k, call, best, played, trick, voids, taken in walk_plays(view):
            if s != view.seat:
                want = mode == "win" or (mode == "bid" and taken[s] < bid_of[s])
                row = np.zeros(PLAY_PUBLIC, dtype=np.float32)
                encode_play(row, n, s, mode, played, trick, i, call, best, voids,
                            want, bid_of[s] - taken[s], TRICKS_PER_ROUND - t)
                rows.append(row)
                who.append(pos[s])
                chose.append(c)
                calls.append(k)
                follow.append(call)
                seen.append((s, len(rows) - 1))
            held[s] |= 1 << c
        # the cards each observed play's seat is known to have held then
        known = np.zeros((len(rows), NCARDS), dtype=np.float32)
        for j, (s, r) in enumerate(seen):
            for s2, r2 in seen[j:]:
                if s2 == s:
                    known[r, chose[r2]] = 1
        self.shown = [mask_bits(held[s]) for s in seats]
        if not plays:
            rows = []
        self.n_plays = len(rows)
        if rows:
            pub = self.p_rows = np.stack(rows)  # kept for the training data too
            self.p_held = known
            self.p_pre = pub @ model.p_pub + known @ model.p_hand + model.p_b1
            self.p_known = known.astype(bool)
            self.p_who = np.array(who)
            self.p_card = np.array(chose)
            self.p_follow = np.array([_SHOW_ROWS[k] if k >= 0 else np.ones(NCARDS, bool)
                                      for k in follow])
            # a lead's call among the four its card shows (other rows: unused, finite)
            call_mask = np.zeros((len(rows), NCALLS), dtype=np.float32)
            for r, (c, k) in enumerate(zip(chose, calls, strict=True)):
                if k >= 0:
                    call_mask[r] = -np.inf
                    call_mask[r, list(CARD_CALLS[c])] = 0.0
            self.p_callmask = call_mask
            self.p_call = np.array([max(k, 0) for k in calls])
            self.p_lead = np.array([k >= 0 for k in calls])
        # bids: each hidden seat that has bid, its hand as dealt = now + shown
        brows: list[np.ndarray] = []
        bwho: list[int] = []
        bmade: list[int] = []
        bmask: list[np.ndarray] = []
        if mode == "bid" and bids:
            for s in seats:
                bid = view.bids[s]
                if bid is None:
                    continue
                order = [(view.dealer + 1 + i) % n for i in range(n)]
                before: list[int | None] = [None] * n
                for x in order[:order.index(s)]:
                    before[x] = view.bids[x]
                row = np.zeros(BID_PUBLIC, dtype=np.float32)
                encode_bid(row, n, s, view.dealer, before)
                brows.append(row)
                bwho.append(pos[s])
                bmade.append(bid)
                m = np.full(NBIDS, -np.inf, dtype=np.float32)
                m[list(legal_bids(before, s, view.dealer))] = 0.0
                bmask.append(m)
        self.n_bids = len(brows)
        if brows:
            self.b_rows = np.stack(brows)
            self.b_pre = self.b_rows @ model.b_pub + model.b_b1
            self.b_who = np.array(bwho)
            self.b_made = np.array(bmade)
            self.b_mask = np.stack(bmask)
            self.b_shown = np.stack([self.shown[i] for i in bwho]) @ model.b_hand

    def __bool__(self) -> bool:
        return bool(self.n_plays or self.n_bids)

    def log_likelihood(self, deals: Sequence[Deal]) -> np.ndarray:
        """The log-probability of the seen bids and plays under each deal's hands."""
        return np.asarray(self.seat_log_likelihood(deals).sum(axis=1))

    def seat_log_likelihood(self, deals: Sequence[Deal]) -> np.ndarray:
        """Per deal and hidden seat: the log-probability of that seat's bid and plays
        given its hand in the deal. A seat's choices depend on its own hand only, so a
        deal's likelihood is the product over its seats (what :class:`SeatMix` uses)."""
        m = self.model
        nd = len(deals)
        hands = np.zeros((nd, len(self.seats), NCARDS), dtype=np.float32)
        for d, deal in enumerate(deals):
            for i, hand in enumerate(deal):
                hands[d, i, [INDEX[c] for c in hand]] = 1
        total = np.zeros((nd, len(self.seats)), dtype=np.float64)
        floor = self.floor
        if self.n_bids:
            emb = hands[:, self.b_who] @ m.b_hand  # (deals, bids, h1)
            h = _relu(emb + self.b_pre + self.b_shown)
            h = _relu(h @ m.b_w2 + m.b_b2)
            logits = h @ m.b_out + m.b_outb + self.b_mask
            p = _softmax_pick(logits, self.b_made)
            legal = np.isfinite(self.b_mask).sum(axis=1)
            np.add.at(total.T, self.b_who, np.log((1 - floor) * p + floor / legal).T)
        if self.n_plays:
            emb = hands @ m.p_hand  # each hidden hand's embedding, once: (deals, seats, h1)
            h = _relu(emb[:, self.p_who] + self.p_pre)  # (deals, plays, h1)
            h = _relu(h @ m.p_w2 + m.p_b2)
            logits = h @ m.p_card + m.p_cardb
            held = hands[:, self.p_who].astype(bool) | self.p_known  # the hand then
            follows = held & self.p_follow
            legal = np.where(follows.any(axis=2, keepdims=True), follows, held)
            logits = np.where(legal, logits, -np.inf)
            p = _softmax_pick(logits, self.p_card)
            lp = np.log((1 - floor) * p + floor / legal.sum(axis=2))
            if self.p_lead.any():
                lead = self.p_lead
                cl = h[:, lead] @ m.p_call + m.p_callb + self.p_callmask[lead]
                pc = _softmax_pick(cl, self.p_call[lead])
                lp[:, lead] += np.log((1 - floor) * pc + floor / 4)
            np.add.at(total.T, self.p_who, lp.T)
        return total


def _softmax_pick(logits: np.ndarray, pick: np.ndarray) -> np.ndarray:
    """Softmax over the last axis, at index ``pick[j]`` for each column j of axis 1."""
    top = logits.max(axis=-1, keepdims=True)
    e = np.exp(logits - top)
    chosen = np.take_along_axis(e, pick[None, :, None].repeat(len(e), 0), axis=-1)[..., 0]
    return np.asarray(chosen / e.sum(axis=-1), dtype=np.float64)


class SeatMix:
    """Draws deals whose hidden hands follow the posterior under ``evidence``, seat by
    seat.

    A pool of ``batch`` deals comes from ``draw`` (the void-aware sampler). A seat's
    bids and plays depend only on its own hand, so the posterior weighs each seat's hand
    by its own likelihood: a draw takes, for every hidden seat independently, one of
    the pool's hands for that seat with odds its likelihood (raised to ``power``), and
    keeps the combination when no card is in two hands (any such mix is consistent:
    each hand keeps its seat's voids; the rest is set aside). Resampling whole deals
    instead (sampling-importance-resampling) leaves a handful of distinct deals, as the
    weights are sharp: the search then prunes its options on a few repeated worlds and
    measured worse than no inference (study/README.md). Mixing hands multiplies the
    distinct deals by seat; the pool grows by a batch once the draws reach ``grow``
    times its size.
    """

    def __init__(self, draw: Callable[[], Deal], evidence: Evidence, rng: random.Random,
                 batch: int = 48, power: float = 1.0, grow: int = 4) -> None:
        self.draw = draw
        self.evidence = evidence
        self.rng = rng
        self.batch = batch
        self.power = power
        self.grow = grow
        self.hands: list[list[tuple[Any, ...]]] = [[] for _ in evidence.seats]
        self.masks: list[list[int]] = [[] for _ in evidence.seats]
        self.logw = np.zeros((0, len(evidence.seats)))
        self.cum: list[list[float]] = []
        self.draws = 0

    def _grow(self) -> None:
        new = [self.draw() for _ in range(self.batch)]
        lw = self.evidence.seat_log_likelihood(new) * self.power
        self.logw = np.concatenate([self.logw, lw])
        self.cum = []
        for i in range(len(self.hands)):
            for deal in new:
                hand = deal[i]
                self.hands[i].append(hand)
                mask = 0
                for c in hand:
                    mask |= 1 << INDEX[c]
                self.masks[i].append(mask)
            w = np.exp(self.logw[:, i] - self.logw[:, i].max())
            self.cum.append(np.cumsum(w).tolist())

    def _pick(self, i: int) -> int:
        cum = self.cum[i]
        r = self.rng.random() * cum[-1]
        lo, hi = 0, len(cum) - 1
        while lo < hi:
            mid = (lo + hi) // 2
            if cum[mid] > r:
                hi = mid
            else:
                lo = mid + 1
        return lo

    def __call__(self) -> Deal:
        if self.draws >= self.grow * len(self.logw):
            self._grow()
        self.draws += 1
        m = len(self.hands)
        for _ in range(50):
            used = 0
            picks = []
            for i in range(m):
                k = self._pick(i)
                if self.masks[i][k] & used:
                    break
                used |= self.masks[i][k]
                picks.append(k)
            else:
                return tuple(self.hands[i][k] for i, k in enumerate(picks))
        # the hands keep clashing (few cards unseen): a whole deal of the pool, by weight
        total = self.logw.sum(axis=1)
        w = np.exp(total - total.max())
        k = int(np.searchsorted(np.cumsum(w), self.rng.random() * w.sum(), side="right"))
        k = min(k, len(w) - 1)
        return tuple(self.hands[i][k] for i in range(m))


# --------------------------------------------------------------------------- card location
# Solinas, Rebstock, Sturtevant and Buro (2019): a network over one seat's view gives,
# for every card it has not seen, the odds that each other seat holds it (or nobody: set
# aside). Deals are drawn from those odds under the voids and hand sizes, card by card,
# so a decision costs one evaluation of the network and no weighting of a pool.

NHOLD = MAX_PLAYERS  # holder 0: set aside; holder i: the i-th seat after the viewer
_L_HAND = 0  # the viewer's hand (81)
_L_PLAYED = _L_HAND + NCARDS  # every card played this round (81)
_L_SEATS = _L_PLAYED + NCARDS  # per later seat: played 81, voids 12, bid 10, taken 9, size 9
_L_SEAT = NCARDS + NCALLS + 10 + 9 + 9
_L_PLAYERS = _L_SEATS + (MAX_PLAYERS - 1) * _L_SEAT  # players, 2..10 (9)
_L_MODE = _L_PLAYERS + 9  # win, lose, bid (3)
LOCATE_INPUT = _L_MODE + 3


def encode_locate(out: np.ndarray, n: int, seat: int, mode: str, hand: int,
                  shown: Sequence[int], voids: Sequence[int],
                  bids: Sequence[int | None], taken: Sequence[int],
                  sizes: Sequence[int]) -> None:
    """Write the location network's input for ``seat`` into ``out`` (zeros).

    ``hand`` is the viewer's hand and ``shown[s]`` the cards seat s played this round
    (bitmasks), ``voids[s]`` its void call bits, ``bids`` (None: no bid, or not Play to
    Bid), ``taken`` its tricks and ``sizes`` the cards in its hand. The training script
    (from its simulator) and :func:`locate_input` (from a view) share it.
    """
    out[_L_HAND:_L_HAND + NCARDS] = mask_bits(hand)
    played = 0
    for m in shown:
        played |= m
    out[_L_PLAYED:_L_PLAYED + NCARDS] = mask_bits(played)
    for i in range(1, min(n, MAX_PLAYERS)):
        s = (seat + i) % n
        base = _L_SEATS + (i - 1) * _L_SEAT
        if shown[s]:
            out[base:base + NCARDS] = mask_bits(shown[s])
        v = voids[s]
        for k in range(NCALLS):
            if v >> k & 1:
                out[base + NCARDS + k] = 1
        b = bids[s]
        out[base + NCARDS + NCALLS + (0 if b is None else min(b, 8) + 1)] = 1
        out[base + NCARDS + NCALLS + 10 + min(taken[s], 8)] = 1
        out[base + NCARDS + NCALLS + 19 + min(sizes[s], 8)] = 1
    out[_L_PLAYERS + min(n, MAX_PLAYERS) - 2] = 1
    out[_L_MODE + MODES.index(mode)] = 1


def locate_input(view: SeatView) -> np.ndarray:
    """The location network's input row for the seat of ``view``."""
    n = view.config.players
    shown = [0] * n
    voids = [0] * n
    tricks = [(t.call, t.plays) for t in view.tricks]
    if view.trick:
        tricks.append((view.call, view.trick))
    for tcall, plays in tricks:
        k = CALL_INDEX[tcall]
        for i, (s, card) in enumerate(plays):
            shown[s] |= 1 << INDEX[card]
            if i and not card.shows(tcall):
                voids[s] |= 1 << k
    hand = 0
    for card in view.hand:
        hand |= 1 << INDEX[card]
    bids = view.bids if view.config.mode == "bid" else (None,) * n
    out = np.zeros(LOCATE_INPUT, dtype=np.float32)
    encode_locate(out, n, view.seat, view.config.mode, hand, shown, voids, bids,
                  view.taken, view.hand_sizes)
    return out


class LocateModel:
    """The location network's weights (``inference-locate.npz``)."""

    def __init__(self, arrays: dict[str, np.ndarray]) -> None:
        self.meta: dict[str, Any] = json.loads(str(arrays["meta"]))
        f = {k: v.astype(np.float32) for k, v in arrays.items() if k != "meta"}
        self.w1, self.b1 = f["l_w1"], f["l_b1"]
        self.w2, self.b2 = f["l_w2"], f["l_b2"]
        self.w3, self.b3 = f["l_w3"], f["l_b3"]

    def logits(self, x: np.ndarray) -> np.ndarray:
        """Per card, the holders' logits: (81, holders) for one input row."""
        h = _relu(x @ self.w1 + self.b1)
        h = _relu(h @ self.w2 + self.b2)
        return np.asarray((h @ self.w3 + self.b3).reshape(NCARDS, NHOLD))


LOCATE_WEIGHTS = "inference-locate.npz"


def load_locate(path: str | None = None) -> LocateModel:
    """The shipped location model (read once), or the one at ``path``."""
    if path is not None:
        return LocateModel(_arrays(path, LOCATE_WEIGHTS))
    model = _LOADED.get(LOCATE_WEIGHTS)
    if not isinstance(model, LocateModel):
        model = _LOADED[LOCATE_WEIGHTS] = LocateModel(_arrays(None, LOCATE_WEIGHTS))
    return model


class Locator:
    """Draws deals of ``hidden`` (the viewer's :class:`.sampler.Hidden`) card by card
    from the location network's odds, ``power`` tempering them (0: as good as uniform).

    The cards some seat may not hold (voids) go first, then the rest, each in a fixed
    order; a card goes to a holder with room that may hold it with odds
    p(card, holder) · room / (the odds mass still to come for that holder), which keeps
    each hand's expected fill at its size. The free cards may go anywhere, so only a
    void-bound card can find every holder full: then the draw starts again, and after
    ``tries`` such dead ends a uniform deal (``fallback``) is taken. :meth:`log_prob` is
    the probability of a given deal under one pass (no restarts): a lower bound.
    """

    def __init__(self, view: SeatView, hidden: Any, model: LocateModel,
                 rng: random.Random, power: float = 1.0,
                 fallback: Callable[[], Deal] | None = None, tries: int = 20) -> None:
        self.hidden = hidden
        self.rng = rng
        self.fallback = fallback
        self.tries = tries
        n = view.config.players
        m = len(hidden.seats)
        rel = [(s - view.seat) % n for s in hidden.seats]  # 1..n-1: the network's holders
        logits = model.logits(locate_input(view)[None, :]) * power
        cards = list(hidden.cards)
        self.cards = cards
        # holder j: 0..m-1 the hidden seats, m set aside
        allowed = [[j for j in range(m) if hidden.allows(j, c)] + [m] for c in cards]
        cols = [*rel, 0]
        probs = []
        for c, ok in zip(cards, allowed, strict=True):
            row = logits[INDEX[c], [cols[j] for j in ok]]
            e = np.exp(row - row.max())
            probs.append((e / e.sum()).tolist())
        order = sorted(range(len(cards)), key=lambda i: (len(allowed[i]) == m + 1,
                                                         len(allowed[i]), i))
        self.order = order
        self.allowed = allowed
        self.probs = probs
        self.room0 = [*hidden.sizes, hidden.aside]
        mass = [0.0] * (m + 1)
        for ok, p in zip(allowed, probs, strict=True):
            for j, q in zip(ok, p, strict=True):
                mass[j] += q
        self.mass0 = mass

    def _pass(self, rng: random.Random | None, target: Deal | None
              ) -> tuple[Deal | None, float]:
        """One card-by-card pass: a drawn deal (``rng``) or the log-probability of
        ``target``'s holders; None for a dead end."""
        m = len(self.room0) - 1
        room = list(self.room0)
        mass = list(self.mass0)
        hands: list[list[Card]] = [[] for _ in range(m)]
        where: dict[Card, int] = {}
        if target is not None:
            for j, hand in enumerate(target):
                for c in hand:
                    where[c] = j
        logp = 0.0
        for i in self.order:
            card = self.cards[i]
            ok, p = self.allowed[i], self.probs[i]
            w = [q * room[j] / mass[j] if room[j] and mass[j] > 1e-12 else
                 (1e-12 if room[j] else 0.0) for j, q in zip(ok, p, strict=True)]
            total = sum(w)
            for j, q in zip(ok, p, strict=True):
                mass[j] -= q
            if total <= 0:
                return None, -math.inf
            if target is not None:
                j = where.get(card, m)
                if j not in ok:
                    return None, -math.inf
                x = w[ok.index(j)]
                if x <= 0:
                    return None, -math.inf
                logp += math.log(x / total)
            else:
                assert rng is not None
                r = rng.random() * total
                k = 0
                while k < len(w) - 1 and r >= w[k]:
                    r -= w[k]
                    k += 1
                j = ok[k]
            room[j] -= 1
            if j < m:
                hands[j].append(card)
        return tuple(tuple(h) for h in hands), logp

    def __call__(self) -> Deal:
        for _ in range(self.tries):
            deal, _ = self._pass(self.rng, None)
            if deal is not None:
                return deal
        if self.fallback is None:
            raise ValueError("could not draw a consistent deal")
        return self.fallback()

    def log_prob(self, deal: Deal) -> float:
        """log of the odds one pass draws ``deal`` (-inf when it cannot)."""
        return self._pass(None, deal)[1]
