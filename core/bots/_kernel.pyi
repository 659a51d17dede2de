"""Types of the compiled search kernel (_kernel.pyx); the pure twins in simulator.py."""

import random
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

def init(val: Sequence[int], show: Sequence[int], calls_of: Sequence[Sequence[int]],
         cmask: Sequence[int], ge: Sequence[int], akey: Sequence[int]) -> None: ...
def policy(p: int, hand: list[int], hmask: int, played: int, voids: Sequence[int], n: int,
           count: int, call: int, best_v: int, want: bool) -> tuple[int, int]: ...
def playout(hands: list[list[int]], to_act: int, call: int, best_v: int, winner: int,
            count: int, taken: list[int], bids: Sequence[int], mode: int, played: int,
            voids: list[int], log: list[tuple[int, int, int]] | None = None) -> list[int]: ...
def solve(hands: list[list[int]], to_act: int, call: int, best_v: int, winner: int,
          count: int, taken: Sequence[int], bids: Sequence[int], mode: int
          ) -> tuple[list[int], int]: ...
def move_value(hands: list[list[int]], seat: int, c: int, k: int, taken: Sequence[int],
               voids: Sequence[int], count: int, call: int, best_v: int, winner: int,
               played: int, bids: Sequence[int], mode: int, exact: bool) -> int: ...
def sample(rng: random.Random, population: list[T], k: int) -> list[T]: ...
