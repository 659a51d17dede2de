"""Pure text rendering of a table: cards, hands, tricks, bids, scores, standings, stats.

Everything here turns plain data into strings and never reads the terminal, so the REPL
(``xactika play``) and the replay viewer share it and tests check it without a tty.
Colour is ANSI escapes, added only when :class:`Style` says so (``NO_COLOR``, ``--ascii``
and non-terminals turn it off). Each game draws its own cards: :data:`CARD_RENDERERS`
maps a game name to a :class:`CardRenderer`; games without one get their card text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import attrs

from xactika.core.games.xactika import DECK, SHAPES, Call, Card, stats_table
from xactika.core.table import BidMade, Dealt, GameOver, Led, Played, RoundScored, TrickWon

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
    bar = "-" if style.ascii else "─"
    if not title:
        return style.dim(bar * size)
    head = f"{bar * 2} {title} "
    return style.bold(head) + style.dim(bar * max(2, size - len(head)))


# --------------------------------------------------------------------------- cards


class CardRenderer:
    """How a game's cards and calls look on screen; the default is their text."""

    columns = "pos  card"  # what the hand's columns are, shown above it

    def card(self, card: Any, style: Style) -> str:
        """The card as the player types it, then drawn."""
        return str(card)

    def card_short(self, card: Any, style: Style) -> str:
        return str(card)

    def call(self, call: Any, style: Style) -> str:
        return "" if call is None else str(call)

    def call_words(self, call: Any) -> str:
        return "" if call is None else str(call)

    def value(self, card: Any) -> int | None:
        return None

    def stats(self, hand: Sequence[Any], seen: Sequence[Any], style: Style) -> str:
        return "no stats card for this game"


# Xactika: one symbol and colour per shape, each easy to tell from the others.
SYMBOLS = ("●", "■", "▲", "★")
ASCII_SYMBOLS = ("o", "#", "^", "*")
SHAPE_COLORS = ("91", "96", "92", "93")  # bright red, cyan, green, yellow


class XactikaRenderer(CardRenderer):
    """``1323  ●   ■■■ ▲▲  ★★★   9``: text, each shape drawn as many times as it counts."""

    columns = "pos  card  shapes  value"

    def symbol(self, shape: int, style: Style) -> str:
        return (ASCII_SYMBOLS if style.ascii else SYMBOLS)[shape]

    def shape_run(self, shape: int, count: int, style: Style) -> str:
        run = self.symbol(shape, style) * count
        return style.paint(run, SHAPE_COLORS[shape]) + " " * (3 - count)

    def drawing(self, card: Card, style: Style) -> str:
        return " ".join(self.shape_run(s, n, style) for s, n in enumerate(card.counts))

    def card(self, card: Any, style: Style) -> str:
        return f"{card}  {self.drawing(card, style)}  {card.value:>2}"

    def card_short(self, card: Any, style: Style) -> str:
        return f"{card} {self.drawing(card, style).rstrip()} ({card.value})"

    def call(self, call: Any, style: Style) -> str:
        if call is None:
            return ""
        run = self.symbol(call.shape, style) * call.count
        return f"{call.words} ({style.paint(run, SHAPE_COLORS[call.shape])})"

    def call_words(self, call: Any) -> str:
        return "" if call is None else str(call.words)

    def value(self, card: Any) -> int | None:
        return int(card.value)

    def stats(self, hand: Sequence[Any], seen: Sequence[Any], style: Style) -> str:
        return xactika_stats(hand, seen, style)


SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
SUIT_COLORS = {"S": "", "H": "91", "D": "91", "C": ""}  # red hearts and diamonds


class SuitRenderer(CardRenderer):
    """Dix and other suited decks: ``QH  Q♥`` (``QH  Q-H`` in ASCII), red suits red."""

    def face(self, card: Any, style: Style) -> str:
        text = str(card)
        suit = getattr(card, "suit", "")
        if not suit:
            return style.bold("joker")
        rank = text[:-1].replace("T", "10")
        symbol = "-" + suit if style.ascii else SUIT_SYMBOLS.get(suit, suit)
        return style.paint(rank + symbol, SUIT_COLORS.get(suit, ""))

    def card(self, card: Any, style: Style) -> str:
        return f"{card!s:<3} {self.face(card, style)}"

    def card_short(self, card: Any, style: Style) -> str:
        return f"{card} ({self.face(card, style)})" if getattr(card, "suit", "") else str(card)


SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}


def turned_up(card: Any, style: Style) -> str:
    """The turned-up card and what it makes trumps, so nobody has to work it out."""
    suit = getattr(card, "suit", "")
    if not suit:
        return f"turned up: the {style.bold('joker')}: no trumps this round"
    face = SuitRenderer().face(card, style)
    return f"turned up: {card} ({face}): {SUIT_NAMES.get(suit, suit)} are trumps"


