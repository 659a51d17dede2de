"""The compiled search kernel (core/bots/_kernel.pyx) against its pure-Python twins in
core/bots/simulator.py: the same plays, tricks and values on random positions, the same
exact endgames, and the strong bot the same moves on either path."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from xactika.core import Config
from xactika.core.bots import simulator
from xactika.core.bots.agents import self_play
from xactika.core.bots.search import StrongAgent
from xactika.core.bots.simulator import (
    CALLS_OF,
    CMASK,
    SHOW,
    VAL,
    move_value_py,
    playout_py,
    policy_py,
    solve_py,
)


def kernel() -> ModuleType:
    """The kernel, which every install with a C compiler builds (setup.py)."""
    from xactika.core.bots import _kernel

    _kernel.init(VAL, SHOW, CALLS_OF, CMASK, simulator.GE, simulator.AKEY)
    return _kernel


@dataclass
class Position:
    hands: list[list[int]]
    to_act: int
    call: int
    best_v: int
    winner: int
    count: int
    taken: list[int]
    bids: list[int]
    mode: int
    played: int
    voids: list[int]

    def args(self) -> tuple[Any, ...]:
        return ([list(h) for h in self.hands], self.to_act, self.call, self.best_v,
                self.winner, self.count, list(self.taken), list(self.bids), self.mode,
                self.played, list(self.voids))


def position(seed: int, players: int, mode: int, plays: int, size: int = 8) -> Position:
    """A deal of ``size`` cards a hand, ``plays`` random legal plays into the round."""
    rng = random.Random(seed)
    cards = list(range(81))
    rng.shuffle(cards)
    hands = [sorted(cards[size * i:size * i + size]) for i in range(players)]
    bids = [rng.randrange(size + 1) for _ in range(players)]
    to_act = rng.randrange(players)
    call = best = -1
    winner = to_act
    count = 0
    taken = [0] * players
    played = 0
    voids = [0] * players
    for _ in range(min(plays, size * players - 1)):
        hand = hands[to_act]
        follow = [x for x in hand if count and SHOW[x] >> call & 1]
        c = rng.choice(follow or hand)
        if count == 0:
            call, best, winner = rng.choice(CALLS_OF[c]), VAL[c], to_act
        elif SHOW[c] >> call & 1:
            if VAL[c] >= best:
                best, winner = VAL[c], to_act
        else:
            voids[to_act] |= 1 << call
        hand.remove(c)
        played |= 1 << c
        count += 1
        if count == players:
            taken[winner] += 1
            to_act, count, call, best = winner, 0, -1, -1
        else:
            to_act = (to_act + 1) % players
    return Position(hands, to_act, call, best, winner, count, taken, bids, mode, played,
                    voids)


SEEDS = st.integers(0, 2**32)
PLAYERS = st.integers(2, 10)
MODES = st.integers(0, 2)


def _same_playout(pos: Position) -> None:
    results = []
    for run in (playout_py, kernel().playout):
        args = pos.args()
        log: list[tuple[int, int, int]] = []
        taken = run(*args, log)
        results.append((taken, args[0], args[10], log))
    assert results[0] == results[1]
    assert results[0][3]  # a round in progress has a play left


@given(SEEDS, PLAYERS, MODES, st.integers(0, 79))
def test_playouts_agree(seed: int, players: int, mode: int, plays: int) -> None:
    """Every play, trick, void and what is left of the hands, on random positions."""
    _same_playout(position(seed, players, mode, plays))


def test_playouts_agree_on_many_positions() -> None:
    """The same over 2,000 fixed random positions, every seat count and mode."""
    for seed in range(2_000):
        _same_playout(position(seed, 2 + seed % 9, seed % 3, seed * 7 % 80))


@given(SEEDS, PLAYERS, MODES, st.integers(0, 79), st.booleans())
def test_policies_agree(seed: int, players: int, mode: int, plays: int, want: bool) -> None:
    pos = position(seed, players, mode, plays)
    p = pos.to_act
    hand = pos.hands[p]
    mask = sum(1 << x for x in hand)
    args = (p, hand, mask, pos.played, pos.voids, players, pos.count, pos.call, pos.best_v,
            want)
    assert kernel().policy(*args) == policy_py(*args)


@given(SEEDS, st.integers(2, 5), MODES, st.integers(1, 3), st.integers(0, 4))
def test_exact_endgames_agree(seed: int, players: int, mode: int, size: int,
                              plays: int) -> None:
    """The solved tricks of each seat; the search is full (a line that loses points for
    a seat it could have avoided is never the answer at its own move)."""
    pos = position(seed, players, mode, plays, size)
    args = pos.args()[:9]
    got, nodes = kernel().solve(*args)
    want, nodes_py = solve_py(*args)
    assert got == want and nodes == nodes_py
    assert sum(got) == size


@given(SEEDS, st.integers(2, 7), MODES, st.integers(0, 40), st.booleans())
def test_move_values_agree(seed: int, players: int, mode: int, plays: int,
                           exact: bool) -> None:
    """One rollout (or solved endgame) of the search: the value of each legal move."""
    pos = position(seed, players, mode, plays, 3 if exact else 8)
    p = pos.to_act
    hand = pos.hands[p]
    follow = [x for x in hand if pos.count and SHOW[x] >> pos.call & 1] or hand
    for c in follow:
        for k in CALLS_OF[c] if pos.count == 0 else (-1,):
            args = ([list(h) for h in pos.hands], p, c, k, pos.taken, pos.voids, pos.count,
                    pos.call, pos.best_v, pos.winner, pos.played, pos.bids, pos.mode, exact)
            before = [list(h) for h in pos.hands]
            assert kernel().move_value(*args) == move_value_py(*args)
            assert args[0] == before  # nothing handed in is changed


def _naive(hands: list[list[int]], p: int, call: int, best: int, win: int, count: int,
           taken: list[int], bids: list[int], mode: int) -> list[int]:
    """max^n with neither the cut-offs nor the merged calls of solve_py."""
    n = len(hands)
    if count == 0 and not hands[p]:
        return list(taken)
    if count == 0:
        moves = [(c, k) for c in hands[p] for k in CALLS_OF[c]]
    else:
        moves = [(c, -1) for c in hands[p] if SHOW[c] >> call & 1] or [
            (c, -1) for c in hands[p]]
    out: list[int] = []
    for c, k in moves:
        rest = [list(h) for h in hands]
        rest[p].remove(c)
        if count == 0:
            res = _naive(rest, (p + 1) % n, k, VAL[c], p, 1, taken, bids, mode)
        else:
            b, w = (VAL[c], p) if SHOW[c] >> call & 1 and VAL[c] >= best else (best, win)
            if count + 1 == n:
                t = list(taken)
                t[w] += 1
                res = _naive(rest, w, -1, -1, w, 0, t, bids, mode)
            else:
                res = _naive(rest, (p + 1) % n, call, b, w, count + 1, taken, bids, mode)
        if not out or simulator.score(mode, bids[p], res[p]) > simulator.score(
                mode, bids[p], out[p]):
            out = res
    return out


@given(SEEDS, st.integers(2, 4), MODES, st.integers(1, 2), st.integers(0, 3))
def test_the_solver_is_the_full_search(seed: int, players: int, mode: int, size: int,
                                       plays: int) -> None:
    """Its cut-offs (a move reaching the seat's ceiling) and merged calls (those the same
    other cards show) change nothing: the plain search over every line agrees."""
    pos = position(seed, players, mode, plays, size)
    args = pos.args()[:9]
    assert solve_py(*args)[0] == _naive(*args)


def _moves(kernel_on: int, endgame: int, mode: str) -> list[str]:
    agents = [StrongAgent(s, think_ms=1e9, max_deals=6, kernel=kernel_on, endgame=endgame)
              for s in range(4)]
    _, events = self_play(Config(mode=mode, rounds=1, seed=11), agents)
    return [repr(e) for e in events]


def test_strong_bot_plays_the_same_on_either_path() -> None:
    """The same seed and number of deals: every bid and play the same, in all modes."""
    assert simulator.KERNEL is not None  # the kernel is built and XACTIKA_PURE unset
    for mode in ("bid", "win", "lose"):
        assert _moves(1, 0, mode) == _moves(0, 0, mode)
    assert _moves(1, 3, "bid") == _moves(0, 3, "bid")


_GAMES = """
from xactika.core import Config
from xactika.core.bots.agents import self_play
from xactika.core.bots.search import StrongAgent
for mode in ("bid", "win", "lose"):
    agents = [StrongAgent(s, think_ms=1e9, max_deals=6) for s in range(4)]
    print([repr(e) for e in self_play(Config(mode=mode, rounds=1, seed=11), agents)[1]])
