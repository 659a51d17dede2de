"""``xactika replay LOG``: step through a recorded game, as everyone or as one seat.

The navigation is pure: a :class:`Cursor` (an event position and a point of view) over a
:class:`Game` (the events and the state after each), moved by named actions, and a
screen drawn with the REPL's own rendering (:mod:`.render`). The prompt_toolkit viewer
is a thin shell that maps keys to those actions; ``--keys`` runs the same actions
without a terminal and prints the screen.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from xactika.core.engine.api import (
    Dealt,
    Event,
    GameOver,
    GameStarted,
    RoundScored,
    State,
    TrickWon,
    game_rules,
)
from xactika.core.engine.check import LogCheck
from xactika.core.engine.errors import InvalidEvent, XactikaError
from xactika.core.engine.views import view, visible
from xactika.frontends.cli.options import OneLineParser, lang_of
from xactika.frontends.i18n import N_, _, fill, ngettext, using
from xactika.frontends.people import narration
from xactika.frontends.people.driver import unreadable
from xactika.frontends.people.presentation import presentation
from xactika.frontends.people.seats import seat_shown
from xactika.frontends.records.analysisform import (
    MAX_ANALYSIS_BYTES,
    AnalysisError,
    decision_line,
    read_analysis,
)
from xactika.frontends.repl import render
from xactika.protocol.records.assemble import read_think
from xactika.protocol.records.games import find_part, is_games_file
from xactika.protocol.records.textform import Record, RecordError, read_record

# --------------------------------------------------------------------------- the game


@attrs.frozen
class Game:
    """A record's events and the state after each; ``states[i]`` follows ``events[i]``.

    Only the legal prefix is kept: ``problem`` says where and why a record stopped
    following the rules (the viewer shows it; ``xactika audit`` gives the details).
    """

    headers: tuple[tuple[str, str], ...]
    events: tuple[Event, ...]
    states: tuple[State, ...]
    names: tuple[str, ...]
    problem: str | None = None
    view: int | None = None  # a record of one seat's view (a remote game's 'save'): its seat
    analysis: Mapping[int, Mapping[str, Any]] = attrs.field(factory=dict)
    """Decisions weighed by ``xactika analyse``, by the seq of their move (analysisform)."""
    think: Mapping[int, int] = attrs.field(factory=dict)
    """The ms each timed answer took (the ``think.<seat>`` headers), by its move's seq."""
    think_problem: str | None = None  # why the think headers were set aside

    @classmethod
    def from_record(cls, record: Record) -> Game:
        seat = view_seat(record.events)
        if seat is not None:
            return cls._of_view(record, seat)
        check = LogCheck()
        states: list[State] = []
        events: list[Event] = []
        problem = None
        for event in record.events:
            try:
                check = check.apply(event)
            except InvalidEvent as exc:
                problem = f"event {event.seq}: {exc}"
                break
            events.append(event)
            states.append(check.state)
        if not events:
            raise RecordError(f"line 0: the record does not start a game ({problem})")
        players = states[0].config.players
        seats = dict(record.headers).get("seats", "")
        names = seats.split(",") if seats else []
        if len(names) != players:
            names = [""] * players
        return cls(record.headers, tuple(events), tuple(states), tuple(names), problem,
                   **_think(record))

    @classmethod
    def _of_view(cls, record: Record, seat: int) -> Game:
        """One seat's view, folded as that seat saw it (the others' hands unseen): a view
        has no seed, so the rules cannot be checked again, only shown."""
        from xactika.protocol.player.agentside import SeatTracker

        tracker = SeatTracker(seat)
        states: list[State] = []
        for event in record.events:
            try:
                tracker.apply(event)
            except (XactikaError, ValueError, IndexError, AttributeError) as exc:
                raise RecordError(f"line 0: seat {seat}'s view stops at event {event.seq}: "
                                  f"{exc}") from None
            states.append(tracker.state)
        players = states[0].config.players
        seats = dict(record.headers).get("seats", "")
        names = seats.split(",") if seats else []
        if len(names) != players:
            names = [""] * players
        return cls(record.headers, tuple(record.events), tuple(states), tuple(names),
                   view=seat, **_think(record))

    @property
    def config(self) -> Any:
        return self.states[0].config

    def last(self) -> int:
        return len(self.events) - 1

    def round_starts(self) -> list[int]:
        return [i for i, e in enumerate(self.events) if isinstance(e, Dealt)]

    def trick_ends(self) -> list[int]:
        return [i for i, e in enumerate(self.events) if isinstance(e, TrickWon)]

    def scored(self, pos: int) -> list[RoundScored]:
        return [e for e in self.events[: pos + 1] if isinstance(e, RoundScored)]


