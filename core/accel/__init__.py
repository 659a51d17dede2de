"""Xactika on an accelerator, in JAX (the ``accel`` extra): a functional environment, a
whole-game fast path and deals. The rest of the core never imports this package.

- :class:`Env` (``init``/``step``/``observe``, pgx style): one decision a step;
  :func:`make` (``make("xactika/bid-4p")``) and :func:`available_envs` name them as pgx
  does, each with its ``id`` and ``version``.
- :func:`simulate`, :func:`simulate_device`, :func:`play_orders`, :func:`play_device`:
  whole games at once.
- :func:`core_orders` (the core's seeded deals, on the host) and :func:`device_orders`
  (a fast dealer on the device, not the core's deals).

Move ids are the OpenSpiel and PettingZoo bridges' (:mod:`xactika.core.engine.encoding`).
"""

from xactika.core.accel.deals import core_orders, device_orders
from xactika.core.accel.env import Env, State, available_envs, make
from xactika.core.accel.play import (
    Decision,
    PresetResult,
    greedy,
    play_device,
    play_orders,
    simulate,
    simulate_device,
)
from xactika.core.accel.rules import random_action

__all__ = ["Decision", "Env", "PresetResult", "State", "available_envs", "core_orders",
           "device_orders", "greedy", "make", "play_device", "play_orders", "random_action",
           "simulate", "simulate_device"]
