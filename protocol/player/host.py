"""Drive bot programs from Python, in the manner of python-chess's ``chess.engine``.

``with Bot.popen(["python3", "mybot.py"], move_time=0.1) as bot:`` starts the program,
does the handshake (``hello``, ``isready``) and, on leaving the block (an exception
included), sends ``quit``, waits the grace and kills the bot's whole process group.
``bot.choose(position)`` asks for one decision; a position is a :class:`SeatView`, or a
game's events (a record's, say) with the seat to ask for. :func:`play_game` plays a whole
game that mixes bot programs and built-in bots and returns its record. Faults are the
client's typed errors: :class:`BotTimeout`, :class:`BotCrashed`, :class:`BotProtocolError`,
:class:`BotIllegalMove` (all :class:`BotError`); the faulty bot is dead when one is raised.

The asyncio flavour (:meth:`Bot.popen_async`, :func:`play_game_async`) runs these same
blocking calls in the event loop's default thread pool (``asyncio.to_thread``): each bot
waits in a thread of its own, so many games proceed at once without a second protocol
implementation. Size the pool (``loop.set_default_executor``) for the number of bots
that think at the same moment.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Sequence
from typing import Any, Self

import attrs

from xactika.core.bots.agents import Agent, make_agent, self_play
from xactika.core.engine.api import (
    Bid,
    BidMade,
    Command,
    Config,
    Dealt,
    Event,
    GameOver,
    GameStarted,
    Led,
    Play,
    Played,
    TrickWon,
    game_rules,
    legal_actions,
    replay,
)
from xactika.core.engine.errors import XactikaError
from xactika.core.engine.rng import fresh_seed
from xactika.core.engine.views import SeatView, view, visible
from xactika.protocol.notation.untrusted import escape
from xactika.protocol.player.process import (
    BotCrashed,
    BotError,
    BotIllegalMove,
    BotProtocolError,
    BotTimeout,
    LineHook,
    PlayerProcess,
    ProcessAgent,
)
from xactika.protocol.records.assemble import RecordFacts, record_headers
from xactika.protocol.records.textform import RECORD_VERSION, Record, result_line
from xactika.protocol.trust.tamper import commit_config

__all__ = [
    "AsyncBot", "Bot", "BotCrashed", "BotError", "BotIllegalMove", "BotProtocolError",
    "BotTimeout", "play_game", "play_game_async", "view_events",
]

Position = SeatView | Sequence[Event]


class Bot:
    """One running bot program. Use it from one game (or one ``choose``) at a time."""

    def __init__(self, player: PlayerProcess, move_time: float | None = None) -> None:
        self.player = player
        self.move_time = move_time
        self._lock = threading.Lock()

    @classmethod
    def popen(cls, argv: Sequence[str], *, move_time: float | None = None,
              timeout: float = 10.0, startup_timeout: float = 10.0,
              name: str | None = None, cwd: str | os.PathLike[str] | None = None,
              stderr_path: str | os.PathLike[str] | None = None,
              on_line: LineHook | None = None) -> Bot:
        """Start ``argv`` and do the handshake. ``move_time`` (seconds) is the budget sent
        with each ``go``; ``timeout`` the hard limit per answer (at least
        ``move_time`` + 1 s); ``on_line(direction, line)`` sees every line both ways."""
        limit = timeout if move_time is None else max(timeout, move_time + 1.0)
        player = PlayerProcess(argv, cwd=cwd, stderr_path=stderr_path, name=name,
                               startup_timeout=startup_timeout, move_timeout=limit,
                               on_line=on_line)
        player.start()  # a start-up fault raises here, the process already killed
        return cls(player, move_time)

    @classmethod
    async def popen_async(cls, argv: Sequence[str], **options: Any) -> AsyncBot:
        """:meth:`popen` in a worker thread; the result's methods are coroutines."""
        bot = await asyncio.to_thread(cls.popen, argv, **options)
        return AsyncBot(bot)

    @property
    def name(self) -> str:
        """The bot's name (as it gave it in ``hello``, escaped: it is outside text)."""
        return escape(self.player.name, 40)

    @property
    def _time_ms(self) -> int | None:
        return None if self.move_time is None else max(1, round(self.move_time * 1000))

    # -- one decision
    def choose(self, position: Position, seat: int | None = None) -> Command:
        """The bot's move in ``position``: a SeatView (its seat acts), or events with
        ``seat`` (default: whoever acts). The bot gets a fresh ``newgame`` and the events
        its seat may see; earlier rounds reach it only from events, not from a view."""
        events = _position_events(position, seat)
        state = replay(events)
        legal = legal_actions(state)
        if isinstance(position, SeatView):
            seat = position.seat
        if legal.seat is None:
            raise ValueError("nobody may act in this position")
        if seat is not None and legal.seat != seat:
            raise ValueError(f"seat {legal.seat} acts in this position, not seat {seat}")
        rules = game_rules(state.config.game)
        with self._busy():
            self.player.new_game(legal.seat, [visible(e, legal.seat) for e in events], rules)
            return self.player.ask(legal, rules, self._time_ms)

    def bid(self, position: Position, seat: int | None = None) -> int:
        """The bot's bid; ValueError where the position asks for a card."""
        command = self._expect(position, seat, "bid")
        assert isinstance(command, Bid)
        return command.bid

    def play(self, position: Position, seat: int | None = None) -> Play:
        """The bot's card (and call, when it leads); ValueError where a bid is due."""
        command = self._expect(position, seat, "play")
        assert isinstance(command, Play)
        return command

    def _expect(self, position: Position, seat: int | None, kind: str) -> Command:
        events = _position_events(position, seat)
        legal = legal_actions(replay(events))
        if (legal.kind == "bid") != (kind == "bid"):
            raise ValueError(f"this position asks for a {legal.kind}, not a {kind}")
        return self.choose(events, seat)

    def agent(self) -> ProcessAgent:
        """This bot as a core Agent (``self_play``/``play_out`` can drive it)."""
        return ProcessAgent(self.player, time_ms=self._time_ms)

    def _busy(self) -> _Claim:
        return _Claim(self)

    # -- life cycle
    def quit(self, grace: float = 1.0) -> int | None:
        """``quit``, ``grace`` seconds, then kill the process group; the exit code."""
        return self.player.quit(grace)

    close = quit

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.quit()


