"""The Dix heuristic bot's choices in set positions (preset deals), its endgame solver
against a plain minimax, and built-in bots picked per game by name."""

from __future__ import annotations

import itertools
import random
from typing import Any, ClassVar

import attrs
import pytest

from xactika.core import (
    Config,
    Legal,
    Play,
    PresetDeal,
    SeatView,
    State,
    legal_actions,
    new_game,
    replay,
    start,
    step,
    view,
    visible,
)
from xactika.core.bots import agents as agents_mod
from xactika.core.bots.agents import (
    ByGame,
    RandomAgent,
    agent_names,
    make_agent,
    play_out,
    register_agent,
    self_play,
)
from xactika.core.bots.dixbot import DixHeuristicAgent, knowledge, lead_swing, solve
from xactika.core.engine.api import Command, Event
from xactika.core.games.dix import DECK, DixCard


def cards(text: str) -> tuple[DixCard, ...]:
    return tuple(DixCard.parse(t) for t in text.split())


def preset(h0: str, h1: str, front: str) -> PresetDeal:
    """Two hands and the rest: ``front`` (turned-up card, then the stock's top) first,
    then every other undealt card in deck order (as in tests/test_dix.py)."""
    hands = (cards(h0), cards(h1))
    head = cards(front)
    used = {*hands[0], *hands[1], *head}
    return PresetDeal(hands, head + tuple(c for c in DECK if c not in used))


def position(h0: str, h1: str, front: str, *moves: str, dealer: int = 0,
             mode: str = "draw") -> tuple[State, SeatView, Legal]:
    """The table after ``moves`` (cards, whoever is to act), as the seat to act sees it."""
    config = Config(game="dix", mode=mode, players=2, rounds=1, dealer=dealer,
                    deals=(preset(h0, h1, front),))
    state = new_game(config)
    for text in moves:
        legal = legal_actions(state)
        assert legal.seat is not None
        state, _ = step(state, Play(legal.seat, DixCard.parse(text)))
    legal = legal_actions(state)
    assert legal.seat is not None
    return state, view(state, legal.seat), legal


def bot_card(v: SeatView, legal: Legal, seed: int = 1) -> str:
    command = DixHeuristicAgent(seed).choose(v, legal)
    assert isinstance(command, Play) and command in legal
    return str(command.card)


# Seat 0 leads (the dealer); seat 1 is the bot. Hearts are trumps (3H turned up).
LEADER = "AS KS QS JS 2D 3D 4D 5D 6D 7D 8D QD KD"


def test_a_nine_under_an_ace_hands_them_a_ten_trick() -> None:
    _, v, legal = position(LEADER, "9S 3S 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC", "3H", "AS")
    assert bot_card(v, legal) == "9S"  # 3S would lose the trick for just -1


def test_a_ten_under_a_court_hands_them_a_ten_trick() -> None:
    _, v, legal = position(LEADER, "TS 4S 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC", "3H", "KS")
    assert bot_card(v, legal) == "TS"


def test_void_it_discards_the_ten_that_makes_their_trick_total_ten() -> None:
    # No diamonds and no trumps: any club may go, and only the ten makes QD's trick ten.
    _, v, legal = position(LEADER, "TS 4S 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC", "3H", "QD")
    assert bot_card(v, legal) in ("TC", "TS") and len(legal.cards) == 13


def test_it_trumps_a_plus_one_trick_but_never_into_a_ten_trick() -> None:
    # 8D led; 2H would trump into a ten-trick (-3), 5H trumps for +1, clubs just lose.
    hand = "2H 5H 9S 3S 3C 4C 5C 6C 7C 9C TC JC QC"
    _, v, legal = position(LEADER, hand, "AH", "8D")
    assert bot_card(v, legal) == "5H"


def test_with_only_a_ten_making_trump_it_discards_instead() -> None:
    hand = "2H 9S 3S 3C 4C 5C 6C 7C 9C TC JC QC KC"
    _, v, legal = position(LEADER, hand, "AH", "8D")
    choice = bot_card(v, legal)
    assert choice != "2H" and choice[-1] in "SC"


def test_following_it_wins_as_cheaply_as_it_can() -> None:
    # 4S led: 6S would take a ten-trick; KS and AS take it for +1; the king is cheaper.
    leader = "4S KD QD JS 2D 3D 4D 5D 6D 7D 8D QS JD"
    _, v, legal = position(leader, "6S KS AS 3C 4C 5C 6C 7C 8C 9C TC JC QC", "3H", "4S")
    assert bot_card(v, legal) == "KS"


