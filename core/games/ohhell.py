"""Oh Hell: 3 to 7 players, a hand size that changes from round to round, a trump turned
up after the deal, and bids scored only when made exactly.

The cards are Dix's 52 (no joker). Rules, and every choice between house rules, with how
they compare with OpenSpiel's ``oh_hell``: ``spec/OHHELL.md``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from xactika.core.engine.api import (
    Config,
    Dealt,
    State,
    TrickGame,
    register_game,
)
from xactika.core.engine.errors import ConfigError, MustFollow, ParseError
from xactika.core.engine.reason import Reason
from xactika.core.engine.rng import deal_key, shuffled
from xactika.core.games.dix import DECK as DIX_DECK
from xactika.core.games.dix import SUIT_NAMES, DixCard, card_sort_key, sort_hand

DECK: tuple[DixCard, ...] = tuple(c for c in DIX_DECK if not c.is_joker)
BONUS = 10  # for a bid made exactly
TOP = 10  # the largest hand by default, where the deck allows it
PATTERNS = ("updown", "downup", "up", "down", "fixed")
HOOKS = ("dealer", "none")
MODE_NAMES = {"exact": "exact bids", "bonus": "tricks and bonus", "penalty": "minus the miss"}


def most_cards(players: int) -> int:
    """The largest hand the deck allows: every seat the same, nothing left to turn up
    at the most (that round has no trumps)."""
    return len(DECK) // players


def top_of(config: Config) -> int:
    """The largest hand of the game: the ``top`` option, else 10 or what leaves a card to
    turn up for trumps, whichever is fewer."""
    top = config.option("top")
    if top is not None:
        return int(top)
    return min(TOP, (len(DECK) - 1) // config.players)


def pattern_of(config: Config) -> str:
    return str(config.option("hands") or PATTERNS[0])


def cards_in_round(pattern: str, top: int, round_no: int) -> int:
    """The hand size of round ``round_no`` (from 1). ``updown``: 1, 2, .. top, .. 2, 1, 2,
    ..; ``downup`` the mirror image; ``up`` 1 .. top then again from 1; ``down`` the
    reverse; ``fixed`` top every round."""
    if pattern == "fixed" or top == 1:
        return top
    i = round_no - 1
    if pattern == "up":
        return 1 + i % top
    if pattern == "down":
        return top - i % top
    i %= 2 * (top - 1)
    rising = 1 + i if i < top else 2 * top - 1 - i
    return rising if pattern == "updown" else top + 1 - rising


def trump_suit(turned: DixCard | None) -> str | None:
    """The suit the turned-up card names; None (no trumps) when no card was left."""
    return turned.suit if turned is not None else None


def beats(card: DixCard, best: DixCard, trump: str | None) -> bool:
    """Whether ``card`` takes a trick ``best`` is winning: a higher card of its suit, or
    the first trump on a card of another suit."""
    if card.suit == best.suit:
        return card.rank > best.rank
    return card.suit == trump


def points(mode: str, bid: int | None, tricks: int) -> int:
    """A round's points for one seat (spec/OHHELL.md, scoring)."""
    made = bid == tricks
    if mode == "bonus":
        return tricks + (BONUS if made else 0)
    if mode == "penalty":
        return BONUS + tricks if made else -abs((bid or 0) - tricks)
    return BONUS + tricks if made else 0


