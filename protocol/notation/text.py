"""The event line: one event as ``event <seq> <kind> key=value ...``.

This is the only place events become text and back. The protocol prints these lines,
record files are made of them, and snapshots show them, so a log can be piped back in.
Cards and calls are written by the game that owns them (``TrickGame.parse_card``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs

from xactika.core.engine.api import (
    BidMade,
    Config,
    Dealt,
    GameOver,
    GameStarted,
    Led,
    Played,
    PresetDeal,
    RoundScored,
    TrickGame,
    TrickWon,
    game_rules,
    games,
)
from xactika.core.engine.errors import ParseError

HIDDEN = "?"
NONE = "-"


@attrs.frozen
class Codec:
    """How one field is written and read; ``game`` supplies card and call text."""

    fmt: Callable[[Any, TrickGame], str]
    parse: Callable[[str, TrickGame], Any]


def _int(text: str, _: TrickGame) -> int:
    try:
        return int(text)
    except ValueError:
        raise ParseError(f"bad number {text!r}") from None


def _ints_fmt(v: Any, _: TrickGame) -> str:
    return ",".join(str(x) for x in v) if v else NONE


def _ints_parse(text: str, g: TrickGame) -> tuple[int, ...]:
    if text == NONE:
        return ()
    return tuple(_int(x, g) for x in text.split(","))


def _opt_ints_fmt(v: Any, g: TrickGame) -> str:
    return NONE if v is None else _ints_fmt(v, g)


def _opt_ints_parse(text: str, g: TrickGame) -> tuple[int, ...] | None:
    return None if text == NONE else _ints_parse(text, g)


def _cards_fmt(v: Any, g: TrickGame) -> str:
    if v is None:
        return HIDDEN
    return ",".join(str(c) for c in v) if v else NONE


def _cards_parse(text: str, g: TrickGame) -> tuple[Any, ...] | None:
    if text == HIDDEN:
        return None
    if text == NONE:
        return ()
    return tuple(g.parse_card(x) for x in text.split(","))


def _hands_fmt(v: Any, g: TrickGame) -> str:
    return "/".join(_cards_fmt(h, g) for h in v)


def _hands_parse(text: str, g: TrickGame) -> tuple[Any, ...]:
    return tuple(_cards_parse(h, g) for h in text.split("/"))


def _opt_card_fmt(v: Any, g: TrickGame) -> str:
    return NONE if v is None else str(v)


def _opt_card_parse(text: str, g: TrickGame) -> Any:
    return None if text == NONE else g.parse_card(text)


def _call_fmt(v: Any, g: TrickGame) -> str:
    return NONE if v is None else g.format_call(v)


def _call_parse(text: str, g: TrickGame) -> Any:
    return None if text == NONE else g.parse_call(text)


INT = Codec(lambda v, g: str(v), _int)
INTS = Codec(_ints_fmt, _ints_parse)
OPT_INTS = Codec(_opt_ints_fmt, _opt_ints_parse)
CARD = Codec(lambda v, g: str(v), lambda t, g: g.parse_card(t))
OPT_CARD = Codec(_opt_card_fmt, _opt_card_parse)
CARDS = Codec(_cards_fmt, _cards_parse)
HANDS = Codec(_hands_fmt, _hands_parse)
CALL = Codec(_call_fmt, _call_parse)


# --------------------------------------------------------------------------- settings


def format_deals(deals: tuple[PresetDeal, ...]) -> str:
    """Preset deals: rounds split by ``;``, hands by ``/``, cards by ``,``; ``|rest``."""
    parts = []
    for d in deals:
        text = "/".join(",".join(str(c) for c in h) for h in d.hands)
        if d.rest is not None:
            text += "|" + ",".join(str(c) for c in d.rest)
        parts.append(text)
    return ";".join(parts)


def parse_deals(text: str, game: TrickGame) -> tuple[PresetDeal, ...]:
    deals = []
    for part in text.split(";"):
        hands_text, _, rest_text = part.partition("|")
        hands = tuple(
            tuple(game.parse_card(c) for c in h.split(",") if c) for h in hands_text.split("/")
        )
        rest = tuple(game.parse_card(c) for c in rest_text.split(",") if c) if rest_text else None
        deals.append(PresetDeal(hands, rest))
    return tuple(deals)


_CONFIG_INTS = ("players", "rounds", "dealer")


def format_config(config: Config) -> list[str]:
    out = [f"game={config.game}", f"mode={config.mode}"]
    out += [f"{k}={getattr(config, k)}" for k in _CONFIG_INTS]
    if config.seed is not None:
        out.append(f"seed={config.seed}")
    for key in _CONFIG_HEX:  # spec/TAMPER.md
        if getattr(config, key) is not None:
            out.append(f"{key}={getattr(config, key)}")
    out += [f"{key}={value}" for key, value in config.options]  # the game's own settings
    if config.deals is not None:
        out.append(f"deals={format_deals(config.deals)}")
    return out


def config_from_pairs(pairs: dict[str, str], *, defaults: bool = False) -> Config:
    """Settings from ``key=value`` pairs; with ``defaults`` missing keys take the game's."""
    option_types = game_option_types()
    known = {"game", "mode", "players", "rounds", "dealer", "seed", "deals", *_CONFIG_HEX,
             *option_types}
    unknown = sorted(set(pairs) - known)
    if unknown:
        raise ParseError(f"unknown setting {unknown[0]!r}: expected {', '.join(sorted(known))}")
    game_name = pairs.get("game", "xactika")
    game = game_rules(game_name)
    if not defaults:
        missing = [k for k in ("game", "mode", *_CONFIG_INTS) if k not in pairs]
        if missing:
            raise ParseError(f"game-started lacks {missing[0]}=")
    values: dict[str, Any] = {"game": game_name}
    values["mode"] = pairs.get("mode", game.default_mode if defaults else "")
    for key in (*_CONFIG_INTS, "seed"):
        if key in pairs:
            values[key] = _setting_int(key, pairs[key])
    # every game's options are read (as their type) and then judged by this game, which
    # says why it takes no such setting rather than the parser calling it unknown
    values["options"] = {
        key: _setting_int(key, pairs[key]) if kind is int else pairs[key]
        for key, kind in option_types.items() if key in pairs
    }
    if defaults:
        values.setdefault("players", game.default_players)
        values.setdefault("rounds", game.rounds_for(values["options"]))
    if "deals" in pairs:
        values["deals"] = parse_deals(pairs["deals"], game)
    for key in _CONFIG_HEX:
        if key in pairs:
            values[key] = parse_hex(key, pairs[key], None)
    return Config(**values)


