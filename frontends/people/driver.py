"""A game for people, with no terminal: seats, bots acting, moves as typed, undo, hints,
saving, and the narration of what happened.

:class:`Driver` holds one game's event log and seats. Bots act inside it until a person
must decide (:meth:`Driver.run_bots`), a person's move goes through :meth:`Driver.move`
(the words they typed) or :meth:`Driver.apply` (a command), and each returns what
happened as narration values (:mod:`.present`). It draws nothing: the REPL
(``frontends/repl/shell.py``) lays it out for a terminal, a web table as HTML.
Everything a person is shown comes from their own :func:`view` or from public events,
never from the omniscient state.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Sequence
from typing import Any

import attrs

from xactika.core.bots.agents import Agent
from xactika.core.engine.api import (
    Bid,
    BidMade,
    Command,
    Dealt,
    Event,
    Led,
    Legal,
    Play,
    Played,
    RoundScored,
    State,
    TrickGame,
    legal_actions,
)
from xactika.core.engine.errors import IllegalCommand, XactikaError
from xactika.core.engine.referee import Faulted, FaultPolicy, Referee, Turn
from xactika.core.engine.views import SeatView, view, visible
from xactika.frontends.i18n import _, said
from xactika.frontends.people import narration
from xactika.frontends.people.moves import Moves, calls_text, command_text
from xactika.frontends.people.presentation import Presentation, Progress, presentation, seat_label
from xactika.frontends.people.seats import (
    BOT,
    CMD,
    HUMAN,
    SeatSpec,
    default_names,
    seats_from_headers,
)
from xactika.protocol.records.textform import utc_date
from xactika.protocol.trust.signing import Signer

AgentFactory = Callable[[int], Agent]


def _stand_in(seat: int) -> Agent:
    """What plays a bot program's seat after it faults: a random bot."""
    from xactika.core.bots.agents import make_agent

    return make_agent("random", seat)


class CannotUndo(XactikaError):
    """Nothing to take back, or not in this game; the message says which."""

    code = "undo"


class SaveError(XactikaError):
    """The record could not be written; the message says why, in one line."""

    code = "save"


class LoadError(XactikaError):
    """A saved game that cannot be continued; the message says why, in one line."""

    code = "load"


@attrs.frozen
class Loaded:
    """A saved game to continue: its events (a cut-short action's effects finished),
    the seats it was played with (None if the record does not say) and its start date."""

    events: tuple[Event, ...]
    seats: tuple[SeatSpec, ...] | None
    started: str | None


def unreadable(path: str) -> str | None:
    """Why ``path`` cannot be read (``No such file or directory``), or None.

    Asked of its metadata, never by opening it: opening a FIFO would wait for a writer.
    What it holds (a device, a FIFO, a bad line) is the record reader's to judge.
    """
    try:
        os.stat(path)
    except OSError as exc:
        return str(exc.strerror or exc)
    if not os.access(path, os.R_OK):
        return os.strerror(errno.EACCES)
    return None


def load_game(path: str) -> Loaded:
    """A saved game, checked event by event; raises LoadError naming the first problem."""
    from xactika.core.engine.check import check_log
    from xactika.protocol.records.textform import read_record

    why = unreadable(path)
    if why is not None:
        raise LoadError(_("cannot read {path}: {why}").format(path=path, why=why))
    try:
        record = read_record(path)
        events = list(record.events)
        check = check_log(events)  # raises InvalidEvent naming the first bad event
        seats = seats_from_headers(record.headers, events[0].config.players)
    except XactikaError as exc:
        raise LoadError(_("cannot load {path}: {error}").format(path=path, error=exc)) from None
    events += list(check.pending)  # a record cut short after an action: finish its effects
    date = record.header("date")  # older saves wrote +00:00 for Z
    return Loaded(tuple(events), tuple(seats) if seats is not None else None,
                  date.replace("+00:00", "Z") if date else None)


@attrs.frozen
class Saved:
    """A game written to ``path``: ``events`` events, every hand included."""

    path: str
    events: int