CARD_RENDERERS: dict[str, CardRenderer] = {"xactika": XactikaRenderer(), "dix": SuitRenderer()}
_DEFAULT_RENDERER = CardRenderer()


def card_renderer(game: str) -> CardRenderer:
    return CARD_RENDERERS.get(game, _DEFAULT_RENDERER)


# --------------------------------------------------------------------------- names


def seat_label(seat: int, names: Sequence[str]) -> str:
    """``seat 1 (heuristic)``; the one human of a practice game is just ``you``."""
    name = names[seat] if seat < len(names) else ""
    if name == "you":
        return "you"
    return f"seat {seat} ({name})" if name else f"seat {seat}"


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
        lines.append("  (no cards)")
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
) -> str:
    """The trick so far: the call, who played what (off-call cards marked), who leads it."""
    draw = card_renderer(game)
    head = f"trick {number}" if number is not None else "trick"
    if not plays:
        return f"{head}: nobody has played yet"
    lines = [f"{head}: called {draw.call(call, style)}" if call is not None else f"{head}:"]
    size = max(width(seat_label(seat, names)) for seat, _ in plays)
    for seat, card in plays:
        note = ""
        if call is not None and isinstance(call, Call) and not card.shows(call):
            note = style.dim("  (does not show the call)")
        if seat == winning:
            note += "  " + style.bold("<- winning" if style.ascii else "← winning")
        label = pad(seat_label(seat, names), size)
        lines.append(f"  {label}  {draw.card_short(card, style)}{note}")
    return "\n".join(lines)


def short_label(seat: int, names: Sequence[str]) -> str:
    """A column head: ``you`` or ``1 heuristic``."""
    label = seat_label(seat, names)
    return label if label == "you" else f"{seat} {names[seat]}" if seat < len(names) else str(seat)


def seat_rows(rows: Sequence[tuple[str, Sequence[Any]]], names: Sequence[str],
              note: str = "") -> str:
    """A small table, one column per seat: ``bid``/``taken`` rows under seat heads."""
    n = len(rows[0][1]) if rows else 0
    heads = [short_label(s, names) for s in range(n)]
    first = max(len(label) for label, _ in rows)
    sizes = [max(len(heads[s]), *(len("?" if r[1][s] is None else str(r[1][s]))
                                   for r in rows)) for s in range(n)]
    lines = [" " * first + "  " + "  ".join(pad(h, sizes[s], right=True)
                                           for s, h in enumerate(heads))]
    for label, values in rows:
        cells = ["?" if v is None else str(v) for v in values]
        lines.append(pad(label, first) + "  " + "  ".join(
            pad(c, sizes[s], right=True) for s, c in enumerate(cells)))
    if note and len(lines) > 1:
        lines[1] += "   " + note
    return "\n".join(lines)


def bids(values: Sequence[int | None], names: Sequence[str], taken: Sequence[int]) -> str:
    """The bids (``?`` for not yet), the tricks taken once play starts, and the total."""
    rows: list[tuple[str, Sequence[Any]]] = [("bid", list(values))]
    if taken:
        rows.append(("taken", list(taken)))
    total = sum(b for b in values if b is not None)
    return seat_rows(rows, names, f"(total {total})")


def tricks_taken(taken: Sequence[int], names: Sequence[str]) -> str:
    return seat_rows([("taken", list(taken))], names)


# --------------------------------------------------------------------------- scores


def score_table(scored: Sequence[RoundScored], names: Sequence[str], style: Style) -> str:
    """One row per round: bid/tricks/points per seat, then the running totals."""
    if not scored:
        return "no round has been scored yet"
    n = len(scored[0].points)
    heads = [short_label(s, names) for s in range(n)]
    cells: list[list[str]] = []
    for row in scored:
        line = [str(row.round)]
        for s in range(n):
            bid = f"{row.bids[s]}/" if row.bids is not None else ""
            line.append(f"{bid}{row.tricks[s]} {row.points[s]:+d}")
        cells.append(line)
    totals = ["total", *(str(t) for t in scored[-1].totals)]
    key = "bid/tricks points" if scored[0].bids is not None else "tricks points"
    header = ["round", *heads]
    sizes = [
        max(width(c[i]) for c in [*cells, totals, header]) for i in range(n + 1)
    ]
    sep = "-+-" if style.ascii else "─┼─"
    bar = sep.join(("-" if style.ascii else "─") * w for w in sizes)
    out = [
        " | ".join(pad(h, sizes[i]) for i, h in enumerate(header)) if style.ascii
        else " │ ".join(pad(h, sizes[i]) for i, h in enumerate(header)),
        bar,
    ]
    col = " | " if style.ascii else " │ "
    for line in cells:
        out.append(col.join(pad(c, sizes[i], right=i > 0) for i, c in enumerate(line)))
    out.append(bar)
    out.append(
        col.join(style.bold(pad(c, sizes[i], right=i > 0)) for i, c in enumerate(totals))
    )
    out.append(style.dim(f"(each cell: {key})"))
    return "\n".join(out)


