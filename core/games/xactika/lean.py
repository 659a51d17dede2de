"""Xactika's rules on card indices and bitmasks, one game at a time: the lean audit's
referee (``protocol/trust/fastaudit.py`` reads the record's text and feeds it moves).

The full referee (``step``) folds a 17-field state per event; this folds a few integers,
about five times faster, which keeps ``xactika audit`` at over 4x python-chess's PGN
rate (bench/audit_throughput.py: the full auditor alone is about 1.2x). It may only
ever agree with the rules (``core/games/xactika/__init__.py``, ``core/engine/decide.py``):
a move it refuses sends the record to the full auditor, which stays the one authority
for every verdict; ``tests/test_fastaudit.py`` checks the two agree on seeded games and
on thousands of single edits. Cards and calls are the game's index tables (value order,
``tables.py``).
"""

from __future__ import annotations

from typing import Any

from xactika.core.engine.api import Config
from xactika.core.games.xactika import TRICKS_PER_ROUND, XACTIKA, bid_points
from xactika.core.games.xactika.tables import CARDS, CMASK, SHOW, VAL

BID, LEAD, PLAY = 0, 1, 2
"""What :attr:`LeanGame.wants` next: a bid, a lead or a play (of ``to_act``)."""

_BIT_BY_ID: dict[int, int] = {id(c): 1 << i for i, c in enumerate(CARDS)}
"""A dealt card's bit, by identity: the deal hands out DECK's own instances, and
hashing an attrs card costs more than the rest of a deal."""

Derived = tuple[Any, ...]
"""An event the rules derive from the moves, in order: ``("deal", round, dealer, Dealt)``,
``("trick-won", seat, trick)``, ``("round-scored", round, bids or None, taken, points,
totals)``, ``("game-over", totals, winners)``."""


class LeanGame:
    """One Xactika game, move by move: each move is taken or refused (``False``, the
    state as it was: a rule broken, or not the move the rules wait for), and the events
    the rules derive from it are appended to :attr:`derived` for the caller to take."""

    __slots__ = ("best", "bid_count", "bidding", "bids", "config", "dealer", "derived",
                 "hands", "n", "over", "played", "round_no", "shows", "taken", "to_act",
                 "totals", "tricks", "winner", "winners")

    def __init__(self, config: Config) -> None:
        XACTIKA.validate(config)
        self.config = config
        self.n = config.players
        self.bidding = config.mode == "bid"
        self.totals = [0] * self.n
        self.winners: list[int] = []
        self.over = False
        self.derived: list[Derived] = []
        self.round_no = 1
        self.dealer = config.dealer
        self._deal()

    def _deal(self) -> None:
        """The round's deal (the rules' own, ``Xactika.deal``) and its fresh state."""
        n = self.n
        dealt = XACTIKA.deal(self.config, self.round_no, self.dealer)
        if dealt.turned is not None or dealt.aside is None:
            raise ValueError("not a plain Xactika deal")  # never: Xactika turns no card up
        bit_of = _BIT_BY_ID.__getitem__  # KeyError: not DECK's own cards
        self.hands: list[int] = []
        for hand in dealt.hands:
            if not hand:
                raise ValueError("an empty hand")  # never: every seat gets eight cards
            self.hands.append(sum(map(bit_of, map(id, hand))))
        self.derived.append(("deal", self.round_no, self.dealer, dealt))
        self.bids = [0] * n
        self.bid_count = 0 if self.bidding else n
        self.taken = [0] * n
        self.tricks = 0
        self.played = 0  # cards in the trick so far
        self.shows = 0  # the cards that show the lead's call, as a mask
        self.winner = self.best = 0  # the trick's winner so far and its card's value
        self.to_act = (self.dealer + 1) % n  # the first bidder, and the first leader

    @property
    def wants(self) -> int:
        """The kind of move the rules wait for: :data:`BID`, :data:`LEAD` or :data:`PLAY`."""
        if self.bid_count < self.n:
            return BID
        return PLAY if self.played else LEAD

    def bid(self, bid: int) -> bool:
        """``to_act`` bids ``bid``."""
        if self.over or self.bid_count >= self.n or not 0 <= bid <= TRICKS_PER_ROUND:
            return False
        seat = self.to_act
        if seat == self.dealer:
            others = sum(self.bids)  # the dealer bids last: every other bid is in
            if others <= TRICKS_PER_ROUND and others + bid == TRICKS_PER_ROUND:
                return False
        self.bids[seat] = bid
        self.bid_count += 1
        self.to_act = (seat + 1) % self.n  # after the dealer: the first leader
        return True

    def lead(self, card: int, call: int) -> bool:
        """``to_act`` leads ``card`` naming ``call`` (one its card shows)."""
        if self.over or self.bid_count < self.n or self.played \
                or not SHOW[card] >> call & 1 or not self.hands[self.to_act] >> card & 1:
            return False
        self.shows = CMASK[call]
        self.winner, self.best = self.to_act, VAL[card]
        return self._take(card)

    def play(self, card: int) -> bool:
        """``to_act`` plays ``card`` to the trick led."""
        seat = self.to_act
        hand = self.hands[seat]
        if not self.played or not hand >> card & 1:
            return False
        if self.shows >> card & 1:
            if VAL[card] >= self.best:  # of equal values the card played later wins
                self.winner, self.best = seat, VAL[card]
        elif hand & self.shows:
            return False  # a slough while holding a card that follows
        return self._take(card)

    def _take(self, card: int) -> bool:
        """The card (held) leaves ``to_act``'s hand; a complete trick is won and scored."""
        seat = self.to_act
        self.hands[seat] ^= 1 << card
        self.played += 1
        self.to_act = (seat + 1) % self.n
        if self.played < self.n:
            return True
        self.played = 0
        self.tricks += 1
        self.taken[self.winner] += 1
        self.to_act = self.winner
        self.derived.append(("trick-won", self.winner, self.tricks))
        if self.tricks < TRICKS_PER_ROUND:
            return True
        if self.bidding:
            points = [bid_points(b, t) for b, t in zip(self.bids, self.taken, strict=True)]
        else:
            points = list(self.taken)
        self.totals = [t + p for t, p in zip(self.totals, points, strict=True)]
        self.derived.append(("round-scored", self.round_no, self.bids if self.bidding else None,
                             self.taken, points, self.totals))
        if self.round_no >= self.config.rounds:
            top = min(self.totals) if self.config.mode == "lose" else max(self.totals)
            self.winners = [s for s, t in enumerate(self.totals) if t == top]
            self.derived.append(("game-over", self.totals, self.winners))
            self.over = True
            return True
        self.round_no += 1
        self.dealer = (self.dealer + 1) % self.n
        self._deal()
        return True