class _Claim:
    """Holds a bot for one game; a second game at the same time is a clear error."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot

    def __enter__(self) -> None:
        if not self.bot._lock.acquire(blocking=False):
            raise ValueError(f"bot {self.bot.name!r} is already playing a game")

    def __exit__(self, *exc: object) -> None:
        self.bot._lock.release()


class AsyncBot:
    """A :class:`Bot` for asyncio hosts: each call runs in a worker thread."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot

    @property
    def name(self) -> str:
        return self.bot.name

    async def choose(self, position: Position, seat: int | None = None) -> Command:
        return await asyncio.to_thread(self.bot.choose, position, seat)

    async def bid(self, position: Position, seat: int | None = None) -> int:
        return await asyncio.to_thread(self.bot.bid, position, seat)

    async def play(self, position: Position, seat: int | None = None) -> Play:
        return await asyncio.to_thread(self.bot.play, position, seat)

    async def quit(self, grace: float = 1.0) -> int | None:
        return await asyncio.to_thread(self.bot.quit, grace)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.quit()


# --------------------------------------------------------------------------- positions


def view_events(seen: SeatView) -> list[Event]:
    """Events that fold, for ``seen.seat``, to ``seen``'s round: the settings, the
    seat's deal (its hand plus the cards it has played), the bids and the tricks so far.

    Totals of earlier rounds are not in a view's events (pass the game's events for
    them); a view that these events cannot rebuild (Dix's draws) is a ValueError.
    """
    rules = game_rules(seen.config.game)
    n = seen.config.players
    own = [card for trick in seen.tricks for s, card in trick.plays if s == seen.seat]
    own += [card for s, card in seen.trick if s == seen.seat]
    dealt = tuple(sorted((*seen.hand, *own), key=rules.sort_key))
    hands = tuple(dealt if s == seen.seat else None for s in range(n))
    events: list[Event] = [
        GameStarted(1, seen.config),
        Dealt(2, seen.round, seen.dealer, hands, None, seen.turned),
    ]

    def add(event_type: Any, *fields: Any) -> None:
        events.append(event_type(len(events) + 1, *fields))

    first = (seen.dealer + 1) % n
    for i in range(n):
        s = (first + i) % n
        if seen.bids and seen.bids[s] is not None:
            add(BidMade, s, seen.bids[s])
    for number, trick in enumerate(seen.tricks, 1):
        (leader, lead), *rest = trick.plays
        add(Led, leader, lead, trick.call)
        for s, card in rest:
            add(Played, s, card)
        add(TrickWon, trick.winner, number)
    if seen.trick:
        (leader, lead), *rest = seen.trick
        add(Led, leader, lead, seen.call)
        for s, card in rest:
            add(Played, s, card)
    try:
        rebuilt = view(replay(events), seen.seat)
    except (XactikaError, IndexError) as exc:
        raise ValueError(f"cannot rebuild this view as events: {exc}") from None
    # a seat's own fold cannot count the other hands: the deal fixes their sizes
    played = [0] * n
    for s, _ in (*(play for trick in seen.tricks for play in trick.plays), *seen.trick):
        played[s] += 1
    sizes = tuple(rules.hand_size(seen.config) - k for k in played)
    if sizes != seen.hand_sizes or attrs.evolve(rebuilt, totals=(), hand_sizes=()) != (
        attrs.evolve(seen, totals=(), hand_sizes=())
    ):
        raise ValueError(
            "cannot rebuild this view as events (it holds more than a deal, bids and "
            "tricks): pass the game's events and the seat instead"
        )
    return events


