"""Oh Hell's bots (core/bots/ohhellbot.py): the sampler respects what a seat saw, the
heuristic beats random play, and the search beats the heuristic."""

from __future__ import annotations

import random

from xactika.core import Config, RandomAgent, legal_actions, new_game, step, view
from xactika.core.bots.agents import agent_factory, make_agent, redeal, self_play
from xactika.core.bots.ohhellbot import (
    OhHellHeuristicAgent,
    OhHellSearchAgent,
    unseen,
    voids,
)


def _midround(seed: int, players: int) -> tuple:
    """A state part-way through a round of random play, with some voids shown."""
    rng = random.Random(seed)
    state = new_game(Config(game="ohhell", players=players, rounds=1, seed=seed,
                            options={"top": 51 // players, "hands": "fixed"}))
    agents = [RandomAgent(seed * 10 + s) for s in range(players)]
    for _ in range(players + rng.randrange(players * 6)):
        legal = legal_actions(state)
        state, _ = step(state, agents[legal.seat].choose(None, legal))
    return state


def test_redeal_keeps_what_the_seat_saw_and_its_voids() -> None:
    checked = voided = 0
    for seed in range(40):
        players = 3 + seed % 5
        state = _midround(seed, players)
        seat = seed % players
        seen = view(state, seat)
        shown = voids(seen)
        voided += sum(map(len, shown.values()))
        for k in range(10):
            hands, rest = redeal(state, seat, random.Random(k))
            assert hands[seat] == state.hands[seat]
            assert [len(h) for h in hands] == [len(h) for h in state.hands]
            others = [c for s, h in enumerate(hands) if s != seat for c in h]
            assert sorted(map(str, [*others, *rest])) == sorted(map(str, unseen(seen)))
            for s, hand in enumerate(hands):
                assert not any(c.suit in shown[s] for c in hand), (seed, s)
            checked += 1
    assert checked == 400 and voided > 20  # the voids were really there to respect


def test_heuristic_and_strong_are_oh_hells_own() -> None:
    assert agent_factory("heuristic", "ohhell") is OhHellHeuristicAgent
    assert agent_factory("strong", "ohhell") is OhHellSearchAgent


def _average(a: str, b: str, games: int, deals: int | None = None) -> tuple[float, float]:
    """Seats alternate between ``a`` and ``b``, swapped every game: each one's mean total.
    ``deals`` fixes the search's deals per move (no clock: the same moves on any machine)."""
    totals = [0.0, 0.0]
    for g in range(games):
        seats = []
        for s in range(4):
            agent = make_agent(a if (s + g) % 2 == 0 else b, seed=g * 10 + s, game="ohhell")
            if deals is not None and isinstance(agent, OhHellSearchAgent):
                agent.think_ms, agent.max_deals = 1e9, deals
            seats.append(agent)
        state, _ = self_play(Config(game="ohhell", rounds=8, seed=100 + g), seats)
        for s in range(4):
            totals[(s + g) % 2] += state.totals[s]
    return totals[0] / (2 * games), totals[1] / (2 * games)


def test_the_heuristic_beats_random_play() -> None:
    mine, theirs = _average("heuristic", "random", 20)
    assert mine > theirs + 10


def test_the_search_beats_the_heuristic() -> None:
    mine, theirs = _average("strong", "heuristic", 6, deals=8)
    assert mine > theirs + 3
