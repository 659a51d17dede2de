"""The trick-taking machinery every game shares: settings, events, state, the fold.

A game (Xactika, Dix) is a :class:`TrickGame` subclass that answers rule questions:
how to deal, what may be led and followed, who wins a trick, how a round scores.
Seats, turns, tricks, rounds, bidding, the decider loop and the fold are written here
once. State is only ever ``reduce(evolve, events)``: :func:`step` decides a command and
folds the events it returns with the same :func:`evolve` a replay uses.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from functools import singledispatch
from typing import Any, ClassVar

import attrs

from .errors import (
    BadBid,
    BadCall,
    ConfigError,
    GameIsOver,
    IllegalCommand,
    InvalidEvent,
    NotInHand,
    NotYourTurn,
    WrongPhase,
)

Card = Any  # each game has its own card type; the machinery only hashes and compares them
Hand = tuple[Card, ...]

# --------------------------------------------------------------------------- settings


@attrs.frozen(slots=True)
class PresetDeal:
    """One round's cards fixed in advance: every seat's hand, and optionally the rest.

    ``rest`` is the undealt cards in order (Dix draws from it); when it is None the
    rest is every other card of the deck in deck order.
    """

    hands: tuple[Hand, ...]
    rest: Hand | None = None


@attrs.frozen(slots=True)
class Config:
    """Everything that fixes a game before the first card: the game-started event."""

    game: str = "xactika"
    mode: str = "win"
    players: int = 4
    rounds: int = 8
    dealer: int = 0
    seed: int | None = None
    deals: tuple[PresetDeal, ...] | None = None
    target: int | None = None


# --------------------------------------------------------------------------- events


@attrs.frozen(slots=True)
class GameStarted:
    seq: int
    config: Config


@attrs.frozen(slots=True)
class Dealt:
    """A chance event. ``hands[s]`` is None and ``aside`` None where a view hides them."""

    seq: int
    round: int
    dealer: int
    hands: tuple[Hand | None, ...]
    aside: Hand | None
    turned: Card | None = None


@attrs.frozen(slots=True)
class BidMade:
    seq: int
    seat: int
    bid: int


@attrs.frozen(slots=True)
class Led:
    """A lead; ``call`` is the game's lead announcement (Xactika's shape-count)."""

    seq: int
    seat: int
    card: Card
    call: Any


@attrs.frozen(slots=True)
class Played:
    seq: int
    seat: int
    card: Card


@attrs.frozen(slots=True)
class TrickWon:
    seq: int
    seat: int
    trick: int


@attrs.frozen(slots=True)
class RoundScored:
    seq: int
    round: int
    bids: tuple[int, ...] | None
    tricks: tuple[int, ...]
    points: tuple[int, ...]
    totals: tuple[int, ...]


@attrs.frozen(slots=True)
class GameOver:
    seq: int
    totals: tuple[int, ...]
    winners: tuple[int, ...]


Event = Any  # one of the classes above, or a game's own (Dix's draws)


# --------------------------------------------------------------------------- commands


@attrs.frozen(slots=True)
class Bid:
    seat: int
    bid: int


@attrs.frozen(slots=True)
class Play:
    """Play a card; ``call`` is required when leading a game that has calls."""

    seat: int
    card: Card
    call: Any = None


Command = Bid | Play

# --------------------------------------------------------------------------- state


@attrs.frozen(slots=True)
class Trick:
    """A finished trick: the lead's call, every (seat, card) in order, the winner."""

    call: Any
    plays: tuple[tuple[int, Card], ...]
    winner: int


PHASE_NEW = "new"
PHASE_BID = "bid"
PHASE_PLAY = "play"
PHASE_SCORED = "scored"
PHASE_OVER = "over"


