"""The referee (core/engine/referee.py): turn order, game over, illegal commands, and
each fault policy (abort, stand-in, reclaim), with the synchronous and asyncio loops."""

from __future__ import annotations

import asyncio

import pytest
from readme_blocks import readme_block

from xactika.core.bots.agents import RandomAgent
from xactika.core.engine.api import (
    Bid,
    Command,
    Config,
    Event,
    Legal,
    legal_actions,
    replay,
    start,
    step,
)
from xactika.core.engine.errors import GameIsOver, IllegalCommand, NotYourTurn
from xactika.core.engine.referee import (
    Fault,
    Faulted,
    FaultPolicy,
    GameAborted,
    Reclaim,
    Referee,
    SeatReplaced,
    Turn,
    run,
    run_async,
)
from xactika.core.engine.views import SeatView, view, visible

CONFIGS = [
    Config(game="xactika", mode="bid", players=4, rounds=2, seed=3),
    Config(game="xactika", mode="win", players=3, rounds=1, seed=5),
    Config(game="dix", mode="draw", players=2, rounds=1, seed=7),
]


class Watcher:
    """An agent that keeps every event it is told, to check what reaches a stand-in."""

    def __init__(self, seed: int) -> None:
        self.inner = RandomAgent(seed)
        self.seen: list[tuple[int, Event]] = []

    def observe(self, seat: int, event: Event) -> None:
        self.seen.append((seat, event))

    def choose(self, view: SeatView, legal: Legal) -> Command:
        return self.inner.choose(view, legal)


def stepped(config: Config, seed: int) -> list[Event]:
    """The same game written out with the engine alone: the referee must match it."""
    events = start(config)
    state = replay(events)
    agents = [RandomAgent(seed + s) for s in range(config.players)]
    while (legal := legal_actions(state)).seat is not None:
        state, new = step(state, agents[legal.seat].choose(view(state, legal.seat), legal))
        events.extend(new)
    return events


def stand_in_policy(made: list[int] | None = None) -> FaultPolicy:
    def make(seat: int) -> RandomAgent:
        if made is not None:
            made.append(seat)
        return RandomAgent(100 + seat)
    return FaultPolicy.stand_in(make)


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.game}-{c.mode}-{c.players}")
def test_turns_follow_the_engine_to_game_over(config: Config) -> None:
    referee = Referee.new(config, policy=FaultPolicy.abort())
    assert referee.events == start(config)
    agents = [RandomAgent(40 + s) for s in range(config.players)]
    turns = 0
    while (turn := referee.turn()) is not None:
        assert turn.seat == referee.state.to_act == turn.legal.seat
        assert turn.legal == legal_actions(referee.state)
        assert turn.view == view(referee.state, turn.seat)
        assert turn.stand_in is None
        before = len(referee.events)
        new = referee.submit(agents[turn.seat].choose(turn.view, turn.legal))
        assert new and referee.events[before:] == new
        turns += 1
    assert turns > 0 and referee.over and referee.done
    assert referee.events == stepped(config, 40)
    assert replay(referee.events) == referee.state
    with pytest.raises(GameIsOver):
        referee.submit(Bid(0, 1))
    assert referee.faults == [] and referee.aborted is None


def test_illegal_commands_leave_everything_unchanged() -> None:
    referee = Referee.new(CONFIGS[0], policy=FaultPolicy.abort())
    turn = referee.turn()
    assert turn is not None and turn.legal.kind == "bid"
    state, events = referee.state, list(referee.events)
    wrong_seat = (turn.seat + 1) % 4
    too_many = max(turn.legal.bids) + 1
    for command, error in [(Bid(wrong_seat, 0), NotYourTurn),
                           (Bid(turn.seat, too_many), IllegalCommand)]:
        with pytest.raises(error):
            referee.submit(command)
        assert referee.state is state and referee.events == events
        assert referee.turn() == turn
    assert referee.faults == []