# --------------------------------------------------------------------------- the cursor


@attrs.frozen
class Cursor:
    """Where the viewer stands: after ``events[pos]``, seen by ``seat`` (None: everyone)."""

    pos: int = 0
    seat: int | None = None
    message: str = ""


def _to(cursor: Cursor, pos: int, message: str = "") -> Cursor:
    return attrs.evolve(cursor, pos=pos, message=message)


def next_event(g: Game, c: Cursor) -> Cursor:
    if c.pos >= g.last():
        return _to(c, c.pos, _("at the last event"))
    return _to(c, c.pos + 1)


def prev_event(g: Game, c: Cursor) -> Cursor:
    if c.pos == 0:
        return _to(c, 0, _("at the first event"))
    return _to(c, c.pos - 1)


def next_trick(g: Game, c: Cursor) -> Cursor:
    """To the end of the next trick (its trick-won)."""
    later = [i for i in g.trick_ends() if i > c.pos]
    return _to(c, later[0]) if later else _to(c, c.pos, _("no trick after this one"))


def prev_trick(g: Game, c: Cursor) -> Cursor:
    earlier = [i for i in g.trick_ends() if i < c.pos]
    return _to(c, earlier[-1]) if earlier else _to(c, c.pos, _("no trick before this one"))


def next_round(g: Game, c: Cursor) -> Cursor:
    """To the deal of the next round."""
    later = [i for i in g.round_starts() if i > c.pos]
    return _to(c, later[0]) if later else _to(c, c.pos, _("this is the last round"))


def prev_round(g: Game, c: Cursor) -> Cursor:
    """To this round's deal, or the previous round's when already there."""
    earlier = [i for i in g.round_starts() if i < c.pos]
    return _to(c, earlier[-1]) if earlier else _to(c, c.pos, _("this is the first round"))


def goto_round(g: Game, c: Cursor, number: int) -> Cursor:
    starts = g.round_starts()
    if not 1 <= number <= len(starts):
        return _to(c, c.pos, _("no round {n}: the record has rounds 1 to {last}").format(
            n=number, last=len(starts)))
    return _to(c, starts[number - 1])


def first(g: Game, c: Cursor) -> Cursor:
    return _to(c, 0)


def end(g: Game, c: Cursor) -> Cursor:
    return _to(c, g.last())


def view_seat(events: Sequence[Event]) -> int | None:
    """The seat a record is the view of (its first deal shows that hand alone), else
    None (a full record)."""
    deal = next((e for e in events if isinstance(e, Dealt)), None)
    if deal is None or all(h is not None for h in deal.hands):
        return None
    shown = [s for s, h in enumerate(deal.hands) if h is not None]
    return shown[0] if len(shown) == 1 else None


def _only_view(g: Game, c: Cursor) -> Cursor:
    return attrs.evolve(c, seat=g.view, message=_(
        "this record is seat {n}'s view: the other seats' cards are not in it").format(
            n=seat_shown(g.view or 0)))


def next_view(g: Game, c: Cursor) -> Cursor:
    """Everyone -> the first seat -> the second ... -> everyone."""
    if g.view is not None:
        return _only_view(g, c)
    n = g.config.players
    seat = 0 if c.seat is None else None if c.seat + 1 >= n else c.seat + 1
    return attrs.evolve(c, seat=seat, message="")


