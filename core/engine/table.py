"""The trick-taking machinery every game shares: settings, events, state, the fold.

A game (Xactika, Dix) is a :class:`TrickGame` subclass that answers rule questions:
how to deal, what may be led and followed, who wins a trick, how a round scores.
Seats, turns, tricks, rounds, bidding, the decider loop and the fold are written here
once. State is only ever ``reduce(evolve, events)``: :func:`step` decides a command and
folds the events it returns with the same :func:`evolve` a replay uses.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import singledispatch
from typing import Any, ClassVar, Protocol, TypeVar

import attrs

from xactika.core.engine.errors import (
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

T = TypeVar("T")


def _builder(cls: type, params: list[str], defaults: dict[str, Any], with_cls: bool) -> Any:
    """The source of :func:`fast_constructor` and :func:`fast_new`, compiled: a function
    that makes a blank twin of ``cls`` (the same slots, no frozen ``__setattr__``),
    fills it by plain attribute stores and turns it into ``cls`` (or into its first
    argument ``_cls``, as a ``__new__``)."""
    names = [a.name for a in attrs.fields(cls)]
    slots = getattr(cls, "__slots__", None)
    if slots is None or tuple(slots) != tuple(names):
        raise TypeError(f"{cls.__name__} needs slots=True and weakref_slot=False")
    if {"_cls", "_blank", "_obj"} & set(names):
        raise TypeError(f"{cls.__name__} has a field named like a builder variable")
    namespace: dict[str, Any] = {
        "_cls": cls, "_blank": type(f"_{cls.__name__}Blank", (), {"__slots__": tuple(names)}),
        **{f"_default_{n}": d for n, d in defaults.items()},
    }
    head = ", ".join(["_cls", *params] if with_cls else params)
    body = "".join(f"    _obj.{n} = {n}\n" for n in names)
    exec(
        f"def build({head}):\n    _obj = _blank()\n{body}    _obj.__class__ = _cls\n"
        "    return _obj\n",
        namespace,
    )
    return namespace["build"]


def fast_constructor(cls: type[T]) -> Callable[..., T]:
    """A positional constructor for the frozen attrs class ``cls``, several times faster.

    attrs fills a frozen slots instance through ``object.__setattr__`` field by field,
    which made building a 17-field ``State`` most of the referee's time per event
    (bench/random_play.py). This is a plain function that makes a blank twin with the
    same slots, fills it by plain attribute stores and then turns it into ``cls``, so
    what comes out is an ordinary, frozen ``cls`` equal to ``cls(*args)``. A function,
    not the twin's ``__init__``: calling a class with many arguments costs CPython a
    copy of them all (about a thousand machine instructions for ``State``). ``cls``
    must have ``weakref_slot=False`` (a weakref slot blocks the class change) and no
    converters, validators or defaults that the caller relies on: every field is given.
    """
    names = [a.name for a in attrs.fields(cls)]  # type: ignore[arg-type]
    built: Callable[..., T] = _builder(cls, names, {}, with_cls=False)
    return built


def fast_new(cls: type[T]) -> type[T]:
    """Make calling the frozen attrs class ``cls`` as fast as :func:`fast_constructor`.

    For the commands, which a caller builds for every move: attrs' frozen ``__init__``
    stores each field through ``object.__setattr__`` and cost more than the fold of a
    plain card. This gives ``cls`` a ``__new__`` with the ``__init__``'s signature and
    defaults that builds it as :func:`fast_constructor` does, drops the ``__init__``,
    and pickles and copies by calling ``cls`` again. Equality, hashing, repr and
    ``attrs.evolve`` stay attrs' own; type checkers still read attrs' ``__init__``.
    """
    params: list[str] = []
    defaults: dict[str, Any] = {}
    for a in attrs.fields(cls):  # type: ignore[arg-type]
        if a.converter is not None or a.validator is not None or a.name.startswith("_"):
            raise TypeError(f"{cls.__name__}.{a.name}: fast_new takes plain fields only")
        if a.default is attrs.NOTHING:
            params.append(a.name)
        elif isinstance(a.default, type(attrs.Factory(list))):
            raise TypeError(f"{cls.__name__}.{a.name}: fast_new takes plain defaults only")
        else:
            defaults[a.name] = a.default
            params.append(f"{a.name}=_default_{a.name}")
    names = [a.name for a in attrs.fields(cls)]  # type: ignore[arg-type]

    def reduce(self: Any) -> tuple[type, tuple[Any, ...]]:
        return type(self), tuple(getattr(self, n) for n in names)

    for name, value in {
        "__new__": staticmethod(_builder(cls, params, defaults, with_cls=True)),
        "__init__": object.__init__,  # object's: the fields are set by then
        "__reduce__": reduce,
    }.items():
        setattr(cls, name, value)
    return cls

# --------------------------------------------------------------------------- settings


@attrs.frozen(slots=True)
class PresetDeal:
    """One round's cards fixed in advance: every seat's hand, and optionally the rest.

    ``rest`` is the undealt cards in order (Dix draws from it); when it is None the
    rest is every other card of the deck in deck order.
    """

    hands: tuple[Hand, ...]
    rest: Hand | None = None


Option = int | str
"""A game's own setting's value (Dix's ``target``)."""
Options = tuple[tuple[str, Option], ...]


def _options(value: Mapping[str, Option | None] | Iterable[tuple[str, Option | None]]) -> Options:
    """A game's own settings as sorted (name, value) pairs, None values left out: one
    spelling for equal settings, and hashable like the rest of :class:`Config`."""
    items = value.items() if isinstance(value, Mapping) else value
    return tuple(sorted((str(k), v) for k, v in items if v is not None))


@attrs.frozen(slots=True)
class Config:
    """Everything that fixes a game before the first card: the game-started event.

    ``options`` holds the settings only some games take (Dix's ``target``), by name;
    the game declares them (:attr:`TrickGame.option_types`) and validates them. Give a
    mapping: ``Config(game="dix", options={"target": 50})``.
    """

    game: str = "xactika"
    mode: str = "win"
    players: int = 4
    rounds: int = 8
    dealer: int = 0
    seed: int | None = None
    deals: tuple[PresetDeal, ...] | None = None
    options: Options = attrs.field(default=(), converter=_options)
    # tamper evidence (spec/TAMPER.md): commit = SHA-256 of the seed and a secret nonce;
    # seats see the commitment, the seed and nonce are revealed by game-over.
    nonce: str | None = None
    commit: str | None = None

    def option(self, name: str) -> Option | None:
        """The game's own setting ``name``, or None where it is not given."""
        for key, value in self.options:
            if key == name:
                return value
        return None


# --------------------------------------------------------------------------- events
# Each event class names its kind, the word the event line and the records use for it
# (spec/PROTOCOL.md). A game's own events (Dix's draws) also list their fields' types
# as ``field_types``, so the protocol can write and read them without knowing the game:
# "int", "card" (a card every view shows) or "secret-card" (None where a view hides it).


@attrs.frozen(slots=True)
class GameStarted:
    kind: ClassVar[str] = "game-started"

    seq: int
    config: Config


@attrs.frozen(slots=True, weakref_slot=False)
class Dealt:
    """A chance event. ``hands[s]`` is None and ``aside`` None where a view hides them."""

    kind: ClassVar[str] = "deal"

    seq: int
    round: int
    dealer: int
    hands: tuple[Hand | None, ...]
    aside: Hand | None
    turned: Card | None = None


@attrs.frozen(slots=True, weakref_slot=False)
class BidMade:
    kind: ClassVar[str] = "bid"

    seq: int
    seat: int
    bid: int


@attrs.frozen(slots=True, weakref_slot=False)
class Led:
    """A lead; ``call`` is the game's lead announcement (Xactika's shape-count)."""

    kind: ClassVar[str] = "lead"

    seq: int
    seat: int
    card: Card
    call: Any


@attrs.frozen(slots=True, weakref_slot=False)
class Played:
    kind: ClassVar[str] = "play"

    seq: int
    seat: int
    card: Card


@attrs.frozen(slots=True, weakref_slot=False)
class TrickWon:
    kind: ClassVar[str] = "trick-won"

    seq: int
    seat: int
    trick: int


@attrs.frozen(slots=True, weakref_slot=False)
class RoundScored:
    kind: ClassVar[str] = "round-scored"

    seq: int
    round: int
    bids: tuple[int, ...] | None
    tricks: tuple[int, ...]
    points: tuple[int, ...]
    totals: tuple[int, ...]


@attrs.frozen(slots=True)
class GameOver:
    """``seed`` and ``nonce`` reveal a committed seed (spec/TAMPER.md); else None."""

    kind: ClassVar[str] = "game-over"

    seq: int
    totals: tuple[int, ...]
    winners: tuple[int, ...]
    seed: int | None = None
    nonce: str | None = None


Event = Any  # one of the classes above, or a game's own (Dix's draws)


class GameEvent(Protocol):
    """What a game's own event class declares (Dix's ``Drew``), beside ``seq``."""

    kind: ClassVar[str]
    field_types: ClassVar[Mapping[str, str]]


# --------------------------------------------------------------------------- commands


@fast_new
@attrs.frozen(slots=True, weakref_slot=False)
class Bid:
    seat: int
    bid: int


@fast_new
@attrs.frozen(slots=True, weakref_slot=False)
class Play:
    """Play a card; ``call`` is required when leading a game that has calls."""

    seat: int
    card: Card
    call: Any = None


Command = Bid | Play

# --------------------------------------------------------------------------- state


@attrs.frozen(slots=True, weakref_slot=False)
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


@attrs.frozen(slots=True, weakref_slot=False)
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

# The referee builds these once or more per move: see fast_constructor.
_new_state = fast_constructor(State)
_new_trick = fast_constructor(Trick)
new_dealt = fast_constructor(Dealt)
"""``Dealt(...)`` with every field given, faster: games deal with it every round."""
_new_round_scored = fast_constructor(RoundScored)
_new_bid_made = fast_constructor(BidMade)
_new_led = fast_constructor(Led)
_new_played = fast_constructor(Played)
_new_trick_won = fast_constructor(TrickWon)

# --------------------------------------------------------------------------- legal actions


@attrs.frozen(slots=True, weakref_slot=False)
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
    """The modes, the default last (what a setting left out takes)."""
    mode_names: ClassVar[Mapping[str, str]] = {}
    """How people call a mode (Xactika's "Play to Win"); a mode not here is its own name."""
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 2
    default_players: ClassVar[int] = 2
    default_rounds: ClassVar[int] = 1
    option_types: ClassVar[Mapping[str, type]] = {}
    """The game's own settings (``Config.options``) and their types, int or str: Dix's
    ``target``. The game checks their values in :meth:`validate_options`."""
    events: ClassVar[tuple[type[GameEvent], ...]] = ()
    """The game's own event classes (Dix's draws), each with ``kind`` and ``field_types``;
    it registers their folds (:func:`register_evolver`) and views itself."""

    # -- settings
    @property
    def default_mode(self) -> str:
        return self.modes[-1]

    def mode_name(self, mode: str) -> str:
        """The mode as people call it: "Play to Lose", or "draw" where it has no other."""
        return self.mode_names.get(mode, mode)

    def low_wins(self, config: Config) -> bool:
        """Whether the lowest total wins (Xactika's Play to Lose)."""
        return False

    def validate_options(self, config: Config) -> None:
        """Every option is one this game takes, of its type; games check the values."""
        for key, value in config.options:
            kind = self.option_types.get(key)
            if kind is None:
                raise ConfigError(f"{self.name} takes no setting {key} ({key}={value})")
            if type(value) is not kind:
                raise ConfigError(f"{key} must be {_TYPE_WORDS.get(kind, kind.__name__)}, "
                                  f"not {value!r}")

    def validate(self, config: Config) -> None:
        if config.mode not in self.modes:
            raise ConfigError(
                f"unknown mode {config.mode!r} for {self.name}: expected one of "
                + ", ".join(self.modes)
            )
        if not self.min_players <= config.players <= self.max_players:
            span = (
                f"exactly {self.min_players}"
                if self.min_players == self.max_players
                else f"{self.min_players} to {self.max_players}"
            )
            raise ConfigError(f"{self.name} takes {span} players, not {config.players}")
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
        self.validate_options(config)
        if config.deals is not None:
            for i, preset in enumerate(config.deals):
                self.check_preset(config, preset, i + 1)

    # what a preset deal is checked against; a game without a deck takes no presets
    deck: ClassVar[tuple[Any, ...]] = ()
    card_type: ClassVar[type] = object
    rest_order: ClassVar[str] = ""  # how the rest is ordered, for the error message

    def hand_size(self, config: Config, round_no: int = 1) -> int:
        """The cards each seat is dealt in round ``round_no`` (from 1)."""
        raise NotImplementedError

    def max_hand_size(self, config: Config) -> int:
        """The largest hand of any round: what fixed-size encodings make room for."""
        return max(self.hand_size(config, r) for r in range(1, config.rounds + 1))

    def tricks_per_round(self, config: Config, round_no: int = 1) -> int:
        """The tricks of round ``round_no``: a hand's size unless the game draws."""
        return self.hand_size(config, round_no)

    def round_score_bounds(self, config: Config, round_no: int = 1) -> tuple[int, int]:
        """The least and most one seat can score in round ``round_no`` (points as
        ``RoundScored`` has them: not negated where low wins). Default: a point a trick."""
        return 0, self.tricks_per_round(config, round_no)

    def score_bounds(self, config: Config) -> tuple[int, int]:
        """The least and most one seat's total can be after ``config.rounds`` rounds."""
        rounds = [self.round_score_bounds(config, r) for r in range(1, config.rounds + 1)]
        return sum(lo for lo, _ in rounds), sum(hi for _, hi in rounds)

    def check_preset(self, config: Config, preset: PresetDeal, round_no: int) -> None:
        """Every seat holds a full hand of this game's cards, each card once, and the
        rest, when given, is exactly the undealt cards."""
        if not self.deck:
            raise ConfigError(f"{self.name} does not take preset deals")
        where = f"preset deal for round {round_no}"
        if len(preset.hands) != config.players:
            raise ConfigError(f"{where} has {len(preset.hands)} hands, expected {config.players}")
        size = self.hand_size(config, round_no)
        seen: set[Card] = set()
        for seat, hand in enumerate(preset.hands):
            if len(hand) != size:
                raise ConfigError(
                    f"{where}: seat {seat} has {len(hand)} cards, expected {size} "
                    f"in {config.mode} mode"
                )
            for card in hand:
                if not isinstance(card, self.card_type):
                    raise ConfigError(f"{where}: {card!r} is not a {self.name} card")
                if card in seen:
                    raise ConfigError(f"{where}: {card} is dealt twice")
                seen.add(card)
        if preset.rest is not None:
            undealt = set(self.deck) - seen
            if set(preset.rest) != undealt or len(preset.rest) != len(undealt):
                raise ConfigError(
                    f"{where}: the rest must be exactly the {len(undealt)} undealt cards, "
                    f"each once{self.rest_order}"
                )

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

    def may_play(self, state: State, seat: int, card: Card) -> bool:
        """Whether the follow rule lets ``seat`` play ``card``, which it holds.

        Must agree with :meth:`legal_cards`; games override it when they can answer
        without building the whole list (the referee asks on every card played).
        """
        return card in self.legal_cards(state, seat)

    def explain_illegal_card(self, state: State, seat: int, card: Card) -> IllegalCommand:
        """The error for a held card that the follow rule forbids."""
        return IllegalCommand(f"{card} may not be played now")

    def trick_winner(self, state: State, plays: Sequence[tuple[int, Card]], call: Any) -> int:
        raise NotImplementedError

    def after_trick(self, state: State) -> list[Event]:
        """Events (seq 0) that follow a trick, such as Dix's draws from the stock."""
        return []

    def round_over(self, state: State) -> bool:
        return not any(state.hands)

    # -- scoring
    def score_round(self, state: State) -> tuple[int, ...]:
        raise NotImplementedError

    def game_over(self, state: State) -> bool:
        return state.round >= state.config.rounds

    def winners(self, config: Config, totals: tuple[int, ...]) -> tuple[int, ...]:
        best = max(totals)
        return tuple(s for s, t in enumerate(totals) if t == best)

    def game_winners(self, state: State) -> tuple[int, ...]:
        """The game-over winners, given the state with the last round scored.

        Games whose ties are broken by play (Dix: ten-tricks, the last trick) override this.
        """
        return self.winners(state.config, state.totals)

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


_TYPE_WORDS = {int: "a whole number", str: "text"}

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


def _without(hand: Hand, card: Card, seat: int) -> Hand:
    """``hand`` less ``card``. An empty hand is one the fold cannot see (a seat's own
    fold of redacted events) and stays empty."""
    if not hand:
        return hand
    i = 0
    for held in hand:  # identity first: dealt cards are shared instances
        if held is card:
            return hand[:i] + hand[i + 1 :]
        i += 1
    if card in hand:
        i = hand.index(card)
        return hand[:i] + hand[i + 1 :]
    raise InvalidEvent(f"seat {seat} plays {card}, which it does not hold")


def _replace_at(items: tuple[Any, ...], i: int, value: Any) -> tuple[Any, ...]:
    # through a list: two allocations, where slicing and joining make five
    out = list(items)
    out[i] = value
    return tuple(out)


@singledispatch
def _evolve(event: Any, state: State) -> State:
    raise InvalidEvent(f"unknown event type {type(event).__name__}")


# The fold runs once per event, so it looks evolvers up by exact type in a plain dict
# rather than through singledispatch's MRO walk; a registration empties the cache.
_EVOLVERS: dict[type, Any] = {}
_EVOLVERS_SEEN = [0]


def evolve(state: State, event: Event) -> State:
    """Apply one event. Raises InvalidEvent when it is out of sequence."""
    if event.seq != state.seq + 1:
        raise InvalidEvent(f"event seq {event.seq} does not follow seq {state.seq}")
    cls = event.__class__
    fn = _EVOLVERS.get(cls)
    registered = len(_evolve.registry)
    if fn is None or registered != _EVOLVERS_SEEN[0]:
        if registered != _EVOLVERS_SEEN[0]:
            _EVOLVERS.clear()
            _EVOLVERS_SEEN[0] = registered
        fn = _EVOLVERS[cls] = _evolve.dispatch(cls)
    return fn(event, state)


register_evolver = _evolve.register

# The evolvers below build State with _new_state, every field given in order (each
# line says which): attrs.evolve is several times slower, and attrs' own frozen
# __init__ four times slower, on the referee's hot path (bench/random_play.py). The
# check below fails at import if the fields change without the evolvers being brought
# along.
_STATE_FIELDS = (
    "config", "seq", "phase", "round", "dealer", "hands", "aside", "turned", "bids",
    "taken", "trick", "call", "leader", "to_act", "totals", "tricks", "extra",
)
if tuple(a.name for a in attrs.fields(State)) != _STATE_FIELDS:
    raise RuntimeError("State's fields changed: update the evolvers in core/engine/table.py")


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
    hands = event.hands
    if None in hands:  # a seat's own fold of a redacted deal
        hands = tuple(h if h is not None else () for h in hands)
    return _new_state(
        config,  # config
        event.seq,  # seq
        PHASE_BID if bidding else PHASE_PLAY,  # phase
        event.round,  # round
        event.dealer,  # dealer
        hands,  # hands
        event.aside if event.aside is not None else (),  # aside
        event.turned,  # turned
        (None,) * n,  # bids
        (0,) * n,  # taken
        (),  # trick
        None,  # call
        leader,  # leader
        (event.dealer + 1) % n if bidding else leader,  # to_act
        state.totals,  # totals
        (),  # tricks
        state.extra,  # extra
    )


@_evolve.register
def _evolve_bid_made(event: BidMade, state: State) -> State:
    bids = _replace_at(state.bids, event.seat, event.bid)
    done = None not in bids
    return _new_state(
        state.config,  # config
        event.seq,  # seq
        PHASE_PLAY if done else PHASE_BID,  # phase
        state.round,  # round
        state.dealer,  # dealer
        state.hands,  # hands
        state.aside,  # aside
        state.turned,  # turned
        bids,  # bids
        state.taken,  # taken
        state.trick,  # trick
        state.call,  # call
        state.leader,  # leader
        state.leader if done else (event.seat + 1) % state.config.players,  # to_act
        state.totals,  # totals
        state.tricks,  # tricks
        state.extra,  # extra
    )


def _after_card(state: State, seq: int, seat: int, card: Card, trick: tuple[Any, ...],
                call: Any) -> State:
    n = state.config.players
    hands = list(state.hands)
    hands[seat] = _without(hands[seat], card, seat)
    return _new_state(
        state.config,  # config
        seq,  # seq
        state.phase,  # phase
        state.round,  # round
        state.dealer,  # dealer
        tuple(hands),  # hands
        state.aside,  # aside
        state.turned,  # turned
        state.bids,  # bids
        state.taken,  # taken
        trick,  # trick
        call,  # call
        state.leader,  # leader
        None if len(trick) == n else (seat + 1) % n,  # to_act
        state.totals,  # totals
        state.tricks,  # tricks
        state.extra,  # extra
    )


@_evolve.register
def _evolve_led(event: Led, state: State) -> State:
    return _after_card(state, event.seq, event.seat, event.card,
                       ((event.seat, event.card),), event.call)


@_evolve.register
def _evolve_played(event: Played, state: State) -> State:
    # _after_card written out: this is the most frequent event of all
    seat = event.seat
    card = event.card
    hands = list(state.hands)  # _replace_at written out
    hand = hands[seat]
    i = 0
    for held in hand:
        if held is card:
            hands[seat] = hand[:i] + hand[i + 1 :]
            break
        i += 1
    else:
        hands[seat] = _without(hand, card, seat)
    trick = state.trick + ((seat, card),)
    n = state.config.players
    return _new_state(
        state.config,  # config
        event.seq,  # seq
        state.phase,  # phase
        state.round,  # round
        state.dealer,  # dealer
        tuple(hands),  # hands
        state.aside,  # aside
        state.turned,  # turned
        state.bids,  # bids
        state.taken,  # taken
        trick,  # trick
        state.call,  # call
        state.leader,  # leader
        None if len(trick) == n else (seat + 1) % n,  # to_act
        state.totals,  # totals
        state.tricks,  # tricks
        state.extra,  # extra
    )


@_evolve.register
def _evolve_trick_won(event: TrickWon, state: State) -> State:
    seat = event.seat
    taken = list(state.taken)
    taken[seat] += 1
    return _new_state(
        state.config,  # config
        event.seq,  # seq
        state.phase,  # phase
        state.round,  # round
        state.dealer,  # dealer
        state.hands,  # hands
        state.aside,  # aside
        state.turned,  # turned
        state.bids,  # bids
        tuple(taken),  # taken
        (),  # trick
        None,  # call
        seat,  # leader
        seat,  # to_act
        state.totals,  # totals
        state.tricks + (_new_trick(state.call, state.trick, seat),),  # tricks
        state.extra,  # extra
    )


@_evolve.register
def _(event: RoundScored, state: State) -> State:
    return _new_state(
        state.config,  # config
        event.seq,  # seq
        PHASE_SCORED,  # phase
        state.round,  # round
        state.dealer,  # dealer
        state.hands,  # hands
        state.aside,  # aside
        state.turned,  # turned
        state.bids,  # bids
        state.taken,  # taken
        state.trick,  # trick
        state.call,  # call
        state.leader,  # leader
        None,  # to_act
        event.totals,  # totals
        state.tricks,  # tricks
        state.extra,  # extra
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
    if event.__class__ is Dealt:  # once a round: attrs.evolve is the slow way
        return new_dealt(seq, event.round, event.dealer, event.hands, event.aside, event.turned)
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


_NOBODY = Legal(None, "none")
_new_legal = fast_constructor(Legal)


def legal_actions(state: State) -> Legal:
    """Who must act and what is legal. ``kind`` is "none" when nobody may act."""
    seat = state.to_act
    if seat is None:
        return _NOBODY
    phase = state.phase
    # ``==``, not ``is``: an unpickled state holds its own copies of the phase strings
    if phase != PHASE_PLAY and phase != PHASE_BID:
        return _NOBODY
    rules = _GAMES.get(state.config.game) or game_rules(state.config.game)
    if phase == PHASE_PLAY:
        return _new_legal(seat, "play" if state.trick else "lead", (),
                          rules.legal_cards(state, seat), rules)
    return _new_legal(seat, "bid", rules.legal_bids(state), (), None)


def _check(state: State, command: Command) -> None:
    phase = state.phase
    if phase == PHASE_OVER:
        raise GameIsOver("the game is over")
    if phase == PHASE_NEW:
        raise WrongPhase("no game has started")
    if not isinstance(command, (Play, Bid)):  # a tuple: faster than Play | Bid
        raise IllegalCommand(f"not a command: {command!r}")
    rules = game_rules(state.config.game)
    n = state.config.players
    seat = command.seat
    if type(seat) is not int or not 0 <= seat < n:
        raise NotYourTurn(f"no seat {seat!r}: seats are 0 to {n - 1}")
    if isinstance(command, Bid):
        if phase != PHASE_BID:
            raise WrongPhase("bidding is over: it is time to play a card")
        if seat != state.to_act:
            raise NotYourTurn(f"seat {state.to_act} bids next, not seat {seat}")
        bids = rules.legal_bids(state)
        if type(command.bid) is not int or command.bid not in bids:
            raise BadBid(_bid_message(state, command.bid, bids))
        return
    if isinstance(command, Play):
        if phase == PHASE_BID:
            raise WrongPhase(f"bidding is not over: seat {state.to_act} bids next")
        seat = command.seat
        if seat != state.to_act:
            raise NotYourTurn(f"seat {state.to_act} plays next, not seat {seat}")
        card = command.card
        if not _holds(state.hands[seat], card):
            raise NotInHand(f"{card} is not in seat {seat}'s hand")
        if not rules.may_play(state, seat, card):
            raise rules.explain_illegal_card(state, seat, card)
        call = command.call
        if state.trick:
            if call is not None:
                raise BadCall("only the leader makes a call")
            return
        calls = rules.calls_for(card)
        if not _holds(calls, call):
            raise BadCall(
                f"leading {card} needs one of the calls "
                + " ".join(rules.format_call(c) for c in calls)
            )
        return
    raise IllegalCommand(f"not a command: {command!r}")


def _holds(items: tuple[Any, ...], item: Any) -> bool:
    """``item in items``, trying identity first: cards and calls are shared instances,
    so this mostly avoids calling ``__eq__`` on every card before the one sought."""
    for held in items:
        if held is item:
            return True
    return item in items


def _bid_message(state: State, bid: Any, bids: tuple[int, ...]) -> str:
    if type(bid) is not int:
        return f"bid {bid!r} is not a whole number: legal bids are {_ranges(bids)}"
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
    # The common moves, a legal card or bid from the seat to act, are recognised by a
    # few identity tests; anything else, or anything in doubt, goes through _check,
    # which raises the one error a bad command gets (or passes what is legal after all).
    seat = state.to_act
    rules = _GAMES.get(state.config.game) or game_rules(state.config.game)
    seq = state.seq + 1
    first: Event
    phase = state.phase
    if seat is not None and type(command) is Play and command.seat is seat and phase == PHASE_PLAY:
        card = command.card
        trick = state.trick
        for held in state.hands[seat]:  # _holds, written out
            if held is card:
                break
        else:
            _check(state, command)
        if not (
            rules.may_play(state, seat, card)
            and (command.call is None if trick else _holds(rules.calls_for(card), command.call))
        ):
            _check(state, command)
        if trick:
            first = _new_played(seq, seat, card)
            state = _evolve_played(first, state)
            if state.to_act is not None:  # _after_command, written out
                return state, [first]
            return _end_of_trick(state, [first], rules)
        first = _new_led(seq, seat, card, command.call)
        state = _evolve_led(first, state)
        if state.to_act is not None:
            return state, [first]
        return _end_of_trick(state, [first], rules)
    if seat is not None and type(command) is Bid and command.seat is seat and phase == PHASE_BID:
        bid = command.bid
        if type(bid) is not int or bid not in rules.legal_bids(state):
            _check(state, command)
        first = _new_bid_made(seq, seat, bid)
        state = _evolve_bid_made(first, state)
        if state.to_act is not None:
            return state, [first]
        return _end_of_trick(state, [first], rules)
    _check(state, command)
    if isinstance(command, Bid):
        first = BidMade(seq, command.seat, command.bid)
    elif state.trick:
        first = Played(seq, command.seat, command.card)
    else:
        first = Led(seq, command.seat, command.card, command.call)
    return _after_command(evolve(state, first), first, rules)


def _after_command(state: State, first: Event, rules: TrickGame) -> tuple[State, list[Event]]:
    if state.to_act is not None:  # the common case: one event, someone else to act
        return state, [first]
    return _end_of_trick(state, [first], rules)


def _end_of_trick(state: State, events: list[Event], rules: TrickGame) -> tuple[State, list[Event]]:
    """The events that follow the last card of a trick: who won it, the game's own
    (Dix's draws), and at the end of a round its score and the next deal or game-over."""
    if len(state.trick) < state.config.players:
        return state, events
    winner = rules.trick_winner(state, state.trick, state.call)
    won = _new_trick_won(state.seq + 1, winner, len(state.tricks) + 1)
    state = _evolve_trick_won(won, state)
    events.append(won)
    for extra in rules.after_trick(state):
        state = _emit(state, events, extra)
    if not rules.round_over(state):
        return state, events
    config = state.config
    points = rules.score_round(state)
    totals = tuple([t + p for t, p in zip(state.totals, points, strict=True)])
    bids = None
    if rules.has_bidding(config):
        bids = state.bids
        if None in bids:
            bids = tuple([0 if b is None else b for b in bids])
    state = _emit(state, events, _new_round_scored(state.seq + 1, state.round, bids,
                                                   state.taken, points, totals))
    if rules.game_over(state):
        over = GameOver(state.seq + 1, totals, rules.game_winners(state), *_reveal(config))
        state = _emit(state, events, over)
    else:
        dealer = rules.next_dealer(config, state.dealer)
        state = _emit(state, events, rules.deal(config, state.round + 1, dealer))
    return state, events


def _emit(state: State, events: list[Event], event: Event) -> State:
    """Fold ``event``, numbered to follow ``state``, and append it to ``events``."""
    if event.seq != state.seq + 1:
        event = _renumber(event, state.seq + 1)
    events.append(event)
    return evolve(state, event)


def _reveal(config: Config) -> tuple[int | None, str | None]:
    """What game-over reveals: a committed seed and its nonce (spec/TAMPER.md)."""
    if config.commit is None:
        return None, None
    return config.seed, config.nonce


def decide(state: State, command: Command) -> list[Event]:
    """The events a command causes; raises on anything illegal."""
    return step(state, command)[1]