def test_abort_ends_the_game_at_the_first_fault() -> None:
    referee = Referee.new(CONFIGS[0], policy=FaultPolicy.abort())
    agent = RandomAgent(1)
    for _ in range(3):
        turn = referee.turn()
        assert turn is not None
        referee.submit(agent.choose(turn.view, turn.legal))
    turn = referee.turn()
    assert turn is not None
    at = len(referee.events)
    fault = referee.fault(turn.seat, "timeout", "no answer within 1 s")
    assert fault == Fault(turn.seat, "timeout", "no answer within 1 s", at)
    assert referee.aborted == fault and referee.faults == [fault]
    assert referee.turn() is None and referee.done and not referee.over
    state = referee.state
    with pytest.raises(GameAborted):
        referee.submit(agent.choose(turn.view, turn.legal))
    assert referee.state is state and len(referee.events) == at


def test_a_stand_in_plays_the_seat_from_its_fault_on() -> None:
    made: list[int] = []
    referee = Referee.new(CONFIGS[0], policy=stand_in_policy(made))
    turn = referee.turn()
    assert turn is not None
    seat = turn.seat
    fault = referee.fault(seat, "crash", "exited with code 1")
    assert fault is not None and fault.at == len(start(CONFIGS[0]))
    assert made == [seat] and referee.aborted is None
    assert referee.fault(seat, "timeout", "again") is None  # not news: one fault a seat
    assert referee.faults == [fault] and made == [seat]
    turn = referee.turn()
    assert turn is not None and turn.seat == seat and turn.stand_in is referee.stand_ins[seat]
    state = referee.state
    with pytest.raises(SeatReplaced):  # its player's late answer is refused
        referee.submit(next(turn.legal.commands()))
    assert referee.state is state
    expected = step(state, RandomAgent(100 + seat).choose(turn.view, turn.legal))[1]
    assert referee.play_stand_in() == expected
    with pytest.raises(ValueError):  # the next seat has its own player
        referee.play_stand_in()


def test_an_observing_stand_in_is_told_the_game_so_far_as_its_seat_sees_it() -> None:
    watchers: dict[int, Watcher] = {}

    def make(seat: int) -> Watcher:
        watchers[seat] = Watcher(seat)
        return watchers[seat]

    referee = Referee.new(CONFIGS[0], policy=FaultPolicy.stand_in(make))
    asked: list[int] = []

    def ask(turn: Turn) -> Command | Faulted:
        asked.append(turn.seat)
        if turn.seat == 2:
            return Faulted("garbage", "sent 'hello' when asked to bid")
        return RandomAgent(len(asked)).choose(turn.view, turn.legal)

    told: list[Event] = []
    run(referee, ask, told.extend)
    assert referee.over and list(watchers) == [2]
    assert [f[:3] for f in _tuples(referee.faults)] == [(2, "garbage",
                                                         "sent 'hello' when asked to bid")]
    assert 2 not in asked[asked.index(2) + 1:]  # never asked again
    seen = watchers[2].seen
    assert seen == [(2, visible(e, 2)) for e in referee.events]  # all, none unredacted
    assert any(visible(e, 2) != e for e in referee.events)  # there was something to hide
    assert told == referee.events[len(start(CONFIGS[0])):]


def _tuples(faults: list[Fault]) -> list[tuple[int, str, str, int]]:
    return [(f.seat, f.reason, f.detail, f.at) for f in faults]


def test_a_reclaimed_seat_is_asked_again() -> None:
    referee = Referee.new(CONFIGS[0], policy=stand_in_policy())
    assert referee.reclaim(1) is False and referee.reclaims == []
    turn = referee.turn()
    assert turn is not None
    seat = turn.seat
    referee.fault(seat, "timeout", "no answer")
    referee.play_stand_in()
    while (turn := referee.turn()) is not None and turn.seat != seat:
        referee.submit(next(turn.legal.commands()))
    assert turn is not None and turn.stand_in is not None
    at = len(referee.events)
    assert referee.reclaim(seat) is True
    assert referee.reclaims == [Reclaim(seat, at)] and seat not in referee.stand_ins
    turn = referee.turn()
    assert turn is not None and turn.seat == seat and turn.stand_in is None
    referee.submit(next(turn.legal.commands()))  # accepted from its player again
    assert len(referee.faults) == 1
    later = referee.turn()
    assert later is not None
    fault = referee.fault(seat, "crash", "gone")  # a new fault after the reclaim counts
    assert fault is not None and len(referee.faults) == 2 and seat in referee.stand_ins