def omniscient(g: Game, c: Cursor) -> Cursor:
    if g.view is not None:
        return _only_view(g, c)
    return attrs.evolve(c, seat=None, message="")


def seat_view(g: Game, c: Cursor, seat: int) -> Cursor:
    """``seat``'s view (counted from 0; the messages count as people do)."""
    if g.view is not None and seat != g.view:
        return _to(c, c.pos, _("no seat {seat}: this record is seat {n}'s view").format(
            seat=seat_shown(seat), n=seat_shown(g.view)))
    n = g.config.players
    if not 0 <= seat < n:
        return _to(c, c.pos, _("no seat {seat}: seats are 1 to {last}").format(
            seat=seat_shown(seat), last=n))
    return attrs.evolve(c, seat=seat, message="")


Action = Callable[[Game, Cursor], Cursor]

ACTIONS: dict[str, tuple[Action, str]] = {
    "next": (next_event, "next event"),
    "prev": (prev_event, "previous event"),
    "trick": (next_trick, "to the end of the next trick"),
    "back-trick": (prev_trick, "to the end of the previous trick"),
    "round": (next_round, "to the next round's deal"),
    "back-round": (prev_round, "to this (or the previous) round's deal"),
    "start": (first, "to the first event"),
    "end": (end, "to the last event"),
    "view": (next_view, "switch view: everyone, seat 1, seat 2, ..."),
    "all": (omniscient, "the omniscient view"),
}

# key -> action; the viewer and --keys share it
KEYS: dict[str, str] = {
    "right": "next", "l": "next", "space": "next",
    "left": "prev", "h": "prev",
    "t": "trick", "T": "back-trick",
    "down": "round", "r": "round",
    "up": "back-round", "R": "back-round",
    "home": "start", "g": "start",
    "end": "end", "G": "end",
    "v": "view", "a": "all",
}


def apply_keys(g: Game, c: Cursor, keys: Sequence[str]) -> Cursor:
    """Run viewer keys; a number followed by ``j`` jumps to that round, by ``s`` views
    that seat (e.g. ``3 j``, ``1 s``)."""
    number = ""
    for key in keys:
        if key.isdigit():
            number += key
            continue
        if key in ("j", "enter") and number:
            c = goto_round(g, c, int(number))
        elif key == "s" and number:
            c = seat_view(g, c, int(number) - 1)  # typed as people count seats
        elif key in KEYS:
            c = ACTIONS[KEYS[key]][0](g, c)
        else:
            c = _to(c, c.pos, _("unknown key {key}: press ? for help").format(key=repr(key)))
        number = ""
    return c


def _think(record: Record) -> dict[str, Any]:
    """The record's think times for :class:`Game`; a header that does not fit the record
    is set aside with its one-line reason (the game still replays)."""
    try:
        return {"think": read_think(record.headers, record.events)}
    except ValueError as exc:
        return {"think_problem": _("the think times are left out: {reason}").format(
            reason=exc)}


def thought(g: Game, pos: int) -> str | None:
    """How long the seat's own player took over the move at ``pos`` (its ``think``
    header), in the reader's words; None for a move nobody timed."""
    event = g.events[pos]
    ms = g.think.get(getattr(event, "seq", -1))
    if ms is None:
        return None
    time = fill(_("{n} ms"), {"n": ms}) if ms < 1000 else fill(_("{s:.1f} s"),
                                                              {"s": ms / 1000})
    who = render.seat_name(getattr(event, "seat", 0), list(g.names))
    return _("{who} thought for {time}").format(who=who, time=time)


# --------------------------------------------------------------------------- the screen


def where(g: Game, c: Cursor) -> str:
    state = g.states[c.pos]
    trick = len(state.tricks) + (1 if state.trick else 0)
    who = _("everyone") if c.seat is None else render.seat_name(c.seat, g.names)
    parts = [_("event {n}/{total}").format(n=c.pos + 1, total=len(g.events))]
    if state.round:
        parts.append(_("round {n} of {total}").format(n=state.round, total=state.config.rounds))
    if trick:
        parts.append(_("trick {n}").format(n=trick))
    parts.append(_("view: {who}").format(who=who))
    return ", ".join(parts)


