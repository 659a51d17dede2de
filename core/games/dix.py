"""Dix: two players, 52 cards and a joker, trumps, and a penalty for tricks totalling ten.

Only the rule answers live here; seats, turns, tricks, the fold and views come from
:mod:`.table` and :mod:`.views`. The one thing Dix adds to the event stream is
:class:`Drew`, a card taken from the stock after each of the first 13 tricks.
Rules: ``spec/DIX.md``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import attrs

from xactika.core.engine.api import (
    PHASE_PLAY,
    Config,
    Dealt,
    Event,
    State,
    Trick,
    TrickGame,
    register_evolver,
    register_game,
)
from xactika.core.engine.errors import ConfigError, InvalidEvent, MustFollow, ParseError
from xactika.core.engine.reason import Reason
from xactika.core.engine.rng import deal_key, shuffled
from xactika.core.engine.views import SeatView, visible

SUITS = ("S", "H", "D", "C")
SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
RANK_TEXT = {2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9", 10: "T",
             11: "J", 12: "Q", 13: "K", 14: "A"}
JOKER_TEXT = "JK"
HAND_SIZE = {"draw": 13, "nodraw": 17}
TEN_PENALTY = -3
TRICK_POINT = 1


@attrs.frozen(slots=True, repr=False, order=False)
class DixCard:
    """A card: rank 2..14 (ace high) and suit S/H/D/C, or the joker (rank 0, suit "")."""

    rank: int
    suit: str

    @property
    def is_joker(self) -> bool:
        return self.rank == 0

    @property
    def pips(self) -> int:
        """What the card counts towards ten: ace 1, 2..10 face, courts and joker 0."""
        if self.rank == 14:
            return 1
        return self.rank if 2 <= self.rank <= 10 else 0

    @classmethod
    def parse(cls, text: str) -> DixCard:
        token = text.strip().upper()
        if token.startswith("10"):
            token = "T" + token[2:]
        card = _BY_TEXT.get(token)
        if card is None:
            raise ParseError(
                f"bad card {text!r}: expected a rank (2-9, T or 10, J, Q, K, A) and a suit "
                "(S, H, D, C), e.g. AS, TD, 9H, or JK for the joker"
            )
        return card

    def __str__(self) -> str:
        return JOKER_TEXT if self.is_joker else RANK_TEXT[self.rank] + self.suit

    def __repr__(self) -> str:
        return f"DixCard.parse({str(self)!r})"


Card = DixCard
JOKER = DixCard(0, "")
DECK: tuple[DixCard, ...] = (
    *(DixCard(rank, suit) for suit in SUITS for rank in range(2, 15)),
    JOKER,
)
_BY_TEXT = {str(c): c for c in DECK}
_SUIT_ORDER = {s: i for i, s in enumerate(SUITS)}


def card_sort_key(card: DixCard) -> tuple[int, int]:
    """Suits in SUITS order, low to high, the joker last."""
    return (len(SUITS), 0) if card.is_joker else (_SUIT_ORDER[card.suit], card.rank)


def sort_hand(cards: Sequence[DixCard]) -> tuple[DixCard, ...]:
    return tuple(sorted(cards, key=card_sort_key))


# --------------------------------------------------------------------------- rule helpers


def trump_suit(turned: DixCard | None) -> str | None:
    """The trump suit the turned-up card names; None (no trumps) for the joker."""
    if turned is None or turned.is_joker:
        return None
    return turned.suit


def suit_of(card: DixCard, turned: DixCard | None) -> str:
    """The suit a card follows as: the joker belongs to the trump suit."""
    if card.is_joker:
        trump = trump_suit(turned)
        return trump if trump is not None else ""
    return card.suit


def rank_of(card: DixCard, turned: DixCard | None) -> int:
    """The joker ranks as the turned-up card would: between its neighbours in trumps."""
    if card.is_joker:
        return turned.rank if turned is not None else 0
    return card.rank


def beats(card: DixCard, best: DixCard, turned: DixCard | None) -> bool:
    """Whether ``card`` takes a trick that ``best`` is winning."""
    suit, best_suit = suit_of(card, turned), suit_of(best, turned)
    if suit == best_suit:
        return rank_of(card, turned) > rank_of(best, turned)
    return suit == trump_suit(turned)


def is_ten_trick(trick: Trick) -> bool:
    """A trick whose cards' pips total exactly ten (it scores -3)."""
    return sum(card.pips for _, card in trick.plays) == 10