def test_a_lead_is_safer_when_we_hold_the_card_that_would_punish_it() -> None:
    # The bot leads (dealer 1). It holds 9S, so nobody can drop a 9 under its AS; the 9
    # of diamonds is unseen, so AD may be punished.
    bot = "AS 9S AD 2C 3C 4C 5C 6C 7C 8C 9C TC JC"
    _, v, legal = position("2S 3S 4S 5S 6S 7S 8S 2D 3D 4D 5D 6D 7D", bot, "3H", dealer=1)
    know = knowledge(v)
    a_spades = lead_swing(DixCard.parse("AS"), v.turned, know)
    a_diamonds = lead_swing(DixCard.parse("AD"), v.turned, know)
    assert a_spades > a_diamonds
    assert bot_card(v, legal) != "AD"


def test_knowledge_counts_unseen_cards_and_the_other_hand() -> None:
    _, v, _ = position(LEADER, "9S 3S 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC", "3H", "AS")
    know = knowledge(v)
    assert len(know.unseen) == 53 - 13 - 1 - 1  # not ours, not the turned card, not AS
    assert DixCard.parse("AS") not in know.unseen and DixCard.parse("3H") not in know.unseen
    assert know.other_hand == 12 and not know.exact


def test_a_shown_void_holds_without_draws_and_weakens_with_them() -> None:
    # The bot (seat 0, dealer) leads 2C; seat 1 has no clubs and throws 6S under it.
    h0 = "2C 3C 4C 5C 9C AC 2S 3S 4S 5S 2D 3D 4D 5D 6D 7D 8D"
    h1 = "6S 7S 8S 9S TS JS QS KS AS 9D TD JD QD KD AD 3H 4H"
    _, v, _ = position(h0, h1, "2H", "2C", "6S", mode="nodraw")
    assert v.seat == 0
    know = knowledge(v)
    assert know.suit_slots == {"C": 0}
    ace = DixCard.parse("AC")
    unknown = attrs.evolve(know, suit_slots={})
    # No unseen club beats AC or totals ten with it; with clubs gone they may trump it or
    # throw a 9 under it for a ten-trick, so the void makes the lead far worse.
    assert lead_swing(ace, v.turned, know) < lead_swing(ace, v.turned, unknown) - 1
    # In draw mode the same void is one draw old: they may hold one club again.
    _, v, _ = position(h0.rsplit(" ", 4)[0], h1.rsplit(" ", 4)[0], "2H", "2C", "6S")
    assert knowledge(v).suit_slots == {"C": 1}


def test_the_stock_gone_the_unseen_cards_are_the_other_hand() -> None:
    config = Config(game="dix", mode="draw", players=2, rounds=1, dealer=0, seed=5)
    state = new_game(config)
    rng = random.Random(5)
    while len(state.tricks) < 13 or state.trick:
        legal = legal_actions(state)
        assert legal.seat is not None
        state, _ = step(state, Play(legal.seat, rng.choice(legal.cards)))
    seat = legal_actions(state).seat
    assert seat is not None
    know = knowledge(view(state, seat))
    assert know.exact and set(know.unseen) == set(state.hands[1 - seat])


def test_explain_gives_the_move_it_would_choose_and_a_one_line_reason() -> None:
    _, v, legal = position(LEADER, "9S 3S 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC", "3H", "AS")
    command, reason = DixHeuristicAgent(3).explain(v, legal)
    assert command == DixHeuristicAgent(3).choose(v, legal)
    assert "9S" in reason and "ten" in reason and "\n" not in reason


# --------------------------------------------------------------------------- endgame


def _naive(mine: tuple[DixCard, ...], theirs: tuple[DixCard, ...], we_lead: bool,
           turned: DixCard) -> int:
    """Our best points minus theirs, by full minimax from the rules' own text."""
    if not mine:
        return 0
    trump = turned.suit if not turned.is_joker else None

    def suit(c: DixCard) -> str | None:
        return trump if c.is_joker else c.suit

    def rank(c: DixCard) -> int:
        return turned.rank if c.is_joker else c.rank

    leader, follower = (mine, theirs) if we_lead else (theirs, mine)
    results = []
    for lead in leader:
        same = [c for c in follower if suit(c) == suit(lead)]
        outcomes = []
        for reply in same or follower:
            second_wins = (suit(reply) == suit(lead) and rank(reply) > rank(lead)) or (
                suit(reply) == trump and suit(lead) != trump)
            value = -3 if lead.pips + reply.pips == 10 else 1
            us_win = second_wins != we_lead
            trick = value if us_win else -value
            rest_l = tuple(c for c in leader if c != lead)
            rest_f = tuple(c for c in follower if c != reply)
            mine2, theirs2 = (rest_l, rest_f) if we_lead else (rest_f, rest_l)
            outcomes.append(trick + _naive(mine2, theirs2, us_win, turned))
        results.append(min(outcomes) if we_lead else max(outcomes))
    return max(results) if we_lead else min(results)