def screen(g: Game, c: Cursor, style: render.Style = render.PLAIN) -> str:
    """The whole screen at the cursor, as the chosen seat (or everyone) saw it then."""
    state = g.states[c.pos]
    config = state.config
    rules = game_rules(config.game)
    game = config.game
    names = list(g.names)
    event = g.events[c.pos] if c.seat is None else visible(g.events[c.pos], c.seat)
    lines = [render.rule(style, where(g, c))]
    told = render.narrate(event, names, game, style, mode=config.mode)
    lines.append(told if told is not None else _describe(event))
    # what the REPL says after the event too: why a trick was won, the round's outcome
    said = narration.narrate(config, g.events[: c.pos + 1], c.pos, names)
    lines += render.narration([item for item in said
                               if isinstance(item, narration.WhyWon | narration.RoundOutcome)],
                              names, game, style)
    took = thought(g, c.pos)
    if took is not None:
        lines.append(style.dim(took))
    weighed = g.analysis.get(getattr(g.events[c.pos], "seq", -1))
    if weighed is not None and c.seat in (None, weighed["seat"]):
        lines.append(style.bold(_("analysis: {line}").format(
            line=decision_line(weighed, names))))
    if state.round:
        if state.turned is not None:
            lines.append(render.turned_up(state.turned, style, game))
        if rules.has_bidding(config):
            lines.append(render.bids(state.bids, names, state.taken if state.phase != "bid"
                                     else (), _columns()))
        else:  # Dix: the round's points, ten-tricks and stock, as at the table
            lines += render.progress(presentation(game).progress(config, state), names,
                                     _columns())
        if state.trick:
            winning = rules.trick_winner(state, state.trick, state.call)
            lines.append(render.trick(state.trick, state.call, names, game, style,
                                      winning=winning, number=len(state.tricks) + 1,
                                      size=_columns()))
        elif state.tricks and isinstance(g.events[c.pos], TrickWon):
            t = state.tricks[-1]
            lines.append(render.trick(t.plays, t.call, names, game, style, winning=t.winner,
                                      number=len(state.tricks), won=True, size=_columns()))
        lines.extend(_hands(state, c.seat, names, game, style, rules))
    scored = g.scored(c.pos)
    lines.append(style.bold(_("scores so far")))
    lines.append(render.score_table(scored, names, style))
    if isinstance(g.events[c.pos], GameOver):
        over = g.events[c.pos]
        lines.append(render.standings(over.totals, over.winners, names, style,
                                      low_wins=rules.low_wins(config)))
    if g.problem is not None and c.pos == g.last():
        lines.append(style.bold(_("the record stops following the rules here: {problem}")
                                .format(problem=g.problem)))
    elif c.pos == g.last() and not state.over:
        lines.append(style.dim(_("the record ends here: the game is unfinished")))
    if g.think_problem is not None and c.pos == 0:
        lines.append(style.dim(g.think_problem))
    if c.message:
        lines.append(style.bold(c.message))
    return "\n".join(lines)


def _columns() -> int:
    import shutil

    return max(40, shutil.get_terminal_size((80, 24)).columns)


def _hands(state: State, seat: int | None, names: list[str], game: str,
           style: render.Style, rules: Any) -> list[str]:
    if not state.hands:
        return []
    if seat is not None:
        v = view(state, seat)
        order = sorted(v.hand, key=rules.sort_key)
        others = ", ".join(f"{render.seat_label(s, names)} {n}"
                           for s, n in enumerate(v.hand_sizes) if s != seat)
        return [style.bold(_("{who}'s hand").format(who=render.seat_name(seat, names))),
                render.hand(order, game, style),
                # a sentence: wrapped to the terminal (ten seats' counts pass 80 columns)
                render.fit(style.dim(_("cards in the other hands: {others}").format(
                    others=others)), _columns())]
    out = [style.bold(_("hands"))]
    size = max(len(render.seat_label(s, names)) for s in range(len(state.hands)))
    for s, cards in enumerate(state.hands):
        text = " ".join(str(card) for card in sorted(cards, key=rules.sort_key))
        out.append(f"  {render.pad(render.seat_label(s, names), size)}  "
                   f"{text or _('(no cards)')}")
    return out


