"""Pure text rendering of a table: cards, hands, tricks, bids, scores, standings, stats.

Everything here turns plain data into strings and never reads the terminal, so the REPL
(``xactika play``) and the replay viewer share it and tests check it without a tty.
Colour is ANSI escapes, added only when :class:`Style` says so (``NO_COLOR``, ``--ascii``
and non-terminals turn it off). Each game draws its own cards: :func:`card_renderer`
finds its :class:`CardRenderer` by the game's name (frontends/repl/cards/); games
without one get their card text.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence
from typing import Any

import attrs

from xactika.core.engine.api import (
    BidMade,
    Dealt,
    GameOver,
    Led,
    Played,
    RoundScored,
    TrickWon,
    import_named,
)
from xactika.frontends.i18n import N_, _, ngettext
from xactika.frontends.people.narration import Item, RoundOutcome, Scores, Standings, Told, WhyWon
from xactika.frontends.people.presentation import Progress, presentation, seat_label
from xactika.frontends.people.seats import seat_shown

# --------------------------------------------------------------------------- style

RESET = "\x1b[0m"
BOLD = "1"
DIM = "2"
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


@attrs.frozen
class Style:
    """How to draw: ``color`` adds ANSI colours, ``ascii`` keeps to 7-bit characters."""

    color: bool = True
    ascii: bool = False

    def paint(self, text: str, code: str) -> str:
        if not self.color or not code or not text:
            return text
        return f"\x1b[{code}m{text}{RESET}"

    def bold(self, text: str) -> str:
        return self.paint(text, BOLD)

    def dim(self, text: str) -> str:
        return self.paint(text, DIM)


PLAIN = Style(color=False, ascii=False)


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text)


def width(text: str) -> int:
    """Printed width: escapes take no room (the shape symbols are one column each)."""
    return len(strip_ansi(text))


def pad(text: str, size: int, *, right: bool = False) -> str:
    gap = " " * max(0, size - width(text))
    return gap + text if right else text + gap


def rule(style: Style, title: str = "", size: int = 60) -> str:
    """A title in a rule ``size`` wide; a longer title goes on as many lines as it needs,
    broken between words (the terminal would break it mid-word)."""
    bar = "-" if style.ascii else "─"
    if not title:
        return style.dim(bar * size)
    *first, last = _pack(title, size - 5)
    lines = [style.bold(f"{bar * 2} {line}") for line in first]
    head = f"{bar * 2} {last} "
    return "\n".join([*lines, style.bold(head) + style.dim(bar * max(2, size - len(head)))])


def _pack(title: str, width: int) -> list[str]:
    """The title's ``, ``-separated parts on as few lines of ``width`` as they fit, a part
    longer than a line broken between its words."""
    lines: list[str] = []
    for part in title.split(", "):
        if lines and len(lines[-1]) + 2 + len(part) <= width:
            lines[-1] += ", " + part
            continue
        if lines:
            lines[-1] += ","
        lines += textwrap.wrap(part, width, break_long_words=False,
                               break_on_hyphens=False) or [""]
    return lines


# A command to paste, on a line of its own (see :func:`command`): never wrapped, so
# that the terminal wraps it softly and copying it gives one line that runs.
_COMMAND = re.compile(r"^  (?:--seed |(?:'[^']*'|\S+) (?:play --|replay ))")


def command(text: str) -> str:
    """``text``, a shell command or flag to paste, as a line that :func:`fit` keeps whole."""
    return "  " + text


# a word, a run of blanks, or a short quoted command kept whole ('play 1 2ba')
_WORDS = re.compile(r"'[^'\s][^'\n]{0,28}'\S*|[^ ]+| +")


def fit(text: str, size: int | None) -> str:
    """Word-wrap every line wider than ``size`` (escapes take no room), never mid-word
    nor inside a short quoted command (``'play 1 2ba'``).

    The last resort for prose (help, errors, narration): tables lay themselves out to
    the width first, so this only re-flows sentences, indenting continuation lines.
    A command to paste (:func:`command`) is left whole.
    """
    if size is None:
        return text
    out: list[str] = []
    for line in text.split("\n"):
        if width(line) <= size or _COMMAND.match(line):
            out.append(line)
            continue
        body = line.lstrip(" ")
        indent = line[: len(line) - len(body)]
        more = indent + "  " if len(indent) + 12 < size else ""
        current = indent
        for token in _WORDS.findall(body):
            if token.startswith(" "):
                if current.strip():
                    current += token
                continue
            if current.strip() and width(current + token) > size:
                out.append(current.rstrip(" "))
                current = more
            while width(current + token) > size:  # a word wider than the line: cut it
                plain = strip_ansi(token)
                room = max(1, size - width(current))
                out.append(current + plain[:room])
                token, current = plain[room:], more
            current += token
        out.append(current.rstrip(" "))
    return "\n".join(out)


# --------------------------------------------------------------------------- cards


class CardRenderer:
    """How a game's cards and calls look on screen; the default is their text."""

    columns = "pos  card"  # what the hand's columns are, shown above it

    def card(self, card: Any, style: Style) -> str:
        """The card as the player types it, then drawn."""
        return str(card)

    def card_short(self, card: Any, style: Style) -> str:
        return str(card)

    def card_compact(self, card: Any, style: Style) -> str:
        """The card for narrow terminals: its text (and value), no drawing."""
        return str(card)

    def call(self, call: Any, style: Style) -> str:
        return "" if call is None else str(call)

    def call_words(self, call: Any) -> str:
        return "" if call is None else str(call)

    def value(self, card: Any) -> int | None:
        return None

    def stats(self, hand: Sequence[Any], seen: Sequence[Any], style: Style,
              size: int | None = None) -> str:
        return _("no stats card in this game: 'last' shows the last trick, 'scores' the "
                 "points")

    def columns_text(self) -> str:
        return _("pos  card")

    symbols: tuple[tuple[str, str], ...] = ()
    """Each symbol the cards are drawn with and its ASCII stand-in (``--ascii``)."""

    def off_call(self, card: Any, call: Any) -> bool:
        """Whether a card played to a trick led with ``call`` lacks what was called (it
        is marked so); never, for a game whose cards show no calls."""
        return False


SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
SUIT_COLORS = {"S": "", "H": "91", "D": "91", "C": ""}  # red hearts and diamonds


class SuitRenderer(CardRenderer):
    """Dix and other suited decks: ``QH  Q♥`` (``QH  Q-H`` in ASCII), red suits red."""

    def face(self, card: Any, style: Style) -> str:
        text = str(card)
        suit = getattr(card, "suit", "")
        if not suit:
            return style.bold(_("joker"))
        rank = text[:-1].replace("T", "10")
        symbol = "-" + suit if style.ascii else SUIT_SYMBOLS.get(suit, suit)
        return style.paint(rank + symbol, SUIT_COLORS.get(suit, ""))

    def card(self, card: Any, style: Style) -> str:
        return f"{card!s:<3} {self.face(card, style)}"

    def card_short(self, card: Any, style: Style) -> str:
        return f"{card} ({self.face(card, style)})"


SUIT_NAMES = {"S": N_("spades"), "H": N_("hearts"), "D": N_("diamonds"), "C": N_("clubs")}


def turned_up(card: Any, style: Style, game: str) -> str:
    """The turned-up card and what it makes trumps, so nobody has to work it out; what
    else the game says of it (Dix's joker) comes from its presentation."""
    suit = getattr(card, "suit", "")
    if not suit:
        return _("turned up: the {joker}: no trumps this round").format(
            joker=style.bold(_("joker")))
    face = SuitRenderer().face(card, style)
    note = presentation(game).trump_note(card)
    if not note:
        return _("turned up: {card} ({face}): {suit} are trumps").format(
            card=card, face=face, suit=_(SUIT_NAMES.get(suit, suit)))
    return _("turned up: {card} ({face}): {suit} are trumps; {joker}").format(
        card=card, face=face, suit=_(SUIT_NAMES.get(suit, suit)), joker=note)


