"""The strong bot's private simulator: a round over card indices, bitmasks and lists.

Two paths with one behaviour. The pure-Python functions here (``policy_py``,
``playout_py``, ``solve_py``, ``move_value_py``, ``sample_py``) are the reference; the
compiled kernel (``_kernel.pyx``, built by ``pip install .`` when a C compiler is there)
runs the same loops 30 to 40 times faster. The names without ``_py`` are the kernel's
when it is built and ``XACTIKA_PURE`` is not ``1``, else the pure ones;
tests/test_kernel.py checks the two agree move for move. The rollouts are over ten times
faster than play through ``step`` even in pure Python (bench/bot_speed.py).
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Sequence
from types import ModuleType

from xactika.core.games.xactika import Card, bid_points
from xactika.core.games.xactika.tables import (
    ALL,
    CALLS_OF,
    CARDS,
    CMASK,
    GE,
    NCALLS,
    SHOW,
    VAL,
)

# --------------------------------------------------------------------------- tables
# The card index tables are the game's (core/games/xactika/tables.py, value order: min()
# and max() of a list of indices are the lowest and highest cards); these are the bot's.

HALF: tuple[int, ...] = tuple(2 if v >= 11 else 1 if v >= 9 else 0 for v in VAL)
"""A card's worth to the rule-of-thumb bid, in half tricks (:func:`fast_bid`)."""
HALF_OF: dict[Card, int] = {c: HALF[i] for i, c in enumerate(CARDS)}
HALF_BY_VALUE: tuple[int, ...] = tuple(2 if v >= 11 else 1 if v >= 9 else 0
                                       for v in range(max(VAL) + 1))
