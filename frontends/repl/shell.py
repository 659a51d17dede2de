"""A game at the terminal: player commands in, text laid out for the terminal out.

``xactika play`` drives one :class:`Shell`: it reads a line, calls :meth:`Shell.handle`
and prints the reply. The game itself is the UI-free driver
(:class:`~xactika.frontends.people.driver.Driver`): seats, bots acting, moves, undo,
hints, saving and the narration as values. A Shell adds only the terminal: the
commands people type, and every text laid out by :mod:`.render` to the terminal's width.
A test can play a whole game by calling ``handle`` alone.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from xactika.core.engine.api import Command, Event, TrickWon
from xactika.core.engine.errors import IllegalCommand, XactikaError
from xactika.core.engine.views import view
from xactika.frontends import i18n
from xactika.frontends.cli.invocation import xactika_command
from xactika.frontends.i18n import N_, _, said
from xactika.frontends.people import narration, teach
from xactika.frontends.people.driver import AgentFactory, CannotUndo, Driver, Saved, SaveError
from xactika.frontends.people.seats import (
    BOT,
    CMD,
    HUMAN,
    SeatSpec,
    parse_seat_spec,
    seats_from_headers,
    seats_text,
)
from xactika.frontends.people.typed import command_name, english_line, said_command
from xactika.frontends.repl import render
from xactika.frontends.repl.render import Style
from xactika.frontends.repl.suggest import COMMAND_HELP, Context


@attrs.frozen
class Reply:
    """What to print, and whether the turn moved on or the player asked to leave."""

    text: str = ""
    moved: bool = False
    quit: bool = False


# The engine's refusals are English (the protocol sends them); a person reading another
# language gets the kind of refusal in words, and the legal moves after it.
REFUSALS = {
    "follow": N_("that card does not follow: you must follow if you can"),
    "call": N_("that call is not one the card can make"),
    "bid": N_("that bid is not allowed"),
    "card": N_("that card is not in your hand"),
    "turn": N_("it is not your turn"),
    "phase": N_("that move does not fit now"),
    "over": N_("the game is over"),
    "illegal": N_("that move is not allowed now"),
}


def refusal(exc: XactikaError) -> str:
    """Why a move was refused, in the reader's language."""
    if i18n.current() == i18n.SOURCE or exc.code not in REFUSALS:
        return str(exc)
    return _(REFUSALS[exc.code])


AGAIN_WORDS = {"again": "same", "rematch": "same", "new": "new"}
"""What a person types at the end of a game for another: the same deals, or new ones."""