_RENDERERS: dict[str, CardRenderer] = {}
_DEFAULT_RENDERER = CardRenderer()
CARDS_PACKAGE = f"{__package__}.cards"


def register_card_renderer(game: str, renderer: CardRenderer) -> CardRenderer:
    """How ``game``'s cards are drawn on a terminal: from its module in
    frontends/repl/cards/, or from a plug-in's presentation module anywhere."""
    _RENDERERS[game] = renderer
    return renderer


def card_renderer(game: str) -> CardRenderer:
    """The game's renderer, found by its name as presentations and bots are: registered
    already (a plug-in), else by the game's presentation module, else by the module of
    frontends/repl/cards/ named as the game; a game without one has its cards drawn as
    their text."""
    if game not in _RENDERERS:
        presentation(game)  # its presentation module may register the renderer
    if game not in _RENDERERS:
        import_named(CARDS_PACKAGE, game)
    return _RENDERERS.get(game, _DEFAULT_RENDERER)


# --------------------------------------------------------------------------- hands


def hand(
    cards: Sequence[Any],
    game: str,
    style: Style,
    *,
    legal: Sequence[Any] | None = None,
) -> str:
    """A hand in the order given (callers sort it), numbered from 1 for ``play N``.

    When ``legal`` is a strict subset, legal cards get an arrow and the rest are dimmed.
    """
    draw = card_renderer(game)
    restricted = legal is not None and len(set(legal)) < len(set(cards))
    lines = []
    for i, card in enumerate(cards, 1):
        text = draw.card(card, style)
        mark = "  "
        if restricted and legal is not None:
            if card in legal:
                mark = "->" if style.ascii else "→ "
                mark = style.bold(mark)
            else:
                text = style.dim(strip_ansi(text))
        lines.append(f"{mark} {i:>2}  {text}")
    if not cards:
        lines.append("  " + _("(no cards)"))
    return "\n".join(lines)


# --------------------------------------------------------------------------- trick and bids


def trick(
    plays: Sequence[tuple[int, Any]],
    call: Any,
    names: Sequence[str],
    game: str,
    style: Style,
    *,
    winning: int | None = None,
    number: int | None = None,
    size: int | None = None,
    won: bool = False,
) -> str:
    """The trick so far: the call, who played what (off-call cards marked), who leads it.

    Too wide for ``size`` columns, it shortens the seat names, then drops the drawings.
    """
    draw = card_renderer(game)
    head = _("trick {n}").format(n=number) if number is not None else _("trick")
    if not plays:
        return _("{trick}: nobody has played yet").format(trick=head)
    arrow = "<- " if style.ascii else "← "
    mark = arrow + (_("won") if won else _("winning"))
    top = (_("{trick}: called {call}").format(trick=head, call=draw.call(call, style))
           if call is not None else f"{head}:")

    def layout(level: int, short: bool, off: str) -> list[str]:
        def label(seat: int) -> str:
            return seat_name(seat, names) if level == 0 else short_label(seat, names, level - 1)
        lines = [top]
        wide = max(width(label(seat)) for seat, _ in plays)
        for seat, card in plays:
            note = ""
            if call is not None and draw.off_call(card, call):
                note = style.dim(f"  ({off})")
            if seat == winning:
                note += "  " + style.bold(mark)
            shown = draw.card_compact(card, style) if short else draw.card_short(card, style)
            lines.append(f"  {pad(label(seat), wide)}  {shown}{note}")
        return lines

    long = _("does not show the call")
    tries = [(0, False, long), (1, False, long), (2, False, long), (3, False, long),
             (3, True, long), (3, True, _("off call"))]
    for level, short, off in tries:
        lines = layout(level, short, off)
        if size is None or all(width(line) <= size for line in lines[1:]):
            break
    return "\n".join(lines)


