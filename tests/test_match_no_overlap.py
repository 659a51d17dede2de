"""With --concurrency above 1 two seatings of one deal never run at once (spec/MATCH.md):
a bot's process in one would otherwise pass the deal's hands to its process in the other."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from xactika.frontends.match.runner import _next_game
from xactika.frontends.match.tournament import GameSpec, schedule


@given(bots=st.integers(2, 4), seats=st.integers(2, 4), deals=st.integers(1, 6),
       concurrency=st.integers(2, 8), seed=st.integers(0, 2**32))
def test_no_two_seatings_of_a_deal_are_in_flight(bots: int, seats: int, deals: int,
                                                  concurrency: int, seed: int) -> None:
    rng = random.Random(seed)
    plan = schedule(bots, seats, deals)
    queue = list(plan)
    inflight: list[GameSpec] = []
    played: list[GameSpec] = []
    while queue or inflight:
        while len(inflight) < concurrency:
            nxt = _next_game(queue, inflight)
            if nxt is None:
                break
            assert nxt.deal not in {g.deal for g in inflight}
            inflight.append(nxt)
        assert inflight, "nothing runs while games are left"
        played.append(inflight.pop(rng.randrange(len(inflight))))  # any one may end first
    assert sorted(g.index for g in played) == [g.index for g in plan]


def test_the_next_game_of_another_deal_is_taken_in_schedule_order() -> None:
    plan = schedule(2, 2, 3)  # two seatings of each of three deals
    queue = list(plan)
    first = _next_game(queue, [])
    second = _next_game(queue, [first] if first else [])
    assert first is not None and second is not None
    assert (first.deal, second.deal) == (1, 2)
    assert _next_game(list(q for q in queue if q.deal in (1, 2)), [first, second]) is None
