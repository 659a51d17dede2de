"""xactika.core.accel (JAX, the ``accel`` extra) against the core, on JAX's CPU backend:
the checks tests/test_accel.py runs, each in a process of their own that JAX is loaded
in (JAX is multithreaded, and the rest of the suite forks: its match workers, its
terminals). Each raises AssertionError where the accelerated game is not the core's.

Each jitted program is compiled once per mode here (one batch shape, players an argument),
so the whole file stays within seconds of compile time.
"""

from __future__ import annotations

import contextlib
import io
import os

os.environ.setdefault("JAX_PLATFORMS", "cpu")

from collections.abc import Callable, Iterator
from typing import Any
from unittest import mock

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from readme_blocks import readme_block

from xactika.core.accel import (
    Env,
    available_envs,
    core_orders,
    make,
    random_action,
    rules,
    simulate,
    simulate_device,
)
from xactika.core.accel import play as accel_play
from xactika.core.batch import simulate as numpy_simulate
from xactika.core.batch.xactika import BatchResult
from xactika.core.engine.api import (
    Command,
    Config,
    Event,
    RoundScored,
    legal_actions,
    new_game,
    replay,
    start,
    step,
)
from xactika.core.engine.check import command_of
from xactika.core.engine.encoding import Encoding
from xactika.core.engine.errors import ConfigError, IllegalCommand

MODES = ("win", "lose", "bid")
PLAYERS = range(2, 11)
GAMES = 75  # a batch: 3 modes x 9 table sizes x 75 = 2,025 games
ROUNDS = 2


def commands(events: list[Event]) -> Iterator[Command]:
    """The choices in a log: its bids, leads (with their calls) and plays."""
    return (c for c in map(command_of, events) if c is not None)


def core_events(config: Config, choices: Iterator[Command]) -> list[Event]:
    """The core's own game under ``config`` with these choices (IllegalCommand if one is
    not legal there)."""
    events = start(config)
    state = replay(events)
    for command in choices:
        state, new = step(state, command)
        events.extend(new)
    return events


def disagreements(result: BatchResult) -> list[str]:
    """The games whose accelerated events are not the core's with the same choices."""
    bad = []
    for g in range(result.games):
        ours = result.events(g)
        try:
            theirs = core_events(result.config(g), commands(ours))
        except IllegalCommand as e:
            bad.append(f"game {g}: the core refuses a move: {e}")
            continue
        if theirs != ours:
            at = next((i for i, (a, b) in enumerate(zip(ours, theirs, strict=False)) if a != b),
                      min(len(ours), len(theirs)))
            bad.append(f"game {g}: event {at + 1} differs")
    return bad


# --------------------------------------------------------------------------- the fast path


def check_2025_whole_games_agree_with_the_core_move_for_move() -> None:
    played = 0
    for m, mode in enumerate(MODES):
        for players in PLAYERS:
            seeds = range(1000 * (10 * m + players), 1000 * (10 * m + players) + GAMES)
            result = simulate(seeds, mode=mode, players=players, rounds=ROUNDS, record=True,
                              key=players)
            assert disagreements(result) == [], (mode, players)
            assert result.taken.sum() == GAMES * ROUNDS * 8
            played += result.games
    assert played >= 2000


def check_eight_round_games_with_another_first_dealer_agree_with_the_core() -> None:
    result = simulate(range(40), mode="bid", players=5, rounds=8, dealer=3, record=True)
    assert disagreements(result) == []
    assert result.bids is not None and (result.bids >= 0).all()


def check_games_dealt_on_the_device_replay_in_the_core_from_preset_deals() -> None:
    result = simulate_device(jax.random.key(9), GAMES, mode="lose", players=6, rounds=ROUNDS,
                             record=True)
    assert disagreements(result) == []
    assert result.config(0).seed is None and len(result.config(0).deals) == ROUNDS
    decks = {tuple(result.orders[g, 0]) for g in range(GAMES)}  # not one deal over and over
    assert len(decks) == GAMES


def check_the_greedy_policy_plays_as_the_numpy_simulator_does() -> None:
    for mode, players in (("bid", 4), ("bid", 9), ("lose", 3)):
        seeds = range(500, 500 + GAMES)
        ours = simulate(seeds, mode=mode, players=players, rounds=ROUNDS, policy="greedy")
        theirs = numpy_simulate(seeds, mode=mode, players=players, rounds=ROUNDS,
                                policy="greedy")
        assert (ours.points == theirs.points).all() and (ours.taken == theirs.taken).all()
        if mode == "bid":
            assert ours.bids is not None and theirs.bids is not None
            assert (ours.bids == theirs.bids).all()