def short_label(seat: int, names: Sequence[str], level: int = 0) -> str:
    """A column head: ``you`` or ``1 heuristic``; narrower levels for narrow terminals.

    Level 1 cuts the name to four characters (``1 heur``), level 2 keeps the seat number.
    """
    label = seat_label(seat, names)
    if label == "you" or seat >= len(names):
        return _("you") if label == "you" else str(seat_shown(seat))
    name = names[seat]
    if level >= 2 or not name:
        return str(seat_shown(seat))
    return f"{seat_shown(seat)} {name[:4] if level == 1 else name}"


def seat_name(seat: int, names: Sequence[str]) -> str:
    """A seat as a person reads it: ``you`` (translated), else its number and name."""
    label = seat_label(seat, names)
    return _("you") if label == "you" else label


def _chunks(n: int, fits: Any) -> list[list[int]]:
    """Seats 0..n-1 cut into runs, each as long as ``fits(run)`` allows (at least one)."""
    runs: list[list[int]] = []
    run: list[int] = []
    for s in range(n):
        if run and not fits([*run, s]):
            runs.append(run)
            run = []
        run.append(s)
    return [*runs, run] if run else runs


def seat_rows(rows: Sequence[tuple[str, Sequence[Any]]], names: Sequence[str],
              note: str = "", size: int | None = None, alone: str = "") -> str:
    """A small table, one column per seat: ``bid``/``taken`` rows under seat heads.

    Too wide for ``size`` columns, it abbreviates the names, then stacks the seats in
    several narrower tables. ``note`` follows the first row, or goes on a line of its
    own as ``alone`` when it does not fit there.
    """
    n = len(rows[0][1]) if rows else 0
    first = max(len(label) for label, _ in rows)

    def grid(seats: Sequence[int], level: int) -> list[str]:
        heads = {s: short_label(s, names, level) for s in seats}
        sizes = {s: max(width(heads[s]), *(len("?" if r[1][s] is None else str(r[1][s]))
                                           for r in rows)) for s in seats}
        lines = [" " * first + "  " + "  ".join(pad(heads[s], sizes[s], right=True)
                                               for s in seats)]
        for label, values in rows:
            lines.append(pad(label, first) + "  " + "  ".join(
                pad("?" if values[s] is None else str(values[s]), sizes[s], right=True)
                for s in seats))
        return lines

    def fits(lines: list[str]) -> bool:
        return size is None or all(width(line) <= size for line in lines)

    def noted(lines: list[str]) -> list[str]:
        if note and len(lines) > 1:
            if size is None or width(lines[1]) + 3 + len(note) <= size:
                lines[1] += "   " + note
            else:
                lines.append(alone or note)
        return lines

    for level in (0, 1, 2):
        lines = grid(range(n), level)
        if fits(lines):
            return "\n".join(noted(lines))
    runs = _chunks(n, lambda run: fits(grid(run, 2)))
    stacked = [line for run in runs for line in grid(run, 2)]
    return "\n".join(noted(stacked))


def bids(values: Sequence[int | None], names: Sequence[str], taken: Sequence[int],
         size: int | None = None) -> str:
    """The bids (``?`` for not yet), the tricks taken once play starts, and the total."""
    rows: list[tuple[str, Sequence[Any]]] = [(_("bid"), list(values))]
    if taken:
        rows.append((_("taken"), list(taken)))
    total = sum(b for b in values if b is not None)
    return seat_rows(rows, names, _("(total {n})").format(n=total), size,
                     _("the bids total {n}").format(n=total))


def tricks_taken(taken: Sequence[int], names: Sequence[str], size: int | None = None,
                 points: Sequence[int] | None = None, tens: Sequence[int] | None = None
                 ) -> str:
    """Tricks taken; Dix adds its ten-tricks and the round's running points."""
    rows: list[tuple[str, Sequence[Any]]] = [(_("taken"), list(taken))]
    if tens is not None:
        rows.append((_("ten-tricks"), list(tens)))
    if points is not None:
        rows.append((_("points"), [f"{p:+d}" for p in points]))
    return seat_rows(rows, names, size=size)