def trick_points(trick: Trick) -> int:
    return TEN_PENALTY if is_ten_trick(trick) else TRICK_POINT


def round_points(tricks: Sequence[Trick], players: int = 2) -> tuple[int, ...]:
    """+1 per trick taken, -3 for each taken trick whose pips total ten."""
    points = [0] * players
    for trick in tricks:
        points[trick.winner] += trick_points(trick)
    return tuple(points)


def ten_tricks(tricks: Sequence[Trick], players: int = 2) -> tuple[int, ...]:
    """How many ten-tricks each seat took."""
    counts = [0] * players
    for trick in tricks:
        if is_ten_trick(trick):
            counts[trick.winner] += 1
    return tuple(counts)


def round_winner(tricks: Sequence[Trick], players: int = 2) -> int:
    """More points; tie: fewer ten-tricks; tie: the winner of the last trick."""
    points = round_points(tricks, players)
    tens = ten_tricks(tricks, players)
    last = tricks[-1].winner if tricks else -1
    return max(range(players), key=lambda s: (points[s], -tens[s], s == last))


def stock_size(config: Config, tricks_done: int) -> int:
    """Cards left in the stock after ``tricks_done`` tricks of a round (public)."""
    if config.mode != "draw":
        return 0
    full = len(DECK) - 2 * HAND_SIZE["draw"] - 1
    return max(0, full - 2 * tricks_done)


def cards_in_stock(view: SeatView) -> int:
    """The stock's size as a seat sees it (its order and cards stay hidden)."""
    return stock_size(view.config, len(view.tricks))


# --------------------------------------------------------------------------- the draw


@attrs.frozen(slots=True)
class Drew:
    """A seat takes the top card of the stock; ``card`` is None where a view hides it."""

    kind: ClassVar[str] = "draw"
    field_types: ClassVar[Mapping[str, str]] = {"seat": "int", "card": "secret-card"}
    seq: int
    seat: int
    card: DixCard | None


@register_evolver
def _(event: Drew, state: State) -> State:
    if state.config.game != Dix.name or state.config.mode != "draw":
        raise InvalidEvent("a draw from the stock happens only in Dix's draw mode")
    if state.phase != PHASE_PLAY or state.trick:
        raise InvalidEvent("a draw from the stock comes only between tricks")
    if not 0 <= event.seat < state.config.players:
        raise InvalidEvent(f"draw by seat {event.seat}: there is no such seat")
    stock = state.aside
    if stock:  # empty where the stock is hidden (a seat's own fold)
        if event.card is not None and event.card != stock[0]:
            raise InvalidEvent(f"draw of {event.card}: the top of the stock is {stock[0]}")
        stock = stock[1:]
    hands = state.hands
    if event.card is not None:
        hand = sort_hand((*hands[event.seat], event.card))
        hands = hands[: event.seat] + (hand,) + hands[event.seat + 1 :]
    return attrs.evolve(state, seq=event.seq, hands=hands, aside=stock)


@visible.register
def _(event: Drew, seat: int) -> Drew:
    return event if event.seat == seat else attrs.evolve(event, card=None)


# --------------------------------------------------------------------------- the game