@attrs.frozen(slots=True)
class State:
    """The whole table, omniscient. Build it only by folding events."""

    config: Config
    seq: int = 0
    phase: str = PHASE_NEW
    round: int = 0
    dealer: int = 0
    hands: tuple[Hand, ...] = ()
    aside: Hand = ()
    turned: Card | None = None
    bids: tuple[int | None, ...] = ()
    taken: tuple[int, ...] = ()
    trick: tuple[tuple[int, Card], ...] = ()
    call: Any = None
    leader: int = 0
    to_act: int | None = None
    totals: tuple[int, ...] = ()
    tricks: tuple[Trick, ...] = ()
    extra: Any = None

    @property
    def rules(self) -> TrickGame:
        return game_rules(self.config.game)

    @property
    def players(self) -> int:
        return self.config.players

    @property
    def over(self) -> bool:
        return self.phase == PHASE_OVER


EMPTY = State(config=Config())

# --------------------------------------------------------------------------- legal actions


@attrs.frozen(slots=True)
class Legal:
    """Who acts next and what they may do; commands are enumerated lazily."""

    seat: int | None
    kind: str  # "bid", "lead", "play" or "none"
    bids: tuple[int, ...] = ()
    cards: tuple[Card, ...] = ()
    rules: TrickGame | None = attrs.field(default=None, eq=False, repr=False)

    def calls(self, card: Card) -> tuple[Any, ...]:
        """The calls allowed with ``card``: (None,) when the game or move has none."""
        if self.kind != "lead" or self.rules is None:
            return (None,)
        return self.rules.calls_for(card)

    def commands(self) -> Iterator[Command]:
        if self.seat is None:
            return
        if self.kind == "bid":
            for b in self.bids:
                yield Bid(self.seat, b)
            return
        for card in self.cards:
            for call in self.calls(card):
                yield Play(self.seat, card, call)

    def __contains__(self, cmd: object) -> bool:
        if self.seat is None:
            return False
        if isinstance(cmd, Bid):
            return self.kind == "bid" and cmd.seat == self.seat and cmd.bid in self.bids
        if isinstance(cmd, Play):
            return (
                self.kind in ("lead", "play")
                and cmd.seat == self.seat
                and cmd.card in self.cards
                and cmd.call in self.calls(cmd.card)
            )
        return False

    def __len__(self) -> int:
        return sum(1 for _ in self.commands())


# --------------------------------------------------------------------------- the game hooks