def progress(told: Progress, names: Sequence[str], size: int | None = None, *,
             stock: bool = True) -> list[str]:
    """The round so far: tricks taken (Dix: ten-tricks and points too), then the stock."""
    lines = [tricks_taken(told.taken, names, size, points=told.points, tens=told.tens)]
    if stock and told.stock is not None:
        left = told.stock
        lines.append(ngettext("stock: {n} card; after each trick its winner draws first",
                              "stock: {n} cards; after each trick its winner draws first",
                              left).format(n=left)
                     if left else _("stock: 0 cards; no more draws"))
    return lines


# --------------------------------------------------------------------------- scores


def score_table(scored: Sequence[RoundScored], names: Sequence[str], style: Style,
                size: int | None = None) -> str:
    """One row per round: bid/tricks/points per seat, then the running totals.

    Too wide for ``size`` columns, it abbreviates the names, then stacks the seats.
    """
    if not scored:
        return _("no round has been scored yet")
    n = len(scored[0].points)
    key = _("bid/tricks points") if scored[0].bids is not None else _("tricks points")
    col = " | " if style.ascii else " │ "
    sep = "-+-" if style.ascii else "─┼─"
    dash = "-" if style.ascii else "─"

    def grid(seats: Sequence[int], level: int) -> list[str]:
        cells: list[list[str]] = []
        for row in scored:
            line = [str(row.round)]
            for s in seats:
                bid = f"{row.bids[s]}/" if row.bids is not None else ""
                line.append(f"{bid}{row.tricks[s]} {row.points[s]:+d}")
            cells.append(line)
        totals = [_("total"), *(str(scored[-1].totals[s]) for s in seats)]
        header = [_("round"), *(short_label(s, names, level) for s in seats)]
        sizes = [max(width(c[i]) for c in [*cells, totals, header])
                 for i in range(len(seats) + 1)]
        bar = sep.join(dash * w for w in sizes)
        out = [col.join(pad(h, sizes[i]) for i, h in enumerate(header)).rstrip(), bar]
        for line in cells:
            out.append(col.join(pad(c, sizes[i], right=i > 0) for i, c in enumerate(line)))
        out.append(bar)
        out.append(col.join(style.bold(pad(c, sizes[i], right=i > 0))
                            for i, c in enumerate(totals)))
        return out

    def fits(lines: list[str]) -> bool:
        return size is None or all(width(line) <= size for line in lines)

    for level in (0, 1, 2):
        lines = grid(range(n), level)
        if fits(lines):
            break
    else:
        runs = _chunks(n, lambda run: fits(grid(run, 2)))
        lines = [line for i, run in enumerate(runs) for line in ([""] if i else []) + grid(run, 2)]
    lines.append(style.dim(_("(each cell: {key})").format(key=key)))
    return "\n".join(lines)


def standings(
    totals: Sequence[int],
    winners: Sequence[int],
    names: Sequence[str],
    style: Style,
    *,
    low_wins: bool = False,
) -> str:
    """Best first; shared places get the same rank; a tie the game broke is not shared."""
    return standings_text(Standings(tuple(totals), tuple(winners), low_wins),
                          names, style)


def standings_text(told: Standings, names: Sequence[str], style: Style,
                   again: str | None = None) -> str:
    """The standings, and how to play the same deals again: ``again`` (the whole command,
    with the mode, the players and the seats) where it is known, else the seed."""
    order = told.order()
    lines = [_("final standings (lowest total wins):") if told.low_wins
             else _("final standings:")]
    size = max(width(seat_name(s, names)) for __, s in order) if order else 0
    for rank, seat in order:
        mark = "  " + style.bold(_("winner")) if seat in told.winners else ""
        lines.append(f"  {rank:>{len(str(len(order)))}}. {pad(seat_name(seat, names), size)}  "
                     f"{told.totals[seat]:>4}{mark}")
    if again is not None:
        # the command on a line of its own: a 128-bit seed must not wrap inside it
        lines += [_("'again' plays the same deals again, 'new' a new game; or later, from "
                    "a shell:"), command(again)]
    elif told.seed is not None:
        lines += [_("the deals came from a seed; this plays them again:"),
                  command(f"--seed {told.seed}")]
    return "\n".join(lines)


