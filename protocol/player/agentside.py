"""The bot side of the player protocol (spec/PLAYER.md), sans-I/O: ``feed(line) -> lines``.

:class:`PlayerSession` turns any core Agent into a player-protocol speaker, so a built-in
bot run as a process (``xactika bot NAME``) sees exactly what an external bot sees and
chooses from the same SeatView it would get in process. The host's ``go`` line is the
authority on what is legal; the view is folded from the event lines by
:class:`SeatTracker`. Lines are read and written with wire.py, and what every bot side
does alike (hello, isready, quit, an ``info`` for a line it cannot follow) is BotSide's
(botside.py), shared with the lean random bot.
"""

from __future__ import annotations

from typing import Any

import attrs

from xactika.core.bots.agents import Agent, RandomAgent
from xactika.core.engine.api import (
    EMPTY,
    Bid,
    Command,
    Dealt,
    Event,
    GameStarted,
    Legal,
    Play,
    State,
    TrickGame,
    evolve,
    game_rules,
)
from xactika.core.engine.errors import XactikaError
from xactika.core.engine.views import SeatView, view
from xactika.protocol.notation.text import parse_event
from xactika.protocol.player import wire
from xactika.protocol.player.botside import EVENT_BEFORE_NEWGAME, GO_TOO_EARLY, BotSide
from xactika.protocol.player.wire import PROTOCOL_VERSION as PROTOCOL_VERSION
from xactika.protocol.player.wire import answer_line

_UNSEEN = None  # stands for a card in another seat's hand (and is how views hide one)
_NO_CARD = object()  # an event without a card field


class SeatTracker:
    """Folds one seat's visible events into a state that :func:`view` can read.

    The core's fold removes a played card from the player's hand; here other hands are
    unseen, so they are kept as placeholders of the right size, a placeholder is swapped
    for the card when it is played, and a hidden draw adds one. ``view()`` then equals
    the host's view (a test checks this at every decision).
    """

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.state: State = EMPTY
        self.rules: TrickGame | None = None

    def apply(self, event: Event) -> None:
        state = self.state
        if isinstance(event, GameStarted):
            self.rules = game_rules(event.config.game)
            state = EMPTY
        elif isinstance(event, Dealt):
            own = event.hands[self.seat] if 0 <= self.seat < len(event.hands) else None
            # a hidden hand is as many unseen cards as one's own; a watcher (a seat of
            # its own none) holds none: the game says how many cards the round deals
            size = (len(own or ()) if own is not None or self.rules is None
                    else self.rules.hand_size(state.config, event.round))
            hands = tuple(
                h if h is not None else (_UNSEEN,) * size for h in event.hands
            )
            event = attrs.evolve(event, hands=hands)
        else:
            seat: int = getattr(event, "seat", self.seat)
            card = getattr(event, "card", _NO_CARD)
            other = seat != self.seat and bool(state.hands)
            if other and card is _UNSEEN:
                # another seat takes a card we may not see (Dix's draws): one more unseen
                state = evolve(state, event)
                self.state = attrs.evolve(state, hands=_give(state.hands, seat))
                return
            if other and card is not _NO_CARD and card not in state.hands[seat]:
                state = attrs.evolve(state, hands=_reveal(state.hands, seat, card))
        self.state = evolve(state, event)

    def view(self) -> SeatView:
        return view(self.state, self.seat)


def _give(hands: tuple[Any, ...], seat: int) -> tuple[Any, ...]:
    return hands[:seat] + ((*hands[seat], _UNSEEN),) + hands[seat + 1 :]


def _reveal(hands: tuple[Any, ...], seat: int, card: Any) -> tuple[Any, ...]:
    hand = list(hands[seat])
    if _UNSEEN in hand:
        hand[hand.index(_UNSEEN)] = card
    else:
        hand.append(card)
    return hands[:seat] + (tuple(hand),) + hands[seat + 1 :]