def check_a_policy_function_is_played_and_its_illegal_answers_refused() -> None:
    def first_legal(key: Any, d: accel_play.Decision) -> Any:
        return jnp.argmax(d.legal_action_mask)

    result = simulate(range(GAMES), mode="bid", players=4, rounds=ROUNDS, policy=first_legal,
                      record=True)
    assert disagreements(result) == []
    with pytest.raises(ValueError, match="illegal moves in game 0"):
        simulate(range(GAMES), mode="bid", players=4, rounds=ROUNDS,
                 policy=lambda key, d: jnp.int32(0))  # always bid 0, then "bid 0" again


@contextlib.contextmanager
def fresh_programs() -> Iterator[None]:
    """Programs traced anew (a planted rule must reach them), and again afterwards."""
    for cache in (accel_play._compiled, accel_play._compiled_device):
        cache.cache_clear()
    try:
        yield
    finally:
        for cache in (accel_play._compiled, accel_play._compiled_device):
            cache.cache_clear()


def check_a_planted_rule_change_is_caught() -> None:
    """Ties to the earlier card instead of the later: the differential check must fail."""

    def earlier_wins(card: Any, call: Any, best: Any) -> Any:
        return rules.SHOWS_J[call, card] & (rules.VALUES_J[card] > best)

    with fresh_programs(), mock.patch.object(rules, "beats", earlier_wins):
        result = simulate(range(GAMES), mode="win", players=4, rounds=ROUNDS, record=True)
    assert len(disagreements(result)) > GAMES // 2


# --------------------------------------------------------------------------- the environment

ENV_CASES = (("bid", 4, 0), ("win", 2, 0), ("lose", 10, 0), ("bid", 7, 5))  # the last: dealer 5
ENV_GAMES = 50  # 4 x 50 = 200 games, every decision checked


def _run(env: Env) -> Callable[..., Any]:
    """A whole game per deck set as a ``lax.scan`` of ``step`` with random legal moves:
    the moves, masks, rewards and terminal flags of every step."""
    decisions = env.rounds * env.players * (8 + (1 if env.actions.bidding else 0))

    def one(state: Any, key: Any) -> tuple[Any, Any]:
        action = random_action(key, state.legal_action_mask)
        after = env.step(state, action)
        return after, (action, state.legal_action_mask, after.rewards, after.terminated)

    def run(orders: Any, keys: Any) -> Any:
        states = jax.vmap(env.init_with_orders)(orders)
        steps = jax.vmap(lambda k: jax.random.split(k, decisions))(keys).swapaxes(0, 1)
        return jax.lax.scan(jax.vmap(one), states, steps)

    return jax.jit(run)


def environment_disagreements(mode: str, players: int, games: int, dealer: int = 0
                              ) -> tuple[int, list[str]]:
    """Drive the core with the environment's random legal moves (the core's deals): at
    every decision the mask must be the core's legal ids, the rewards its points and the
    end its end. The games checked, and what differed."""
    env = Env(mode, players, rounds=ROUNDS, dealer=dealer)
    seeds = list(range(7000, 7000 + games))
    keys = jax.random.split(jax.random.key(players), games)
    final, (actions, masks, rewards, done) = jax.tree_util.tree_map(
        np.asarray, _run(env)(core_orders(seeds, ROUNDS), keys))
    enc = Encoding(Config(mode=mode, players=players, rounds=ROUNDS, seed=0))
    bad: list[str] = []
    for g, seed in enumerate(seeds):
        state = new_game(Config(mode=mode, players=players, rounds=ROUNDS, dealer=dealer,
                                seed=seed))
        totals = np.zeros(players)
        for t in range(len(actions)):
            legal = legal_actions(state)
            if np.flatnonzero(masks[t, g]).tolist() != enc.legal(legal):
                bad.append(f"{mode} {players}: game {g}, decision {t}: the mask differs")
                break
            state, events = step(state, enc.command(int(actions[t, g]), legal))
            scored = [e for e in events if isinstance(e, RoundScored)]
            got = np.array(scored[0].points) if scored else np.zeros(players)
            totals += got
            if (rewards[t, g] != rules.reward_sign(mode) * got).any() \
                    or bool(done[t, g]) != (t == len(actions) - 1):
                bad.append(f"{mode} {players}: game {g}, decision {t}: rewards or the end")
                break
        else:
            if legal_actions(state).seat is not None or (final.totals[g] != totals).any():
                bad.append(f"{mode} {players}: game {g}: the totals or the end differ")
    return games, bad


def check_the_environment_masks_every_decision_as_the_core_does() -> None:
    checked = 0
    for mode, players, dealer in ENV_CASES:
        games, bad = environment_disagreements(mode, players, ENV_GAMES, dealer)
        assert bad == []
        checked += games
    assert checked >= 200