def narration(items: Sequence[Item], names: Sequence[str], game: str, style: Style,
              size: int | None = None, again: str | None = None) -> list[str]:
    """The narration laid out for a terminal: one text (maybe several lines) an item."""
    lines: list[str] = []
    for item in items:
        if isinstance(item, Told):
            text = narrate(item.event, names, game, style, size=size)
            if text is not None:
                lines.append(text)
        elif isinstance(item, WhyWon):
            lines.append(style.dim("  " + item.text))
        elif isinstance(item, RoundOutcome):
            if item.text:
                lines.append(item.text)
        elif isinstance(item, Scores):
            lines.append(score_table(item.scored, names, style, size))
        elif isinstance(item, Standings):
            lines.append(standings_text(item, names, style, again))
        elif item.kind == "tutorial":
            lines.append(style.bold(_(item.text)))
        else:
            lines.append(item.text)
    return lines


# --------------------------------------------------------------------------- events


def narrate(
    event: Any,
    names: Sequence[str],
    game: str,
    style: Style,
    *,
    mode: str = "",
    size: int | None = None,
) -> str | None:
    """One line telling a player what an event did, or None for events told elsewhere.

    Deals never show hands here: a hand is shown only to its own seat, on its turn.
    A card line too wide for ``size`` columns drops the card's drawing.
    """
    draw = card_renderer(game)
    if isinstance(event, Dealt):
        if seat_label(event.dealer, names) == "you":
            return style.bold(_("round {n}: you deal").format(n=event.round))
        return style.bold(_("round {n}: {who} deals").format(
            n=event.round, who=seat_label(event.dealer, names)))
    who = seat_label(getattr(event, "seat", 0), names)
    you = who == "you"
    if isinstance(event, BidMade):
        return (_("you bid {bid}") if you else _("{who} bids {bid}")).format(
            who=who, bid=event.bid)
    if isinstance(event, Led | Played):
        call = getattr(event, "call", None)
        if isinstance(event, Led) and call is not None:
            said = _("you lead {card}, calling {call}") if you else _(
                "{who} leads {card}, calling {call}")
        elif isinstance(event, Led):
            said = _("you lead {card}") if you else _("{who} leads {card}")
        else:
            said = _("you play {card}") if you else _("{who} plays {card}")
        for shown in (draw.card_short, draw.card_compact):
            line = said.format(who=who, card=shown(event.card, style),
                               call=draw.call(call, style))
            if size is None or width(line) <= size:
                break
        return line
    if isinstance(event, TrickWon):
        return style.bold((_("you win trick {n}") if you else _("{who} wins trick {n}")).format(
            who=who, n=event.trick))
    if isinstance(event, RoundScored):
        pts = ", ".join(
            f"{seat_name(s, names)} {p:+d}" for s, p in enumerate(event.points)
        )
        return _("round {n} scored: {points}").format(n=event.round, points=pts)
    if isinstance(event, GameOver):
        return style.bold(_("the game is over"))
    if type(event).__name__ == "Drew":  # Dix: a card from the stock
        if event.card is None:
            return (_("you draw a card from the stock (face down)") if you else
                    _("{who} draws a card from the stock (face down)")).format(who=who)
        return (_("you draw {card}") if you else _("{who} draws {card}")).format(
            who=who, card=draw.card_short(event.card, style))
    return None


def legal_summary(cards: Sequence[Any], hand_order: Sequence[Any]) -> str:
    """``3 5 6`` style positions of legal cards in the shown hand."""
    positions = [str(i) for i, c in enumerate(hand_order, 1) if c in set(cards)]
    return " ".join(positions)
