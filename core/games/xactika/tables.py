"""Xactika's cards as small integers: the one set of index tables every fast copy of the
rules reads (the search bot's simulator and its kernel, the inference model, the batch
and accelerator simulators, the lean audit), built once from the game's own deck.

A card is an index, a set of cards a bitmask of indices, a call ``(count - 1) * 4 +
shape`` (the order of :data:`CALLS`). Two card orders, each for a reason:

* **Value order** (:data:`CARDS`, :data:`INDEX`): a smaller index never has a higher
  value, so ``min`` and ``max`` of a list of indices are the lowest and highest cards.
  The search bot, its kernel, the inference model and the lean audit use it.
* **Deck order** (:data:`DECK_VALUES`, :data:`DECK_COUNTS`, :data:`DECK_SHOWS`): a card's
  index is its place in :data:`DECK`, the order the seeded shuffle draws from. The batch
  and accelerator simulators use it: their policies break ties by it, so their games
  are the ones the reference plays through ``step``.

Pure Python (no numpy), so ``xactika bot`` starts without it; the array simulators make
their arrays from these tuples.
"""

from __future__ import annotations

from xactika.core.games.xactika import CALLS, DECK, Call, Card, card_sort_key

NCARDS = len(DECK)
NCALLS = len(CALLS)

CALL_INDEX: dict[Call, int] = {c: (c.count - 1) * 4 + c.shape for c in CALLS}
CALL_OF: tuple[Call, ...] = tuple(sorted(CALLS, key=lambda c: CALL_INDEX[c]))
"""A call by its index: ``CALL_OF[CALL_INDEX[c]] == c``."""

# --------------------------------------------------------------------------- value order

CARDS: tuple[Card, ...] = tuple(sorted(DECK, key=card_sort_key))
INDEX: dict[Card, int] = {c: i for i, c in enumerate(CARDS)}
VAL: tuple[int, ...] = tuple(c.value for c in CARDS)
SHOW: tuple[int, ...] = tuple(sum(1 << CALL_INDEX[k] for k in c.calls) for c in CARDS)
"""SHOW[card]: the mask of the calls the card shows (one per shape)."""
CALLS_OF: tuple[tuple[int, ...], ...] = tuple(
    tuple(CALL_INDEX[k] for k in c.calls) for c in CARDS
)
"""CALLS_OF[card]: the calls a lead of the card may name, by shape."""
CMASK: tuple[int, ...] = tuple(
    sum(1 << i for i in range(NCARDS) if SHOW[i] >> k & 1) for k in range(NCALLS)
)
"""CMASK[call]: the mask of the cards showing the call."""
GE: tuple[int, ...] = tuple(
    sum(1 << j for j in range(NCARDS) if j != i and VAL[j] >= VAL[i])
    for i in range(NCARDS)
)
"""GE[card]: the cards other than it whose value is at least its."""
ALL = (1 << NCARDS) - 1
"""Every card."""

# --------------------------------------------------------------------------- deck order

DECK_INDEX: dict[Card, int] = {c: i for i, c in enumerate(DECK)}
DECK_VALUES: tuple[int, ...] = tuple(c.value for c in DECK)
DECK_COUNTS: tuple[tuple[int, int, int, int], ...] = tuple(c.counts for c in DECK)
DECK_SHOWS: tuple[tuple[bool, ...], ...] = tuple(
    tuple(card.shows(call) for card in DECK) for call in CALLS
)
"""DECK_SHOWS[call][card]: whether the card (by deck index) shows the call."""
DECK_CALLS_OF: tuple[tuple[int, ...], ...] = tuple(
    tuple(CALL_INDEX[k] for k in c.calls) for c in DECK
)
"""DECK_CALLS_OF[card][shape]: the call a lead of the card (by deck index) makes naming
the shape."""