@pytest.mark.parametrize("seed", range(12))
def test_the_endgame_solver_matches_plain_minimax(seed: int) -> None:
    rng = random.Random(seed)
    deck = list(DECK)
    rng.shuffle(deck)
    size = 2 + seed % 3
    turned = deck[0]
    mine, theirs = tuple(deck[1:1 + size]), tuple(deck[1 + size:1 + 2 * size])
    for we_lead in (True, False):
        assert solve(frozenset(mine), frozenset(theirs), we_lead, turned) == _naive(
            mine, theirs, we_lead, turned)


def test_a_solved_lead_avoids_a_certain_ten_trick() -> None:
    # We lead with AS and 4C against 9S and KC (hearts trumps): AS forces their 9S under
    # it (-3 for us); 4C first loses one trick, then their 9S lead gives our AS the ten.
    turned = DixCard.parse("3H")
    mine, theirs = frozenset(cards("AS 5C")), frozenset(cards("9S KC"))
    assert solve(mine, theirs, True, turned) == -4
    # They lead instead: 9S gives our AS the ten (-3), KC then beats 5C (-1); or KC first
    # (-1), and we must lead AS into their 9S (-3).
    assert solve(mine, theirs, False, turned) == -4


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_with_both_hands_known_it_plays_the_solved_best(seed: int) -> None:
    config = Config(game="dix", mode="draw", players=2, rounds=1, dealer=0, seed=seed)
    state = new_game(config)
    rng = random.Random(seed)
    while len(state.hands[0]) > 6 or state.trick or len(state.tricks) < 13:
        legal = legal_actions(state)
        assert legal.seat is not None
        state, _ = step(state, Play(legal.seat, rng.choice(legal.cards)))
    legal = legal_actions(state)
    assert legal.seat is not None and legal.kind == "lead"
    v = view(state, legal.seat)
    command, reason = DixHeuristicAgent(seed).explain(v, legal)
    best = solve(state.hands[legal.seat], state.hands[1 - legal.seat], True, state.turned)
    assert command in legal and reason.startswith("both hands are known")
    assert f"({best:+d} points net)" in reason


# --------------------------------------------------------------------------- by name, per game


def dix_config(seed: int, mode: str = "draw") -> Config:
    return Config(game="dix", mode=mode, players=2, rounds=1, dealer=0, seed=seed)


def xactika_config(seed: int) -> Config:
    return Config(game="xactika", mode="bid", players=4, rounds=1, dealer=0, seed=seed)


@pytest.mark.parametrize("name", ["heuristic", "strong", "random"])
def test_bots_by_name_play_dix(name: str) -> None:
    agents = [make_agent(name, 1), make_agent("random", 2)]
    state, _ = self_play(dix_config(9), agents)
    assert legal_actions(state).seat is None and len(state.tricks) == 26
    if name != "random":
        assert isinstance(agents[0], ByGame)
        assert isinstance(agents[0].impl, DixHeuristicAgent)


def test_heuristic_by_name_plays_both_games_through_play_out() -> None:
    for config in (dix_config(3), dix_config(4, "nodraw"), xactika_config(3)):
        n = config.players
        agents: list[Any] = [make_agent("heuristic", s) for s in range(n)]
        state, _ = play_out(new_game(config), agents)
        assert legal_actions(state).seat is None
        impl = agents[0].impl if isinstance(agents[0], ByGame) else agents[0]
        if config.game == "dix":
            assert isinstance(impl, DixHeuristicAgent)
        else:
            assert not isinstance(impl, DixHeuristicAgent | RandomAgent)


def test_one_agent_follows_the_game_it_is_given() -> None:
    agent = make_agent("heuristic", 7)
    assert isinstance(agent, ByGame)
    play_out(new_game(dix_config(1)), [agent, RandomAgent(1)])
    assert isinstance(agent.impl, DixHeuristicAgent)
    play_out(new_game(xactika_config(1)), [agent, *(RandomAgent(s) for s in range(3))])
    assert agent.game == "xactika" and not isinstance(agent.impl, DixHeuristicAgent)


