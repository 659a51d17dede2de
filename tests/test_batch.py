"""The batched simulator against the core: the same seeds give the same events.

Thousands of games go through the batch; a sample of them (all of them under
HYPOTHESIS_PROFILE=thorough) is played again one move at a time through ``step`` by the
reference policy, and the two event lists must be equal, deal, bid, card and score.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from readme_blocks import readme_block

np = pytest.importorskip("numpy")  # the [batch] extra; CI installs it

from xactika.core import DECK, Config, ConfigError, batch, replay  # noqa: E402
from xactika.core.batch import draw, draw_one, simulate  # noqa: E402
from xactika.core.batch import xactika as batch_xactika  # noqa: E402
from xactika.core.batch.xactika import (  # noqa: E402
    BatchResult,
    Decision,
    deal_orders,
    reference_game,
)
from xactika.core.engine.rng import deal_key, shuffled  # noqa: E402
from xactika.core.games.xactika import XACTIKA  # noqa: E402

THOROUGH = os.environ.get("HYPOTHESIS_PROFILE") == "thorough"
GAMES = 120  # per mode and player count: 27 x 120 = 3,240 games through the batch
STEPPED = GAMES if THOROUGH else 8  # of those, played again through step


def _compare(result: BatchResult, policy: str | tuple[str, ...], stepped: int) -> None:
    for g in range(result.games):
        events = result.events(g)
        final = replay(events)  # every game folds, and to the batch's totals
        assert final.over
        assert final.totals == tuple(int(t) for t in result.totals[g])
        if g < stepped:
            assert events == reference_game(result.config(g), policy), f"game {g}"


@pytest.mark.parametrize("mode", ["win", "lose", "bid"])
@pytest.mark.parametrize("players", range(2, 11))
def test_random_policy_matches_step(mode: str, players: int) -> None:
    seeds = [1000 * players + g for g in range(GAMES)]
    rounds = 3 if players > 6 else 4
    result = simulate(seeds, mode=mode, players=players, rounds=rounds,
                      dealer=players - 1, record=True)
    _compare(result, "random", STEPPED)


@pytest.mark.parametrize("mode", ["win", "lose", "bid"])
@pytest.mark.parametrize("policy", ["greedy", ("greedy", "random", "random", "greedy")])
def test_greedy_and_mixed_policies_match_step(mode: str, policy: str | tuple[str, ...]) -> None:
    result = simulate(range(7, 7 + GAMES), mode=mode, players=4, rounds=8, policy=policy,
                      record=True)
    _compare(result, policy, 2 * STEPPED)


def test_the_comparison_sees_a_different_choice() -> None:
    """Keyed differently, the batch makes other choices and the events differ: the
    equality above is not vacuous."""
    result = simulate(range(20), mode="bid", players=4, rounds=2, keys=range(1, 21),
                      record=True)
    differ = sum(result.events(g) != reference_game(result.config(g)) for g in range(20))
    assert differ == 20
    same = simulate(range(20), mode="bid", players=4, rounds=2, keys=range(1, 21),
                    record=True)
    assert all(same.events(g) == reference_game(same.config(g), key=g + 1) for g in range(20))


def test_deal_orders_are_the_cores_shuffle() -> None:
    seeds = list(range(0, 3000, 3)) + [2**62 + 5, 10**15]
    for round_no in (1, 8):
        orders = deal_orders(seeds, round_no)
        index = {card: i for i, card in enumerate(DECK)}
        for g, seed in enumerate(seeds):
            deck = shuffled(DECK, deal_key("xactika", seed, round_no))
            assert orders[g].tolist() == [index[c] for c in deck]


def test_a_rejected_word_falls_back_to_the_cores_shuffle(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rejections never happen in practice (1 in 2**57 a word): force them for every
    game by lowering the limits; the vectorised swaps are then wrong, and the deals must
    still come out as the core's."""
    real = batch._limits

    def wrong(cards: int) -> tuple[np.ndarray, np.ndarray]:
        bounds, tops = real(cards)
        return bounds - np.uint64(1), np.zeros_like(tops)

    monkeypatch.setattr(batch, "_limits", wrong)
    index = {card: i for i, card in enumerate(DECK)}
    orders = deal_orders([5, 6], 2)
    for g, seed in enumerate([5, 6]):
        deck = shuffled(DECK, deal_key("xactika", seed, 2))
        assert orders[g].tolist() == [index[c] for c in deck]