def _describe(event: Event) -> str:
    if isinstance(event, GameStarted):
        c = event.config
        rounds = ngettext("{n} round", "{n} rounds", c.rounds).format(n=c.rounds)
        return _("game started: {game} {mode}, {players} players, {rounds}").format(
            game=c.game, mode=c.mode, players=c.players, rounds=rounds)
    if isinstance(event, TrickWon):
        return _("trick {n} won by seat {seat}").format(n=event.trick, seat=seat_shown(event.seat))
    if isinstance(event, RoundScored):
        return _("round {n} scored").format(n=event.round)
    if isinstance(event, GameOver):
        return _("game over")
    return type(event).__name__


# at most 60 columns a line: the viewer cuts what a narrow terminal cannot show
HELP = N_(
    "keys: -> l space: next event   <- h: previous\n"
    "      t T: next/previous trick   g G: first/last event\n"
    "      r R (down up): next/previous round\n"
    "      NUMBER j: round NUMBER   NUMBER s: seat NUMBER's view\n"
    "      v: switch view   a: everyone   q: quit"
)



def keys_help() -> str:
    """:data:`HELP` in the reader's language (the viewer's key handlers are named ``_``)."""
    return _(HELP)


# --------------------------------------------------------------------------- the shell


def build_parser() -> argparse.ArgumentParser:
    ap = OneLineParser(
        prog="xactika replay",
        description=_("Step through a recorded game by event, trick or round, as everyone "
                      "or as one seat. {keys}").format(keys=" ".join(_(HELP).split())),
    )
    ap.add_argument("log", metavar="LOG", help="a record file (text or JSONL), or a games "
                    "file (a match's all-games.txt) with --record")
    ap.add_argument("--record", default=None, metavar="N|NAME",
                    help="in a games file, the record to replay: its number from 1 or its "
                    "name (e.g. games/d00001-t0-r1.log)")
    ap.add_argument("--seat", type=int, default=None, metavar="N",
                    help="start in seat N's view (counted from 1)")
    ap.add_argument("--round", type=int, default=None, help="start at this round's deal")
    ap.add_argument("--keys", default=None,
                    help="run these keys (space-separated, e.g. 'r r t 2 s') without a "
                    "terminal and print the screen")
    ap.add_argument("--ascii", action="store_true", help="7-bit characters only")
    weigh = ap.add_mutually_exclusive_group()
    weigh.add_argument("--analysis", default=None, metavar="FILE",
                       help="show beside each move the analysis in FILE (xactika analyse "
                       "--json writes it)")
    weigh.add_argument("--analyse", action="store_true",
                       help="weigh every decision with the strong search first and show "
                       "that beside each move (as xactika analyse; Xactika only)")
    return ap


def load(path: str, which: str | None = None) -> Game:
    """A record, text or JSONL (told apart by content, not by name); in a games file,
    the record ``which`` (a number from 1 or a name)."""
    if is_games_file(path):
        if which is None:
            raise RecordError("line 0: a games file holds several records: choose one with "
                              "--record N or --record NAME")
        return Game.from_record(find_part(path, which).read())
    if which is not None:
        raise RecordError("line 0: --record picks a record of a games file, and this is "
                          "a single record")
    return Game.from_record(read_record(path))


def main(argv: Sequence[str]) -> int:
    """In the terminal's language (LANGUAGE, LC_ALL, LC_MESSAGES, LANG)."""
    with using(lang_of(argv, has_lang=False)):
        return _main(argv)