"""


def test_strong_bot_plays_the_same_on_the_pure_path() -> None:
    """XACTIKA_PURE=1 (pure rollouts and the pure deal sampler) against this process
    (the compiled kernel and sampler): the same seed and deals give every bid and play
    the same; the deals come from the sampler's own stream on either path."""
    from xactika.core.bots import sampler

    assert simulator.KERNEL is not None and sampler.NATIVE is not None
    out = {}
    for pure in ("1", "0"):
        env = {**os.environ, "XACTIKA_PURE": pure}
        out[pure] = subprocess.run([sys.executable, "-c", _GAMES], env=env, check=True,
                                   capture_output=True, text=True).stdout
    assert out["1"] == out["0"]
    assert out["0"].count("Played(") > 60 and out["0"].count("BidMade(") == 4


def test_xactika_pure_selects_the_python_path() -> None:
    """XACTIKA_PURE=1 runs the pure-Python simulator even with the kernel built."""
    code = ("from xactika.core.bots import sampler, simulator as s; "
            "print(s.KERNEL is None, s.playout is s.playout_py, s.solve is s.solve_py, "
            "sampler.NATIVE is None)")
    out = {}
    for pure in ("1", "0"):
        env = {**os.environ, "XACTIKA_PURE": pure}
        out[pure] = subprocess.run([sys.executable, "-c", code], env=env, check=True,
                                   capture_output=True, text=True).stdout.split()
    assert out == {"1": ["True"] * 4, "0": ["False"] * 4}


