"""The analysis file (``xactika analyse --json``): its marks, its reading and its lines.

Kept apart from the command (:mod:`.analyse`) so that the replays, terminal and web,
read and show an analysis without loading the search. An analysis file is untrusted
input like a record: :func:`read_analysis` checks its shape and that every decision in it
is a move the record made, or refuses it in one line (spec/ANALYSE.md).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from xactika.core.engine.api import BidMade, Event, Led, Played
from xactika.frontends.i18n import _, fill
from xactika.frontends.repl import render

FORMAT = 1
"""The analysis file's version (its ``analysis`` key)."""

MARKS: tuple[tuple[str, float], ...] = (("blunder", 1.6), ("mistake", 0.8),
                                        ("inaccuracy", 0.4))
"""A decision's mark by its loss in expected points for the round, the worst first: well
above the search's own noise at the default deals, about 0.15 (spec/ANALYSE.md)."""

MAX_ANALYSIS_BYTES = 64 * 1024 * 1024


class AnalysisError(ValueError):
    """An analysis file that is no analysis of this record; the message is one line."""


def mark_of(loss: float) -> str | None:
    """The mark a loss earns (:data:`MARKS`), None below them all."""
    for name, threshold in MARKS:
        if loss >= threshold - 1e-9:
            return name
    return None


def mark_word(name: str) -> str:
    """A mark in the reader's language."""
    return {"inaccuracy": _("inaccuracy"), "mistake": _("mistake"),
            "blunder": _("blunder")}[name]


def move_of(event: Event) -> dict[str, Any] | None:
    """The move an event records, as the analysis file writes it; None for an event
    nobody chose."""
    if isinstance(event, BidMade):
        return {"bid": event.bid}
    if isinstance(event, Led):
        return {"card": str(event.card), "call": str(event.call)}
    if isinstance(event, Played):
        return {"card": str(event.card)}
    return None


def option_text(option: Mapping[str, Any]) -> str:
    """An option and its expected points: ``1323 3ba +0.41`` (``+0,41`` in German)."""
    return fill("{move} {points:+.2f}", {"move": move_text(option["move"]),
                                         "points": float(option["points"])})


def move_text(move: Mapping[str, Any]) -> str:
    """A move for people: ``bid 3``, ``1323 3ba`` (a lead with its call), ``1323``."""
    if "bid" in move:
        return _("bid {n}").format(n=move["bid"])
    return f"{move['card']} {move['call']}" if "call" in move else str(move["card"])


def decision_line(d: Mapping[str, Any], names: Sequence[str]) -> str:
    """One decision in a line: who, the move and its points, the best, the loss, a mark."""
    who = render.seat_name(d["seat"], list(names))
    if d["forced"]:
        return _("{who}: {move} (the only move)").format(who=who, move=move_text(d["made"]))
    top = max(d["options"], key=lambda o: o["points"])
    text = fill(_("{who}: {move} {points:+.2f}, best {best} {top:+.2f}, loss {loss:.2f}"), {
        "who": who, "move": move_text(d["made"]), "points": float(d["points"]),
        "best": move_text(top["move"]), "top": float(top["points"]),
        "loss": float(d["loss"])})
    return text + (f"  {mark_word(d['mark']).upper()}" if d["mark"] else "")


def read_analysis(text: str | bytes, events: Sequence[Event]) -> dict[int, dict[str, Any]]:
    """The decisions of an analysis of the record ``events``, by the seq of their move."""
    if len(text) > MAX_ANALYSIS_BYTES:
        raise AnalysisError(f"the analysis is over {MAX_ANALYSIS_BYTES} bytes")
    try:
        data = json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:
        raise AnalysisError(f"not an analysis: {' '.join(str(exc).split())[:200]}") from None
    if not isinstance(data, dict) or data.get("analysis") != FORMAT:
        raise AnalysisError(f"not an analysis: expected an object with \"analysis\": {FORMAT}"
                            " (xactika analyse --json writes one)")
    decisions = data.get("decisions")
    if not isinstance(decisions, list):
        raise AnalysisError("not an analysis: \"decisions\" is not a list")
    by_seq = {getattr(e, "seq", None): e for e in events}
    out: dict[int, dict[str, Any]] = {}
    for i, d in enumerate(decisions):
        why = _bad_decision(d)
        if why is not None:
            raise AnalysisError(f"decision {i + 1}: {why}")
        event = by_seq.get(d["seq"])
        if event is None or move_of(event) != d["made"] or event.seat != d["seat"]:
            raise AnalysisError(f"decision {i + 1}: event {d['seq']} of the record is not "
                                "that move: the analysis is of another record")
        out[d["seq"]] = d
    return out


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def _number(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


def _move(x: Any) -> bool:
    if not isinstance(x, dict):
        return False
    if set(x) == {"bid"}:
        return isinstance(x["bid"], int) and not isinstance(x["bid"], bool)
    return set(x) in ({"card"}, {"card", "call"}) and all(
        isinstance(v, str) and 0 < len(v) <= 16 for v in x.values())


def _bad_decision(d: Any) -> str | None:
    """What is wrong with one decision of an analysis file, None when nothing is."""
    if not isinstance(d, dict):
        return "not an object"
    if not all(isinstance(d.get(k), int) and not isinstance(d.get(k), bool)
               for k in ("seq", "seat")):
        return "\"seq\" and \"seat\" must be integers"
    if not _move(d.get("made")):
        return "\"made\" is not a move"
    if not isinstance(d.get("forced"), bool) or not _number(d.get("loss")):
        return "\"forced\" must be true or false and \"loss\" a number"
    if d.get("mark") is not None and d["mark"] not in dict(MARKS):
        return f"\"mark\" must be null or one of {', '.join(dict(MARKS))}"
    options = d.get("options")
    if not isinstance(options, list) or any(
            not isinstance(o, dict) or not _move(o.get("move")) or not _number(o.get("points"))
            for o in options):
        return "\"options\" must be a list of moves with their points"
    if not d["forced"] and (not options or not _number(d.get("points"))):
        return "a decision not forced needs its options and its points"
    return None