class OhHell(TrickGame):
    name = "ohhell"
    modes = ("bonus", "penalty", "exact")  # the last is the default
    mode_names = MODE_NAMES
    min_players = 3
    max_players = 7
    default_players = 4
    default_rounds = 19  # 1 up to 10 and back down to 1 (a top given: rounds_for)
    option_types: ClassVar[dict[str, type]] = {"top": int, "hands": str, "hook": str}
    option_help: ClassVar[dict[str, str]] = {
        "top": "the largest hand (default 10, fewer with 6 or 7 players)",
        "hands": "hand sizes round by round: " + ", ".join(PATTERNS) + " (default updown)",
        "hook": "dealer (the dealer may not make the bids total the tricks; default) or "
                "none"}
    option_choices: ClassVar[dict[str, tuple[str, ...]]] = {"hands": PATTERNS, "hook": HOOKS}
    deck = DECK
    card_type = DixCard
    rest_order = ", the turned-up card first"

    def validate_options(self, config: Config) -> None:
        super().validate_options(config)
        top = config.option("top")
        most = most_cards(config.players)
        if top is not None and not 1 <= int(top) <= most:
            raise ConfigError(Reason("top must be from 1 to {most} with {players} players "
                                     "(52 cards), not {top}",
                                     most=most, players=config.players, top=top))
        hands = config.option("hands")
        if hands is not None and hands not in PATTERNS:
            raise ConfigError(Reason("hands must be one of {patterns}, not {hands!r}",
                                     patterns=", ".join(PATTERNS), hands=hands))
        hook = config.option("hook")
        if hook is not None and hook not in HOOKS:
            raise ConfigError(Reason("hook must be one of {hooks}, not {hook!r}",
                                     hooks=", ".join(HOOKS), hook=hook))

    def rounds_for(self, options: Mapping[str, Any]) -> int:
        """A ``top`` given: one trip of the hand sizes (up and down, 2 top - 1 rounds; up
        or down once, top rounds); else the 19 rounds of a top of 10 (``fixed``: 19)."""
        top = options.get("top")
        pattern = str(options.get("hands") or PATTERNS[0])
        if not isinstance(top, int) or top < 1 or pattern == "fixed":
            return self.default_rounds
        return 2 * top - 1 if pattern in ("updown", "downup") else top

    def hand_size(self, config: Config, round_no: int = 1) -> int:
        return cards_in_round(pattern_of(config), top_of(config), round_no)

    def round_score_bounds(self, config: Config, round_no: int = 1) -> tuple[int, int]:
        """Exact and bonus: nothing at the least; penalty: minus every trick missed."""
        tricks = self.tricks_per_round(config, round_no)
        return (-tricks if config.mode == "penalty" else 0), BONUS + tricks

    def deal(self, config: Config, round_no: int, dealer: int) -> Dealt:
        """One card at a time from the dealer's left, then the next card turned up for
        trumps (none when every card was dealt); the rest stays face down."""
        size = self.hand_size(config, round_no)
        if config.deals is not None and round_no <= len(config.deals):
            preset = config.deals[round_no - 1]
            hands = tuple(sort_hand(h) for h in preset.hands)
            dealt = {c for h in hands for c in h}
            rest = preset.rest if preset.rest is not None else tuple(
                c for c in DECK if c not in dealt
            )
        else:
            if config.seed is None:
                raise ConfigError(f"no preset deal and no seed for round {round_no}")
            deck = shuffled(DECK, deal_key(self.name, config.seed, round_no))
            n = config.players
            count = size * n
            hands = tuple(sort_hand(deck[(seat - dealer - 1) % n : count : n])
                          for seat in range(n))
            rest = tuple(deck[count:])
        turned = rest[0] if rest else None
        return Dealt(0, round_no, dealer, hands, tuple(rest[1:]), turned)

    def has_bidding(self, config: Config) -> bool:
        return True

    def legal_bids(self, state: State) -> tuple[int, ...]:
        """0 to the hand's size; the dealer, bidding last, may not make the bids total the
        tricks of the round (the hook), unless the game is played without it."""
        tricks = len(state.hands[state.dealer])
        bids = tuple(range(tricks + 1))
        if state.to_act != state.dealer or state.config.option("hook") == "none":
            return bids
        others = sum(b for b in state.bids if b is not None)
        return tuple(b for b in bids if others + b != tricks)

    def legal_cards(self, state: State, seat: int) -> tuple[DixCard, ...]:
        hand: tuple[DixCard, ...] = state.hands[seat]
        if not state.trick:
            return hand
        led = state.trick[0][1].suit
        following = []  # a loop, not a comprehension: no function call (asked every move)
        for c in hand:
            if c.suit == led:
                following.append(c)
        return tuple(following) if following else hand

    def may_play(self, state: State, seat: int, card: Any) -> bool:
        if not state.trick:
            return True
        led = state.trick[0][1].suit
        if card.suit == led:
            return True
        for c in state.hands[seat]:
            if c.suit == led:
                return False
        return True  # a seat without the suit led plays anything

    def explain_illegal_card(self, state: State, seat: int, card: Any) -> MustFollow:
        lead = state.trick[0][1]
        following = " ".join(str(c) for c in self.legal_cards(state, seat))
        return MustFollow(
            f"{card} does not follow {SUIT_NAMES[lead.suit]}; {lead} was led, so you must "
            f"play one of {following}"
        )

    def trick_winner(self, state: State, plays: Sequence[tuple[int, Any]], call: Any) -> int:
        turned = state.turned
        trump = turned.suit if turned is not None else None
        best_seat, best = plays[0]
        for seat, card in plays[1:]:  # beats(), written out: once a trick
            if card.suit == best.suit:
                if card.rank > best.rank:
                    best_seat, best = seat, card
            elif card.suit == trump:
                best_seat, best = seat, card
        return best_seat

    def score_round(self, state: State) -> tuple[int, ...]:
        mode = state.config.mode
        return tuple(points(mode, b, t) for b, t in zip(state.bids, state.taken, strict=True))

    def parse_card(self, text: str) -> DixCard:
        try:
            card = DixCard.parse(text)
        except ParseError:
            card = None
        if card is None or card.is_joker:
            raise ParseError(
                f"bad card {text!r}: expected a rank (2-9, T or 10, J, Q, K, A) and a suit "
                "(S, H, D, C), e.g. AS, TD, 9H (Oh Hell has no joker)"
            )
        return card

    def parse_call(self, text: str) -> Any:
        raise ParseError(f"bad call {text!r}: Oh Hell has no calls")

    def sort_key(self, card: Any) -> Any:
        return card_sort_key(card)


OHHELL = register_game(OhHell())
