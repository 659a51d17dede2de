"""The learned inference (core/bots/infer.py): the shipped weights load, the bot using
them plays legally everywhere, and they make the true hidden hands likelier than the
uniform sampler does (which random weights do not)."""

from __future__ import annotations

import math
import random
import subprocess
import sys
from typing import Any

import numpy as np
import pytest

from xactika.core import Config, legal_actions, new_game, step, view
from xactika.core.bots.agents import self_play
from xactika.core.bots.heuristic import HeuristicAgent, knowledge
from xactika.core.bots.infer import (
    LOCATE_INPUT,
    NHOLD,
    Evidence,
    LocateModel,
    Locator,
    Model,
    SeatMix,
    encode_locate,
    load,
    load_locate,
    locate_input,
)
from xactika.core.bots.sampler import DealSampler, Hidden, hidden_of
from xactika.core.bots.search import CALL_INDEX, INDEX, StrongAgent
from xactika.core.engine.api import State
from xactika.core.engine.views import SeatView


def test_shipped_weights_load_with_their_header() -> None:
    model = load()
    meta = model.meta
    assert len(meta["commit"]) == 40 and meta["plays"] > 100_000 and meta["bids"] > 10_000
    assert model.p_hand.shape == (81, model.p_pub.shape[1])
    assert model.p_card.shape[1] == 81 and model.b_out.shape[1] == 9


@pytest.mark.parametrize("mode", ["bid", "win", "lose"])
@pytest.mark.parametrize("players", [2, 3, 4, 5, 10])
def test_bot_with_inference_plays_legally(mode: str, players: int) -> None:
    # self_play aborts on any illegal move; a few deals a decision keeps it quick
    agents = [StrongAgent(s, max_deals=3, min_deals=1, infer=1.0) if s == 0
              else StrongAgent(s, max_deals=3, min_deals=1, locate=1.0) if s == 1
              else HeuristicAgent(s) for s in range(players)]
    state, _ = self_play(Config(mode=mode, players=players, rounds=1, seed=players), agents)
    assert state.phase == "over" and len(state.totals) == players


def _positions(count: int) -> list[tuple[State, int]]:
    """Mid-round decisions of heuristic games (seeds unlike the training data's)."""
    out = []
    for seed in range(count):
        rng = random.Random(seed)
        mode = ("bid", "win", "lose")[seed % 3]
        state = new_game(Config(mode=mode, players=4, rounds=1, seed=777_000 + seed,
                                dealer=seed % 4))
        agent = HeuristicAgent(seed)
        for _ in range(rng.randrange(12, 30)):
            legal = legal_actions(state)
            state, _ = step(state, agent.choose(view(state, legal.seat or 0), legal))
        seat = legal_actions(state).seat
        assert seat is not None
        out.append((state, seat))
    return out


def _mean_gain(model: Model, positions: list[tuple[State, int]]) -> float:
    """Mean of log L(truth) - log mean L(uniform deals): > 0 when the truth is favoured."""
    rng = random.Random(5)
    gains = []
    for state, seat in positions:
        v = view(state, seat)
        hidden = hidden_of(v)
        ev = Evidence(v, hidden.seats, model)
        truth = tuple(tuple(state.hands[s]) for s in hidden.seats)
        sampler = DealSampler(hidden, rng)
        ll = ev.log_likelihood([truth, *(sampler.sample() for _ in range(200))])
        rest = ll[1:]
        gains.append(float(ll[0] - rest.max() - math.log(np.exp(rest - rest.max()).mean())))
    return sum(gains) / len(gains)


def test_inference_favours_the_true_hands_and_random_weights_do_not() -> None:
    positions = _positions(24)
    shipped = load()
    assert _mean_gain(shipped, positions) > 1.0  # nats: e times likelier, on average
    rng = np.random.default_rng(0)
    arrays: dict[str, np.ndarray] = {"meta": np.array('{"commit": "random"}')}
    for name in ("p_pub", "p_hand", "p_b1", "p_w2", "p_b2", "p_card", "p_cardb", "p_call",
                 "p_callb", "b_pub", "b_hand", "b_b1", "b_w2", "b_b2", "b_out", "b_outb"):
        w = getattr(shipped, name)
        arrays[name] = rng.normal(0, float(w.std()), w.shape).astype(np.float32)
    assert _mean_gain(Model(arrays), positions) < 0.5


def test_weighted_draws_are_consistent_deals() -> None:
    state, seat = _positions(3)[2]
    v = view(state, seat)
    hidden = hidden_of(v)
    rng = random.Random(1)
    draw = SeatMix(DealSampler(hidden, rng).sample, Evidence(v, hidden.seats, load()),
                   rng, batch=16)
    deals = [draw() for _ in range(100)]
    assert all(hidden.consistent(d) for d in deals)
    assert len(draw.logw) >= 32  # the pool grew as the draws came
    assert len(set(deals)) > 50  # mixed hands: many distinct deals


def test_evidence_takes_the_bids_or_the_plays_as_asked() -> None:
    state, seat = next(p for p in _positions(6) if p[0].config.mode == "bid")
    v = view(state, seat)
    seats = hidden_of(v).seats
    both = Evidence(v, seats, load())
    assert both.n_bids == 3 and both.n_plays > 0
    assert Evidence(v, seats, load(), bids=False).n_bids == 0
    assert Evidence(v, seats, load(), plays=False).n_plays == 0