def standings(
    totals: Sequence[int],
    winners: Sequence[int],
    names: Sequence[str],
    style: Style,
    *,
    low_wins: bool = False,
) -> str:
    """Best first; shared places get the same rank."""
    sign = 1 if low_wins else -1
    order = sorted(range(len(totals)), key=lambda s: (sign * totals[s], s))
    lines = ["final standings" + (" (lowest total wins)" if low_wins else "") + ":"]
    rank = 0
    prev: int | None = None
    size = max(width(seat_label(s, names)) for s in order) if order else 0
    for i, seat in enumerate(order):
        if totals[seat] != prev:
            rank = i + 1
            prev = totals[seat]
        mark = "  " + style.bold("winner") if seat in winners else ""
        lines.append(f"  {rank}. {pad(seat_label(seat, names), size)}  {totals[seat]:>4}{mark}")
    return "\n".join(lines)


# --------------------------------------------------------------------------- stats


def xactika_stats(hand: Sequence[Card], seen: Sequence[Card], style: Style) -> str:
    """The stats card, then the cards this seat has not yet seen this round.

    ``seen`` is every card this seat has seen (its hand and the cards played); the
    unseen table counts the rest of the deck by value and, per shape, by count.
    """
    full = stats_table(DECK)
    known = set(hand) | set(seen)
    unseen = [c for c in DECK if c not in known]
    lines = ["stats card (whole deck): value, cards, cards with 1 / 2 / 3 of a given shape"]
    lines.append("  value  cards    1    2    3")
    for value, (count, one, two, three) in full.items():
        lines.append(f"  {value:>5}  {count:>5}  {one:>3}  {two:>3}  {three:>3}")
    draw = XactikaRenderer()
    lines.append("")
    lines.append(
        f"not yet seen this round: {len(unseen)} cards (of 81; not in your hand or played)"
    )
    heads = "  ".join(
        style.paint(" ".join(pad(f"{draw.symbol(s, style)}{k}", 3, right=True)
                             for k in (1, 2, 3)), SHAPE_COLORS[s])
        for s in range(4)
    )
    lines.append(f"  value  cards   {heads}")
    for value in full:
        row = [c for c in unseen if c.value == value]
        groups = []
        for s in range(4):
            groups.append(" ".join(f"{sum(1 for c in row if c.counts[s] == k):>3}"
                                   for k in (1, 2, 3)))
        lines.append(f"  {value:>5}  {len(row):>5}   " + "  ".join(groups))
    totals = "  ".join(
        " ".join(f"{sum(1 for c in unseen if c.counts[s] == k):>3}" for k in (1, 2, 3))
        for s in range(4)
    )
    lines.append(f"  {'all':>5}  {len(unseen):>5}   {totals}")
    lines.append(style.dim("  shapes: " + ", ".join(
        f"{draw.symbol(s, style)} {SHAPES[s]}" for s in range(4))))
    return "\n".join(lines)


# --------------------------------------------------------------------------- events


def narrate(
    event: Any,
    names: Sequence[str],
    game: str,
    style: Style,
    *,
    mode: str = "",
) -> str | None:
    """One line telling a player what an event did, or None for events told elsewhere.

    Deals never show hands here: a hand is shown only to its own seat, on its turn.
    """
    draw = card_renderer(game)
    if isinstance(event, Dealt):
        dealer = seat_label(event.dealer, names)
        return style.bold(f"round {event.round}: {dealer} {'deal' if dealer == 'you' else 'deals'}")
    who = seat_label(getattr(event, "seat", 0), names)
    you = who == "you"
    if isinstance(event, BidMade):
        return f"{who} {'bid' if you else 'bids'} {event.bid}"
    if isinstance(event, Led):
        called = f", calling {draw.call(event.call, style)}" if event.call is not None else ""
        return f"{who} {'lead' if you else 'leads'} {draw.card_short(event.card, style)}{called}"
    if isinstance(event, Played):
        return f"{who} {'play' if you else 'plays'} {draw.card_short(event.card, style)}"
    if isinstance(event, TrickWon):
        return style.bold(f"{who} {'win' if you else 'wins'} trick {event.trick}")
    if isinstance(event, RoundScored):
        pts = ", ".join(
            f"{seat_label(s, names)} {p:+d}" for s, p in enumerate(event.points)
        )
        return f"round {event.round} scored: {pts}"
    if isinstance(event, GameOver):
        return style.bold("the game is over")
    return None


def legal_summary(cards: Sequence[Any], hand_order: Sequence[Any]) -> str:
    """``3 5 6`` style positions of legal cards in the shown hand."""
    positions = [str(i) for i, c in enumerate(hand_order, 1) if c in set(cards)]
    return " ".join(positions)
