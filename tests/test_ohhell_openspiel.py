"""Oh Hell against OpenSpiel's C++ ``oh_hell``, an implementation nobody here wrote.

Each game is dealt by OpenSpiel's chance outcomes (the number of tricks, the dealer, then
one card at a time); the same cards become our preset deal (OpenSpiel's hands, its trump
card first in the rest) in the variant that matches its parameters (spec/OHHELL.md,
"OpenSpiel's oh_hell"). Then both play the same random moves, and at every decision they
must agree on whose turn it is and on the legal actions; after every trick on its winner;
at the end on the tricks taken and the returns.

CI installs the ``[openspiel]`` extra, so this runs there; ``importorskip`` only spares a
developer machine without it.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

pyspiel = pytest.importorskip("pyspiel")

from xactika.core import (  # noqa: E402
    Bid,
    Config,
    Play,
    PresetDeal,
    RoundScored,
    TrickWon,
    legal_actions,
    new_game,
    step,
)
from xactika.core.games.ohhell import DECK, OHHELL, most_cards  # noqa: E402

GAMES = 2000
BIDS_FROM = 52  # OpenSpiel's bid actions: 52 + the bid
_LOADED: dict[tuple[int, int, bool], Any] = {}


def _spiel(players: int, tricks: int, penalty: bool) -> Any:
    key = (players, tricks, penalty)
    if key not in _LOADED:
        _LOADED[key] = pyspiel.load_game("oh_hell", {
            "players": players, "num_tricks_fixed": tricks, "off_bid_penalty": penalty})
    return _LOADED[key]


def _cards() -> tuple[Any, ...]:
    """Our card for each of OpenSpiel's card actions, read from its own card text in the
    deal (suit then rank, ``CT``; ours is rank then suit, ``TC``)."""
    dealing = _spiel(3, 1, False).new_initial_state()
    dealing.apply_action(1)
    dealing.apply_action(0)
    return tuple(OHHELL.parse_card(t[1] + t[0])
                 for t in (dealing.action_to_string(a) for a in range(52)))


def _tricks_won(spiel_state: Any) -> tuple[int, ...]:
    """The tricks each player took, from the terminal state's text (``Tricks Won: ...``)."""
    line = next(x for x in str(spiel_state).splitlines() if x.startswith("Tricks Won:"))
    return tuple(int(v) for v in line.split(":")[1].split())


def _one_game(rng: random.Random, players: int, tricks: int, penalty: bool) -> int:
    """Deal and play one game in both engines; the decisions compared."""
    card_of, action_of = CARDS, ACTIONS
    spiel = _spiel(players, tricks, penalty).new_initial_state()
    spiel.apply_action(tricks)
    dealer = rng.randrange(players)
    spiel.apply_action(dealer)
    hands: list[list[Any]] = [[] for _ in range(players)]
    for i in range(players * tricks + 1):
        action = rng.choice([a for a, _ in spiel.chance_outcomes()])
        card = card_of[action]
        spiel.apply_action(action)
        if i < players * tricks:
            hands[i % players].append(card)  # OpenSpiel deals to player 0 first, always
        else:
            trump = card
    dealt = {c for h in hands for c in h}
    rest = (trump, *(c for c in DECK if c not in dealt and c != trump))
    config = Config(game="ohhell", mode="penalty" if penalty else "bonus", players=players,
                    rounds=1, dealer=dealer,
                    deals=(PresetDeal(tuple(map(tuple, hands)), rest),),
                    options={"top": tricks, "hands": "fixed"})
    ours = new_game(config)
    assert ours.turned == trump
    decisions = 0
    while not spiel.is_terminal():
        legal = legal_actions(ours)
        assert legal.seat == spiel.current_player()
        if legal.kind == "bid":
            mine = [BIDS_FROM + b for b in legal.bids]
        else:
            mine = sorted(action_of[c] for c in legal.cards)
        assert mine == sorted(spiel.legal_actions()), (config, decisions)
        action = rng.choice(mine)
        command = (Bid(legal.seat, action - BIDS_FROM) if legal.kind == "bid"
                   else Play(legal.seat, card_of[action]))
        ours, events = step(ours, command)
        spiel.apply_action(action)
        decisions += 1
        for event in events:
            if isinstance(event, TrickWon) and not spiel.is_terminal():
                assert event.seat == spiel.current_player()  # the winner leads next
    scored = next(e for e in events if isinstance(e, RoundScored))
    assert scored.tricks == _tricks_won(spiel)
    assert scored.points == tuple(int(r) for r in spiel.returns())
    assert ours.over and ours.totals == scored.points
    return decisions


CARDS = _cards()
ACTIONS = {card: action for action, card in enumerate(CARDS)}


def test_ohhell_agrees_with_openspiel_on_2000_deals() -> None:
    rng = random.Random(35)
    decisions = 0
    for g in range(GAMES):
        players = 3 + g % 5
        tricks = rng.randint(1, (len(DECK) - 1) // players)  # OpenSpiel always has a trump
        decisions += _one_game(rng, players, tricks, penalty=g % 2 == 1)
    assert decisions > GAMES * 10


def test_the_deals_openspiel_cannot_make_are_ours_to_decide() -> None:
    """Every card dealt: OpenSpiel (2.0.2) takes the setting but then waits for a trump
    card that is not there (a chance node without outcomes); ours plays the round
    without trumps (spec/OHHELL.md)."""
    spiel = _spiel(4, 13, False).new_initial_state()
    spiel.apply_action(13)
    spiel.apply_action(0)
    for action in range(52):
        spiel.apply_action(action)
    assert spiel.is_chance_node() and spiel.chance_outcomes() == []
    state = new_game(Config(game="ohhell", players=4, rounds=1, seed=1,
                            options={"top": most_cards(4), "hands": "fixed"}))
    assert state.turned is None and all(len(h) == 13 for h in state.hands)
    assert legal_actions(state).kind == "bid"


def test_our_oh_hell_in_openspiel_passes_its_checks_and_its_resampling_search() -> None:
    """``python_ohhell`` (our bridge): OpenSpiel's random_sim_test with serialization, and
    ISMCTS, which resamples hidden hands through the game's void-aware redeal."""
    np = pytest.importorskip("numpy")
    from open_spiel.python.algorithms import ismcts, mcts

    from xactika.frontends.bridges.openspiel import AgentBot, evaluate_bots

    game = pyspiel.load_game("python_ohhell", {"players": 4, "mode": "exact", "rounds": 2})
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)
    rng = np.random.RandomState(5)
    bots = [ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), 2.0, 8,
                             random_state=rng),
            *(AgentBot("heuristic", s, s) for s in range(1, 4))]
    returns = evaluate_bots(game.new_initial_state(), bots, 1)
    lo, hi = OHHELL.score_bounds(Config(game="ohhell", players=4, rounds=2))
    assert len(returns) == 4 and all(lo <= r <= hi for r in returns)