def test_the_bid_rule_stays_unless_the_learned_bids_replace_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    used: list[int] = []
    rule = StrongAgent._bid_checks  # the bid rule's odds, on either way of drawing

    def spy(self: StrongAgent, v: SeatView, sampler: Any) -> Any:
        used.append(1)
        return rule(self, v, sampler)

    monkeypatch.setattr(StrongAgent, "_bid_checks", spy)
    state, seat = next(p for p in _positions(12) if p[0].config.mode == "bid"
                       and len(legal_actions(p[0]).cards) > 1)
    v, legal = view(state, seat), legal_actions(state)
    for options, rule_used in (({}, True), ({"infer": 1.0}, False),
                               ({"infer": 1.0, "infer_what": 2}, True)):
        used.clear()
        StrongAgent(1, max_deals=2, **options).choose(v, legal)
        assert bool(used) is rule_used, options


# -- card location (infer.Locator, weights inference-locate.npz)

def test_shipped_location_weights_load_with_their_header() -> None:
    model = load_locate()
    meta = model.meta
    assert len(meta["commit"]) == 40 and meta["positions"] > 100_000
    assert model.w1.shape[0] == LOCATE_INPUT and model.w3.shape[1] == 81 * NHOLD


def test_the_view_and_the_training_simulator_encode_alike() -> None:
    # locate_input (from a view) and encode_locate (the data script's primitives) agree
    state, seat = next(p for p in _positions(24)
                       if any(knowledge(view(p[0], p[1])).voids))
    v = view(state, seat)
    n = v.config.players
    shown, voids = [0] * n, [0] * n
    for t in (*((t.call, t.plays) for t in v.tricks), (v.call, v.trick)):
        for i, (s, card) in enumerate(t[1]):
            shown[s] |= 1 << INDEX[card]
            if i and not card.shows(t[0]):
                voids[s] |= 1 << CALL_INDEX[t[0]]
    assert any(voids)  # the position tests the voids' encoding
    row = np.zeros(LOCATE_INPUT, dtype=np.float32)
    hand = sum(1 << INDEX[c] for c in v.hand)
    encode_locate(row, n, seat, v.config.mode, hand, shown, voids,
                  v.bids if v.config.mode == "bid" else [None] * n, v.taken, v.hand_sizes)
    assert np.array_equal(row, locate_input(v))


@pytest.mark.parametrize("players", [2, 4, 10])
def test_located_draws_are_consistent_deals(players: int) -> None:
    state = new_game(Config(mode="win", players=players, rounds=1, seed=3))
    agent = HeuristicAgent(3)
    rng = random.Random(2)
    for _ in range(players * 4 + 1):
        legal = legal_actions(state)
        state, _ = step(state, agent.choose(view(state, legal.seat or 0), legal))
    seat = legal_actions(state).seat or 0
    v = view(state, seat)
    hidden = hidden_of(v)
    loc = Locator(v, hidden, load_locate(), rng, fallback=DealSampler(hidden, rng).sample)
    deals = [loc() for _ in range(60)]
    assert all(hidden.consistent(d) for d in deals)
    assert len(set(deals)) > 30


def test_untempered_location_is_the_uniform_sampler_without_voids() -> None:
    # power 0: every holder alike, and the room weighting makes one pass exactly uniform
    state, seat = _positions(1)[0]
    v = view(state, seat)
    hidden = hidden_of(v)
    hidden = Hidden(hidden.cards, hidden.seats, hidden.sizes,
                    tuple(frozenset() for _ in hidden.seats))
    rng = random.Random(4)
    loc = Locator(v, hidden, load_locate(), rng, power=0.0)
    n_deals = DealSampler(hidden, rng).count()
    for _ in range(5):
        assert loc.log_prob(loc()) == pytest.approx(-math.log(n_deals), abs=1e-6)


def _locate_gain(model: LocateModel, positions: list[tuple[State, int]]) -> float:
    """Mean of log Q(truth) + log N: > 0 when the location odds favour the true hands."""
    gains = []
    for state, seat in positions:
        v = view(state, seat)
        hidden = hidden_of(v)
        truth = tuple(tuple(state.hands[s]) for s in hidden.seats)
        rng = random.Random(0)
        loc = Locator(v, hidden, model, rng)
        gains.append(loc.log_prob(truth) + math.log(DealSampler(hidden, rng).count()))
    return sum(gains) / len(gains)


def test_location_favours_the_true_hands_and_random_weights_do_not() -> None:
    positions = _positions(24)
    shipped = load_locate()
    assert _locate_gain(shipped, positions) > 1.0
    rng = np.random.default_rng(0)
    arrays: dict[str, np.ndarray] = {"meta": np.array('{"commit": "random"}')}
    for name in ("w1", "b1", "w2", "b2", "w3", "b3"):
        w = getattr(shipped, name)
        arrays["l_" + name] = rng.normal(0, float(w.std()), w.shape).astype(np.float32)
    assert _locate_gain(LocateModel(arrays), positions) < 0.0


def test_the_default_strong_bot_never_loads_numpy_or_the_networks() -> None:
    # the inferences are study options: `xactika bot strong` starts and plays as before
    code = (
        "import sys\n"
        "from xactika.core import Config\n"
        "from xactika.core.bots.agents import make_agent, self_play\n"
        "bots = [make_agent(n, 1, game='xactika') for n in ('strong', 'heuristic') * 2]\n"
        "for b in bots[::2]: b.max_deals = 2\n"
        "self_play(Config(mode='bid', players=4, rounds=1, seed=1), bots)\n"
        "print('numpy' in sys.modules, 'xactika.core.bots.infer' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False", "False"]
