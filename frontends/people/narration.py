"""What happened at a table, as values: the narration a front end lays out.

:func:`narrate` turns the events just added to a log into a list of :data:`Item`: an
event to tell (:class:`Told`), why a trick was won (:class:`WhyWon`), a round's outcome
(:class:`RoundOutcome`), the scores (:class:`Scores`), the final :class:`Standings`, and
notes (:class:`Note`). The REPL lays them out for a terminal
(``frontends/repl/render.py``: :func:`~xactika.frontends.repl.render.narration`), a web
page as HTML; ``xactika replay`` and the remote REPL use the same values, so every front
end says the same things. Nothing here knows about colour or widths.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

import attrs

from xactika.core.engine.api import Config, Event, GameOver, RoundScored, TrickWon, game_rules
from xactika.frontends.i18n import _, ngettext
from xactika.frontends.people import teach
from xactika.frontends.people.presentation import Presentation, names_text, presentation, seat_label


@attrs.frozen
class Told:
    """One event, as the viewer may see it (a bot's draw face down, for example)."""

    event: Event


@attrs.frozen
class WhyWon:
    """Why trick ``trick`` went to ``winner``: ``text`` is one plain sentence."""

    trick: int
    winner: int
    plays: tuple[tuple[int, Any], ...]
    call: Any
    text: str


@attrs.frozen
class RoundOutcome:
    """A round's end: who made their bid, or Dix's points and the round's winner.

    ``text`` is empty when the score table says it all (Play to Win, Play to Lose).
    """

    round: int
    scored: RoundScored
    winner: int | None
    text: str


@attrs.frozen
class Scores:
    """The score table after a round: every round scored so far."""

    scored: tuple[RoundScored, ...]


@attrs.frozen
class Standings:
    """The game's end: totals, the game's own winners, and the seed that replays it."""

    totals: tuple[int, ...]
    winners: tuple[int, ...]
    low_wins: bool
    seed: int | None = None  # told at the end; None when the game had none

    def order(self) -> list[tuple[int, int]]:
        """(rank, seat) best first; shared places share a rank, a broken tie does not."""
        totals, winners = self.totals, self.winners
        sign = 1 if self.low_wins else -1
        seats = sorted(range(len(totals)), key=lambda s: (s not in winners, sign * totals[s], s))
        found: list[tuple[int, int]] = []
        rank, prev, prev_won = 0, None, True
        for i, seat in enumerate(seats):
            if totals[seat] != prev or (seat in winners) != prev_won:
                rank = i + 1
                prev, prev_won = totals[seat], seat in winners
            found.append((rank, seat))
        return found


@attrs.frozen
class Note:
    """Something the table says that no event does: ``kind`` is ``fault`` (a bot program
    failed and a built-in bot took its seat) or ``tutorial`` (the guided round is over)."""

    kind: str
    text: str


Item = Told | WhyWon | RoundOutcome | Scores | Standings | Note

Shown = Callable[[Event], Event]  # the event as the viewer may see it


def _as_is(event: Event) -> Event:
    return event


_SPEAKS: dict[type[Presentation], bool] = {}


def _speaks(kind: type[Presentation]) -> bool:
    """Whether a presentation's ``why_won`` takes ``spoken`` (names cards as seen)."""
    found = _SPEAKS.get(kind)
    if found is None:
        found = _SPEAKS[kind] = "spoken" in inspect.signature(kind.why_won).parameters
    return found


def why_won(config: Config, events: Sequence[Event], index: int, names: Sequence[str],
            spoken: bool = False) -> WhyWon:
    """Why the trick that ``events[index]`` (a trick-won) ends was won; ``spoken`` names
    its cards as a player sees them (a page), not by their text (a terminal)."""
    tricks, turned = teach.round_tricks(events, index)
    last = tricks[-1]
    won = events[index]
    assert isinstance(won, TrickWon)
    shown = presentation(config.game)
    if spoken and _speaks(type(shown)):
        text = shown.why_won(last.plays, last.call, last.winner, turned, names, spoken=True)
    else:  # a presentation written before cards were spoken names them by their text
        text = shown.why_won(last.plays, last.call, last.winner, turned, names)
    return WhyWon(won.trick, last.winner, tuple(last.plays), last.call, text)


def round_outcome(config: Config, events: Sequence[Event], index: int,
                  names: Sequence[str]) -> RoundOutcome:
    """The outcome of the round that ``events[index]`` (a round-scored) ends."""
    scored = events[index]
    assert isinstance(scored, RoundScored)
    tricks, _ = teach.round_tricks(events, index)
    shown = presentation(config.game)
    return RoundOutcome(scored.round, scored, shown.round_winner(config, tricks),
                        shown.round_end(config, scored, tricks, names))


def standings(config: Config, totals: Sequence[int], events: Sequence[Event]) -> Standings:
    """The standings: the game's own winners once it is over (Dix breaks ties in totals)."""
    over = [e for e in events if isinstance(e, GameOver)]
    winners = (over[-1].winners if over
               else game_rules(config.game).winners(config, tuple(totals)))
    return Standings(tuple(totals), tuple(winners),
                     game_rules(config.game).low_wins(config), config.seed)


def outcome_notes(winners: Sequence[int], forfeited: Sequence[int], names: Sequence[str],
                  seat: int | None = None) -> list[str]:
    """The table server's outcome in words (its ``result`` line: a forfeited seat never
    wins, spec/SERVER.md section 6), for the REPL, ``connect --watch`` and the page:
    the person's own forfeit first, then the others', then who wins."""
    notes = []
    if seat is not None and seat in forfeited:
        notes.append(_("your seat was forfeited: it cannot win, whatever its total"))
    others = [seat_label(s, names) for s in forfeited if s != seat]
    if others:
        notes.append(ngettext("{who} forfeited: it cannot win", "{who} forfeited: they cannot win",
                              len(others)).format(who=names_text(others)))
    won = [seat_label(s, names) for s in winners]
    if not won:
        notes.append(_("nobody wins: every seat forfeited"))
    elif forfeited:
        shown = [_("you") if who == "you" else who for who in won]
        notes.append(_("you win") if won == ["you"] else ngettext(
            "{who} wins", "{who} share the win", len(won)).format(who=names_text(shown)))
    return notes


def narrate(config: Config, events: Sequence[Event], first: int, names: Sequence[str], *,
            shown: Shown = _as_is, tutorial: bool = False, spoken: bool = False) -> list[Item]:
    """The narration of ``events[first:]``, the rest of the log being what came before.

    ``shown`` hides from the viewer what it may not see; ``tutorial`` adds the note that
    ends a guided first round; ``spoken`` names cards as seen (why_won).
    """
    items: list[Item] = []
    tell_points = presentation(config.game).tells_round_points(config)
    for i in range(first, len(events)):
        event = events[i]
        if not isinstance(event, RoundScored) or tell_points:
            items.append(Told(shown(event)))
        if isinstance(event, TrickWon):
            items.append(why_won(config, events, i, names, spoken))
        if isinstance(event, RoundScored):
            items.append(round_outcome(config, events, i, names))
            if tutorial and event.round == 1:
                items.append(Note("tutorial", teach.TUTORIAL_DONE))
            items.append(Scores(tuple(e for e in events[: i + 1]
                                      if isinstance(e, RoundScored))))
        if isinstance(event, GameOver):
            items.append(standings(config, event.totals, events[: i + 1]))
    return items


__all__ = ["Item", "Note", "RoundOutcome", "Scores", "Standings", "Told", "WhyWon",
           "narrate", "round_outcome", "standings", "why_won"]
