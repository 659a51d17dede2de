"""The bot side, sans-I/O: PlayerSession answers lines and folds the seat's view."""

from __future__ import annotations

from typing import Any

import pytest

from xactika.core import Bid, Command, Config, Legal, RandomAgent, SeatView, game_rules, games
from xactika.core.bots.agents import self_play
from xactika.protocol.player.agentside import PlayerSession
from xactika.protocol.player.process import LoopbackPlayer, ProcessAgent

XACTIKA = game_rules("xactika")


class First:
    """Deterministic: the first legal command."""

    def choose(self, view: SeatView, legal: Legal) -> Command:
        return next(legal.commands())


def test_handshake_and_leniency() -> None:
    s = PlayerSession(First(), "my bot")
    assert s.feed("hello 1\r\n") == ["hello 1 name=my-bot"]  # names never hold spaces
    assert s.feed("  isready  ") == ["readyok"]
    assert s.feed("") == [] and s.feed("# a comment") == []
    assert s.feed("frobnicate now") == ["info ignoring unknown command 'frobnicate'"]
    assert not s.done
    assert s.feed("quit") == [] and s.done


def test_a_bad_line_gets_an_info_line_never_an_exception() -> None:
    s = PlayerSession(First())
    assert s.feed("event 1 deal round=1")[0].startswith("info event before newgame")
    assert s.feed("go bid options=0,1")[0].startswith("info cannot follow go")
    assert s.feed("newgame seat=x")[0].startswith("info cannot follow newgame")
    s.feed("newgame seat=0")
    s.feed("event 1 game-started game=xactika mode=bid players=2 rounds=1 dealer=0")
    out = s.feed("event 2 deal round=1 dealer=0 hands=nonsense aside=?")
    assert out[0].startswith("info cannot follow event: bad card 'nonsense'")


def opening(s: PlayerSession) -> None:
    s.feed("newgame seat=1")
    s.feed("event 1 game-started game=xactika mode=bid players=2 rounds=1 dealer=0")
    s.feed(
        "event 2 deal round=1 dealer=0 hands=?/1111,1112,1113,1121,1122,1123,1131,1132 aside=?"
    )


def test_go_is_answered_from_the_options_with_the_seat_view() -> None:
    seen: list[tuple[SeatView, Legal]] = []

    class Spy(First):
        def choose(self, view: SeatView, legal: Legal) -> Command:
            seen.append((view, legal))
            return Bid(legal.seat or 0, 3)

    s = PlayerSession(Spy())
    opening(s)
    assert s.feed("go bid options=0,3,5 time=250") == ["bid 3"]
    view, legal = seen[0]
    assert legal == Legal(1, "bid", bids=(0, 3, 5))
    assert view.seat == 1 and [str(c) for c in view.hand][:2] == ["1111", "1112"]
    assert view.hand_sizes == (8, 8) and s.last_time_ms == 250


def test_a_built_in_bots_own_budget_is_bounded_by_the_go_not_replaced() -> None:
    """The server's built-in bots (``own_budget``) think their own 100 ms under a table's
    10 s limit (they thought 6 s a move at a web table), less when the go offers less;
    a bot process thinks what the go offers, as spec/PLAYER.md says."""

    class Budgeted(First):
        think_ms = 100.0

    for own, offered, thinks in ((True, 10_000, 100), (True, 40, 40), (False, 10_000, 10_000)):
        agent = Budgeted()
        s = PlayerSession(agent, own_budget=own)
        opening(s)
        assert s.feed(f"go bid options=0,3,5 time={offered}") == ["bid 0"]
        assert agent.think_ms == thinks, (own, offered)


def test_a_failing_agent_still_plays_a_legal_move() -> None:
    class Broken:
        def choose(self, view: SeatView, legal: Legal) -> Command:
            raise RuntimeError("oops")

    class Wrong:
        def choose(self, view: SeatView, legal: Legal) -> Command:
            return Bid(legal.seat or 0, 8)

    for agent, why in ((Broken(), "agent failed (oops)"), (Wrong(), "not an option")):
        s = PlayerSession(agent)
        opening(s)
        out = s.feed("go bid options=0,3,5")
        assert why in out[0] and out[0].startswith("info ")
        assert out[1:] == ["bid 0"]


def test_lead_answers_carry_the_call() -> None:
    s = PlayerSession(First())
    opening(s)
    s.feed("event 3 bid seat=1 bid=2")
    s.feed("event 4 bid seat=0 bid=1")
    assert s.feed("go lead options=1111:1ba,1111:1cu,1111:1co,1111:1st") == ["play 1111 1ba"]


class ViewChecker:
    """Wraps an agent; records the views it is given (host side or bot side)."""

    def __init__(self, agent: Any, log: list[SeatView]) -> None:
        self.agent = agent
        self.log = log
        self.observed: list[Any] = []

    def choose(self, view: SeatView, legal: Legal) -> Command:
        self.log.append(view)
        return self.agent.choose(view, legal)

    def observe(self, seat: int, event: Any) -> None:
        self.observed.append(event)
        observe = getattr(self.agent, "observe", None)
        if observe is not None:
            observe(seat, event)


@pytest.mark.parametrize(
    "config",
    [
        Config(mode="bid", players=2, rounds=3, seed=1, dealer=1),
        Config(mode="win", players=4, rounds=2, seed=2),
        Config(mode="lose", players=7, rounds=1, seed=3),
        Config(mode="bid", players=10, rounds=1, seed=4, dealer=9),
        # other registered games (Dix: private draws), every mode
        *(
            Config(game=name, mode=mode, players=game_rules(name).min_players, rounds=2,
                   seed=5)
            for name in games() if name != "xactika"
            for mode in game_rules(name).modes
        ),
    ],
    ids=lambda c: f"{c.game}-{c.mode}-{c.players}",
)
def test_the_bot_side_view_equals_the_host_view(config: Config) -> None:
    n = config.players
    host_views: list[list[SeatView]] = [[] for _ in range(n)]
    bot_views: list[list[SeatView]] = [[] for _ in range(n)]
    bots = [ViewChecker(RandomAgent(10 + s), bot_views[s]) for s in range(n)]
    agents = []
    for seat in range(n):
        player = LoopbackPlayer(PlayerSession(bots[seat]))
        player.start()
        agents.append(ViewChecker(ProcessAgent(player), host_views[seat]))
    state, events = self_play(config, agents)
    assert state.over
    for seat in range(n):
        assert host_views[seat] and bot_views[seat] == host_views[seat]
        # the bot's agent observed, parsed from lines, exactly the visible events
        assert bots[seat].observed == agents[seat].observed
        assert len(bots[seat].observed) == len(events)
