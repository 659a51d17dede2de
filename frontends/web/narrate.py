"""The REPL's narration for a browser: ``say`` lines computed from what the seat was sent.

The page tells why a trick was won, how a round ended and (in the tutorial) what to do
now, in the same words as the REPL, because both take them from frontends/people
(``narration.narrate``, the game's presentation, ``teach``). A :class:`Narrator` folds
what one connection is sent (the seat's own view, or the public one: the table's objects
beside their lines) once, and adds its ``say`` lines after them (spec/WEB.md), so it can
never tell more than those lines did.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from xactika.core.bots.agents import make_agent
from xactika.core.engine.api import Config, Event, GameStarted, game_rules
from xactika.core.engine.errors import XactikaError
from xactika.frontends import i18n
from xactika.frontends.i18n import _
from xactika.frontends.people import narration, teach
from xactika.frontends.people.narration import Note, RoundOutcome, WhyWon, narrate
from xactika.frontends.people.presentation import presentation
from xactika.frontends.people.seats import seat_shown
from xactika.frontends.web.facts import PageFacts
from xactika.protocol.net.link import Line, Typed, text
from xactika.protocol.net.weblines import (
    SayCoach,
    SayDim,
    SayNames,
    SayNote,
    SayResult,
    SayRound,
    SayWhyWon,
)
from xactika.protocol.notation.text import parse_event
from xactika.protocol.player import wire
from xactika.protocol.player.agentside import SeatTracker
from xactika.protocol.player.wire import format_line

log = logging.getLogger(__name__)


def _one_line(text: str) -> str:
    return " ".join(text.split())


class Narrator:
    """One connection's fold (a seat's view, or a spectator's) and its narration:
    ``annotate`` returns the lines it is sent with the ``say`` lines added. It takes each
    event's object beside its line (link.Typed, issue 44), never parsing what the table
    formatted; a line without one (a test's, an old table's) is read as the page reads it."""

    def __init__(self, names: Callable[[], Sequence[str]], *, tutorial: bool = False) -> None:
        self.names = names
        self.tutorial = tutorial
        self.seat = -1  # a spectator until ``newgame seat=``
        self.config: Config | None = None
        self.events: list[Event] = []
        self.tracker: SeatTracker | None = None  # the one fold: narration and facts read it
        self._said_names: tuple[str, ...] = ()
        self._names: list[str] = []  # this message's names, as the narration says them
        self.facts = PageFacts()  # the ``say table`` lines: turn, sizes, stock, trump

    def annotate(self, lines: str | Sequence[Line]) -> str:
        out: list[str] = []
        names = tuple(self.names())  # asked once a message: they change between games
        self._names = [n or _("seat {n}").format(n=seat_shown(i)) for i, n in enumerate(names)]
        for line in lines.split("\n") if isinstance(lines, str) else lines:
            shown = text(line)
            if not shown:
                continue
            value = line if isinstance(line, Typed) else wire.read(shown)
            out += self._before(value)
            out.append(shown)
            try:
                out += self._after(value)
            except (XactikaError, ValueError, KeyError, IndexError, TypeError) as exc:
                log.warning("no narration after %.40r: %s", shown, exc)  # the line still goes
        if names != self._said_names:
            self._said_names = names
            out.insert(0, format_line(SayNames(names)))
        return "".join(line + "\n" for line in out)

    def _before(self, value: Typed | wire.Msg) -> list[str]:
        go = value.value if isinstance(value, Typed) else value
        if not isinstance(go, wire.Go) or self.tracker is None or self.config is None:
            return []
        try:
            return self._coach(go)
        except (XactikaError, ValueError, KeyError, IndexError, TypeError):
            return []

    def _coach(self, go: wire.Go) -> list[str]:
        """Why some cards are dimmed, and the tutorial's line in round 1."""
        assert self.tracker is not None and self.config is not None
        shown = presentation(self.config.game)
        state = self.tracker.state
        follow = shown.follow_rule(state, self.seat)
        said = []
        if go.kind == "play" and follow.can_follow:
            said.append(format_line(SayDim(
                _("you must follow the lead ({call}) and you can").format(call=follow.led))))
        if self.tutorial and state.round == 1:
            rules = game_rules(self.config.game)
            legal = wire.legal_from_go(go, self.seat, rules)
            hint = make_agent("heuristic", 1, self.config.game)
            move = shown.move_words(hint.choose(self.tracker.view(), legal))  # cards as seen
            said.append(format_line(SayCoach(_one_line(shown.coach(go.kind, follow, move)))))
        return said

    def _after(self, value: Typed | wire.Msg) -> list[str]:
        if isinstance(value, Typed) and value.event:
            event: Event = value.value  # the event as this connection sees it
        else:
            match value.value if isinstance(value, Typed) else value:
                case wire.Outcome() as outcome:
                    return self._result(outcome)
                case wire.NewGame(seat):
                    self.seat = seat
                    self.tracker = SeatTracker(self.seat)
                    self.events = []
                    return []
                case wire.EventLine(text=line):  # a line with no object: read as sent
                    event = parse_event(line, game_rules(self.config.game)
                                        if self.config is not None else None)
                case _:
                    return []
        if isinstance(event, GameStarted):
            self.config, self.events = event.config, []
            if self.tracker is None:  # a spectator's (no newgame): the public view
                self.tracker = SeatTracker(self.seat)
        elif self.config is None or self.tracker is None:
            return []  # resumed mid-game (``seat TOKEN resume=N``): nothing to narrate
        self.events.append(event)
        self.tracker.apply(event)
        config = self.config
        said = self.facts.after(self.tracker, config)
        if isinstance(event, GameStarted) and self.tutorial and self.seat >= 0:
            said += [format_line(SayCoach(_one_line(i18n.said(p))))
                     for p in teach.tutorial_intro(config, spoken=True)]
        for item in narrate(config, self.events, len(self.events) - 1, self._names,
                            tutorial=self.tutorial and self.seat >= 0, spoken=True):
            if isinstance(item, WhyWon):
                said.append(format_line(SayWhyWon(item.trick, item.winner,
                                                  _one_line(item.text))))
            elif isinstance(item, RoundOutcome) and item.text:
                said += [format_line(SayRound(_one_line(part)))
                         for part in item.text.split("\n")]
            elif isinstance(item, Note):
                said.append(format_line(SayNote(_one_line(item.text))))
        return said

    def _result(self, outcome: wire.Outcome) -> list[str]:
        """The server's outcome (its record's ``result``: a forfeited seat never wins) as
        the page's end screen shows it: ``say result winners=<s> forfeited=<s> <text>``."""
        names = [n or _("seat {n}").format(n=seat_shown(i)) for i, n in enumerate(self.names())]
        if len(names) != len(outcome.totals):
            names = [_("seat {n}").format(n=seat_shown(i)) for i in range(len(outcome.totals))]
        if self.seat >= 0:
            names[self.seat] = "you"
        notes = narration.outcome_notes(outcome.winners, outcome.forfeited, names,
                                      self.seat if self.seat >= 0 else None)
        text = " ".join(_one_line(n) + "." for n in notes)
        return [format_line(SayResult(outcome.winners, outcome.forfeited, text))]


def rules_texts(config: Config) -> dict[str, object]:
    """The ``rules`` texts and the tutorial's intro for the page (``/api/rules``)."""
    topics = teach.topics(config)
    return {"overview": teach.overview(config), "topics": topics,
            "headings": {key: i18n.said(key) for key in topics},  # typed in the REPL
            "tutorial": [i18n.said(p) for p in teach.tutorial_intro(config, spoken=True)],
            "title": i18n.said(presentation(config.game).title()),
            "mode": i18n.said(presentation(config.game).mode_name(config)),
            "banner": i18n.said(teach.mode_text(config))}
