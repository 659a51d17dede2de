"""The cheater (core/bots/cheater.py) sees every hand: study only, never a seat option."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from xactika.core import Config, legal_actions, new_game, step, view
from xactika.core.bots import agents
from xactika.core.bots.agents import agent_names, make_agent
from xactika.core.bots.cheater import CheaterAgent, OracleSearch, play_with_cheaters
from xactika.core.bots.heuristic import HeuristicAgent
from xactika.core.bots.search import INDEX
from xactika.core.engine.errors import XactikaError
from xactika.frontends.match.tournament import MatchError, parse_bot
from xactika.frontends.repl.shell import parse_seat_spec
from xactika.frontends.stdio import bot

THOROUGH = os.environ.get("HYPOTHESIS_PROFILE") == "thorough"


def test_no_registered_name_builds_the_cheater() -> None:
    registering = Path(agents.__file__).parent / "games"  # the modules that register bots
    assert not any("cheater" in p.read_text() for p in registering.glob("*.py"))
    names = agent_names()
    assert not any("cheat" in name for name in names)
    for name in names:
        for game in ("xactika", "dix", None):
            assert not isinstance(make_agent(name, 1, game=game), CheaterAgent)
    with pytest.raises(ValueError, match="unknown bot 'cheater'"):
        make_agent("cheater", 1)


def test_no_front_end_offers_the_cheater(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(XactikaError, match="bad seat"):
        parse_seat_spec("bot:cheater", agent_names())  # xactika play --seat N=bot:cheater
    with pytest.raises(MatchError):
        parse_bot(["cheater"], [], agent_names())  # xactika match --bot cheater
    assert bot.main(["cheater"]) == 2  # xactika bot cheater
    assert "unknown bot 'cheater'" in capsys.readouterr().err


@pytest.mark.parametrize("mode", ["bid", "win", "lose"])
def test_the_cheater_never_does_worse_than_the_heuristic_in_its_seat(mode: str) -> None:
    """Against three heuristic seats its model is exact and the heuristic's plan is among
    those it searches, so in every seat it scores at least what the heuristic scores."""
    sign = -1 if mode == "lose" else 1
    better = 0
    for deal in range(4 if THOROUGH else 1):
        for seat in range(4):
            config = Config(mode=mode, players=4, rounds=1, seed=500 + deal, dealer=deal % 4)
            cheat, _ = play_with_cheaters(
                config, [CheaterAgent() if s == seat else HeuristicAgent() for s in range(4)])
            fair, _ = play_with_cheaters(config, [HeuristicAgent() for _ in range(4)])
            assert sign * cheat.totals[seat] >= sign * fair.totals[seat]
            better += sign * cheat.totals[seat] > sign * fair.totals[seat]
    assert better > 0


def test_the_oracle_search_is_no_seat_and_sees_the_true_deal() -> None:
    """OracleSearch (the strong bot's search handed the true deal) is study only, like
    the cheater, and searches that one deal exactly where it is told to."""
    for name in agent_names():
        for game in ("xactika", "dix", None):
            assert not isinstance(make_agent(name, 1, game=game), OracleSearch)
    with pytest.raises(ValueError, match="at="):
        OracleSearch(1, at="sometimes")
    state = new_game(Config(mode="bid", players=4, seed=4, rounds=1))
    agents = {at: OracleSearch(1, at=at, max_deals=6, min_deals=6)
              for at in ("both", "play", "bid")}
    seen = {at: {"bid": set(), "play": set()} for at in agents}
    heuristic = HeuristicAgent()
    while (legal := legal_actions(state)).seat is not None:
        kind = "bid" if legal.kind == "bid" else "play"
        for at, agent in agents.items():
            agent.last_deals = -1  # a forced move searches nothing and leaves it so
            agent.decide(state, legal)
            if agent.last_deals < 0:
                continue
            seen[at][kind].add(agent.last_deals)
            if agent.last_deals == 1:
                v = view(state, legal.seat or 0)
                dealt = agent._deals(v, legal.seat or 0)()
                assert dealt == [sorted(INDEX[c] for c in h) for h in state.hands]
        state, _ = step(state, heuristic.choose(view(state, legal.seat or 0), legal))
    assert seen["both"] == {"bid": {1}, "play": {1}}
    assert seen["play"]["play"] == {1} and 6 in seen["play"]["bid"]
    assert seen["bid"]["bid"] == {1} and 6 in seen["bid"]["play"]
