"""Train a small Xactika policy with REINFORCE on the JAX environment, in plain JAX.

Seat 0 learns (a two-layer network from the observation to the legal moves' logits); the
other seats play uniformly random legal moves. Each update plays a batch of whole games
as one ``lax.scan`` of ``vmap(env.step)``, then takes a policy-gradient step on seat 0's
moves, its advantage the game's return less a baseline (the batch's mean return), with
Adam written out below. Before and every few updates it prints seat 0's mean score over
a fixed set of evaluation games (the policy's most likely legal move) beside a random
seat 0's on the same deals.

    pip install '.[accel]'
    python examples/accel_reinforce.py            # Play to Win, 4 players, 1 round: ~1 min

On a CPU this runs in a minute or two; it needs nothing but JAX.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import jax
import jax.numpy as jnp

from xactika.core.accel import Env, random_action

Params = dict[str, jax.Array]


def init_params(key: jax.Array, inputs: int, hidden: int, outputs: int) -> Params:
    k1, k2 = jax.random.split(key)
    return {"w1": jax.random.normal(k1, (inputs, hidden)) / jnp.sqrt(inputs),
            "b1": jnp.zeros(hidden),
            "w2": jax.random.normal(k2, (hidden, outputs)) * 0.01,
            "b2": jnp.zeros(outputs)}


def logits(params: Params, obs: jax.Array, mask: jax.Array) -> jax.Array:
    h = jax.nn.relu(obs @ params["w1"] + params["b1"])
    return jnp.where(mask, h @ params["w2"] + params["b2"], -1e9)


def make(env: Env, games: int, learner: int = 0) -> tuple[Any, Any]:
    """The jitted rollout (sampling or greedy) and the jitted update."""
    steps = env.rounds * env.players * (9 if env.actions.bidding else 8)

    def rollout(params: Params, key: jax.Array, greedy: bool, learner_random: bool) -> Any:
        deal, play = jax.random.split(key)
        state = jax.vmap(env.init)(jax.random.split(deal, games))

        def one(state: Any, key: jax.Array) -> tuple[Any, Any]:
            k_pol, k_rand = jax.random.split(key)
            mine = state.current_player == learner
            lg = jax.vmap(logits, (None, 0, 0))(params, state.observation,
                                                 state.legal_action_mask)
            sampled = jnp.argmax(lg, axis=1) if greedy else jax.random.categorical(k_pol, lg)
            rand = jax.vmap(random_action)(jax.random.split(k_rand, games),
                                           state.legal_action_mask)
            use = mine & ~learner_random
            action = jnp.where(use, sampled, rand)
            after = jax.vmap(env.step)(state, action)
            return after, (state.observation, state.legal_action_mask, action, use,
                           after.rewards[:, learner])

        _, (obs, masks, actions, mine, rewards) = jax.lax.scan(
            one, state, jax.random.split(play, steps))
        return obs, masks, actions, mine, rewards.sum(axis=0)

    def loss(params: Params, obs: Any, masks: Any, actions: Any, mine: Any,
             advantage: Any) -> jax.Array:
        lg = jax.vmap(jax.vmap(logits, (None, 0, 0)), (None, 0, 0))(params, obs, masks)
        logp = jax.nn.log_softmax(lg)
        chosen = jnp.take_along_axis(logp, actions[..., None], axis=-1)[..., 0]
        return -(chosen * mine * advantage[None, :]).sum() / mine.sum()

    def update(params: Params, opt: Any, key: jax.Array, lr: float) -> Any:
        obs, masks, actions, mine, returns = rollout(params, key, False, False)
        advantage = returns - returns.mean()  # the baseline: the batch's mean return
        advantage = advantage / (returns.std() + 1e-6)
        grads = jax.grad(loss)(params, obs, masks, actions, mine, advantage)
        params, opt = adam(params, grads, opt, lr)
        return params, opt, returns.mean()

    def evaluate(params: Params, key: jax.Array) -> Any:
        return (rollout(params, key, True, False)[-1].mean(),
                rollout(params, key, True, True)[-1].mean())

    return jax.jit(update, static_argnums=3), jax.jit(evaluate)


def adam(params: Params, grads: Params, opt: Any, lr: float, b1: float = 0.9,
         b2: float = 0.999, eps: float = 1e-8) -> Any:
    m, v, t = opt
    t = t + 1
    m = jax.tree_util.tree_map(lambda m, g: b1 * m + (1 - b1) * g, m, grads)
    v = jax.tree_util.tree_map(lambda v, g: b2 * v + (1 - b2) * g * g, v, grads)
    step = lr * jnp.sqrt(1 - b2**t) / (1 - b1**t)
    params = jax.tree_util.tree_map(lambda p, m, v: p - step * m / (jnp.sqrt(v) + eps),
                                    params, m, v)
    return params, (m, v, t)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mode", default="win")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--games", type=int, default=512, help="games an update")
    parser.add_argument("--updates", type=int, default=150)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    env = Env(args.mode, args.players, args.rounds)
    update, evaluate = make(env, args.games)
    key = jax.random.key(args.seed)
    key, init = jax.random.split(key)
    params = init_params(init, env.observation_size, 128, env.num_actions)
    zeros = jax.tree_util.tree_map(jnp.zeros_like, params)
    opt = (zeros, zeros, 0)
    eval_key = jax.random.key(10_000 + args.seed)  # the same evaluation deals every time
    sign = -1 if args.mode == "lose" else 1  # rewards are negated in Play to Lose
    t0 = time.perf_counter()
    print(f"{args.mode}, {args.players} players, {args.rounds} round(s); seat 0 learns, "
          f"the others play randomly; mean score of seat 0 over {args.games} evaluation "
          f"games, backend {jax.default_backend()}")
    for i in range(args.updates + 1):
        if i % 25 == 0:
            ours, rand = (float(sign * x) for x in evaluate(params, eval_key))
            print(f"update {i:4d}  policy {ours:6.3f}  random seat 0 {rand:6.3f}  "
                  f"({time.perf_counter() - t0:5.1f} s)", flush=True)
        if i < args.updates:
            key, sub = jax.random.split(key)
            params, opt, _ = update(params, opt, sub, args.lr)


if __name__ == "__main__":
    main()