class TrickGame:
    """Rule questions with the answers most trick-taking games share.

    A game subclasses this and overrides what differs. Every method is pure.
    """

    name: ClassVar[str] = ""
    modes: ClassVar[tuple[str, ...]] = ()
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 2
    default_rounds: ClassVar[int] = 1

    # -- settings
    def validate(self, config: Config) -> None:
        if config.mode not in self.modes:
            raise ConfigError(
                f"unknown mode {config.mode!r} for {self.name}: expected one of "
                + ", ".join(self.modes)
            )
        if not self.min_players <= config.players <= self.max_players:
            raise ConfigError(
                f"{self.name} takes {self.min_players} to {self.max_players} players, "
                f"not {config.players}"
            )
        if config.rounds < 1:
            raise ConfigError(f"rounds must be at least 1, not {config.rounds}")
        if not 0 <= config.dealer < config.players:
            raise ConfigError(
                f"dealer must be a seat from 0 to {config.players - 1}, not {config.dealer}"
            )
        if config.seed is None and config.deals is None:
            raise ConfigError("a game needs a seed or preset deals")
        if config.seed is not None and config.seed < 0:
            raise ConfigError(f"seed must be 0 or more, not {config.seed}")
        if config.deals is not None:
            for i, preset in enumerate(config.deals):
                self.check_preset(config, preset, i + 1)

    def check_preset(self, config: Config, preset: PresetDeal, round_no: int) -> None:
        raise ConfigError(f"{self.name} does not take preset deals")

    # -- dealing
    def deal(self, config: Config, round_no: int, dealer: int) -> Dealt:
        """The Dealt event (seq 0) for a round: from the preset if any, else the seed."""
        raise NotImplementedError

    def first_leader(self, config: Config, dealer: int) -> int:
        return (dealer + 1) % config.players

    # -- bidding
    def has_bidding(self, config: Config) -> bool:
        return False

    def legal_bids(self, state: State) -> tuple[int, ...]:
        return ()

    # -- play
    def calls_for(self, card: Card) -> tuple[Any, ...]:
        """The calls a leader may make with ``card``; (None,) for games without calls."""
        return (None,)

    def legal_cards(self, state: State, seat: int) -> tuple[Card, ...]:
        raise NotImplementedError

    def explain_illegal_card(self, state: State, seat: int, card: Card) -> IllegalCommand:
        """The error for a held card that the follow rule forbids."""
        return IllegalCommand(f"{card} may not be played now")

    def trick_winner(self, state: State, plays: Sequence[tuple[int, Card]], call: Any) -> int:
        raise NotImplementedError

    def after_trick(self, state: State) -> list[Event]:
        """Events (seq 0) that follow a trick, such as Dix's draws from the stock."""
        return []

    def round_over(self, state: State) -> bool:
        return all(not hand for hand in state.hands)

    # -- scoring
    def score_round(self, state: State) -> tuple[int, ...]:
        raise NotImplementedError

    def game_over(self, state: State) -> bool:
        return state.round >= state.config.rounds

    def winners(self, config: Config, totals: tuple[int, ...]) -> tuple[int, ...]:
        best = max(totals)
        return tuple(s for s, t in enumerate(totals) if t == best)

    def next_dealer(self, config: Config, dealer: int) -> int:
        return (dealer + 1) % config.players

    # -- card text (for the protocol's edge; kept with the game that owns the cards)
    def parse_card(self, text: str) -> Card:
        raise NotImplementedError

    def parse_call(self, text: str) -> Any:
        raise NotImplementedError

    def format_call(self, call: Any) -> str:
        return str(call)

    def sort_key(self, card: Card) -> Any:
        return str(card)


_GAMES: dict[str, TrickGame] = {}


def register_game(game: TrickGame) -> TrickGame:
    _GAMES[game.name] = game
    return game


def game_rules(name: str) -> TrickGame:
    try:
        return _GAMES[name]
    except KeyError:
        raise ConfigError(
            f"unknown game {name!r}: expected one of {', '.join(sorted(_GAMES))}"
        ) from None


def games() -> tuple[str, ...]:
    return tuple(sorted(_GAMES))


# --------------------------------------------------------------------------- evolve


def _without(hand: Hand, card: Card) -> Hand:
    i = hand.index(card)
    return hand[:i] + hand[i + 1 :]


def _replace_at(items: tuple[Any, ...], i: int, value: Any) -> tuple[Any, ...]:
    return items[:i] + (value,) + items[i + 1 :]


@singledispatch
def _evolve(event: Any, state: State) -> State:
    raise InvalidEvent(f"unknown event type {type(event).__name__}")


def evolve(state: State, event: Event) -> State:
    """Apply one event. Raises InvalidEvent when it is out of sequence."""
    if event.seq != state.seq + 1:
        raise InvalidEvent(f"event seq {event.seq} does not follow seq {state.seq}")
    return _evolve(event, state)


register_evolver = _evolve.register


@_evolve.register
def _(event: GameStarted, state: State) -> State:
    if state.phase != PHASE_NEW:
        raise InvalidEvent("game-started after the game had begun")
    config = event.config
    n = config.players
    return State(
        config=config,
        seq=event.seq,
        phase=PHASE_SCORED,
        dealer=config.dealer,
        totals=(0,) * n,
    )


