"""What every AI bridge owes: the same deal for the same seed as ``xactika selfplay``, and
no other seat's unplayed card in anything a seat is shown (OpenSpiel information states,
observations and tensors; PettingZoo observations).

Hidden information is tested as non-interference: change the cards a seat cannot see
(swap a card between two other hands, or with the set-aside cards or the stock) and
everything the bridge shows that seat must stay exactly the same.
"""

from __future__ import annotations

import random
import subprocess
import sys

import attrs
import pytest

pyspiel = pytest.importorskip("pyspiel")
pytest.importorskip("pettingzoo")

from xactika.core import Config, legal_actions, view  # noqa: E402
from xactika.core.engine.api import State  # noqa: E402
from xactika.frontends.bridges.openspiel import seed_actions  # noqa: E402
from xactika.frontends.bridges.pettingzoo import env  # noqa: E402
from xactika.protocol.player.host import play_game  # noqa: E402

SEEDS = [1, 7, 4_000_000_000]


def selfplay_deal(seed: int, *options: str) -> list[str]:
    """The hands of round 1, as the ``deal`` line of ``xactika selfplay`` prints them."""
    out = subprocess.run(
        [sys.executable, "-m", "xactika.frontends.cli", "selfplay", "--seed", str(seed),
         *options], capture_output=True, text=True, check=True,
    ).stdout
    line = next(w for w in out.splitlines() if " deal " in w)
    hands = next(word for word in line.split() if word.startswith("hands="))
    return hands.removeprefix("hands=").split("/")


def hands_text(state: State) -> list[str]:
    return [",".join(str(c) for c in hand) for hand in state.hands]


@pytest.mark.parametrize("seed", SEEDS)
def test_same_seed_same_deal_through_every_bridge(seed: int) -> None:
    expected = selfplay_deal(seed, "--players", "4", "--mode", "bid")
    game = pyspiel.load_game("python_xactika", {"players": 4, "mode": "bid"})
    state = game.new_initial_state()
    for action in seed_actions(seed):
        state.apply_action(action)
    assert hands_text(state.core) == expected
    e = env(players=4, mode="bid")
    e.reset(seed=seed)
    assert e.core is not None and hands_text(e.core) == expected
    record = play_game(Config(mode="bid", players=4, rounds=1, seed=seed), ["random"] * 4)
    assert [",".join(map(str, h)) for h in record.events[1].hands] == expected


def test_same_seed_same_dix_deal() -> None:
    expected = selfplay_deal(5, "--game", "dix")
    state = pyspiel.load_game("python_dix").new_initial_state()
    for action in seed_actions(5):
        state.apply_action(action)
    assert hands_text(state.core) == expected
    e = env(game="dix", players=2, mode="draw", rounds=1)
    e.reset(seed=5)
    assert e.core is not None and hands_text(e.core) == expected


def disturbed(core: State, seat: int, rng: random.Random) -> State | None:
    """``core`` with a card the seat cannot see moved: two other hands swap a card, or
    another hand swaps one with the undealt cards (the stock in Dix). None when no card
    can move (Dix once the stock is empty: the seat can work out the other hand)."""
    others = [s for s in range(core.players) if s != seat and core.hands[s]]
    aside = list(core.aside)
    if not others or (len(others) < 2 and not aside):
        return None
    q = rng.choice(others)
    hands = [list(h) for h in core.hands]
    i = rng.randrange(len(hands[q]))
    rest = [s for s in others if s != q]
    if rest and (not aside or rng.random() < 0.5):
        r = rng.choice(rest)
        j = rng.randrange(len(hands[r]))
        hands[q][i], hands[r][j] = hands[r][j], hands[q][i]
    else:
        j = rng.randrange(len(aside))
        hands[q][i], aside[j] = aside[j], hands[q][i]
    sort = core.rules.sort_key
    new = attrs.evolve(core, hands=tuple(tuple(sorted(h, key=sort)) for h in hands),
                       aside=tuple(aside))
    assert new.hands != core.hands or new.aside != core.aside
    return new


def hidden_cards(core: State, seat: int) -> set[str]:
    """Card texts the seat may not know: other hands and the undealt cards."""
    mine = {str(c) for c in core.hands[seat]}
    out = {str(c) for s, h in enumerate(core.hands) if s != seat for c in h}
    out |= {str(c) for c in core.aside}
    return out - mine


@pytest.mark.parametrize(
    ("name", "params"),
    [("python_xactika", {"players": 4, "mode": "bid", "rounds": 2}),
     ("python_xactika", {"players": 3, "mode": "win", "rounds": 1}),
     ("python_dix", {"mode": "draw", "rounds": 1})],
)
def test_openspiel_shows_a_seat_nothing_of_the_cards_it_cannot_see(
    name: str, params: dict
) -> None:
    game = pyspiel.load_game(name, params)
    rng = random.Random(len(name) + params["rounds"])
    checked = 0
    for _ in range(8):
        state = game.new_initial_state()
        for action in seed_actions(rng.randrange(2**32)):
            state.apply_action(action)
        while not state.is_terminal():
            core = state.core
            for seat in range(game.num_players()):
                moved = disturbed(core, seat, rng)
                if moved is None:
                    continue
                shown = (state.information_state_string(seat), state.observation_string(seat),
                         state.information_state_tensor(seat), state.observation_tensor(seat))
                # the first line is this round's view; the rest, earlier rounds' events as
                # the seat saw them, name cards played in public that may be held now
                now, *past = shown[0].split("\n")
                words = set(now.replace("=", " ").replace(",", " ").replace("[", " ")
                            .replace("]", " ").replace("/", " ").split())
                assert not words & hidden_cards(core, seat), shown[0]
                for line in past:
                    if line.split()[2:3] == ["deal"]:  # an earlier deal: its own hand only
                        hands = next(w for w in line.split() if w.startswith("hands="))
                        shown_hands = [h != "?" for h in hands[6:].split("/")]
                        assert shown_hands == [s == seat for s in range(len(shown_hands))]
                        assert "aside=?" in line or "aside=" not in line, line
                other = state.clone()
                other.core = moved
                assert (other.information_state_string(seat), other.observation_string(seat),
                        other.information_state_tensor(seat),
                        other.observation_tensor(seat)) == shown
                checked += 1
            state.apply_action(rng.choice(state.legal_actions()))
    assert checked > 100


def test_pettingzoo_observations_show_nothing_of_the_cards_a_seat_cannot_see() -> None:
    rng = random.Random(11)
    for game, players, mode in [("xactika", 4, "bid"), ("dix", 2, "draw")]:
        e = env(game=game, players=players, mode=mode, rounds=1)
        e.reset(seed=rng.randrange(2**32))
        e.action_space("player_0").seed(1)
        while e.core is not None and not e.core.over:
            core = e.core
            for agent in e.possible_agents:
                seat = e.possible_agents.index(agent)
                seen = e.observe(agent)
                moved = disturbed(core, seat, rng)
                if moved is None:
                    continue
                e.core = moved
                again = e.observe(agent)
                e.core = core
                assert (seen["observation"] == again["observation"]).all()
                assert (seen["action_mask"] == again["action_mask"]).all()
            legal = legal_actions(core)
            assert view(core, legal.seat).hand  # the seat to act holds cards
            mask = e.observe(e.agent_selection)["action_mask"]
            e.step(e.action_space(e.agent_selection).sample(mask))