def game_option_types() -> dict[str, type]:
    """Every registered game's own settings and their types (``TrickGame.option_types``)."""
    found: dict[str, type] = {}
    for name in games():
        found.update(game_rules(name).option_types)
    return found


# --- tamper evidence (spec/TAMPER.md): the seed's nonce and commitment, lower-case hex
_CONFIG_HEX = ("nonce", "commit")
_HEX = frozenset("0123456789abcdef")
CHAIN_PREFIX = "h="  # a record line's final hash-chain token, ignored by the parser


def parse_hex(key: str, text: str, _: TrickGame | None) -> str:
    if not text or not set(text) <= _HEX:
        raise ParseError(f"bad {key}={text!r}: expected lower-case hexadecimal")
    return text


def _setting_int(key: str, text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ParseError(f"bad {key}={text!r}: expected a whole number") from None


# --------------------------------------------------------------------------- events


@attrs.frozen
class EventKind:
    kind: str
    cls: type
    fields: tuple[tuple[str, Codec], ...]


_BY_KIND: dict[str, EventKind] = {}
_BY_CLASS: dict[type, EventKind] = {}


def register_event(kind: str, cls: type, **fields: Codec) -> None:
    """Teach the codec an event; games call this for their own events."""
    entry = EventKind(kind, cls, tuple(fields.items()))
    _BY_KIND[kind] = entry
    _BY_CLASS[cls] = entry
    _PLANS.pop(cls, None)


# how format_event writes each class, compiled once per class from its fields (an event
# line a decision, for every host): one expression, no loop over the fields
_PLANS: dict[type, Callable[[Any, TrickGame], str]] = {}
_CARD_TEXT: dict[Any, str] = {}  # a card's text, by card (a game's cards are few)


register_event(Dealt.kind, Dealt, round=INT, dealer=INT, hands=HANDS, aside=CARDS,
               turned=OPT_CARD)
register_event(BidMade.kind, BidMade, seat=INT, bid=INT)
register_event(Led.kind, Led, seat=INT, card=CARD, call=CALL)
register_event(Played.kind, Played, seat=INT, card=CARD)
register_event(TrickWon.kind, TrickWon, seat=INT, trick=INT)
register_event(
    RoundScored.kind, RoundScored, round=INT, bids=OPT_INTS, tricks=INTS, points=INTS,
    totals=INTS,
)
register_event(
    GameOver.kind, GameOver, totals=INTS, winners=INTS,
    seed=INT, nonce=Codec(lambda v, g: str(v), lambda t, g: parse_hex("nonce", t, g)),
)
# fields left out of the line when None (and None when absent)
OPTIONAL_FIELDS = frozenset({"turned", "seed", "nonce", "call"})

# A card some views hide (Dix's draws from the stock): "?" where the seat may not see it.
SECRET_CARD = Codec(
    lambda v, g: HIDDEN if v is None else str(v),
    lambda t, g: None if t == HIDDEN else g.parse_card(t),
)
# the codecs a game's own event may name in its ``field_types`` (core/engine/events.py)
FIELD_CODECS = {"int": INT, "ints": INTS, "card": CARD, "secret-card": SECRET_CARD}
_GAMES_SEEN: set[str] = set()


def register_game_events() -> None:
    """Teach the codec every registered game's own events (each class's ``kind`` and
    ``field_types``); games registered later are taken up on first need."""
    for name in games():
        if name in _GAMES_SEEN:
            continue
        _GAMES_SEEN.add(name)
        for cls in game_rules(name).events:
            register_event(cls.kind, cls,
                           **{f: FIELD_CODECS[t] for f, t in cls.field_types.items()})


register_game_events()


def _entry(cls: type) -> EventKind:
    entry = _BY_CLASS.get(cls)
    if entry is None:
        register_game_events()
        entry = _BY_CLASS[cls]
    return entry


def event_kind(event: Any) -> str:
    if isinstance(event, GameStarted):
        return GameStarted.kind
    return _entry(type(event)).kind


def format_event(event: Any, game: TrickGame | None = None) -> str:
    """The event line, without a trailing newline."""
    if isinstance(event, GameStarted):
        return " ".join(["event", str(event.seq), "game-started", *format_config(event.config)])
    cls = type(event)
    write = _PLANS.get(cls) or _plan(cls)
    if game is None:
        raise ValueError("formatting this event needs its game")
    return write(event, game)


def _plan(cls: type) -> Callable[[Any, TrickGame], str]:
    """``event <seq> <kind>`` and each field's ``name=value``: an int field by ``str``, a
    card field by its text (kept by card), any other by its codec; a field of
    OPTIONAL_FIELDS left out when None (games without a turned-up card never show it)."""
    entry = _entry(cls)
    namespace: dict[str, Any] = {"_kind": entry.kind, "_card": _card_text}
    pieces = []
    for i, (name, codec) in enumerate(entry.fields):
        if not name.isidentifier() or name.startswith("_"):
            raise TypeError(f"event field {name!r} is not a plain attribute name")
        value = f"e.{name}"
        if codec is INT:
            text = f"str({value})"
        elif codec is CARD:
            text = f"_card({value})"
        else:
            namespace[f"_fmt{i}"] = codec.fmt
            text = f"_fmt{i}({value}, g)"
        piece = f"{' ' + name + '='!r} + {text}"
        if name in OPTIONAL_FIELDS:
            piece = f"('' if {value} is None else {piece})"
        pieces.append(piece)
    body = " + ".join(["'event ' + str(e.seq) + ' ' + _kind", *pieces])
    exec(f"def write(e, g):\n    return {body}\n", namespace)
    write: Callable[[Any, TrickGame], str] = namespace["write"]
    _PLANS[cls] = write
    return write


def _card_text(card: Any) -> str:
    """``str(card)``, kept by card (a card of a plug-in that is not hashable: afresh)."""
    try:
        text = _CARD_TEXT.get(card)
    except TypeError:
        return str(card)
    if text is None:
        text = str(card)
        if len(_CARD_TEXT) < 4096:
            _CARD_TEXT[card] = text
    return text


def split_pairs(tokens: list[str]) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for token in tokens:
        key, eq, value = token.partition("=")
        if not eq or not key or not value:
            raise ParseError(f"bad field {token!r}: expected key=value")
        if key in pairs:
            raise ParseError(f"field {key}= given twice")
        pairs[key] = value
    return pairs


def parse_event(line: str, game: TrickGame | None = None) -> Any:
    """An event from its line. ``game`` is needed for every event but game-started."""
    tokens = line.split()
    if len(tokens) > 3 and tokens[-1].startswith(CHAIN_PREFIX):
        tokens.pop()  # a record's hash-chain token: checked by `xactika audit`, not here
    if len(tokens) < 3 or tokens[0] != "event":
        raise ParseError("expected an event line: event <seq> <kind> key=value ...")
    try:
        seq = int(tokens[1])
    except ValueError:
        raise ParseError(f"bad event seq {tokens[1]!r}: expected a number") from None
    kind = tokens[2]
    pairs = split_pairs(tokens[3:])
    if kind == "game-started":
        return GameStarted(seq, config_from_pairs(pairs))
    entry = _BY_KIND.get(kind)
    if entry is None:
        register_game_events()
        entry = _BY_KIND.get(kind)
    if entry is None:
        raise ParseError(
            f"unknown event kind {kind!r}: expected one of "
            + ", ".join(["game-started", *_BY_KIND])
        )
    if game is None:
        raise ParseError(f"{kind} event before game-started")
    values: dict[str, Any] = {"seq": seq}
    names = {name for name, _ in entry.fields}
    extra = sorted(set(pairs) - names)
    if extra:
        raise ParseError(f"{kind} event has unknown field {extra[0]}=")
    for name, codec in entry.fields:
        if name not in pairs:
            if name in OPTIONAL_FIELDS:
                values[name] = None
                continue
            raise ParseError(f"{kind} event lacks {name}=")
        values[name] = codec.parse(pairs[name], game)
    return entry.cls(**values)