def _position_events(position: Position, seat: int | None) -> list[Event]:
    if isinstance(position, SeatView):
        if seat is not None and seat != position.seat:
            raise ValueError(f"this is seat {position.seat}'s view, not seat {seat}'s")
        return view_events(position)
    events = list(position)
    if not events or not isinstance(events[0], GameStarted):
        raise ValueError("a position's events start with game-started")
    return events


# --------------------------------------------------------------------------- whole games

Seat = Bot | AsyncBot | Agent | str


def play_game(config: Config, seats: Sequence[Seat], *, seed: int | None = None) -> Record:
    """Play one whole game: ``seats[s]`` is a :class:`Bot`, a built-in bot's name
    (``"heuristic"``) or any Agent. Without a seed or preset deals in ``config`` the deal
    seed is drawn at random; the game commits to it (spec/TAMPER.md). ``seed`` seeds the
    built-in bots. Returns the record (``print(record)`` shows its text,
    ``record.write(path)`` saves it); a bot's fault propagates as its BotError."""
    if len(seats) != config.players:
        raise ValueError(f"{len(seats)} seats for a {config.players}-player game")
    if config.seed is None and config.deals is None:
        config = attrs.evolve(config, seed=fresh_seed())
    game_rules(config.game).validate(config)
    if config.commit is None and config.seed is not None:
        config = commit_config(config)
    agents: list[Agent] = []
    names: list[str] = []
    claims: list[_Claim] = []
    for s, seat in enumerate(seats):
        if isinstance(seat, AsyncBot):
            seat = seat.bot
        if isinstance(seat, Bot):
            agents.append(seat.agent())
            names.append(seat.name)
            claims.append(seat._busy())
        elif isinstance(seat, str):
            base = None if seed is None else seed * 1000 + s
            agents.append(make_agent(seat, base, config.game))
            names.append(seat)
        else:
            agents.append(seat)
            names.append(type(seat).__name__)
    held: list[_Claim] = []
    try:
        for claim in claims:
            claim.__enter__()
            held.append(claim)
        _state, events = self_play(config, agents)
    finally:
        for claim in held:
            claim.__exit__()
    headers = (("record", RECORD_VERSION),
               *record_headers(RecordFacts(config, [_seat_name(n) for n in names],
                                           seed=False), events))
    last = events[-1] if events else None
    result = (result_line(headers, last.totals, last.winners)
              if isinstance(last, GameOver) else None)
    return Record(headers, tuple(events), result=result)


async def play_game_async(config: Config, seats: Sequence[Seat], *,
                          seed: int | None = None) -> Record:
    """:func:`play_game` in a worker thread, so that many games run at once."""
    return await asyncio.to_thread(play_game, config, seats, seed=seed)


def _seat_name(name: str) -> str:
    """A seat's name for the ``seats`` header: escaped, no commas, never empty."""
    text = escape(name, 40).replace(",", "\\x2c").replace(" ", "_")
    return text or "bot"