class Driver:
    """One game at a table: the event log, the seats, and the bots at the seats not human.

    ``make_agent(seat)`` builds a fresh bot for a bot seat (used again after an undo,
    when bots are rebuilt and shown the shortened log); ``make_hint(seat)`` builds the
    advisor for a human seat. External bots cannot be rewound, so games with them (and
    hot-seat games, where undo would show one human another's decisions) are not
    practice games.
    """

    key_file: str | None = None  # the private key that signs saves (None: the user's)

    def __init__(
        self,
        events: Sequence[Event],
        seats: Sequence[SeatSpec],
        make_agent: AgentFactory,
        *,
        make_hint: Callable[[int], Agent | None] | None = None,
        practice: bool | None = None,
        names: Sequence[str] | None = None,
        show_seed: bool = True,
        tutorial: bool = False,
        started: str | None = None,
    ) -> None:
        self.referee = Referee.from_events(events, policy=FaultPolicy.stand_in(_stand_in))
        # the record's date is when the game started, not when it was saved
        self.started = started or utc_date()
        self.config = self.state.config
        self.rules: TrickGame = self.state.rules
        self.shown: Presentation = presentation(self.config.game)
        self.seats = list(seats)
        if len(self.seats) != self.config.players:
            raise ValueError(f"{len(self.seats)} seats for {self.config.players} players")
        self.humans = [s for s, spec in enumerate(self.seats) if spec.kind == HUMAN]
        self.hot_seat = len(self.humans) > 1
        can_undo = not self.hot_seat and all(s.kind != CMD for s in self.seats)
        self.practice = can_undo if practice is None else (practice and can_undo)
        self.tutorial = tutorial  # round 1 is coached: what to do now, and why
        # The seed fixes every hand: told up front only to whoever chose it, else at the end.
        self.show_seed = show_seed
        self._make_agent = make_agent
        self._make_hint = make_hint
        self.names = (list(names) if names is not None
                      else default_names(self.seats, self.config.game))
        self.agents: dict[int, Agent] = {}
        self.hints: dict[int, Agent | None] = {}
        self.faults: list[narration.Item] = []
        self._build_agents()

    # ----------------------------------------------------------------- set-up

    def _build_agents(self) -> None:
        self.agents = {
            s: self._make_agent(s) for s, spec in enumerate(self.seats) if spec.kind != HUMAN
        }
        self.hints = {s: (self._make_hint(s) if self._make_hint else None) for s in self.humans}
        self.faults = self._tell_all(self.events)  # told by the next run_bots()

    def _tell_all(self, events: Sequence[Event]) -> list[narration.Item]:
        """Tell every bot ``events``; a bot program that faults is replaced, said once."""
        faults: list[narration.Item] = []
        for seat, agent in [*self.agents.items(), *self.hints.items()]:
            if agent is None:
                continue
            try:
                self._tell(seat, agent, events)
            except XactikaError as exc:  # a BotError: it closed its input, crashed...
                if self.agents.get(seat) is agent:
                    reason = getattr(exc, "reason", None) or getattr(exc, "code", "error")
                    faults.append(self._replace_bot(seat, Faulted(str(reason), str(exc))))
                else:
                    self.hints[seat] = None
        return faults

    @staticmethod
    def _tell(seat: int, agent: Agent, events: Sequence[Event]) -> None:
        observe = getattr(agent, "observe", None)
        if observe is not None:
            for event in events:
                observe(seat, visible(event, seat))

    def close(self) -> None:
        """Stop bot processes."""
        for seat in list(self.agents):
            self.close_one(seat)

    def close_one(self, seat: int) -> None:
        """Quit a bot program (a ProcessAgent's player); built-in bots need nothing."""
        player = getattr(self.agents.get(seat), "player", None)
        quit_ = getattr(player, "quit", None)
        if callable(quit_):
            try:
                quit_()
            except Exception:  # a dead bot may fail to quit
                pass

    # ----------------------------------------------------------------- queries

    @property
    def state(self) -> State:
        """The omniscient state: for the driver only; a person is shown a view."""
        return self.referee.state

    @state.setter
    def state(self, value: State) -> None:  # a front end that folds events itself
        self.referee.state = value

    @property
    def events(self) -> list[Event]:
        """The game's whole log, the opening included; read it, never change it."""
        return self.referee.events

    @events.setter
    def events(self, value: list[Event]) -> None:
        self.referee.events = list(value)

    @property
    def over(self) -> bool:
        return self.state.over

    @property
    def legal(self) -> Legal:
        return legal_actions(self.state)

    @property
    def human_to_act(self) -> int | None:
        seat = self.legal.seat
        return seat if seat is not None and seat in self.humans else None

    def label(self, seat: int) -> str:
        return seat_label(seat, self.names)

    def shown_hand(self, seat: int) -> list[Any]:
        """``seat``'s hand in the order shown: position 1 first."""
        return sorted(self.state.hands[seat], key=self.rules.sort_key)

    def seat_view(self, seat: int) -> SeatView:
        return view(self.state, seat)

    def scored(self) -> list[RoundScored]:
        return [e for e in self.events if isinstance(e, RoundScored)]

    def progress(self, seen: SeatView | State | None = None) -> Progress:
        """The round so far: tricks taken and the game's own counts (Dix's points)."""
        return self.shown.progress(self.config, self.state if seen is None else seen)

    def final_standings(self) -> narration.Standings:
        return narration.standings(self.config, self.state.totals, self.events)

    # ----------------------------------------------------------------- the game loop
    # The one referee loop (core/engine/referee.py) keeps the state, the log, the faults
    # and the stand-ins; here bots are asked until a person must decide.

    def run_bots(self) -> list[narration.Item]:
        """Let bots act until a human must decide or the game ends; narrate it."""
        items, self.faults = self.faults, []
        while (turn := self.referee.turn()) is not None and turn.seat not in self.humans:
            if turn.stand_in is not None:  # a faulted seat's replacement
                items += self._told(self.referee.play_stand_in())
                continue
            answer = self._ask(turn)
            if isinstance(answer, Faulted):
                items.append(self._replace_bot(turn.seat, answer))
                continue
            items += self._told(self.referee.submit(answer))
        return items

    def _ask(self, turn: Turn) -> Command | Faulted:
        """The bot at the seat to act chooses; a bad answer is its fault."""
        try:
            command = self.agents[turn.seat].choose(turn.view, turn.legal)
            if command not in turn.legal:
                raise IllegalCommand(f"the bot chose an illegal move: {command}")
        except XactikaError as exc:  # a BotError: it timed out, crashed, broke the protocol
            reason = getattr(exc, "reason", None) or getattr(exc, "code", "error")
            return Faulted(str(reason), str(exc))
        return command

    def apply(self, command: Command) -> list[narration.Item]:
        """Play a person's ``command`` (raises IllegalCommand, state unchanged); narrate it."""
        return self._told(self.referee.submit(command))

    def _told(self, new: list[Event]) -> list[narration.Item]:
        """Tell the bots a move's events; narrate them."""
        items = self._tell_all(new)
        return items + self.narrate(len(self.events) - len(new))

    def move(self, seat: int, text: str) -> list[narration.Item]:
        """A person's move as typed, then the bots until a person must decide again.

        Raises :class:`XactikaError` (a ParseError or IllegalCommand) with a sentence
        saying why; nothing changes then.
        """
        command = self.moves(seat).parse(text.split())
        return self.apply(command) + self.run_bots()

    def narrate(self, first: int) -> list[narration.Item]:
        """The narration of ``events[first:]`` as the person here may see it: their own
        draws, never a bot's; in a hot-seat game only what is public (the next person
        reads it)."""
        viewer = self.humans[0] if len(self.humans) == 1 else -1
        return narration.narrate(self.config, self.events, first, self.names,
                               shown=lambda event: visible(event, viewer),
                               tutorial=self.tutorial)

    def _replace_bot(self, seat: int, fault: Faulted) -> narration.Note:
        """A failed external bot gives its seat to a built-in one so the game goes on."""
        old = self.label(seat)
        self.close_one(seat)
        self.agents.pop(seat, None)  # the referee's stand-in plays it, told the game so far
        self.referee.fault(seat, fault.reason, fault.detail)
        self.seats[seat] = SeatSpec(BOT, "random")
        self.names[seat] = "random"
        self.practice = False
        return narration.Note("fault", _("{who} faulted ({reason}: {detail}); a random bot "
                                       "takes over the seat").format(
            who=old, reason=fault.reason, detail=fault.detail))

    # ----------------------------------------------------------------- moves

    def moves(self, seat: int) -> Moves:
        """What ``seat`` may type now (parses ``bid 2``, ``3 st``, ``QH``)."""
        return Moves(self.config, self.legal, seat, tuple(self.shown_hand(seat)))

    def command_text(self, seat: int, command: Command) -> str:
        """The command as the player would type it."""
        return command_text(command, self.rules)

    def hint(self, seat: int) -> tuple[Command, str] | None:
        """The hint bot's move for ``seat`` and its one-line reason (may be empty)."""
        agent = self.hints.get(seat)
        if agent is None or self.legal.seat != seat:
            return None
        v = view(self.state, seat)
        explain = getattr(agent, "explain", None)
        if explain is not None:
            command, reason = explain(v, self.legal)
            # a bot's Reason is a str that keeps its template, for shown.reason()
            return command, reason if isinstance(reason, str) else str(reason)
        return agent.choose(v, self.legal), ""

    def why_no_undo(self) -> str | None:
        """Why this game has no undo, or None when it has."""
        if self.practice:
            return None
        return (_("undo is for practice games only, not hot-seat games") if self.hot_seat
                else _("undo is for practice games only, not games with external bots")
                if any(s.kind == CMD for s in self.seats) else
                _("undo is for practice games only, not this game (--no-undo)"))

    def take_back(self, seat: int) -> Command:
        """Undo ``seat``'s last decision of this round and everything after it.

        A round already scored stays scored: undo never reaches back across a deal,
        whether the round was played here or loaded from a record; and, as on Board Game
        Arena, undo stops at the first card another seat showed (a bid taken back after
        the bots led would be made knowing their cards).
        """
        why = self.why_no_undo()
        if why is not None:
            raise CannotUndo(why)
        for i in range(len(self.events) - 1, -1, -1):
            event = self.events[i]
            if isinstance(event, Dealt):
                raise CannotUndo(_("nothing to undo: you have not decided anything yet")
                                 if self.state.round <= 1 else
                                 _("nothing to undo in this round: a round already scored "
                                   "stays as it was played"))
            if isinstance(event, BidMade | Led | Played) and event.seat == seat:
                break
        else:
            raise CannotUndo(_("nothing to undo: you have not decided anything yet"))
        shown = next((e for e in self.events[i + 1:]
                      if isinstance(e, Led | Played) and e.seat != seat), None)
        if shown is not None:  # BGA's rule: what another seat showed is not taken back
            said = (_("undo stops at the first card another seat showed: {who} played "
                      "{card} after your bid") if isinstance(event, BidMade) else
                    _("undo stops at the first card another seat showed: {who} played "
                      "{card} after your card"))
            raise CannotUndo(said.format(who=self.label(shown.seat), card=shown.card))
        taken = (Bid(seat, event.bid) if isinstance(event, BidMade)
                 else Play(seat, event.card, getattr(event, "call", None)))
        self.referee = Referee.from_events(self.events[:i], policy=self.referee.policy)
        self._build_agents()
        return taken

    # ----------------------------------------------------------------- what to do now

    def coach_tip(self, seat: int) -> str:
        """The tutorial's line before a move in round 1 (empty otherwise)."""
        if not (self.tutorial and self.state.round == 1):
            return ""
        found = self.hint(seat)
        suggestion = f"'{self.command_text(seat, found[0])}'" if found else ""
        return self.shown.coach(self.legal.kind, self.shown.follow_rule(self.state, seat),
                                suggestion)

    def can_follow(self, seat: int) -> bool:
        """Whether ``seat``, following, holds a card the follow rule makes it play."""
        if self.legal.kind != "play" or not self.state.trick:
            return False
        return self.shown.follow_rule(self.state, seat).can_follow

    def what_to_do(self, seat: int) -> str:
        """The line before the prompt: what may be played now."""
        legal = self.legal
        if legal.kind == "bid":
            return _("your bid (legal: {bids}): e.g. 'bid {first}' or just '{first}'").format(
                bids=" ".join(map(str, legal.bids)), first=legal.bids[0])
        order = self.shown_hand(seat)
        if legal.kind == "lead":
            first = order[0]
            if legal.calls(first) == (None,):
                return _("your lead: any card, e.g. 'play 1' or just '1'")
            calls = calls_text(self.shown, self.rules, legal.calls(first))
            return _("your lead: any card, with a call: e.g. 'play 1 {call}' ({card} calls "
                     "{calls}; the shape alone is enough)").format(
                call=self.rules.format_call(legal.calls(first)[0]), card=first, calls=calls)
        positions = " ".join(str(i) for i, c in enumerate(order, 1) if c in set(legal.cards))
        if self.can_follow(seat):
            if len(legal.cards) == len(order):
                return _("you must follow, and every card you hold does: play any of them")
            if len(legal.cards) == 1:
                return _("you must follow: play position {n} (marked)").format(n=positions)
            return _("you must follow: play one of positions {list} (marked)").format(
                list=positions)
        return said(self.shown.cannot_follow(self.shown.follow_rule(self.state, seat),
                                             self.state.call))

    def legal_text(self, seat: int) -> str:
        """The legal moves in words, after a refused one ("" when not ``seat``'s turn)."""
        legal = self.legal
        if legal.seat != seat:
            return ""
        if legal.kind == "bid":
            return _("legal bids: {list}").format(list=" ".join(map(str, legal.bids)))
        order = self.shown_hand(seat)
        cards = ", ".join(_("{card} (position {n})").format(card=c, n=order.index(c) + 1)
                          for c in legal.cards)
        if legal.kind == "lead":
            card = order[0]
            call = legal.calls(card)[0]
            example = (f"'play 1 {self.rules.format_call(call)}'" if call is not None
                       else "'play 1'")
            if call is None:
                return _("you lead: any card, e.g. {example}").format(example=example)
            return _("you lead: any card with one of its calls, e.g. {example}").format(
                example=example)
        return _("legal cards: {list}").format(list=cards)

    # ----------------------------------------------------------------- records

    def headers(self) -> list[tuple[str, str]]:
        from xactika.protocol.records.assemble import RecordFacts, record_headers

        extra = {f"seat.{s}": spec.text() for s, spec in enumerate(self.seats)}
        extra["practice"] = "yes" if self.practice else "no"
        return record_headers(RecordFacts(self.config, self.names, date=self.started,
                                          extra=extra), self.events)

    def record_text(self, signer: Signer | None = None) -> str:
        from xactika.protocol.records.textform import format_record

        return format_record(self.headers(), self.events, signer=signer)

    def write_record(self, path: str) -> Saved:
        """Write the game, signed, to ``path`` (atomically); raises SaveError."""
        if not path:
            raise SaveError(_("save needs a file name: save FILE"))
        from xactika.protocol.records.writing import write_record_file
        from xactika.protocol.trust.signing import KeyFileError, signer_for

        target = os.path.expanduser(path)
        try:
            text = self.record_text(signer_for(self.key_file))  # spec/TAMPER.md section 6
        except KeyFileError as exc:
            raise SaveError(_("cannot save: the signing key: {error}").format(error=exc)
                            ) from None
        try:
            write_record_file(target, text)
        except OSError as exc:
            raise SaveError(_("cannot save to {path}: {error}").format(
                path=repr(path), error=exc.strerror or exc)) from None
        return Saved(path, len(self.events))


__all__ = [
    "AgentFactory",
    "CannotUndo",
    "Driver",
    "LoadError",
    "Loaded",
    "SaveError",
    "Saved",
    "load_game",
    "unreadable",
]