def test_draw_matches_draw_one() -> None:
    keys = [0, 1, 2**63 - 1, 123456789, 2**40 + 3]
    for index in (0, 1, 287, 10**6):
        words = draw(np.array(keys, dtype=np.uint64), index)
        assert words.tolist() == [draw_one(k, index) for k in keys]


def test_hand_masks_are_the_dealt_hands() -> None:
    sim = batch_xactika._Sim(np.arange(5, dtype=np.int64), np.arange(5, dtype=np.uint64), "win", 3,
                     1, 2, ("random",) * 3, False)
    sim._deal(0, 2)
    masks = sim.hand_masks()
    for g in range(5):
        dealt = XACTIKA.deal(Config(players=3, dealer=2, seed=g), 1, 2)
        for seat in range(3):
            held = {DECK[i] for i in np.flatnonzero(masks[g, seat])}
            assert held == set(dealt.hands[seat])


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"mode": "both"}, ConfigError, "unknown mode"),
        ({"players": 11}, ConfigError, "2 to 10 players"),
        ({"rounds": 0}, ConfigError, "rounds must be at least 1"),
        ({"dealer": 4}, ConfigError, "dealer must be a seat"),
        ({"policy": "clever"}, ValueError, "policy must be one of"),
        ({"policy": ("random",) * 3}, ValueError, "one per seat"),
        ({"keys": [1, 2]}, ValueError, "one key per seed"),
    ],
)
def test_bad_settings_get_one_clear_error(kwargs: dict[str, object], error: type[Exception],
                                          message: str) -> None:
    with pytest.raises(error, match=message):
        simulate([1, 2, 3], **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("seeds", "message"),
    [([], "non-empty"), ([-1], "from 0 to"), ([2**63], "from 0 to"), ([1.5], "whole numbers"),
     (["7"], "whole numbers")],
)
def test_bad_seeds_get_one_clear_error(seeds: list[object], message: str) -> None:
    with pytest.raises(ValueError, match=f"seeds must be .*{message}|seeds must be {message}"):
        simulate(seeds)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="keys must be"):
        simulate([1] * max(1, len(seeds)), keys=seeds)  # type: ignore[arg-type]


def test_one_entry_point_plays_every_game_with_a_batch_part_and_the_games_defaults() -> None:
    """``simulate(game=...)`` finds the game's part by name; left out, the settings are
    the game's, Play to Bid for Xactika as everywhere else (issue 41)."""
    plain = simulate(range(3))
    assert (plain.mode, plain.players, plain.rounds) == ("bid", 4, 8)
    assert plain.config(0) == Config(seed=0)
    ohhell = simulate(range(3), game="ohhell", rounds=2, options={"top": 3})
    assert (ohhell.config.mode, ohhell.config.players) == ("exact", 4)
    assert ohhell.bids.shape == (3, 2, 4)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"game": "dix"}, r"^dix has no batch simulator \(xactika.core.batch.dix\); play its "),
     ({"game": "ohhell", "policy": "greedy"}, "^ohhell's batch simulator takes no policy: "
      "it takes mode, players, rounds, dealer, options, keys$"),
     ({"game": "chess"}, "unknown game")],
)
def test_a_game_or_setting_without_a_batch_part_gets_one_clear_error(
        kwargs: dict[str, object], message: str) -> None:
    with pytest.raises((ValueError, ConfigError), match=message) as caught:
        simulate([1], **kwargs)
    assert "\n" not in str(caught.value)