@_evolve.register
def _(event: Dealt, state: State) -> State:
    config = state.config
    rules = game_rules(config.game)
    n = config.players
    bidding = rules.has_bidding(config)
    leader = rules.first_leader(config, event.dealer)
    hands = tuple(h if h is not None else () for h in event.hands)
    return attrs.evolve(
        state,
        seq=event.seq,
        phase=PHASE_BID if bidding else PHASE_PLAY,
        round=event.round,
        dealer=event.dealer,
        hands=hands,
        aside=event.aside if event.aside is not None else (),
        turned=event.turned,
        bids=(None,) * n,
        taken=(0,) * n,
        trick=(),
        call=None,
        leader=leader,
        to_act=(event.dealer + 1) % n if bidding else leader,
        tricks=(),
    )


@_evolve.register
def _(event: BidMade, state: State) -> State:
    bids = _replace_at(state.bids, event.seat, event.bid)
    done = all(b is not None for b in bids)
    return attrs.evolve(
        state,
        seq=event.seq,
        bids=bids,
        phase=PHASE_PLAY if done else PHASE_BID,
        to_act=state.leader if done else (event.seat + 1) % state.config.players,
    )


def _after_card(state: State, seq: int, seat: int, card: Card, trick: tuple[Any, ...],
                call: Any) -> State:
    n = state.config.players
    hands = _replace_at(state.hands, seat, _without(state.hands[seat], card))
    return attrs.evolve(
        state,
        seq=seq,
        hands=hands,
        trick=trick,
        call=call,
        to_act=None if len(trick) == n else (seat + 1) % n,
    )


@_evolve.register
def _(event: Led, state: State) -> State:
    return _after_card(state, event.seq, event.seat, event.card,
                       ((event.seat, event.card),), event.call)


@_evolve.register
def _(event: Played, state: State) -> State:
    return _after_card(state, event.seq, event.seat, event.card,
                       state.trick + ((event.seat, event.card),), state.call)


@_evolve.register
def _(event: TrickWon, state: State) -> State:
    taken = _replace_at(state.taken, event.seat, state.taken[event.seat] + 1)
    done = Trick(state.call, state.trick, event.seat)
    return attrs.evolve(
        state,
        seq=event.seq,
        taken=taken,
        trick=(),
        call=None,
        leader=event.seat,
        to_act=event.seat,
        tricks=state.tricks + (done,),
    )


@_evolve.register
def _(event: RoundScored, state: State) -> State:
    return attrs.evolve(
        state, seq=event.seq, phase=PHASE_SCORED, totals=event.totals, to_act=None
    )


@_evolve.register
def _(event: GameOver, state: State) -> State:
    return attrs.evolve(state, seq=event.seq, phase=PHASE_OVER, to_act=None)


def replay(events: Iterable[Event], state: State = EMPTY) -> State:
    """Fold events into a state: the only way a state is made."""
    for event in events:
        state = evolve(state, event)
    return state


# --------------------------------------------------------------------------- decide


def _renumber(event: Event, seq: int) -> Event:
    return attrs.evolve(event, seq=seq)


def start(config: Config) -> list[Event]:
    """The events that open a game: game-started and the first deal."""
    rules = game_rules(config.game)
    rules.validate(config)
    events: list[Event] = [GameStarted(1, config)]
    state = evolve(EMPTY, events[0])
    deal = _renumber(rules.deal(config, 1, config.dealer), 2)
    evolve(state, deal)
    events.append(deal)
    return events


def new_game(config: Config) -> State:
    return replay(start(config))


def legal_actions(state: State) -> Legal:
    """Who must act and what is legal. ``kind`` is "none" when nobody may act."""
    if state.to_act is None or state.phase in (PHASE_NEW, PHASE_OVER, PHASE_SCORED):
        return Legal(None, "none")
    rules = state.rules
    seat = state.to_act
    if state.phase == PHASE_BID:
        return Legal(seat, "bid", bids=rules.legal_bids(state))
    return Legal(
        seat,
        "play" if state.trick else "lead",
        cards=rules.legal_cards(state, seat),
        rules=rules,
    )


