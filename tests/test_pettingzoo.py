"""The PettingZoo environment (frontends/bridges/pettingzoo.py): PettingZoo's own tests, the rules.

CI installs the ``[pettingzoo]`` extra, so these run there; ``importorskip`` only spares
a developer machine without it.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable

import attrs
import pytest
from readme_blocks import readme_block

pytest.importorskip("pettingzoo")
np = pytest.importorskip("numpy")

from pettingzoo.test import api_test, parallel_api_test, seed_test  # noqa: E402

from xactika.core import Config, legal_actions, new_game  # noqa: E402
from xactika.frontends.bridges.pettingzoo import (  # noqa: E402
    TrickTakingEnv,
    dix_env,
    dix_parallel_env,
    env,
    parallel_env,
    raw_env,
)

# api_test suggests Box or Discrete observations; an action mask needs a Dict, as in
# PettingZoo's own card games, which get the same two notes
pytestmark = [
    pytest.mark.filterwarnings("ignore:Observation space for each agent probably"),
    pytest.mark.filterwarnings("ignore:Observation is not a NumPy array"),
]


@pytest.mark.parametrize(
    "make",
    [lambda: env(players=4, mode="bid", rounds=2), lambda: env(players=3, mode="lose", rounds=1),
     lambda: dix_env(mode="draw"), lambda: dix_env(mode="nodraw")],
)
def test_pettingzoo_api_test_and_seed_test(make: Callable[[], TrickTakingEnv]) -> None:
    api_test(make(), num_cycles=300)
    seed_test(make, num_cycles=100)


def rollout(e: TrickTakingEnv, seed: int) -> tuple[list[str], dict[str, float]]:
    """The documentation's loop with a masked random policy; who acted, total rewards."""
    e.reset(seed=seed)
    e.action_space("player_0").seed(seed)
    order: list[str] = []
    totals: dict[str, float] = {}
    for agent in e.agent_iter():
        observation, reward, termination, truncation, _info = e.last()
        totals[agent] = totals.get(agent, 0.0) + reward
        if termination or truncation:
            action = None
        else:
            mask = observation["action_mask"]
            assert mask.dtype == np.int8 and mask.sum() >= 1
            action = e.action_space(agent).sample(mask)
            order.append(agent)
        e.step(action)
    return order, totals


def test_whole_games_reward_every_round_and_the_rewards_add_up_to_the_totals() -> None:
    e = env(players=4, mode="bid", rounds=3)
    order, totals = rollout(e, 5)
    assert len(order) == 3 * (4 + 8 * 4)  # bids and plays of every round
    core = e.core
    assert core is not None and core.over
    assert [totals[f"player_{s}"] for s in range(4)] == [float(t) for t in core.totals]
    assert e.agents == []


def test_lose_mode_rewards_are_negated_points() -> None:
    e = env(players=3, mode="lose", rounds=1)
    _order, totals = rollout(e, 8)
    assert e.core is not None
    assert [totals[f"player_{s}"] for s in range(3)] == [-float(t) for t in e.core.totals]


def test_the_agent_to_act_is_the_cores_and_only_its_mask_is_set() -> None:
    e = env(players=4, mode="bid", rounds=1)
    e.reset(seed=3)
    assert e.core == new_game(Config(mode="bid", players=4, rounds=1, seed=3))
    legal = legal_actions(e.core)
    assert e.agent_selection == f"player_{legal.seat}"
    for agent in e.possible_agents:
        mask = e.observe(agent)["action_mask"]
        if agent == e.agent_selection:
            assert sorted(np.flatnonzero(mask)) == e.encoding.legal(legal)
        else:
            assert not mask.any()


def test_an_illegal_action_is_one_clear_error_and_changes_nothing() -> None:
    e = env(players=4, mode="bid", rounds=1)
    e.reset(seed=3)
    before = e.core
    with pytest.raises(ValueError, match=r"player_1: action 400 \(lead .*\) is not legal now"):
        e.step(400)
    with pytest.raises(ValueError, match="out of range"):
        e.step(10_000)
    with pytest.raises(ValueError, match="action None is only for an agent that is done"):
        e.step(None)
    assert e.core is before and e.agent_selection == "player_1"