class Dix(TrickGame):
    name = "dix"
    modes = ("nodraw", "draw")  # the last is the default (protocol defaults)
    min_players = 2
    max_players = 2
    default_players = 2
    default_rounds = 1
    option_types: ClassVar[Mapping[str, type]] = {"target": int}
    option_help: ClassVar[Mapping[str, str]] = {
        "target": "play rounds until a total reaches this (50 for the long game), "
                  "instead of a number of rounds"}
    events = (Drew,)
    deck = DECK
    card_type = DixCard
    rest_order = ", the turned-up card first"

    def validate_options(self, config: Config) -> None:
        super().validate_options(config)
        target = config.option("target")
        if target is not None and int(target) < 1:
            raise ConfigError(Reason("target must be at least 1, not {target}", target=target))

    def check_presets_without_seed(self, config: Config) -> None:
        assert config.deals is not None
        if config.option("target") is not None:
            raise ConfigError(
                "a game to a target with preset deals also needs a seed, "
                "for the rounds after the preset ones"
            )
        if len(config.deals) < config.rounds:
            raise ConfigError(
                f"{config.rounds} rounds need {config.rounds} preset deals or a seed, "
                f"not {len(config.deals)}"
            )

    def hand_size(self, config: Config, round_no: int = 1) -> int:
        return HAND_SIZE.get(config.mode, HAND_SIZE["draw"])

    def tricks_per_round(self, config: Config, round_no: int = 1) -> int:
        """Draw: every card but the turned-up one is played (draws refill the hands)."""
        if config.mode == "draw":
            return len(DECK) // config.players
        return self.hand_size(config, round_no)

    def round_score_bounds(self, config: Config, round_no: int = 1) -> tuple[int, int]:
        """+1 a trick, -3 a ten-trick: every trick a ten-trick is the least."""
        tricks = self.tricks_per_round(config, round_no)
        return -3 * tricks, tricks

    def deal(self, config: Config, round_no: int, dealer: int) -> Dealt:
        """Hands, then the turned-up card, then the stock in draw order (spec/DIX.md)."""
        size = HAND_SIZE[config.mode]
        if config.deals is not None and round_no <= len(config.deals):
            preset = config.deals[round_no - 1]
            hands = tuple(sort_hand(h) for h in preset.hands)
            dealt = {c for h in hands for c in h}
            rest = preset.rest if preset.rest is not None else tuple(
                c for c in DECK if c not in dealt
            )
            return Dealt(0, round_no, dealer, hands, tuple(rest[1:]), rest[0])
        if config.seed is None:
            raise ConfigError(f"no preset deal and no seed for round {round_no}")
        deck = shuffled(DECK, deal_key(self.name, config.seed, round_no))
        n = config.players
        per_seat: list[list[DixCard]] = [[] for _ in range(n)]
        for i in range(size * n):
            per_seat[(dealer + 1 + i) % n].append(deck[i])
        hands = tuple(sort_hand(h) for h in per_seat)
        return Dealt(0, round_no, dealer, hands, tuple(deck[size * n + 1 :]), deck[size * n])

    def first_leader(self, config: Config, dealer: int) -> int:
        return dealer

    def legal_cards(self, state: State, seat: int) -> tuple[DixCard, ...]:
        hand: tuple[DixCard, ...] = state.hands[seat]
        if not state.trick:
            return hand
        led = suit_of(state.trick[0][1], state.turned)
        following = tuple(c for c in hand if suit_of(c, state.turned) == led)
        return following or hand

    def explain_illegal_card(self, state: State, seat: int, card: Any) -> MustFollow:
        lead = state.trick[0][1]
        led = suit_of(lead, state.turned)
        name = SUIT_NAMES.get(led, led)
        joker = " (the joker counts as a trump)" if card.is_joker or lead.is_joker else ""
        following = " ".join(str(c) for c in self.legal_cards(state, seat))
        return MustFollow(
            f"{card} does not follow {name}{joker}; {lead} was led, so you must play "
            f"one of {following}"
        )

    def trick_winner(self, state: State, plays: Sequence[tuple[int, Any]], call: Any) -> int:
        best_seat, best = plays[0]
        for seat, card in plays[1:]:
            if beats(card, best, state.turned):
                best_seat, best = seat, card
        return best_seat

    def after_trick(self, state: State) -> list[Event]:
        """After each of the first 13 tricks: the trick's winner draws, then the other."""
        if state.config.mode != "draw" or len(state.aside) < state.config.players:
            return []
        winner = state.tricks[-1].winner
        n = state.config.players
        order = [(winner + i) % n for i in range(n)]
        return [Drew(0, seat, state.aside[i]) for i, seat in enumerate(order)]

    def score_round(self, state: State) -> tuple[int, ...]:
        return round_points(state.tricks, state.config.players)

    def game_over(self, state: State) -> bool:
        target = state.config.option("target")
        if target is not None:
            return max(state.totals) >= int(target)
        return state.round >= state.config.rounds

    def game_winners(self, state: State) -> tuple[int, ...]:
        """Higher total; tied totals go to the final round's winner (spec/DIX.md)."""
        best = max(state.totals)
        tied = tuple(s for s, t in enumerate(state.totals) if t == best)
        if len(tied) == 1:
            return tied
        return (round_winner(state.tricks, state.config.players),)

    def parse_card(self, text: str) -> DixCard:
        return DixCard.parse(text)

    def parse_call(self, text: str) -> Any:
        raise ParseError(f"bad call {text!r}: Dix has no calls")

    def sort_key(self, card: Any) -> Any:
        return card_sort_key(card)


DIX = register_game(Dix())