def _check(state: State, command: Command) -> None:
    if state.phase == PHASE_OVER:
        raise GameIsOver("the game is over")
    if state.phase == PHASE_NEW:
        raise WrongPhase("no game has started")
    rules = state.rules
    n = state.config.players
    if not 0 <= command.seat < n:
        raise NotYourTurn(f"no seat {command.seat}: seats are 0 to {n - 1}")
    if isinstance(command, Bid):
        if state.phase != PHASE_BID:
            raise WrongPhase("bidding is over: it is time to play a card")
        if command.seat != state.to_act:
            raise NotYourTurn(f"seat {state.to_act} bids next, not seat {command.seat}")
        bids = rules.legal_bids(state)
        if command.bid not in bids:
            raise BadBid(_bid_message(state, command.bid, bids))
        return
    if isinstance(command, Play):
        if state.phase == PHASE_BID:
            raise WrongPhase(f"bidding is not over: seat {state.to_act} bids next")
        if command.seat != state.to_act:
            raise NotYourTurn(f"seat {state.to_act} plays next, not seat {command.seat}")
        hand = state.hands[command.seat]
        if command.card not in hand:
            raise NotInHand(f"{command.card} is not in seat {command.seat}'s hand")
        if command.card not in rules.legal_cards(state, command.seat):
            raise rules.explain_illegal_card(state, command.seat, command.card)
        calls = rules.calls_for(command.card) if not state.trick else (None,)
        if command.call not in calls:
            if not state.trick:
                raise BadCall(
                    f"leading {command.card} needs one of the calls "
                    + " ".join(rules.format_call(c) for c in calls)
                )
            raise BadCall("only the leader makes a call")
        return
    raise IllegalCommand(f"not a command: {command!r}")


def _bid_message(state: State, bid: int, bids: tuple[int, ...]) -> str:
    top = max(bids) if bids else 0
    if not 0 <= bid <= max(top, len(state.hands[0]) if state.hands else 0):
        return f"bid {bid} is out of range: legal bids are {_ranges(bids)}"
    return (
        f"the dealer may not bid {bid}: the bids would total exactly the tricks "
        f"in the round; legal bids are {_ranges(bids)}"
    )


def _ranges(values: Sequence[int]) -> str:
    return " ".join(str(v) for v in values)


def step(state: State, command: Command) -> tuple[State, list[Event]]:
    """Decide a command and fold its events: the new state and the events.

    Raises an IllegalCommand subclass, leaving ``state`` as it was (it is immutable).
    """
    _check(state, command)
    rules = state.rules
    events: list[Event] = []

    def emit(event: Event) -> None:
        nonlocal state
        event = _renumber(event, state.seq + 1) if event.seq != state.seq + 1 else event
        state = evolve(state, event)
        events.append(event)

    seq = state.seq + 1
    if isinstance(command, Bid):
        emit(BidMade(seq, command.seat, command.bid))
        return state, events
    if not state.trick:
        emit(Led(seq, command.seat, command.card, command.call))
    else:
        emit(Played(seq, command.seat, command.card))
    if len(state.trick) < state.config.players:
        return state, events
    winner = rules.trick_winner(state, state.trick, state.call)
    emit(TrickWon(state.seq + 1, winner, len(state.tricks) + 1))
    for extra in rules.after_trick(state):
        emit(extra)
    if not rules.round_over(state):
        return state, events
    config = state.config
    points = rules.score_round(state)
    totals = tuple(t + p for t, p in zip(state.totals, points, strict=True))
    emit(
        RoundScored(
            state.seq + 1,
            state.round,
            tuple(b if b is not None else 0 for b in state.bids)
            if rules.has_bidding(config)
            else None,
            state.taken,
            points,
            totals,
        )
    )
    if rules.game_over(state):
        emit(GameOver(state.seq + 1, totals, rules.winners(config, totals)))
    else:
        dealer = rules.next_dealer(config, state.dealer)
        emit(rules.deal(config, state.round + 1, dealer))
    return state, events


def decide(state: State, command: Command) -> list[Event]:
    """The events a command causes; raises on anything illegal."""
    return step(state, command)[1]