class PlayerSession(BotSide):
    """One bot's side of a session. Never raises on input: a bad line gets an ``info``."""

    ERRORS = (XactikaError, *BotSide.ERRORS)

    def __init__(self, agent: Agent, name: str = "bot", *, own_budget: bool = False) -> None:
        super().__init__(name)
        self.agent = agent
        # ``own_budget``: a go's time= bounds the agent's own budget instead of becoming it
        # (the server's built-in bots: a table's limit is a bound for programs, not how
        # long people should wait for a bot that plays its best in 100 ms)
        budget = getattr(agent, "think_ms", None) if own_budget else None
        self._own_budget: float | None = budget if isinstance(budget, int | float) else None
        self.tracker: SeatTracker | None = None
        self.last_view: SeatView | None = None
        self.last_time_ms: int | None = None
        # an agent that chooses from the legal moves alone needs no view: its events are
        # parsed (a bad one still gets an info) but not folded, most of a line's cost
        self._blind = agent if type(agent) is RandomAgent else None

    def _on_newgame(self, newgame: wire.NewGame) -> list[str]:
        self.tracker = SeatTracker(newgame.seat)
        return []

    def _on_event(self, line: wire.EventLine) -> list[str]:
        tracker = self.tracker
        if tracker is None:
            return [EVENT_BEFORE_NEWGAME]
        return self.feed_event(parse_event(line.text, tracker.rules))

    def feed_event(self, event: Event) -> list[str]:
        """An event as this seat sees it, from an in-process host (never a line to parse)."""
        tracker = self.tracker
        if tracker is None:
            return [EVENT_BEFORE_NEWGAME]
        if self._blind is None or isinstance(event, GameStarted):  # its rules parse the rest
            tracker.apply(event)
        observe = getattr(self.agent, "observe", None)
        if observe is not None:
            observe(tracker.seat, event)
        return []

    def _malformed(self, line: wire.Malformed, word: str, why: str) -> list[str]:
        if line.wanted is wire.EventLine and self.tracker is None:
            return [EVENT_BEFORE_NEWGAME]
        return super()._malformed(line, word, why)

    def _on_go(self, go: wire.Go) -> list[str]:
        choice = self.choice(go)
        try:
            if choice.broken is not None:
                raise choice.broken
            command = choice.agent.choose(choice.view, choice.legal)
        except Exception as exc:  # a bot's bug must not cost it the game: play legally
            return self.failed(choice, exc)
        return self.answer(choice, command)

    def choice(self, go: wire.Go) -> Choice:
        """What a ``go`` asks of the agent, the session's side done (the view folded, the
        agent's budget set): a host that must not think where it reads (the web's bots,
        whose moves are chosen in another process) makes the choice where it likes and
        gives it to :meth:`answer`. ValueError for a go that cannot be followed."""
        tracker = self.tracker
        if tracker is None or tracker.rules is None:
            raise ValueError(GO_TOO_EARLY)
        rules = tracker.rules
        legal, self.last_time_ms = wire.legal_from_go(go, tracker.seat, rules), go.time_ms
        if self.last_time_ms is not None and hasattr(self.agent, "think_ms"):
            budget = (self.last_time_ms if self._own_budget is None
                      else min(self._own_budget, self.last_time_ms))
            setattr(self.agent, "think_ms", budget)  # noqa: B010 (budgeted agents)
        if self._blind is not None:
            return Choice(self._blind, None, legal, rules)
        try:
            self.last_view = tracker.view()
        except Exception as exc:  # answered as the agent's own failure would be
            return Choice(self.agent, None, legal, rules, exc)
        return Choice(self.agent, self.last_view, legal, rules)

    def answer(self, choice: Choice, command: Any) -> list[str]:
        """The answer line for the agent's ``command``; the first option if it is none."""
        if not isinstance(command, Bid | Play) or command not in choice.legal:
            return [wire.format_info(f"agent chose {command!r}, not an option; playing the "
                                     "first option"), answer_line(choice.fallback, choice.rules)]
        return [answer_line(command, choice.rules)]

    @staticmethod
    def failed(choice: Choice, exc: Exception) -> list[str]:
        """The agent raised: an ``info`` and the first option (a bug never costs a game)."""
        return [wire.format_info(f"agent failed ({exc}); playing the first option"),
                answer_line(choice.fallback, choice.rules)]


@attrs.frozen
class Choice:
    """A ``go`` waiting for its agent: who chooses, from what, among which options."""

    agent: Any
    view: SeatView | None  # None for an agent that needs none (a random player)
    legal: Legal
    rules: Any
    broken: Exception | None = None  # the view could not be folded: play the first option

    @property
    def fallback(self) -> Command:
        return next(self.legal.commands())