class Shell(Driver):
    """One game at the terminal: the driver's game, laid out to ``width`` columns."""

    def __init__(self, events: Any, seats: Any, make_agent: AgentFactory, *,
                 style: Style = render.PLAIN, width: int = 80, **kwargs: Any) -> None:
        self.style = style
        self.width = width  # the terminal's columns: every text is laid out to fit them
        self.again: str | None = None  # the command that plays the same deals again
        self.next_game: str | None = None  # "same" or "new", asked for at the end
        self.autoplay = False  # play a seat's forced move (one legal choice) for it
        self.saved: Saved | None = None  # the last 'save': its file and the events in it
        self._table_shown: dict[int, int] = {}  # seat -> the round its table was last shown
        super().__init__(events, seats, make_agent, **kwargs)

    # ----------------------------------------------------------------- narration

    def lay_out(self, items: list[narration.Item]) -> list[str]:
        """Narration values as terminal lines, each fitted to the width."""
        lines = render.narration(items, self.names, self.config.game, self.style, self.width,
                                 self.again)
        return [render.fit(line, self.width) for line in lines]

    def advance(self) -> list[str]:
        """Let bots act until a human must decide or the game ends; narrate it."""
        return self.lay_out(self.run_bots())

    def _apply(self, command: Command) -> list[str]:
        return self.lay_out(self.apply(command))

    # ----------------------------------------------------------------- display

    def intro(self) -> str:
        c = self.config
        title = _("{game}: {mode}, {players} players, {length}").format(
            game=said(self.shown.title()), mode=said(self.shown.mode_name(c)),
            players=c.players, length=self.shown.length(c))
        if c.seed is not None and self.show_seed:
            title = _("{title}, seed {seed}").format(title=title, seed=c.seed)
        lines = [
            self.style.bold(title),
            _("seats: {seats}").format(seats=seats_text(self.seats, self.names)),
            said(self.shown.mode_line(c)),
            _("type 'help' for commands, 'rules' to learn the game; Tab completes; 'undo' "
              "takes back a move") if self.practice else
            _("type 'help' for commands, 'rules' to learn the game; Tab completes"),
        ]
        if self.tutorial:
            lines += [self.style.bold(said(text)) for text in teach.tutorial_intro(c)]
        return render.fit("\n".join(lines), self.width)

    def standings(self) -> str:
        return render.standings_text(self.final_standings(), self.names, self.style,
                                     self.again)

    def table(self, seat: int) -> str:
        """What ``seat`` sees on its turn: round, bids, the trick, its hand, what to do."""
        v = view(self.state, seat)
        self._table_shown[seat] = v.round
        st = self.style
        game = self.config.game
        draw = render.card_renderer(game)
        size = self.width
        dealt = (_("{round}, you dealt") if self.names[v.dealer] == "you"
                 else _("{round}, {dealer} dealt"))
        lines = [render.rule(st, dealt.format(
            round=self.shown.round_of(self.config, v.round), dealer=self.label(v.dealer)),
            min(60, size))]
        if v.turned is not None:
            lines.append(render.turned_up(v.turned, st, game))
        if self.rules.has_bidding(self.config):
            lines.append(render.bids(v.bids, self.names,
                                     v.taken if v.phase == "play" else (), size))
        else:
            lines += render.progress(self.progress(v), self.names, size)
        if v.phase == "play":
            number = len(v.tricks) + 1
            if not v.trick and v.tricks:
                t = v.tricks[-1]
                lines.append(render.trick(t.plays, t.call, self.names, game, st,
                                          winning=t.winner, number=len(v.tricks), size=size,
                                          won=True))
            winning = (self.rules.trick_winner(self.state, v.trick, v.call)
                       if v.trick else None)
            lines.append(render.trick(v.trick, v.call, self.names, game, st,
                                      winning=winning, number=number, size=size))
        legal = self.legal
        order = self.shown_hand(seat)
        marks = legal.cards if legal.seat == seat and legal.kind == "play" else None
        head = (_("your hand") if self.names[seat] == "you"
                else _("{who}'s hand").format(who=self.label(seat)))
        lines.append(st.bold(head) + st.dim(f"  ({draw.columns_text()})"))
        lines.append(render.hand(order, game, st, legal=marks))
        if legal.seat == seat:
            lines.append(self.what_now(seat))
        return render.fit("\n".join(lines), size)

    def what_now(self, seat: int) -> str:
        """The line before the prompt: what may be played; in the tutorial, also why."""
        tip = self.coach_tip(seat)
        text = self.what_to_do(seat)
        return self.style.bold(tip) + "\n" + text if tip else text

    def prompt(self, seat: int | None = None) -> str:
        seat = self.human_to_act if seat is None else seat
        if seat is None:
            return "> "
        kind = {"bid": _("bid"), "lead": _("lead"), "play": _("play")}.get(
            self.legal.kind, self.legal.kind)
        who = "" if self.names[seat] == "you" else f"{self.names[seat]} "
        coached = _("tutorial") + " " if self.tutorial and self.state.round == 1 else ""
        return f"{coached}{who}{kind}> "

    def context(self) -> Context:
        """The completion context for the human to act (empty when none is)."""
        seat = self.human_to_act
        commands = tuple(c for c in self.commands() if c != "undo" or self.practice)
        if seat is None:
            return Context(commands=commands, topics=tuple(teach.topics(self.config)))
        legal = self.legal
        draw = render.card_renderer(self.config.game)
        order = self.shown_hand(seat)
        meta = {str(c): render.strip_ansi(draw.card_short(c, render.PLAIN)).split(" ", 1)[-1]
                for c in order}
        calls: dict[str, tuple[tuple[str, str], ...]] = {}
        if legal.kind == "lead":
            for c in legal.cards:
                options = legal.calls(c)
                if options != (None,):
                    calls[str(c)] = tuple(
                        (self.rules.format_call(k), draw.call_words(k)) for k in options
                    )
        return Context(
            kind=legal.kind,
            bids=legal.bids,
            hand=tuple(str(c) for c in order),
            legal=tuple(str(c) for c in order if c in set(legal.cards)),
            calls=calls,
            meta=meta,
            commands=commands,
            topics=tuple(teach.topics(self.config)),
        )

    # ----------------------------------------------------------------- commands

    def handle(self, line: str) -> Reply:
        """One line from the human to act. Bad input changes nothing and says why.

        Every reply is laid out to the terminal's width (``self.width``).
        """
        reply = self._handle(english_line(line))  # German 'tipp' is 'hint'
        return attrs.evolve(reply, text=render.fit(reply.text, self.width))

    def _handle(self, line: str) -> Reply:
        seat = self.human_to_act
        words = line.split()
        if not words:
            return Reply(self.table(seat) if seat is not None else "")
        word = words[0].lower()
        simple: Mapping[str, Callable[[], str]] = {
            "help": self.help_text, "?": self.help_text,
            "scores": self.scores_text, "score": self.scores_text,
            "last": self.last_text,
            "table": lambda: self.table(seat) if seat is not None else self.scores_text(),
            "look": lambda: self.table(seat) if seat is not None else self.scores_text(),
        }
        if word in simple:
            return Reply(simple[word]())
        if word == "rules":
            return Reply(self._symbols(teach.rules_text(self.config, " ".join(words[1:]))))
        if word in ("quit", "exit", "q"):
            return Reply(quit=True)
        if word == "save":
            return Reply(self.save(line.strip()[4:].strip()))
        if seat is None:
            if word == "undo" and len(self.humans) == 1:  # take back the game's last move
                return self.undo(self.humans[0])
            if self.over and self.again is not None and word in AGAIN_WORDS:
                self.next_game = AGAIN_WORDS[word]
                return Reply(_("the same deals again") if self.next_game == "same"
                             else _("a new game"), quit=True)
            remote = getattr(self, "remote", None)  # a seat at a server's table
            if self.over and remote is not None and word in AGAIN_WORDS:
                from xactika.frontends.net.rematch import rematch_text

                return Reply(rematch_text(remote.host, remote.port, remote.token,
                                          remote.tls is not None, remote.seated))
            if self.again:
                return Reply(_("the game is over: 'save FILE' keeps it, 'again' plays the "
                               "same deals, 'new' a new game; 'quit' leaves"))
            return Reply(_("the game is over: 'save FILE' keeps it; 'quit' leaves"))
        if word == "stats":
            return Reply(self.stats_text(seat))
        if word == "hint":
            return Reply(self.hint_text(seat))
        if word == "undo":
            return self.undo(seat)
        try:
            command = self.moves(seat).parse(words)
        except XactikaError as exc:
            return Reply(self._refuse(seat, str(exc)))
        try:
            lines = self._apply(command)
        except IllegalCommand as exc:
            return Reply(self._refuse(seat, refusal(exc)))
        lines += self.advance()
        return Reply("\n".join(lines), moved=True)

    def _refuse(self, seat: int, why: str) -> str:
        legal = self.legal_text(seat)
        told = legal.split(":", 1)[0].replace(":", "")  # "legal bids" already said?
        repeated = not legal or legal in why or (told == _("legal bids") and told in why)
        return render.fit(why + ("" if repeated else f"\n{legal}"), self.width)

    # ----------------------------------------------------------------- informational

    def commands(self) -> dict[str, str]:
        """This game's commands and what each does (no bids or stats card in Dix)."""
        found = dict(COMMAND_HELP)
        if not self.rules.has_bidding(self.config):
            del found["bid"]
        found = self.shown.commands(self.config, found)
        found = {name: said(text) for name, text in found.items()}
        if not self.practice:
            found["undo"] = _("{help} (not in this game)").format(help=found["undo"])
        return found

    def end_words(self) -> str:
        """What still works once the game is over: one list, local or remote (the
        standings offered 'again' and 'new' already, where they are)."""
        return _("'scores', 'last' and 'save FILE' still work; Enter, 'quit' or Ctrl-D "
                 "leaves")

    def help_text(self) -> str:
        lines = [_("commands:")]
        found = self.commands()
        # the reader's word, the English one too (German 'tipp, hint')
        shown = {name: name if command_name(name) == name else f"{command_name(name)}, {name}"
                 for name in found}
        width = max(7, *map(len, shown.values()))
        lines += [f"  {shown[name]:<{width}} {text}" for name, text in found.items()]
        lines += [said(line) for line in self.shown.help_lines(self.config)]
        lines += [
            _("'rules' explains the game; 'rules TOPIC' one part of it."),
            _("Tab completes commands, legal cards and calls. Ctrl-C clears the line; "
              "Ctrl-D or 'quit' leaves.") if self.shown.has_calls else
            _("Tab completes commands and legal cards. Ctrl-C clears the line; Ctrl-D or "
              "'quit' leaves."),
        ]
        return self._symbols("\n".join(lines))

    def _symbols(self, text: str) -> str:
        """``balls ● (o)`` reads ``balls o`` in --ascii: one form, no Unicode."""
        if not self.style.ascii:
            return text
        for symbol, letter in render.card_renderer(self.config.game).symbols:
            text = text.replace(f"{symbol} ({letter})", letter)
        return text

    def scores_text(self) -> str:
        size = self.width
        lines = [render.score_table(self.scored(), self.names, self.style, size)]
        if not self.over and self.state.phase in ("bid", "play"):
            if self.rules.has_bidding(self.config):
                lines.append(_("round {n} so far:").format(n=self.state.round) + "\n"
                             + render.bids(self.state.bids, self.names, self.state.taken, size))
            else:
                lines.append(_("round {n} so far:").format(n=self.state.round) + "\n" + "\n".join(
                    render.progress(self.progress(), self.names, size, stock=False)))
        if self.over:
            lines.append(self.standings())
        return "\n".join(lines)

    def last_text(self) -> str:
        index = last_trick_won(self.events)
        if index is None:
            return _("no trick has been finished yet")
        why = narration.why_won(self.config, self.events, index, self.names)
        return render.trick(why.plays, why.call, self.names, self.config.game, self.style,
                            winning=why.winner, number=why.trick, size=self.width, won=True
                            ) + "\n" + why.text

    def stats_text(self, seat: int) -> str:
        v = view(self.state, seat)
        seen = [c for t in v.tricks for _, c in t.plays] + [c for _, c in v.trick]
        return render.card_renderer(self.config.game).stats(v.hand, seen, self.style,
                                                             self.width)

    def hint_text(self, seat: int) -> str:
        found = self.hint(seat)
        if found is None:
            return _("no hint bot for this game")
        command, reason = found
        said = said_command(self.command_text(seat, command))  # German 'ansage 2'
        if reason:
            return _("hint: {move}  ({reason})").format(move=said,
                                                        reason=self.shown.reason(reason))
        return _("hint: {move}").format(move=said)

    def play_forced(self) -> Reply | None:
        """With ``autoplay``, the move of a person who has one legal choice (the last
        card, a card they must follow with), made for them; None when they must choose."""
        seat = self.human_to_act
        if not self.autoplay or seat is None or self.legal.seat != seat or len(self.legal) != 1:
            return None
        command = next(iter(self.legal.commands()))
        said = said_command(self.command_text(seat, command))
        # a round's first move forced (Oh Hell's one card): the hand and trumps first
        table = [self.table(seat)] if self._table_shown.get(seat) != self.state.round else []
        lines = self._apply(command) + self.advance()
        return Reply("\n".join([*table, self.style.dim(_("{move} (your only legal move, played for "
                                                  "you)").format(move=said)), *lines]),
                     moved=True)

    def undo(self, seat: int) -> Reply:
        try:
            taken = self.take_back(seat)
        except CannotUndo as exc:
            return Reply(str(exc))
        return Reply(_("undone: {move}; it is your turn again").format(
            move=self.command_text(seat, taken)), moved=True)

    # ----------------------------------------------------------------- records

    def save(self, path: str) -> str:
        try:
            saved = self.write_record(path)
        except SaveError as exc:
            return str(exc)
        self.saved = saved
        # the command on a line of its own, never wrapped, so that it is pasted whole
        return (_("saved {n} events to {path} (it holds every hand); to continue:").format(
                    n=saved.events, path=saved.path) + "\n"
                + render.command(f"{xactika_command()} play --load {shlex.quote(path)}"))


def last_trick_won(events: list[Event]) -> int | None:
    """The index of the last trick-won event in the log, if any."""
    for i in range(len(events) - 1, -1, -1):
        if isinstance(events[i], TrickWon):
            return i
    return None


__all__ = ["BOT", "CMD", "HUMAN", "Reply", "SeatSpec", "Shell", "parse_seat_spec",
           "seats_from_headers"]
