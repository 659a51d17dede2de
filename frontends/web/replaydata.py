"""A record as the web replay viewer's JSON: every position's table, as one seat or all.

UI-free and I/O-free: :func:`record_view` takes a parsed :class:`Game` (the terminal
viewer's, :mod:`xactika.frontends.records.replay`) and a seat, and returns plain data
(lists, strings, numbers) that the page lays out. Hidden information is removed here,
on the server: as one seat, every event goes through :func:`visible` and every hand but
the seat's own is a count (:func:`view`), so the page never receives what the seat did
not see. The texts are the REPL's (``render.narrate`` and ``present``'s why-won and
round outcomes), so every front end says the same things.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from xactika.core.engine.api import (
    GameOver,
    Led,
    Played,
    RoundScored,
    State,
    TrickWon,
    game_rules,
)
from xactika.core.engine.views import view, visible
from xactika.frontends.i18n import _, said
from xactika.frontends.people import narration
from xactika.frontends.people.presentation import presentation, seat_label
from xactika.frontends.records.analysisform import decision_line
from xactika.frontends.records.replay import Game, thought
from xactika.frontends.repl import render
from xactika.protocol.notation.text import format_event
from xactika.protocol.trust.audit import (
    BAD_SIGNATURE,
    INVALID,
    OK,
    UNFINISHED,
    UNTRUSTED,
    VERIFIED,
    LogReport,
)

MAX_VIEW_EVENTS = 20_000  # a viewer of more would send tens of megabytes of JSON
PROBLEMS_SHOWN = 20


def record_view(g: Game, seat: int | None,
                analysis: Mapping[int, Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """Everything the page shows of ``g`` as ``seat`` saw it (None: everyone); beside
    each move its line of ``analysis`` (analysisform.read_analysis), as one seat only
    that seat's own (another's options would name its cards)."""
    config = g.config
    rules = game_rules(config.game)
    names = list(g.names)
    shown = presentation(config.game)
    events = []
    scored_so_far = 0
    for pos, event in enumerate(g.events):
        scored_so_far += isinstance(event, RoundScored)
        events.append(_position(g, pos, seat, names, rules, scored_so_far))
        weighed = (analysis or {}).get(getattr(event, "seq", -1))
        events[-1]["analysis"] = (decision_line(weighed, names) if weighed is not None
                                  and seat in (None, weighed["seat"]) else None)
    scored = [e for e in g.events if isinstance(e, RoundScored)]
    return {
        "game": config.game,
        "title": said(shown.title()),
        "mode": config.mode,
        "mode_name": said(shown.mode_name(config)),
        "players": config.players,
        "names": names,
        "labels": [seat_label(s, names) for s in range(config.players)],
        "seat": seat,
        "has_bids": rules.has_bidding(config),
        "rounds": [i for i, e in enumerate(g.events) if type(e).__name__ == "Dealt"],
        "tricks": g.trick_ends(),
        "scored": [_scored(e) for e in scored],
        "finished": isinstance(g.events[-1], GameOver),
        "problem": g.problem,
        "think_problem": g.think_problem,
        "events": events,
    }


def _scored(e: RoundScored) -> dict[str, Any]:
    return {"round": e.round, "bids": list(e.bids) if e.bids is not None else None,
            "tricks": list(e.tricks), "points": list(e.points), "totals": list(e.totals)}


def _position(g: Game, pos: int, seat: int | None, names: list[str], rules: Any,
              scored: int) -> dict[str, Any]:
    """The table after ``events[pos]``; ``scored`` rounds have been scored by then."""
    state = g.states[pos]
    config = state.config
    raw = g.events[pos]
    event = raw if seat is None else visible(raw, seat)
    told = _told(event, names, config)
    said = []  # what the REPL says after the event: why a trick was won, a round's outcome
    if isinstance(raw, TrickWon):
        said.append(narration.why_won(config, g.events, pos, names, spoken=True).text)
    elif isinstance(raw, RoundScored):
        said.append(narration.round_outcome(config, g.events, pos, names).text)
    out: dict[str, Any] = {
        "line": format_event(event, rules),
        "kind": type(raw).__name__,
        "told": told,
        "said": [text for text in said if text],
        "think": thought(g, pos),  # how long the seat's player took (think.<seat>)
        "where": _where(g, pos, seat, names),
        "round": state.round,
        "scored": scored,
        "turned": _card(state.turned),
        "bids": None,
        "taken": list(state.taken) if state.round else None,
        "progress": None,
        "trick": _trick(g, pos, state, rules),
        "hands": _hands(state, seat, rules),
        "standings": None,
    }
    if state.round and rules.has_bidding(config):
        out["bids"] = list(state.bids)
    elif state.round:
        out["progress"] = render.progress(presentation(config.game).progress(config, state),
                                          names)
    if isinstance(raw, GameOver):
        out["standings"] = render.standings(raw.totals, raw.winners, names, render.PLAIN,
                                            low_wins=rules.low_wins(config))
    return out


def _where(g: Game, pos: int, seat: int | None, names: list[str]) -> str:
    """Where the viewer stands, in the reader's words (the terminal viewer's
    records/replay.where says it in English): event, round, trick and whose view."""
    state = g.states[pos]
    trick = len(state.tricks) + (1 if state.trick else 0)
    parts = [_("event {n}/{total}").format(n=pos + 1, total=len(g.events))]
    if state.round:
        parts.append(_("round {n} of {total}").format(n=state.round,
                                                      total=state.config.rounds))
    if trick:
        parts.append(_("trick {n}").format(n=trick))
    who = _("everyone") if seat is None else render.seat_name(seat, names)
    parts.append(_("view: {who}").format(who=who))
    return ", ".join(parts)


def _told(event: Any, names: list[str], config: Any) -> str:
    """The REPL's line for an event; a card played is named as a player sees it."""
    card = getattr(event, "card", None)
    if isinstance(event, Led | Played) and card is not None:
        shown = presentation(config.game)
        call = getattr(event, "call", None)
        if isinstance(event, Led) and call is not None:
            said_ = _("{who} leads {card}, calling {call}")
        else:
            said_ = _("{who} leads {card}") if isinstance(event, Led) else _("{who} plays {card}")
        return said_.format(who=seat_label(event.seat, names), card=shown.card_name(card),
                            call=shown.call_name(call) if call is not None else "")
    text = str(render.narrate(event, names, config.game, render.PLAIN, mode=config.mode))
    if card is not None:  # another event with a card (Dix's draws): its name for its text
        draw = render.card_renderer(config.game)
        forms = {draw.card_short(card, render.PLAIN), draw.card_compact(card, render.PLAIN),
                 str(card)}
        for form in sorted(forms, key=len, reverse=True):
            text = text.replace(form, presentation(config.game).card_name(card))
    return text


