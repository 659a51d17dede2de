"""How a terminal draws Xactika's cards: each shape drawn as often as the card counts
it, one symbol and colour per shape, and the stats card (``stats``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xactika.core.games.xactika import DECK, XACTIKA, Call, Card, stats_table
from xactika.frontends.i18n import N_, _, ngettext
from xactika.frontends.people.xactika import shape_words
from xactika.frontends.repl.render import CardRenderer, Style, fit, pad, register_card_renderer

# Xactika: one symbol and colour per shape, each easy to tell from the others.
SYMBOLS = ("●", "■", "▲", "★")
ASCII_SYMBOLS = ("o", "#", "^", "*")
SHAPE_COLORS = ("91", "96", "92", "93")  # bright red, cyan, green, yellow


class XactikaRenderer(CardRenderer):
    """``1323  ●   ■■■ ▲▲  ★★★   9``: text, each shape drawn as many times as it counts."""

    columns = "pos  card  shapes  value"
    symbols = tuple(zip(SYMBOLS, ASCII_SYMBOLS, strict=True))

    def columns_text(self) -> str:
        return _("pos  card  shapes  value")

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

    def card_compact(self, card: Any, style: Style) -> str:
        return f"{card} ({card.value})"

    def call(self, call: Any, style: Style) -> str:
        if call is None:
            return ""
        run = self.symbol(call.shape, style) * call.count
        drawn = style.paint(run, SHAPE_COLORS[call.shape])
        return f"{shape_words(call.shape, call.count)} ({drawn})"

    def call_words(self, call: Any) -> str:
        return "" if call is None else shape_words(call.shape, call.count)

    def value(self, card: Any) -> int | None:
        return int(card.value)

    def stats(self, hand: Sequence[Any], seen: Sequence[Any], style: Style,
              size: int | None = None) -> str:
        return xactika_stats(hand, seen, style, size)

    def off_call(self, card: Any, call: Any) -> bool:
        return isinstance(call, Call) and not card.shows(call)


SHAPE_NAMES = (N_("balls"), N_("cubes"), N_("cones"), N_("stars"))




def xactika_stats(hand: Sequence[Card], seen: Sequence[Card], style: Style,
                  size: int | None = None) -> str:
    """The stats card, then the cards this seat has not yet seen this round.

    ``seen`` is every card this seat has seen (its hand and the cards played); the
    unseen table counts the rest of the deck by value and, per shape, by count.
    """
    full = stats_table(DECK)
    known = set(hand) | set(seen)
    unseen = [c for c in DECK if c not in known]
    lines = [_("stats card (whole deck): value, cards, cards with 1 / 2 / 3 of a given "
               "shape")]
    value_head, cards_head = _("value"), _("cards")
    lines.append(f"  {value_head:>5}  {cards_head:>5}    1    2    3")
    for value, (count, one, two, three) in full.items():
        lines.append(f"  {value:>5}  {count:>5}  {one:>3}  {two:>3}  {three:>3}")
    draw = XactikaRenderer()
    lines.append("")
    lines.append(ngettext(
        "not yet seen this round: {n} card (of 81; not in your hand or played)",
        "not yet seen this round: {n} cards (of 81; not in your hand or played)",
        len(unseen)).format(n=len(unseen)))
    cell = 3 if size is None or size >= 70 else 2  # narrow terminals: tighter columns
    heads = "  ".join(
        style.paint(" ".join(pad(f"{draw.symbol(s, style)}{k}", cell, right=True)
                             for k in (1, 2, 3)), SHAPE_COLORS[s])
        for s in range(4)
    )
    lines.append(f"  {value_head:>5}  {cards_head:>5}   {heads}")
    for value in full:
        row = [c for c in unseen if c.value == value]
        groups = []
        for s in range(4):
            groups.append(" ".join(f"{sum(1 for c in row if c.counts[s] == k):>{cell}}"
                                   for k in (1, 2, 3)))
        lines.append(f"  {value:>5}  {len(row):>5}   " + "  ".join(groups))
    totals = "  ".join(
        " ".join(f"{sum(1 for c in unseen if c.counts[s] == k):>{cell}}" for k in (1, 2, 3))
        for s in range(4)
    )
    lines.append(f"  {_('all'):>5}  {len(unseen):>5}   {totals}")
    lines.append(style.dim("  " + _("shapes: {list}").format(list=", ".join(
        f"{draw.symbol(s, style)} {_(SHAPE_NAMES[s])}" for s in range(4)))))
    return fit("\n".join(lines), size)


register_card_renderer(XACTIKA.name, XactikaRenderer())
