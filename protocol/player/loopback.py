"""Hosting without a process: a bot side in this process, and a player as a core Agent.

:class:`LoopbackPlayer` speaks the same lines as a process, through the same host logic
(base.py), to a sans-I/O bot side in this process; :class:`ProcessAgent` turns any player
(process, loopback, remote) into a core Agent that ``play_out`` can drive.
"""

from __future__ import annotations

from typing import Any

from xactika.core.engine.api import Command, Event, GameStarted, Legal, TrickGame, game_rules
from xactika.core.engine.views import SeatView, visible
from xactika.protocol.player.base import LineHook, PlayerBase
from xactika.protocol.player.faults import BotTimeout
from xactika.protocol.player.wire import QUIT, is_info


class LoopbackPlayer(PlayerBase):
    """A player-protocol speaker in this process (``feed(line) -> lines``), same framing.

    Lets tests, benchmarks and the REPL drive a built-in bot through exactly the lines a
    process would get, without a process.
    """

    def __init__(self, session: Any, *, name: str | None = None,
                 on_line: LineHook | None = None) -> None:
        super().__init__(name=name, on_line=on_line)
        self.session = session
        self._out: list[str] = []

    def _spawn(self) -> None:
        self._out.clear()

    def _write(self, line: str, limit: float | None = None) -> None:
        self._out.extend(self.session.feed(line))

    def _next(self, timeout: float | None, doing: str) -> str:
        while self._out:
            line = self._out.pop(0)
            if self.on_line is not None:
                self.on_line("<", line)
            if line.strip() and not is_info(line):
                return line
        self._fail(BotTimeout(f"bot {self.name!r} gave no answer while {doing}",
                              bot=self.name, startup=self._startup))

    def _stale(self) -> str | None:
        for line in self._out:
            if line.strip() and not is_info(line):
                return line
        self._out.clear()
        return None

    def quit(self, grace: float = 1.0) -> int | None:
        self._send(QUIT)
        return 0

    def _kill(self) -> None:
        self._out.clear()


# --------------------------------------------------------------------------- core agent


class ProcessAgent:
    """A core Agent backed by a player (process or loopback): play_out can drive it.

    It sends ``newgame`` when it sees game-started, an ``event`` line for every event
    (passed through ``visible`` again, so even an omniscient caller cannot leak), and
    ``go`` when asked. BotErrors propagate to the caller.
    """

    def __init__(self, player: PlayerBase, *, time_ms: int | None = None) -> None:
        self.player = player
        self.time_ms = time_ms
        self.seat: int | None = None
        self.rules: TrickGame | None = None

    def observe(self, seat: int, event: Event) -> None:
        event = visible(event, seat)
        if isinstance(event, GameStarted):
            self.seat = seat
            self.rules = game_rules(event.config.game)
            self.player.new_game(seat, [event], self.rules)
        elif self.rules is not None and seat == self.seat:
            self.player.tell(event)

    def choose(self, view: SeatView, legal: Legal) -> Command:
        if self.rules is None or self.seat is None:
            raise RuntimeError(
                "ProcessAgent was never told that a game started: drive it with "
                "self_play, or pass it the opening events through observe()"
            )
        if legal.seat != self.seat:
            raise ValueError(f"asked to act for seat {legal.seat}, but this bot plays {self.seat}")
        return self.player.ask(legal, self.rules, self.time_ms)