def test_ansi_render_shows_the_acting_seat_only() -> None:
    e = env(players=4, mode="bid", rounds=1, render_mode="ansi")
    e.reset(seed=3)
    text = e.render()
    assert text is not None and "as player_1" in text
    hands = e.core.hands
    assert all(str(c) in text for c in hands[1])
    assert not any(str(c) in text for s in (0, 2, 3) for c in hands[s])


def test_the_readme_rollout_runs() -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        namespace: dict = {}
        exec(compile(readme_block("PettingZoo"), "README.md", "exec"), namespace)
    e = namespace["env"]
    assert e.core.over and e.agents == []


@pytest.mark.parametrize(
    "make",
    [lambda: parallel_env(players=3, mode="win", rounds=2), lambda: dix_parallel_env("nodraw")],
)
def test_parallel_env_passes_pettingzoos_parallel_tests(make: Callable[[], object]) -> None:
    parallel_api_test(make(), num_cycles=300)  # its seed test samples unmasked: not for us


def test_parallel_env_plays_a_whole_game_like_the_aec_one() -> None:
    """Every agent sends an action; the acting seat's is played: the same game as the
    AEC environment's for the same choices."""
    par = parallel_env(players=3, mode="bid", rounds=1)
    observations, _ = par.reset(seed=9)
    aec = raw_env(players=3, mode="bid", rounds=1)
    aec.reset(seed=9)
    totals = dict.fromkeys(par.possible_agents, 0.0)
    while par.agents:
        acting = [a for a, o in observations.items() if o["action_mask"].any()]
        assert acting == [aec.agent_selection]
        action = int(np.flatnonzero(observations[acting[0]]["action_mask"])[-1])
        aec.step(action)
        observations, rewards, _, _, _ = par.step(dict.fromkeys(par.agents, action))
        for agent, reward in rewards.items():
            totals[agent] += reward
    assert isinstance(aec, TrickTakingEnv) and aec.core is not None and aec.core.over
    assert [totals[a] for a in par.possible_agents] == list(map(float, aec.core.totals))


def test_observations_hold_the_worst_dix_totals() -> None:
    """A Dix ten-trick is worth -3: a round of them stays inside the observation space."""
    for mode, tricks in (("draw", 26), ("nodraw", 17)):
        e = dix_env(mode=mode, rounds=2)
        e.reset(seed=1)
        assert e.core is not None
        e.core = attrs.evolve(e.core, totals=(-3 * tricks * 2, 0))
        assert e.observation_space("player_0").contains(e.observe("player_0"))


@pytest.mark.filterwarnings("default")
@pytest.mark.parametrize("make", [lambda: env(players=4, mode="bid", rounds=1,
                                              observation="flat"),
                                  lambda: dix_env(mode="nodraw", observation="flat")])
def test_flat_observations_are_one_numpy_array_and_api_test_has_no_note(
        make: Callable[[], TrickTakingEnv]) -> None:
    """Issue 34: api_test warned ``Observation is not a NumPy array``; RLCard and pgx users
    expect one flat array."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(make(), num_cycles=200)
    notes = [str(w.message) for w in caught if "Observation" in str(w.message)]
    assert notes == []
    e = make()
    e.reset(seed=3)
    actions = e.encoding.num_actions
    size = e.encoding.tensor_size
    for agent in e.agent_iter():
        observation, _reward, termination, truncation, info = e.last()
        assert isinstance(observation, np.ndarray) and observation.dtype == np.float32
        assert observation.shape == (size + actions,) == e.observation_space(agent).shape
        assert e.observation_space(agent).contains(observation)
        assert (observation[size:] == info["action_mask"]).all()
        if termination or truncation:
            e.step(None)
            continue
        legal = e.encoding.legal(legal_actions(e.core))
        assert sorted(np.flatnonzero(info["action_mask"])) == sorted(legal)
        e.step(int(e.action_space(agent).sample(info["action_mask"])))
    flat, dicts = make(), make()
    dicts.flat = False  # the same game with dict observations: the same view either way
    flat.reset(seed=5)
    dicts.reset(seed=5)
    for agent in flat.agents:
        assert (flat.observe(agent)[:size] == dicts.observe(agent)["observation"]).all()


def test_an_unknown_observation_kind_is_one_clear_error() -> None:
    with pytest.raises(ValueError, match="observation must be one of 'dict', 'flat', not 'x'"):
        env(observation="x")