def test_events_need_a_recorded_batch() -> None:
    with pytest.raises(ValueError, match="record=True"):
        simulate([1]).events(0)


def test_the_core_imports_without_numpy() -> None:
    """numpy is the batch extra: importing the core, the engine and the CLI must not
    need it."""
    code = ("import sys; sys.modules['numpy'] = None; import xactika.core, "
            "xactika.core.engine.api, xactika.frontends.cli; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=False)
    assert out.stdout.strip() == "ok", out.stderr


def test_the_readme_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    exec(compile(readme_block("Many games at once"), "README.md", "exec"), {})
    first, second = capsys.readouterr().out.strip().split("\n")
    shares = [float(x) for x in first.strip(" []").split()]
    assert len(shares) == 4 and shares[0] > max(shares[1:])  # greedy beats random
    assert len(second.strip(" []").split()) == 5  # a mean total for each Oh Hell seat


def _random_by_hand(decision: Decision) -> object:
    """The random policy written as a callable policy: same draws, same order."""
    rows, cols = np.nonzero(decision.legal)
    count = np.bincount(rows, minlength=len(decision.legal))
    start = np.cumsum(count) - count
    word = draw(decision.keys, decision.index)
    if decision.kind == "lead":
        pick = (word % (count.astype(np.uint64) * np.uint64(4))).astype(np.intp)
        return cols[start + pick // 4], pick % 4
    return cols[start + (word % count.astype(np.uint64)).astype(np.intp)]


@pytest.mark.parametrize("mode", ["win", "lose", "bid"])
def test_a_callable_policy_plays_what_it_chooses(mode: str) -> None:
    """A function written to choose as the random policy does gives the same games,
    seat by seat beside the greedy policy."""
    seats = (_random_by_hand, "greedy", _random_by_hand, "random", "greedy")
    named = ("random", "greedy", "random", "random", "greedy")
    ours = simulate(range(300), mode=mode, players=5, rounds=3, policy=seats, record=True)
    theirs = simulate(range(300), mode=mode, players=5, rounds=3, policy=named, record=True)
    for name in ("totals", "cards", "calls", "winners", "bids"):
        assert np.array_equal(getattr(ours, name), getattr(theirs, name)), name


def test_a_callable_policy_sees_the_actor_and_its_hand() -> None:
    seen: list[Decision] = []

    def lowest(decision: Decision) -> object:
        seen.append(decision)
        first = np.argmax(decision.legal, axis=1)
        return (first, np.zeros_like(first)) if decision.kind == "lead" else first

    simulate([3], mode="bid", players=4, rounds=1, policy=lowest)
    assert [d.kind for d in seen[:6]] == ["bid"] * 4 + ["lead", "play"]
    dealt = XACTIKA.deal(Config(mode="bid", seed=3), 1, 0)
    first = seen[0]
    assert first.seat.tolist() == [1] and first.index == 0
    assert {DECK[i] for i in np.flatnonzero(first.hand[0])} == set(dealt.hands[1])
    assert all((d.legal <= d.hand).all() for d in seen if d.kind != "bid")


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (lambda d: np.full(len(d.seat), 99), "illegal bid"),
        (lambda d: [1.5] * len(d.seat), "one whole number a game"),
        (lambda d: np.zeros(len(d.seat) + 1, dtype=int), "one whole number a game"),
    ],
)
def test_an_illegal_choice_gets_one_clear_error(answer: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        simulate([1, 2], mode="bid", policy=answer)  # type: ignore[arg-type]


def test_a_card_not_held_is_refused() -> None:
    def not_held(decision: Decision) -> object:
        if decision.kind == "bid":
            return np.argmax(decision.legal, axis=1)
        outside = np.argmin(decision.hand, axis=1)  # a card the actor does not hold
        return (outside, np.zeros_like(outside)) if decision.kind == "lead" else outside

    with pytest.raises(ValueError, match="illegal lead in game 0"):
        simulate([1], mode="bid", policy=not_held)