def check_a_planted_follow_rule_is_caught_by_the_mask_check() -> None:
    """Any card may follow (no must-follow): the environment's check must fail."""
    with mock.patch.object(rules, "follow_mask", lambda mine, call: mine):
        _, bad = environment_disagreements("win", 3, 10)
    assert len(bad) >= 5


def check_an_illegal_move_ends_the_game_and_a_finished_game_stays_put() -> None:
    env = Env("bid", 3, rounds=1)
    state = jax.jit(env.init)(jax.random.key(0))
    seat = int(state.current_player)
    step_ = jax.jit(env.step)
    fouled = step_(state, jnp.int32(env.num_actions - 1))  # a lead, during the bidding
    assert bool(fouled.terminated) and not fouled.legal_action_mask.any()
    assert fouled.rewards.tolist() == [-1.0 if s == seat else 0.0 for s in range(3)]
    again = step_(fouled, jnp.int32(0))
    assert not again.rewards.any() and bool(again.terminated)
    assert (again.totals == fouled.totals).all()


def check_a_seats_observation_never_depends_on_hidden_cards() -> None:
    """Shuffle every card hidden from a seat (others' hands, the set-aside cards, the later
    deals) among their places: the seat's observation must not change; another seat's
    does (so the comparison can fail)."""
    env = Env("bid", 4, rounds=2)
    observe = jax.jit(env.observe)
    step_ = jax.jit(lambda s, k: env.step(s, random_action(k, s.legal_action_mask)))
    rng = np.random.default_rng(5)
    state = jax.jit(env.init)(jax.random.key(3))
    keys = jax.random.split(jax.random.key(4), 2 * 4 * 9 - 1)
    changed = 0
    for t in range(len(keys)):
        state = step_(state, keys[t])
        if t % 5:
            continue
        owner = np.asarray(state.owner)
        played = np.asarray(state.played)
        for seat in range(4):
            hidden = np.flatnonzero((owner != seat) & ~played)
            moved = owner.copy()
            moved[hidden] = rng.permutation(owner[hidden])
            other = state._replace(owner=jnp.asarray(moved),
                                   orders=jnp.asarray(rng.permuted(np.asarray(state.orders),
                                                                   axis=1)))
            assert (observe(other, seat) == observe(state, seat)).all(), (t, seat)
            victim = (seat + 1) % 4
            changed += int((observe(other, victim) != observe(state, victim)).any())
    assert changed > 0


def check_the_readme_example_runs() -> None:
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(readme_block("JAX"), {})
    out = printed.getvalue().splitlines()
    assert out[0] == "True (8, 4)"
    totals = out[1][out[1].index("[") + 1 : out[1].index("]")].split()
    assert f"totals=({', '.join(totals)})" in out[1]  # the batch's totals, the core's event


def check_a_mask_joined_from_blocks_is_the_mask_gathered_by_move_id(mode: str) -> None:
    """The bridges' layout lets a mask be three blocks joined; gathering every id's
    card (any layout) must give the same mask."""
    joined = rules.Actions(mode)
    gathered = rules.Actions(mode)
    assert joined.blocks
    gathered.blocks = False
    rng = np.random.default_rng(1)
    for bidding, leading in ((True, False), (False, True), (False, False)):
        bids, follow, mine = (jnp.asarray(rng.random(size) < 0.5) for size in (9, 81, 81))
        args = (jnp.bool_(bidding), jnp.bool_(leading), bids, follow, mine)
        assert (joined.mask(*args) == gathered.mask(*args)).all()
        assert joined.mask(*args).any() == (mode == "bid" or not bidding)


def check_environments_are_named_and_made_as_pgx_names_them() -> None:
    """Issue 41: ``make("xactika/bid-4p")``-like constructors with ``env.id`` and
    ``version``; every listed id makes the environment it names."""
    ids = available_envs()
    assert len(ids) == 3 * 9 and "xactika/bid-4p" in ids and "xactika/lose-10p" in ids
    for env_id in ids:
        env = make(env_id)
        assert env.id == env_id and env.version == "v0"
        mode, players = env_id.removeprefix("xactika/").removesuffix("p").split("-")
        assert (env.mode, env.players, env.rounds) == (mode, int(players), 8)
    short = make("xactika/win-3p-2r", dealer=2)
    assert (short.id, short.rounds, short.dealer) == ("xactika/win-3p-2r", 2, 2)
    assert Env("lose", 5, 8).id == "xactika/lose-5p"
    for bad in ("xactika/both-4p", "go_19x19", "xactika/bid-4"):
        with pytest.raises(ValueError, match=r"^unknown environment .*e\.g\. xactika/bid-4p"):
            make(bad)
    with pytest.raises(ConfigError, match="2 to 10 players"):
        make("xactika/bid-11p")