AKEY: tuple[int, ...] = tuple((k // 4 + 1) * 8 + 3 - k % 4 for k in range(NCALLS))
"""Orders a card's calls as the heuristic does to lose: by count, then by shape first."""
MODE_WIN, MODE_LOSE, MODE_BID = 0, 1, 2
_MODES = {"win": MODE_WIN, "lose": MODE_LOSE, "bid": MODE_BID}

# --------------------------------------------------------------------------- simulator


def policy_py(p: int, hand: list[int], hmask: int, played: int, voids: Sequence[int], n: int,
           count: int, call: int, best_v: int, want: bool) -> tuple[int, int]:
    """The heuristic bot's choice for seat ``p``, over indices: (card, call or -1).

    It sees what the seat would see: its hand, the cards played this round (``played``)
    and the public voids (``voids[s]``: bit k when seat s failed to follow call k). The
    tests check it against :class:`HeuristicAgent` move for move.
    """
    unseen = ALL & ~(hmask | played)
    if count == 0:
        av = 0xFFF
        for s in range(n):
            if s != p:
                av &= voids[s]
        bestkey = -1
        c = k_out = -1
        for x in hand:
            g = unseen & GE[x]
            if want:
                kb = 1 << 30
                for k in CALLS_OF[x]:
                    key = (g & CMASK[k]).bit_count() * 16 + k
                    if key < kb:
                        kb = key
                kk = kb & 15
                b = 0 if av >> kk & 1 else kb >> 4
                okey = (1 << 20) - (b * 32 + 12 - VAL[x])  # the smallest (b, -value) wins
            else:
                kb = -1
                kk = -1
                for k in CALLS_OF[x]:
                    key = (g & CMASK[k]).bit_count() * 64 + AKEY[k]
                    if key > kb:
                        kb, kk = key, k
                b = 0 if av >> kk & 1 else kb >> 6
                okey = b * 32 + 12 - VAL[x]  # the largest (b, -value) wins
            if okey > bestkey:
                bestkey, c, k_out = okey, x, kk
        return c, k_out
    bit = 1 << call
    follows = [x for x in hand if SHOW[x] & bit]
    if not follows:
        bestkey = -1 if want else 1 << 30
        c = -1
        for x in hand:
            g = unseen & GE[x]
            st = min((g & CMASK[k]).bit_count() for k in CALLS_OF[x])
            key = st * 32 + 12 - VAL[x]
            if (key > bestkey) if want else (key < bestkey):
                bestkey, c = key, x
        return c, -1
    last = count == n - 1
    if want:
        winners = [x for x in follows if VAL[x] >= best_v]
        if not winners:
            return follows[0], -1
        allvoid = True
        for i in range(1, n - count):
            if not voids[(p + i) % n] >> call & 1:
                allvoid = False
                break
        if last or allvoid:
            return winners[0], -1
        cm = CMASK[call] & unseen
        for x in winners:
            if not (cm & GE[x]):
                return x, -1
        return (winners[0] if last else winners[-1]), -1
    losers = [x for x in follows if VAL[x] < best_v]
    if losers:
        return losers[-1], -1
    if last:
        return follows[-1], -1
    return follows[0], -1


def playout_py(hands: list[list[int]], to_act: int, call: int, best_v: int, winner: int,
            count: int, taken: list[int], bids: Sequence[int], mode: int,
            played: int, voids: list[int],
            log: list[tuple[int, int, int]] | None = None) -> list[int]:
    """Play the round to its end with every seat on :func:`policy_py`; returns ``taken``.

    ``count`` cards are in the current trick (0: ``to_act`` leads), whose best showing
    card has value ``best_v`` and belongs to ``winner``; ``played`` holds every card
    played this round. ``hands``, ``taken`` and ``voids`` are mutated. When ``log`` is
    given, every play is appended as (seat, card, call or -1).
    """
    n = len(hands)
    masks = [0] * n
    for q in range(n):
        m = 0
        for x in hands[q]:
            m |= 1 << x
        masks[q] = m
    while True:
        hand = hands[to_act]
        if count == 0 and not hand:
            return taken
        want = mode == MODE_WIN or (mode == MODE_BID and taken[to_act] < bids[to_act])
        c, k = policy_py(to_act, hand, masks[to_act], played, voids, n, count, call, best_v,
                      want)
        if count == 0:
            call = k
            best_v = VAL[c]
            winner = to_act
        elif SHOW[c] >> call & 1:
            if VAL[c] >= best_v:
                best_v = VAL[c]
                winner = to_act
        else:
            voids[to_act] |= 1 << call
        if log is not None:
            log.append((to_act, c, k))
        hand.remove(c)
        masks[to_act] ^= 1 << c
        played |= 1 << c
        count += 1
        if count == n:
            taken[winner] += 1
            to_act = winner
            count = 0
        else:
            to_act = (to_act + 1) % n


def score(mode: int, bid: int, taken: int) -> int:
    """Points for the seat, higher better in every mode (Play to Lose counts down)."""
    if mode == MODE_WIN:
        return taken
    if mode == MODE_LOSE:
        return -taken
    return bid_points(bid, taken)



def _ceiling(mode: int, bid: int, taken: int, left: int) -> int:
    """The most a seat with ``taken`` tricks can still score with ``left`` to play."""
    if mode == MODE_WIN:
        return taken + left
    if mode == MODE_LOSE:
        return -taken
    if bid < taken:
        return bid - taken
    if bid <= taken + left:
        return bid
    return taken + left - bid


def solve_py(hands: list[list[int]], to_act: int, call: int, best_v: int, winner: int,
             count: int, taken: Sequence[int], bids: Sequence[int], mode: int
             ) -> tuple[list[int], int]:
    """The round solved exactly from here: every line of play searched, each seat
    maximising its own points with every hand in view (max^n), ties to the first move in
    card order (a lead's calls in :data:`CALLS_OF` order). Returns the tricks each seat
    ends with and the positions searched. The arguments are :func:`playout_py`'s (none
    is mutated); voids do not matter when every hand is known.

    A move that reaches the most the seat can still score ends its search (no later one
    can beat it), and a lead's calls that the same cards of the other hands show are
    searched once: both leave the result as the full search's.
    """
    n = len(hands)
    masks = [sum(1 << x for x in h) for h in hands]
    tk = list(taken)
    left = (sum(map(len, hands)) + count + n - 1) // n
    nodes = 0

    def rec(p: int, call: int, best_v: int, winner: int, count: int, left: int
            ) -> list[int]:
        nonlocal nodes
        nodes += 1
        hand = masks[p]
        if count == 0 and not hand:
            return list(tk)
        top = _ceiling(mode, bids[p], tk[p], left)
        best: list[int] = []
        bestv = -(1 << 30)
        others = 0
        if count == 0:
            for q in range(n):
                if q != p:
                    others |= masks[q]
            cand = hand
        else:
            cand = hand & CMASK[call] or hand
        while cand and bestv < top:
            low = cand & -cand
            cand ^= low
            x = low.bit_length() - 1
            masks[p] = hand ^ low
            if count == 0:
                seen: list[int] = []
                for k in CALLS_OF[x]:
                    shown = CMASK[k] & others
                    if shown in seen:
                        continue
                    seen.append(shown)
                    res = rec((p + 1) % n, k, VAL[x], p, 1, left)
                    v = score(mode, bids[p], res[p])
                    if v > bestv:
                        bestv, best = v, res
                        if v >= top:
                            break
            else:
                nb, nw = best_v, winner
                if SHOW[x] >> call & 1 and VAL[x] >= best_v:
                    nb, nw = VAL[x], p
                if count + 1 == n:
                    tk[nw] += 1
                    res = rec(nw, -1, -1, nw, 0, left - 1)
                    tk[nw] -= 1
                else:
                    res = rec((p + 1) % n, call, nb, nw, count + 1, left)
                v = score(mode, bids[p], res[p])
                if v > bestv:
                    bestv, best = v, res
            masks[p] = hand
        return best

    return rec(to_act, call, best_v, winner, count, left), nodes


def move_value_py(hands: list[list[int]], seat: int, c: int, k: int, taken: Sequence[int],
                  voids: Sequence[int], count: int, call: int, best_v: int, winner: int,
                  played: int, bids: Sequence[int], mode: int, exact: bool) -> int:
    """``seat``'s points in one deal when it plays card ``c`` (calling ``k`` if it leads)
    into the trick so far (``count`` cards, its call, best value and winner) and the round
    is then played out on the heuristic's policy (:func:`playout_py`) or, ``exact``,
    solved (:func:`solve_py`). Nothing passed in is mutated: one call is one rollout of
    the search.
    """
    n = len(hands)
    hs = [list(h) for h in hands]
    hs[seat].remove(c)
    tk = list(taken)
    vo = list(voids)
    if count == 0:
        call, best_v, winner = k, VAL[c], seat
    elif not SHOW[c] >> call & 1:
        vo[seat] |= 1 << call
    elif VAL[c] >= best_v:
        best_v, winner = VAL[c], seat
    played |= 1 << c
    count += 1
    if count == n:
        tk[winner] += 1
        to_act, call, best_v, count = winner, -1, -1, 0
    else:
        to_act = (seat + 1) % n
    if exact:
        tk = solve_py(hs, to_act, call, best_v, winner, count, tk, bids, mode)[0]
    else:
        playout_py(hs, to_act, call, best_v, winner, count, tk, bids, mode, played, vo)
    return score(mode, bids[seat], tk[seat])


def sample_py(rng: random.Random, population: list[Card], k: int) -> list[Card]:
    """``rng.sample``: the deal sampler's draw, which the kernel makes the same, faster."""
    return rng.sample(population, k)


# --------------------------------------------------------------------------- dispatch


def _load_kernel() -> ModuleType | None:
    """The compiled kernel with the tables set, or None: not built, or XACTIKA_PURE=1."""
    if os.environ.get("XACTIKA_PURE") == "1":
        return None
    try:
        from xactika.core.bots import _kernel

        _kernel.init(VAL, SHOW, CALLS_OF, CMASK, GE, AKEY)
    except (ImportError, RuntimeError):  # not built; built for another CPU
        return None
    return _kernel


KERNEL = _load_kernel()
"""The compiled kernel in use, or None (the pure-Python path)."""

Policy = Callable[[int, list[int], int, int, Sequence[int], int, int, int, int, bool],
                  tuple[int, int]]
Playout = Callable[..., list[int]]
Solve = Callable[[list[list[int]], int, int, int, int, int, Sequence[int], Sequence[int], int],
                 tuple[list[int], int]]
policy: Policy = KERNEL.policy if KERNEL is not None else policy_py
playout: Playout = KERNEL.playout if KERNEL is not None else playout_py
solve: Solve = KERNEL.solve if KERNEL is not None else solve_py
MoveValue = Callable[[list[list[int]], int, int, int, Sequence[int], Sequence[int], int, int,
                      int, int, int, Sequence[int], int, bool], int]
move_value: MoveValue = KERNEL.move_value if KERNEL is not None else move_value_py
sample: Callable[[random.Random, list[Card], int], list[Card]] = (
    KERNEL.sample if KERNEL is not None else sample_py)