def test_seen_by_redacts_for_the_seat() -> None:
    referee = Referee.new(CONFIGS[0], policy=FaultPolicy.abort())
    assert referee.seen_by(1) == [visible(e, 1) for e in referee.events]
    assert referee.seen_by(1, 1) == [visible(e, 1) for e in referee.events[1:]]
    assert referee.seen_by(0) != referee.seen_by(1)


def test_a_fault_after_the_game_is_recorded_and_changes_nothing() -> None:
    for policy in (FaultPolicy.abort(), stand_in_policy()):
        referee = run(Referee.new(CONFIGS[2], policy=policy),
                      lambda t: next(t.legal.commands()))
        fault = referee.fault(1, "ignored-quit", "killed")
        assert fault is not None and referee.faults == [fault]
        assert referee.aborted is None and referee.stand_ins == {} and referee.over
    with pytest.raises(ValueError):
        referee.fault(2, "crash")


def test_from_events_resumes_where_the_events_stop() -> None:
    full = run(Referee.new(CONFIGS[1], policy=FaultPolicy.abort()),
               lambda t: next(t.legal.commands()))
    half = Referee.from_events(full.events[:20], policy=FaultPolicy.abort())
    assert half.state == replay(full.events[:20])
    run(half, lambda t: next(t.legal.commands()))
    assert half.events == full.events


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.game}-{c.mode}-{c.players}")
def test_run_and_run_async_play_the_same_game(config: Config) -> None:
    def game(seed: int) -> tuple[list[RandomAgent], list[Event]]:
        return [RandomAgent(seed + s) for s in range(config.players)], []

    agents, told = game(40)
    count = [0]

    def ask(turn: Turn) -> Command | Faulted:
        count[0] += 1
        if count[0] == 7:
            return Faulted("slow", "answered after 3 s")
        return agents[turn.seat].choose(turn.view, turn.legal)

    sync = run(Referee.new(config, policy=stand_in_policy()), ask, told.extend)

    agents2, told2 = game(40)
    count2 = [0]

    async def ask_async(turn: Turn) -> Command | Faulted:
        await asyncio.sleep(0)
        count2[0] += 1
        if count2[0] == 7:
            return Faulted("slow", "answered after 3 s")
        return agents2[turn.seat].choose(turn.view, turn.legal)

    asyn = asyncio.run(run_async(Referee.new(config, policy=stand_in_policy()), ask_async,
                                 told2.extend))
    assert sync.events == asyn.events and told == told2
    assert _tuples(sync.faults) == _tuples(asyn.faults) and len(sync.faults) == 1
    assert sync.over and told == sync.events[len(start(config)):]
    assert sync.events != stepped(config, 40)  # the stand-in's moves differ from the bot's


def test_the_readme_example_runs_and_prints_what_it_says(capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    block = readme_block("Hosting a game")
    exec(compile(block, "README.md", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    said = [line.split("# ", 1)[1] for line in block.splitlines() if line.startswith("print(")]
    assert printed[0] == said[0]
    assert printed[1].startswith(said[1].removesuffix("...)"))


@pytest.mark.parametrize("config", CONFIGS[:2], ids=lambda c: f"{c.game}-{c.mode}-{c.players}")
def test_run_async_has_stand_ins_think_where_the_host_says(config: Config) -> None:
    """``think`` makes every stand-in's choice (a host's worker) and ``before`` is awaited
    before every turn; the game is the one the inline loop plays."""
    inline = Referee.new(config, policy=stand_in_policy())
    for seat in range(config.players):
        inline.fault(seat, "crash")
    run(inline, lambda turn: Faulted("unasked"))
    thought, before = [0], [0]

    async def think(agent: object, view: object, legal: object) -> Command:
        thought[0] += 1
        await asyncio.sleep(0)
        return agent.choose(view, legal)  # type: ignore[attr-defined, no-any-return]

    async def wait(turn: Turn) -> None:
        before[0] += 1

    async def never(turn: Turn) -> Command | Faulted:
        raise AssertionError("every seat is a stand-in")

    hosted = Referee.new(config, policy=stand_in_policy())
    for seat in range(config.players):
        hosted.fault(seat, "crash")
    asyncio.run(run_async(hosted, never, think=think, before=wait))
    assert hosted.events == inline.events and hosted.over
    moves = sum(1 for e in hosted.events if e.kind in ("bid", "lead", "play"))
    assert thought[0] == moves == before[0] > 0
