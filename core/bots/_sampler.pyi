"""Types of the compiled deal sampler (_sampler.pyx); the pure twin in sampler.py."""

from collections.abc import Sequence

EXACT: int
TOO_MUCH_WORK: int
BEYOND: int

class Plan:
    status: int
    def __init__(self, types: list[list[int]], masks: Sequence[int], sizes: Sequence[int],
                 full: int, seed: int, max_work: int) -> None: ...
    def count(self) -> int: ...
    def draw(self) -> list[list[int]]: ...

class Fit:
    def __init__(self, plan: Plan, score: Sequence[int],
                 checks: Sequence[tuple[int, int, Sequence[float]]], tries: int) -> None: ...
    def __call__(self) -> list[list[int]]: ...
