"""The own-move planner (core/bots/plan.py), shared by the cheater and the strong bot's
planning variant: in a known deal it never scores below the heuristic's own play for the
seat, it finds better when there is better, and the planning bot sees only its view."""

from __future__ import annotations

import pytest

from tests.test_search import _random_position, _sim_inputs
from xactika.core import DECK, Config, PresetDeal, RandomAgent, legal_actions, new_game, view
from xactika.core.bots.agents import self_play
from xactika.core.bots.plan import Planner, PlanningAgent, Round
from xactika.core.bots.search import _MODES, CALL_INDEX, playout, score


@pytest.mark.parametrize("mode", ["win", "lose", "bid"])
def test_the_planned_value_is_never_below_the_heuristics_play(mode: str) -> None:
    better = 0
    for seed in range(12):
        state = _random_position(seed * 5 + 1, mode, 4)
        hands, played, voids = _sim_inputs(state)
        me = state.to_act or 0
        call = CALL_INDEX[state.call] if state.trick else -1
        best, winner = -1, me
        for s, card in state.trick:
            if card.shows(state.call) and card.value >= best:
                best, winner = card.value, s
        bids = [b or 0 for b in state.bids] if mode == "bid" else [0] * 4
        m = _MODES[mode]
        fair = playout([list(h) for h in hands], me, call, best, winner, len(state.trick),
                       list(state.taken), bids, m, played, list(voids))
        r = Round([list(h) for h in hands], me, call, best, winner, len(state.trick),
                  list(state.taken), played, list(voids))
        planned = Planner(exact=8).value(r, me, bids, m, 0)
        heuristic = score(m, bids[me], fair[me])
        assert planned >= heuristic
        better += planned > heuristic
    assert better > 0  # the search finds something the heuristic misses


@pytest.mark.parametrize("mode", ["win", "lose", "bid"])
def test_the_planning_bot_plays_legal_games(mode: str) -> None:
    config = Config(mode=mode, players=4, seed=7, rounds=1)
    agents = [PlanningAgent(s, think_ms=1e9, max_deals=2, bid=1) if s % 2 == 0
              else RandomAgent(s) for s in range(4)]
    state, _ = self_play(config, agents)
    assert state.over


def test_the_planning_bot_decides_from_its_view_only() -> None:
    mine = DECK[40:48]
    rest = [c for c in DECK if c not in mine]
    a = (tuple(rest[0:8]), mine, tuple(rest[8:16]), tuple(rest[16:24]))
    b = (tuple(rest[30:38]), mine, tuple(rest[50:58]), tuple(rest[60:68]))
    picks = []
    for deal in (a, b):
        state = new_game(Config(mode="bid", rounds=1, deals=(PresetDeal(deal),)))
        agent = PlanningAgent(5, think_ms=1e9, max_deals=6, bid=1)
        picks.append(agent.choose(view(state, 1), legal_actions(state)))
    assert picks[0] == picks[1]