class Recorder:
    """A test bot that plays its first option and remembers what it was told."""

    instances: ClassVar[list[Recorder]] = []

    def __init__(self, seed: int | None = None) -> None:
        self.seen: list[Event] = []
        self.think_ms: float = 100.0
        Recorder.instances.append(self)

    def observe(self, seat: int, event: Event) -> None:
        self.seen.append(event)

    def choose(self, view: SeatView, legal: Legal) -> Command:
        return next(legal.commands())


@pytest.fixture
def registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Test-only registrations, undone after the test (the built-ins registered first, so
    that none is registered into the copy and lost with it)."""
    agents_mod.agent_names()
    monkeypatch.setattr(agents_mod, "_AGENTS", {k: dict(v) for k, v in
                                                agents_mod._AGENTS.items()})
    Recorder.instances = []


@pytest.mark.usefixtures("registry")
def test_a_bot_for_one_game_only_plays_others_at_random() -> None:
    register_agent("dix-only", Recorder, game="dix")
    assert "dix-only" in agent_names()
    agent = make_agent("dix-only", 4)
    state, _ = self_play(xactika_config(2), [agent, *(RandomAgent(s) for s in range(3))])
    assert legal_actions(state).seat is None
    assert isinstance(agent, ByGame) and isinstance(agent.impl, RandomAgent)
    assert Recorder.instances == []


@pytest.mark.usefixtures("registry")
def test_events_and_the_time_budget_reach_the_implementation() -> None:
    register_agent("rec", Recorder, game="dix")
    register_agent("rec", RandomAgent)
    agent = make_agent("rec", 1)
    assert isinstance(agent, ByGame)
    agent.think_ms = 250.0
    events = self_play(dix_config(2), [agent, RandomAgent(0)])[1]
    (impl,) = Recorder.instances
    assert agent.impl is impl and impl.think_ms == 250.0 and agent.think_ms == 250.0
    assert impl.seen == [visible(e, 0) for e in events]


@pytest.mark.usefixtures("registry")
def test_events_told_before_the_game_is_known_are_passed_on_once_it_is() -> None:
    register_agent("rec", Recorder, game="dix")
    agent = make_agent("rec", 1)
    assert isinstance(agent, ByGame)
    opening = start(dix_config(4))
    for event in opening[1:]:  # no game-started: the game is learnt from the view
        agent.observe(0, visible(event, 0))
    assert agent.impl is None
    state = replay(opening)
    legal = legal_actions(state)
    assert legal.seat == 0
    agent.choose(view(state, 0), legal)
    (impl,) = Recorder.instances
    assert impl.seen == [visible(e, 0) for e in opening[1:]]


@pytest.mark.usefixtures("registry")
def test_explain_falls_back_to_choose_without_a_reason() -> None:
    register_agent("rec", Recorder, game="dix")
    agent = make_agent("rec", 1)
    _, v, legal = position(LEADER, "9S 3S 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC", "3H", "AS")
    assert isinstance(agent, ByGame)
    assert agent.explain(v, legal) == (next(legal.commands()), "")


@pytest.mark.usefixtures("registry")
def test_a_single_game_agnostic_bot_is_made_directly_as_before() -> None:
    register_agent("plain", Recorder)
    assert isinstance(make_agent("plain", 1), Recorder)
    assert isinstance(make_agent("heuristic", 1, game="dix"), DixHeuristicAgent)
    with pytest.raises(ValueError, match="unknown bot 'nope': expected one of"):
        make_agent("nope")


def test_the_heuristic_is_seeded() -> None:
    logs = []
    for _ in range(2):
        _, events = self_play(dix_config(11), [make_agent("heuristic", 5), RandomAgent(6)])
        logs.append(events)
    assert logs[0] == logs[1]


def test_every_two_card_reply_set_is_scored_consistently() -> None:
    # The follow swing table: +3 only when our card loses and the pips total ten.
    from xactika.core.bots.dixbot import LOSE_TEN, WIN_TEN, swing

    turned = DixCard.parse("3H")
    for lead, reply in itertools.permutations(cards("AS 9S TD KD 5C 5H JK 2H 8H"), 2):
        s = swing(reply, lead, turned)
        assert (s in (LOSE_TEN, WIN_TEN)) == (lead.pips + reply.pips == 10)