@given(SEEDS, st.integers(0, 90), st.data())
def test_deal_draws_agree(seed: int, n: int, data: st.DataObject) -> None:
    """The kernel's sample is rng.sample: the same cards and the same generator after."""
    k = data.draw(st.integers(0, n))
    population = [f"card {i}" for i in range(n)]
    a, b = random.Random(seed), random.Random(seed)
    assert kernel().sample(b, population, k) == a.sample(population, k)
    assert a.getstate() == b.getstate()


def test_bad_indices_are_errors_not_stray_reads() -> None:
    """The C loops index arrays by seat and call: out of range is a ValueError."""
    k = kernel()
    hands = [[0, 1], [2, 3]]
    bad = [
        lambda: k.playout([list(h) for h in hands], 2, -1, -1, 0, 0, [0, 0], [0, 0], 0, 0,
                          [0, 0]),
        lambda: k.playout([list(h) for h in hands], 0, -1, -1, 0, 1, [0, 0], [0, 0], 0, 0,
                          [0, 0]),
        lambda: k.solve([list(h) for h in hands], 0, 12, 5, 0, 1, [0, 0], [0, 0], 0),
        lambda: k.move_value([list(h) for h in hands], 0, 2, -1, [0, 0], [0, 0], 0, -1, -1,
                             0, 0, [0, 0], 0, False),  # seat 0 does not hold card 2
        lambda: k.policy(3, [0, 1], 3, 0, [0, 0], 2, 0, -1, -1, True),
        lambda: k.playout([[0, 99], [2, 3]], 0, -1, -1, 0, 0, [0, 0], [0, 0], 0, 0, [0, 0]),
    ]
    for call in bad:
        with pytest.raises(ValueError):
            call()