def _card(card: Any) -> str | None:
    return None if card is None else str(card)


def _trick(g: Game, pos: int, state: State, rules: Any) -> dict[str, Any] | None:
    """The trick on the table: being played, or just won (at its trick-won)."""
    if state.trick:
        return {"number": len(state.tricks) + 1, "call": _card(state.call),
                "plays": [[s, str(c)] for s, c in state.trick],
                "winner": rules.trick_winner(state, state.trick, state.call), "won": False}
    if state.tricks and isinstance(g.events[pos], TrickWon):
        t = state.tricks[-1]
        return {"number": len(state.tricks), "call": _card(t.call),
                "plays": [[s, str(c)] for s, c in t.plays], "winner": t.winner, "won": True}
    return None


def _hands(state: State, seat: int | None, rules: Any) -> list[dict[str, Any]]:
    """Every seat's hand; as one seat, the others are counts only."""
    if not state.hands:
        return []
    if seat is not None:
        v = view(state, seat)
        return [{"seat": s, "count": n,
                 "cards": [str(c) for c in sorted(v.hand, key=rules.sort_key)]
                 if s == seat else None}
                for s, n in enumerate(v.hand_sizes)]
    return [{"seat": s, "count": len(cards),
             "cards": [str(c) for c in sorted(cards, key=rules.sort_key)]}
            for s, cards in enumerate(state.hands)]


def verdict(report: LogReport) -> dict[str, Any]:
    """The audit's verdict in the reader's words: status, hash chain, seed commitment,
    signature. The problems keep the auditor's own reasons, as ``xactika audit`` prints
    them (they quote the record), after a translated ``line N:``; ``status`` and
    ``signature_status`` are for programs."""
    chain_broken = any("chain" in p.reason for p in report.problems)
    intact = report.signed and not chain_broken and report.head is not None
    if not report.signed:
        chain = _("no hash chain")
    elif not intact:
        chain = _("hash chain broken")
    else:
        chain = _("hash chain intact")
    commit_broken = any(w in p.reason for p in report.problems
                        for w in ("commit=", "nonce=", "commits to"))
    if not report.committed:
        commitment = _("no seed commitment")
    elif commit_broken:
        commitment = _("seed commitment broken")
    else:
        commitment = _("seed commitment holds")
    fingerprint = report.signer.fingerprint if report.signer is not None else None
    signature = {
        VERIFIED: _("signature verified: signed by the server's key {key}"),
        UNTRUSTED: _("signature holds, but by a key this server does not trust: {key}"),
        BAD_SIGNATURE: _("signature invalid: the record was changed or the signature forged"),
    }.get(report.signature, _("no signature")).format(key=fingerprint)
    if report.signature == VERIFIED and report.status == INVALID:
        signature = _("signature by the server's key {key} holds, the game does not").format(
            key=fingerprint)
    status = {OK: _("clean and complete"), UNFINISHED: _("unfinished"),
              INVALID: _("invalid")}.get(report.status, report.status)
    good = (report.status == OK and report.signature == VERIFIED and report.committed
            and intact)
    return {
        "status": report.status,
        "summary": status,
        "good": good,
        "chain": chain,
        "commitment": commitment,
        "signature": signature,
        "signature_status": report.signature,
        "fingerprint": fingerprint,
        "problems": [_("line {n}: {reason}").format(n=p.line, reason=p.reason)
                     for p in report.problems[:PROBLEMS_SHOWN]],
        "more_problems": max(0, len(report.problems) - PROBLEMS_SHOWN) + report.dropped,
        "notes": list(report.notes),
    }


def seat_names(names: Sequence[str]) -> list[str]:
    """The labels of the seat chooser: ``seat 1 (heuristic)``."""
    return [seat_label(s, names) for s in range(len(names))]
