"""The referee loop, once: whose turn, apply a command, handle a seat's fault. No I/O.

Every host of a game (self-play, the match runner, check-bot, the table server, the
REPL, a web table) asks the seat to act, steps the game, tells the others, and decides
what a fault does. :class:`Referee` holds the state and every event and answers those
questions in the style of h11: it never reads, writes, waits or times anything; the
host asks its seats in its own way (pipes, sockets, a terminal) and feeds the answers
in. :func:`run` and :func:`run_async` are the loop itself, for hosts that can ask a
seat with one call.

What a fault does is an explicit :class:`FaultPolicy`: the game is aborted (check-bot),
or a stand-in agent plays the seat from then on (the match runner's and the server's
seeded random fallback; the REPL's replacement bot, which is told the game so far). A
stand-in seat may be reclaimed by its player (:meth:`Referee.reclaim`), for a table
that lets a person come back after a bot took over at their timeout. Every fault is
kept with the event count when it happened, so a record can say from where a seat was
played by someone else.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Protocol

import attrs

from xactika.core.engine.api import (
    Command,
    Config,
    Event,
    Legal,
    State,
    fast_new,
    legal_actions,
    replay,
    start,
    step,
)
from xactika.core.engine.errors import IllegalCommand
from xactika.core.engine.views import SeatView, view, visible


class StandIn(Protocol):
    """What may play a faulted seat: any core Agent (``core/bots/agents.py``).

    Written here as a protocol so that the engine imports nothing of the bots. A stand-in
    that also has ``observe(seat, event)`` is told the game so far when it takes the seat,
    and every later event, each as that seat may see it.
    """

    def choose(self, view: SeatView, legal: Legal) -> Command: ...


class SeatReplaced(IllegalCommand):
    """A command for a seat that a stand-in plays: its player must reclaim it first."""

    code = "replaced"


class GameAborted(IllegalCommand):
    """A command after a fault aborted the game."""

    code = "aborted"


@attrs.frozen
class Faulted:
    """A seat's answer that is no command: why, for :meth:`Referee.fault` (what an
    ``ask`` given to :func:`run` returns for its seat). ``reason`` is a MATCH.md reason."""

    reason: str
    detail: str = ""


@attrs.frozen
class Fault:
    """A recorded fault: ``seat`` faulted for ``reason`` when ``at`` events had happened."""

    seat: int
    reason: str
    detail: str
    at: int


@attrs.frozen
class Reclaim:
    """Seat ``seat`` was handed back to its player when ``at`` events had happened."""

    seat: int
    at: int


@attrs.frozen
class FaultPolicy:
    """What a fault does: ``abort`` ends the game; ``stand-in`` has the agent that
    ``make(seat)`` returns play the seat until its player reclaims it.

    Build one with :meth:`abort` or :meth:`stand_in`.
    """

    kind: str
    make: Callable[[int], StandIn] | None = None

    @classmethod
    def abort(cls) -> FaultPolicy:
        """The first fault ends the game: :attr:`Referee.aborted` says which."""
        return cls("abort")

    @classmethod
    def stand_in(cls, make: Callable[[int], StandIn]) -> FaultPolicy:
        """``make(seat)`` plays a faulted seat from then on; made when the seat faults."""
        return cls("stand-in", make)


@fast_new  # built for every move: attrs' frozen __init__ would cost more than it
@attrs.frozen(slots=True, weakref_slot=False)
class Turn:
    """Whose turn it is: ``seat`` may do what ``legal`` allows in ``state``.

    ``stand_in`` is the agent playing the seat after a fault (None while its player
    does); :meth:`Referee.play_stand_in` has it move. ``state`` is omniscient and for
    the host only: a seat gets :attr:`view`.
    """

    seat: int
    legal: Legal
    state: State
    stand_in: StandIn | None = None

    @property
    def view(self) -> SeatView:
        """What the seat to act may know (built on each call)."""
        return view(self.state, self.seat)


class Referee:
    """One game's state, events, faults and stand-ins; every change goes through here.

    Not thread-safe: one host drives it. ``events`` is the game's whole list (the
    opening included), appended to in place; read it, never change it.
    """

    def __init__(self, state: State, events: Sequence[Event] = (), *,
                 policy: FaultPolicy) -> None:
        """From ``state``; ``events`` are the events that led to it, when known (stand-ins
        that observe are told them, and :attr:`events` goes on from them)."""
        self.state = state
        self.events: list[Event] = list(events)
        self.policy = policy
        self.faults: list[Fault] = []
        self.reclaims: list[Reclaim] = []
        self.stand_ins: dict[int, StandIn] = {}
        self.aborted: Fault | None = None

    @classmethod
    def new(cls, config: Config, *, policy: FaultPolicy) -> Referee:
        """A new game from its settings: the opening events are already in :attr:`events`."""
        opening = start(config)
        return cls(replay(opening), opening, policy=policy)

    @classmethod
    def from_events(cls, events: Sequence[Event], *, policy: FaultPolicy) -> Referee:
        """A game resumed from its events (a loaded record, an undo)."""
        return cls(replay(events), events, policy=policy)

    # -- where the game stands
    @property
    def over(self) -> bool:
        """The game ended by its rules (not by an abort)."""
        return self.state.over

    @property
    def done(self) -> bool:
        """Nobody will act again: the game is over or aborted."""
        return self.aborted is not None or legal_actions(self.state).seat is None

    def turn(self) -> Turn | None:
        """The seat to act and what it may do, or None when the game is over or aborted."""
        if self.aborted is not None:
            return None
        state = self.state
        legal = legal_actions(state)
        seat = legal.seat
        if seat is None:
            return None
        stand_ins = self.stand_ins
        return Turn(seat, legal, state, stand_ins.get(seat) if stand_ins else None)

    # -- changing it
    def submit(self, command: Command) -> list[Event]:
        """Apply the command of the seat to act; its events (already in :attr:`events`).

        Raises the engine's IllegalCommand (state unchanged) for anything illegal;
        :class:`SeatReplaced` for a seat its stand-in plays, :class:`GameAborted` after
        an abort. The host tells the seats the events; the stand-ins are told here.
        """
        if self.aborted is not None:
            raise GameAborted(f"the game was aborted: seat {self.aborted.seat} "
                              f"{self.aborted.reason}")
        if self.stand_ins and command.seat in self.stand_ins:
            raise SeatReplaced(f"seat {command.seat} is played by a stand-in since its fault")
        if self.stand_ins:
            return self._apply(command)
        self.state, new = step(self.state, command)  # _apply, written out: once a move
        self.events.extend(new)
        return new

    def play_stand_in(self, command: Command | None = None) -> list[Event]:
        """The stand-in of the seat to act chooses and its command is applied; the events.

        ``command`` is a choice its stand-in made already, elsewhere (:func:`run_async`
        has it made in a worker thread): applied as the stand-in's even if the seat was
        reclaimed meanwhile (its player acts from its next turn). ValueError when nobody
        acts or the seat to act has no stand-in (and no ``command`` was made for it).
        """
        turn = self.turn()
        if turn is None or (turn.stand_in is None and command is None):
            raise ValueError("the seat to act has no stand-in")
        if command is None:
            assert turn.stand_in is not None
            command = turn.stand_in.choose(turn.view, turn.legal)
        elif command.seat != turn.seat or command not in turn.legal:
            raise ValueError(f"a stand-in's choice for seat {command.seat} is not a legal "
                             "move now")
        return self._apply(command)

    def _apply(self, command: Command) -> list[Event]:
        state, new = step(self.state, command)
        self.state = state
        self.events.extend(new)
        if self.stand_ins:
            for seat, agent in self.stand_ins.items():
                _tell(seat, agent, new)
        return new

    def fault(self, seat: int, reason: str, detail: str = "") -> Fault | None:
        """Seat ``seat`` faulted (timed out, crashed, broke the protocol); the policy acts.

        Returns the recorded fault, or None for a seat that a stand-in plays already
        (its player's fault was recorded when it happened; a second is not news). A
        fault once the game is done is recorded and changes nothing (a bot that ignored
        ``quit``). Under ``abort`` the first fault ends the game.
        """
        if seat in self.stand_ins:
            return None
        if not 0 <= seat < self.state.config.players:
            raise ValueError(f"no seat {seat} in a {self.state.config.players}-player game")
        fault = Fault(seat, reason, detail, len(self.events))
        self.faults.append(fault)
        if self.done:
            return fault
        if self.policy.kind == "abort" or self.policy.make is None:
            self.aborted = fault
            return fault
        agent = self.policy.make(seat)
        self.stand_ins[seat] = agent
        _tell(seat, agent, self.events)
        return fault

    def reclaim(self, seat: int) -> bool:
        """Give a stand-in seat back to its player, who acts from its next turn on.

        False (nothing changes) when no stand-in plays the seat. The host sends the
        player whatever it missed (:meth:`seen_by`).
        """
        if self.stand_ins.pop(seat, None) is None:
            return False
        self.reclaims.append(Reclaim(seat, len(self.events)))
        return True

    # -- what the seats are told
    def seen_by(self, seat: int, since: int = 0) -> list[Event]:
        """The events from index ``since`` on, as ``seat`` may see them."""
        return [visible(event, seat) for event in self.events[since:]]


def _tell(seat: int, agent: object, events: Sequence[Event]) -> None:
    observe = getattr(agent, "observe", None)
    if observe is not None:
        for event in events:
            observe(seat, visible(event, seat))


Ask = Callable[[Turn], Command | Faulted]
AskAsync = Callable[[Turn], Awaitable[Command | Faulted]]
Tell = Callable[[list[Event]], None]
Think = Callable[[StandIn, SeatView, Legal], Awaitable[Command]]
Before = Callable[[Turn], Awaitable[None]]


def run(referee: Referee, ask: Ask, tell: Tell | None = None) -> Referee:
    """Play until nobody acts: ``ask(turn)`` is the seat's command, or :class:`Faulted`;
    stand-ins move by themselves; ``tell`` gets each move's events.

    The opening events are the host's to tell before the loop (it has them first). An
    illegal command from ``ask`` propagates as the engine's IllegalCommand: a host that
    takes untrusted commands checks them against ``turn.legal`` and answers Faulted.
    """
    next_turn, submit, fault = referee.turn, referee.submit, referee.fault
    while (turn := next_turn()) is not None:
        if turn.stand_in is not None:
            new = referee.play_stand_in()
        else:
            answer = ask(turn)
            if isinstance(answer, Faulted):
                fault(turn.seat, answer.reason, answer.detail)
                continue
            new = submit(answer)
        if tell is not None:
            tell(new)
    return referee


async def run_async(referee: Referee, ask: AskAsync, tell: Tell | None = None, *,
                    think: Think | None = None, before: Before | None = None) -> Referee:
    """:func:`run` for asyncio hosts: ``ask`` is awaited, and so is every stand-in's move.

    A stand-in's search can take tens of milliseconds a move: inline it would hold the
    host's event loop, and a table of stand-ins would play a whole game in one call. So
    ``think(agent, view, legal)`` has the stand-in choose where the host says (a worker
    thread or process), and without it the loop yields after each stand-in move.
    ``before(turn)`` is awaited before each turn (a host's pace); the turn is read again
    after it, as after ``think``, since seats may fault or come back meanwhile.
    """
    while (turn := referee.turn()) is not None:
        if before is not None:
            await before(turn)
            if (turn := referee.turn()) is None:
                break
        if turn.stand_in is not None:
            if think is None:
                new = referee.play_stand_in()
                await asyncio.sleep(0)  # the other tasks run between two stand-in moves
            else:
                command = await think(turn.stand_in, turn.view, turn.legal)
                if referee.turn() is None:
                    break
                new = referee.play_stand_in(command)
        else:
            answer = await ask(turn)
            if isinstance(answer, Faulted):
                referee.fault(turn.seat, answer.reason, answer.detail)
                continue
            new = referee.submit(answer)
        if tell is not None:
            tell(new)
    return referee
