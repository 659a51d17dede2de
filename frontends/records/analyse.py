"""``xactika analyse LOG``: every decision of a record weighed by the strong search.

What lichess's computer analysis is to a chess game: for each bid and card of the chosen
seats, the expected points of every legal option (core/bots/analysis.py), the loss of
the move made against the best, and a mark where the loss is costly (spec/ANALYSE.md).
Each seat is analysed from its own view alone: the record's events pass through
``visible`` into a :class:`SeatTracker` that the search reads, and each decision's seed
is a hash of that view, so the hidden cards can change neither the input nor the seed.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Iterator, Sequence
from typing import Any

import attrs

from xactika.core.bots.analysis import DEFAULT_DEALS, Assessment, assess, supported
from xactika.core.engine.api import (
    Bid,
    Command,
    GameStarted,
    game_rules,
    legal_actions,
)
from xactika.core.engine.check import command_of
from xactika.core.engine.views import visible
from xactika.frontends.cli.options import OneLineParser, lang_of
from xactika.frontends.i18n import _, fill, later, ngettext, using
from xactika.frontends.people.driver import unreadable
from xactika.frontends.people.seats import seat_shown
from xactika.frontends.records.analysisform import (
    FORMAT,
    MARKS,
    decision_line,
    mark_of,
    mark_word,
    option_text,
)
from xactika.frontends.records.replay import Game, load
from xactika.frontends.repl import render
from xactika.protocol.notation.text import format_event
from xactika.protocol.player.agentside import SeatTracker
from xactika.protocol.records.textform import RecordError


@attrs.frozen
class Decision:
    """One decision of a seat: the move made, every option weighed, and its loss."""

    seq: int  # the event that made the move
    seat: int
    round: int
    trick: int | None  # None for a bid
    made: Command
    assessment: Assessment

    @property
    def forced(self) -> bool:
        return not self.assessment.options

    @property
    def points(self) -> float | None:
        return None if self.forced else self.assessment.points(self.made)

    @property
    def loss(self) -> float:
        return 0.0 if self.forced else self.assessment.best - self.assessment.points(self.made)

    @property
    def mark(self) -> str | None:
        return mark_of(self.loss)


def decisions(g: Game, seat: int, deals: int) -> Iterator[Decision]:
    """``seat``'s decisions in order, each weighed from the seat's view at that moment."""
    tracker = SeatTracker(seat)
    rules = None
    seen = hashlib.sha256(f"xactika analyse seat {seat}\n".encode())
    for event in g.events:
        mine = visible(event, seat)
        made = command_of(event)
        if made is not None and made.seat == seat:
            state = tracker.state
            key = seen.copy()
            key.update(f"decision {event.seq} deals {deals}".encode())
            trick = None if isinstance(made, Bid) else len(state.tricks) + 1
            yield Decision(event.seq, seat, state.round, trick, made,
                           assess(tracker.view(), legal_actions(state),
                                  int.from_bytes(key.digest()[:8], "big"), deals))
        if isinstance(event, GameStarted):
            rules = game_rules(event.config.game)
        else:  # the seed commitment of game-started is left out: it hangs on the deals
            seen.update((format_event(mine, rules) + "\n").encode())
        tracker.apply(mine)


def analyse(g: Game, seats: Sequence[int], deals: int = DEFAULT_DEALS) -> list[Decision]:
    """The chosen seats' decisions in the record's order."""
    found = [d for seat in seats for d in decisions(g, seat, deals)]
    return sorted(found, key=lambda d: d.seq)


# --------------------------------------------------------------------------- output


def move_json(command: Command) -> dict[str, Any]:
    if isinstance(command, Bid):
        return {"bid": command.bid}
    out: dict[str, Any] = {"card": str(command.card)}
    if command.call is not None:
        out["call"] = str(command.call)
    return out


def summary(found: Sequence[Decision], seats: Sequence[int]) -> list[dict[str, Any]]:
    """Per seat: its decisions, the forced ones, the average loss of the others (a forced
    move would flatter it with a loss of 0), and how many of each mark."""
    out = []
    for seat in seats:
        mine = [d for d in found if d.seat == seat]
        weighed = [d for d in mine if not d.forced]
        row: dict[str, Any] = {
            "seat": seat, "decisions": len(mine), "forced": len(mine) - len(weighed),
            "average_loss": round(sum(d.loss for d in weighed) / len(weighed), 3)
            if weighed else 0.0}
        for name, _threshold in reversed(MARKS):
            row[name] = sum(1 for d in mine if d.mark == name)
        out.append(row)
    return out


def to_json(g: Game, found: Sequence[Decision], seats: Sequence[int], deals: int
            ) -> dict[str, Any]:
    """The analysis as spec/ANALYSE.md lays it out."""
    config = g.config
    names = list(g.names)
    rows = summary(found, seats)
    for row in rows:
        row["name"] = names[row["seat"]]
    return {
        "analysis": FORMAT, "game": config.game, "mode": config.mode,
        "players": config.players, "deals": deals, "seats": list(seats),
        "thresholds": {name: threshold for name, threshold in MARKS},
        "decisions": [{
            "seq": d.seq, "seat": d.seat, "round": d.round, "trick": d.trick,
            "made": move_json(d.made),
            "points": None if d.points is None else round(d.points, 3),
            "best": None if d.forced else round(d.assessment.best, 3),
            "loss": round(d.loss, 3), "mark": d.mark, "forced": d.forced,
            "options": [{"move": move_json(o.command), "points": round(o.points, 3)}
                        for o in d.assessment.options],
        } for d in found],
        "summary": rows,
    }


def text_report(data: dict[str, Any], names: Sequence[str]) -> str:
    """The analysis (:func:`to_json`'s) for people: a line a decision, its options below
    it best first, then the summary."""
    marks = ", ".join(fill("{mark} >= {loss:g}", {"mark": mark_word(n), "loss": t})
                      for n, t in MARKS)
    lines = [ngettext("{n} sampled deal a decision; marks: {marks}",
                      "{n} sampled deals a decision; marks: {marks}", data["deals"]).format(
        n=data["deals"], marks=marks)]
    last_round = 0
    for d in data["decisions"]:
        if d["round"] != last_round:
            last_round = d["round"]
            lines.append(_("round {n}").format(n=d["round"]))
        lines.append(f"  {d['seq']:>4}  {decision_line(d, names)}")
        options = sorted(d["options"], key=lambda o: -o["points"])
        if options:
            lines += _wrap([option_text(o) for o in options], "          ")
    lines.append(_("summary"))
    for row in data["summary"]:
        weighed = row["decisions"] - row["forced"]
        decided = ngettext("{n} decision", "{n} decisions", weighed).format(n=weighed)
        lines.append("  " + fill(_(
            "{who}: average loss {loss:.3f} over {decisions}; inaccuracies {inaccuracy}, "
            "mistakes {mistake}, blunders {blunder}"), {
            "who": render.seat_name(row["seat"], list(names)), "decisions": decided,
            "loss": float(row["average_loss"]), "inaccuracy": row["inaccuracy"],
            "mistake": row["mistake"], "blunder": row["blunder"]}))
    return "\n".join(lines)


def _wrap(items: Sequence[str], indent: str, width: int = 88) -> list[str]:
    lines: list[str] = []
    line = indent
    for item in items:
        if len(line) > len(indent) and len(line) + 3 + len(item) > width:
            lines.append(line)
            line = indent
        line += ("   " if len(line) > len(indent) else "") + item
    lines.append(line)
    return lines


# --------------------------------------------------------------------------- the shell


def build_parser() -> OneLineParser:
    ap = OneLineParser(
        prog="xactika analyse",
        description=_("Weigh every decision of a recorded game with the strong bot's "
                      "search, from the deciding seat's view only: the expected points of "
                      "each option, the loss of the move made, and marks for the costly "
                      "ones (spec/ANALYSE.md)."),
    )
    ap.add_argument("log", metavar="LOG", help="a record file (text or JSONL), or a games "
                    "file (a match's all-games.txt) with --record")
    ap.add_argument("--record", default=None, metavar="N|NAME",
                    help="in a games file, the record to analyse: its number from 1 or "
                    "its name")
    ap.add_argument("--seat", type=int, action="append", default=None, metavar="N",
                    help="analyse seat N's decisions, counted from 1 (repeatable; default: "
                    "every seat)")
    ap.add_argument("--deals", type=int, default=DEFAULT_DEALS, metavar="K",
                    help=later("sampled deals a decision (default {n})", n=DEFAULT_DEALS))
    ap.add_argument("--json", action="store_true", help="print the analysis as JSON")
    return ap


class Refused(Exception):
    """A one-line reason the analysis cannot be made."""


def prepare(path: str, which: str | None, seats: Sequence[int] | None, deals: int
            ) -> tuple[Game, list[int]]:
    """The record and the seats to analyse (counted from 0), or :class:`Refused` saying why
    not."""
    why = unreadable(path)
    if why is not None:
        raise Refused(_("cannot read {path}: {why}").format(path=path, why=why))
    try:
        g = load(path, which)
    except RecordError as exc:
        raise Refused(f"{path}: {exc}") from None
    if g.problem is not None:
        raise Refused(_("{path}: the record stops following the rules at {problem} "
                        "(xactika audit says more)").format(path=path, problem=g.problem))
    if not supported(g.config.game):
        raise Refused(_("{game} has no search to analyse with: only Xactika's decisions "
                        "can be analysed").format(game=g.config.game))
    if deals < 1:
        raise Refused(_("--deals must be at least 1, not {n}").format(n=deals))
    players = g.config.players
    every = list(range(players)) if g.view is None else [g.view]
    chosen = sorted(set(seats)) if seats else every
    for seat in chosen:
        if seat not in every:
            if g.view is not None:
                raise Refused(_("no seat {seat}: this record is seat {n}'s view").format(
                    seat=seat_shown(seat), n=seat_shown(g.view)))
            raise Refused(_("no seat {seat}: seats are 1 to {last}").format(
                seat=seat_shown(seat), last=players))
    return g, chosen


def main(argv: Sequence[str]) -> int:
    """In the terminal's language (LANGUAGE, LC_ALL, LC_MESSAGES, LANG)."""
    with using(lang_of(argv, has_lang=False)):
        return _main(argv)


def _main(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(argv)
    try:
        typed = None if args.seat is None else [n - 1 for n in args.seat]  # counted from 1
        g, seats = prepare(args.log, args.record, typed, args.deals)
    except Refused as exc:
        print(f"xactika analyse: {exc}", file=sys.stderr)
        return 2
    data = to_json(g, analyse(g, seats, args.deals), seats, args.deals)
    if args.json:
        print(json.dumps(data, ensure_ascii=False))
    else:
        print(text_report(data, g.names))
    return 0