def _main(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(argv)
    why = unreadable(args.log)
    if why is not None:
        print(f"xactika replay: cannot read {args.log}: {why}", file=sys.stderr)
        return 2
    try:
        g = load(args.log, args.record)
    except RecordError as exc:
        print(f"xactika replay: {args.log}: {exc}", file=sys.stderr)
        return 2
    try:
        g = with_analysis(g, args.analysis, args.analyse)
    except (AnalysisError, OSError) as exc:
        print(f"xactika replay: {args.analysis or args.log}: {exc}", file=sys.stderr)
        return 2
    c = Cursor(seat=g.view)  # a seat's view is shown as that seat saw it
    if args.round is not None:
        c = goto_round(g, c, args.round)
    if args.seat is not None:
        c = seat_view(g, c, args.seat - 1)
    if c.message:
        print(f"xactika replay: {c.message}", file=sys.stderr)
        return 2
    color = "NO_COLOR" not in os.environ and sys.stdout.isatty() and not args.ascii
    style = render.Style(color=color, ascii=args.ascii)
    if args.keys is not None or not (sys.stdin.isatty() and sys.stdout.isatty()):
        c = apply_keys(g, c, (args.keys or "").split())
        print(screen(g, c, style))
        return 0
    run_viewer(g, c, style)
    return 0


def with_analysis(g: Game, path: str | None, compute: bool) -> Game:
    """``g`` with the analysis of file ``path``, or computed (``compute``), or none."""
    if compute:
        from xactika.frontends.records import analyse  # the search, loaded only when asked

        seats = list(range(g.config.players)) if g.view is None else [g.view]
        if not analyse.supported(g.config.game):
            raise AnalysisError(_("{game} has no search to analyse with: only Xactika's "
                                  "decisions can be analysed").format(game=g.config.game))
        data = analyse.to_json(g, analyse.analyse(g, seats), seats, analyse.DEFAULT_DEALS)
        return attrs.evolve(g, analysis={d["seq"]: d for d in data["decisions"]})
    if path is None:
        return g
    why = unreadable(path)
    if why is not None:
        raise AnalysisError(_("cannot read {path}: {why}").format(path=path, why=why))
    with open(path, "rb") as f:
        text = f.read(MAX_ANALYSIS_BYTES + 1)
    return attrs.evolve(g, analysis=read_analysis(text, g.events))


def run_viewer(g: Game, cursor: Cursor, style: render.Style, **app_args: Any) -> Cursor:
    """The full-screen viewer; returns the cursor it was left at."""
    from prompt_toolkit import Application
    from prompt_toolkit.formatted_text import ANSI
    from prompt_toolkit.key_binding import KeyBindings
    from prompt_toolkit.key_binding.key_processor import KeyPressEvent
    from prompt_toolkit.layout import HSplit, Layout, Window
    from prompt_toolkit.layout.controls import FormattedTextControl

    box = _Box(cursor)

    def text() -> Any:
        pending = f"  [{box.number}]" if box.number else ""
        return ANSI(screen(g, box.cursor, style) + "\n\n" + style.dim(keys_help()) + pending)

    kb = KeyBindings()

    def press(key: str) -> Callable[[KeyPressEvent], None]:
        def handler(event: KeyPressEvent) -> None:
            if key.isdigit():
                box.number += key
                return
            keys = [*box.number, key] if box.number else [key]
            box.number = ""
            box.cursor = apply_keys(g, box.cursor, keys)
        return handler

    for key in [*KEYS, "j", "s", *"0123456789"]:
        kb.add(" " if key == "space" else key)(press(key))
    kb.add("enter")(press("enter"))

    @kb.add("q")
    @kb.add("c-c")
    @kb.add("c-d")
    def _(event: KeyPressEvent) -> None:
        event.app.exit()

    @kb.add("?")
    def _(event: KeyPressEvent) -> None:
        box.cursor = _to(box.cursor, box.cursor.pos, keys_help())

    control = FormattedTextControl(text, focusable=True)
    app: Application[None] = Application(
        # lines longer than the terminal wrap rather than lose their end
        layout=Layout(HSplit([Window(control, wrap_lines=True)])),
        key_bindings=kb, full_screen=True, **app_args,
    )
    app.run()
    return box.cursor


@attrs.define
class _Box:
    """The viewer's one piece of mutable state: the cursor and a number being typed."""

    cursor: Cursor
    number: str = ""
