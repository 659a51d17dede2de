"""The JSONL form of a record: one JSON object per line, through cattrs (spec/RECORDS.md).

The domain classes know nothing of JSON: everything here is converter configuration.
Events are a tagged union keyed by ``"type"`` (the event line's kind); headers are
``{"type": "header", ...}``. Cards and calls are their text, numbers are numbers (the
seed, which passes 2**53, a string), lists are arrays, hidden values are ``null``. Field
order and values follow the event line, so text -> JSONL -> text gives back the same
bytes; the chain and the signature cover that text, not the JSON bytes.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Iterable, Iterator
from functools import cache
from typing import Any

import attrs
import cattrs
from cattrs.strategies import configure_tagged_union

from xactika.core.engine.api import Config, Event, GameStarted, PresetDeal, TrickGame, game_rules
from xactika.core.engine.errors import XactikaError
from xactika.protocol.notation import text as T
from xactika.protocol.notation.untrusted import escape, is_safe
from xactika.protocol.records.seal import SIG_WORD, parse_sig_line, split_hash
from xactika.protocol.records.textform import (
    BLANKS,
    MAX_HEADERS,
    MAX_LINE,
    MAX_RECORD_LINES,
    RESULT_WORD,
    Record,
    RecordError,
    decode_line,
    format_header,
    iter_record_lines,
)

TAG = "type"
_CONFIG_INTS = ("players", "rounds", "dealer", "seed")
CHAIN_KEY = "h"  # an event line's hash-chain token, kept as it was

JsonFns = tuple[Callable[[Any, TrickGame], Any], Callable[[Any, TrickGame], Any]]


def _opt(fn: Callable[[Any, TrickGame], Any]) -> Callable[[Any, TrickGame], Any]:
    return lambda v, g: None if v is None else fn(v, g)


def _card_out(v: Any, g: TrickGame) -> str:
    return str(v)


def _card_in(v: Any, g: TrickGame) -> Any:
    if not isinstance(v, str):
        raise XactikaError(f"bad card {v!r}: expected the card's text")
    return g.parse_card(v)


def _cards_out(v: Any, g: TrickGame) -> list[str]:
    return [str(c) for c in v]


def _cards_in(v: Any, g: TrickGame) -> tuple[Any, ...]:
    return tuple(_card_in(c, g) for c in v)


def _call_out(v: Any, g: TrickGame) -> str:
    return g.format_call(v)


def _call_in(v: Any, g: TrickGame) -> Any:
    return g.parse_call(v)


JS_SAFE = 2**53
"""Past this a JSON number is a double in JavaScript and jq and loses digits."""

BIG_INTS = frozenset({"seed"})
"""The integer fields that may pass 2**53 (a 256-bit seed): strings in JSON, always."""

_DIGITS = re.compile(r"-?(?:0|[1-9][0-9]*)")


def int_in(v: Any, _: Any = None) -> int:
    """An integer as any JSON tool may have written it back: a number, an integral
    float within 2**53 (``3.0``, from a reader that keeps numbers as doubles) or a
    string of digits; the text form, which the chain covers, has one spelling for it."""
    if isinstance(v, int) and not isinstance(v, bool):
        return v
    if isinstance(v, float) and v.is_integer() and abs(v) <= JS_SAFE:
        return int(v)
    if isinstance(v, float):
        raise ValueError(f"bad number {v!r}: a number past 2^53 has lost its digits (a "
                         "seed is a string in JSON; write the record again from its text)")
    if isinstance(v, str) and v.isascii() and _DIGITS.fullmatch(v):
        return int(v)
    raise ValueError(f"bad number {escape(repr(v), 40)}: expected an integer")


def _big_out(v: Any, g: TrickGame) -> str:
    return str(v)


def _ints_in(v: Any, g: TrickGame) -> tuple[int, ...]:
    if not isinstance(v, list):
        raise ValueError(f"expected a list of integers, not {type(v).__name__}")
    return tuple(int_in(x) for x in v)


# How each text codec's value looks in JSON; an unknown codec keeps its text form.
_JSON: dict[int, JsonFns] = {
    id(T.INT): (lambda v, g: v, int_in),
    id(T.INTS): (lambda v, g: list(v), _ints_in),
    id(T.OPT_INTS): (_opt(lambda v, g: list(v)), _opt(_ints_in)),
    id(T.CARD): (_card_out, _card_in),
    id(T.OPT_CARD): (_opt(_card_out), _opt(_card_in)),
    id(T.CARDS): (_opt(_cards_out), _opt(_cards_in)),
    id(T.HANDS): (
        lambda v, g: [None if h is None else _cards_out(h, g) for h in v],
        lambda v, g: tuple(None if h is None else _cards_in(h, g) for h in v),
    ),
    id(T.CALL): (_opt(_call_out), _opt(_call_in)),
}


def _fns(name: str, codec: T.Codec) -> JsonFns:
    if name in BIG_INTS:
        return (_big_out, int_in)
    return _JSON.get(id(codec), (codec.fmt, lambda v, g: codec.parse(v, g)))


def _deals_out(deals: Any) -> Any:
    if deals is None:
        return None
    return [
        {"hands": [[str(c) for c in h] for h in d.hands],
         "rest": None if d.rest is None else [str(c) for c in d.rest]}
        for d in deals
    ]


def _deals_in(value: Any, g: TrickGame) -> tuple[PresetDeal, ...] | None:
    if value is None:
        return None
    return tuple(
        PresetDeal(
            tuple(_cards_in(h, g) for h in d["hands"]),
            None if d.get("rest") is None else _cards_in(d["rest"], g),
        )
        for d in value
    )


def converter(game_name: str) -> cattrs.Converter:
    """The converter for one game's events (cards are parsed by that game)."""
    return _converter(game_name)[0]


ALWAYS_OPTIONS = ("target",)
"""Options every game's config object has, null where unset: the records kept Dix's
``target`` there before games had options of their own (spec/RECORDS.md)."""


@cache
def _converter(game_name: str) -> tuple[cattrs.Converter, Any]:
    game = game_rules(game_name)
    conv = cattrs.Converter()
    kinds: dict[type, str] = {GameStarted: "game-started"}

    option_types = T.game_option_types()

    def config_out(c: Config) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in attrs.fields(Config):
            if f.name != "options":
                value = getattr(c, f.name)
                out[f.name] = str(value) if f.name in BIG_INTS and value is not None else value
                continue
            # where target always stood (spec/RECORDS.md: null in a game without one),
            # then any other option of the game's, by name
            out.update({k: c.option(k) for k in ALWAYS_OPTIONS})
            out.update({k: v for k, v in c.options if k not in ALWAYS_OPTIONS})
        out["deals"] = _deals_out(c.deals)
        return out

    def config_in(d: dict[str, Any], _: type) -> Config:
        fields = {f.name for f in attrs.fields(Config)} - {"options"}
        _only(d, fields | set(option_types) | set(ALWAYS_OPTIONS))
        values = {k: v for k, v in d.items() if k in fields and k != "deals"}
        for key in _CONFIG_INTS:
            if values.get(key) is not None:
                values[key] = int_in(values[key])
        options = {k: int_in(v) if option_types.get(k) is int and v is not None else v
                   for k, v in d.items() if k not in fields}
        return Config(**values, options=options, deals=_deals_in(d.get("deals"), game))

    conv.register_unstructure_hook(Config, config_out)
    conv.register_structure_hook(Config, config_in)
    conv.register_unstructure_hook(
        GameStarted, lambda e: {"seq": e.seq, "config": config_out(e.config)}
    )
    def started_in(d: dict[str, Any], _: type) -> GameStarted:
        _only(d, {TAG, "seq", "config"})
        return GameStarted(int_in(d["seq"]), config_in(d["config"], Config))

    conv.register_structure_hook(GameStarted, started_in)
    for entry in T._BY_KIND.values():
        kinds[entry.cls] = entry.kind
        _register_event(conv, entry, game)
    members = tuple(kinds)
    union: Any = members[0]
    for cls in members[1:]:
        union = union | cls
    configure_tagged_union(union, conv, tag_generator=lambda cls: kinds[cls], tag_name=TAG)
    return conv, union


def _only(obj: Any, allowed: set[str]) -> None:
    """Refuse keys the text form has no place for: they would pass every audit unseen."""
    if not isinstance(obj, dict):
        raise ValueError(f"expected an object, not {type(obj).__name__}")
    extra = sorted(set(obj) - allowed)
    if extra:
        raise ValueError(f"unknown key {escape(str(extra[0]), 40)!r}: the text form has no "
                         "place for it")


def _register_event(conv: cattrs.Converter, entry: T.EventKind, game: TrickGame) -> None:
    fields = [(name, *_fns(name, codec)) for name, codec in entry.fields]
    cls = entry.cls

    def out(event: Any) -> dict[str, Any]:
        d: dict[str, Any] = {"seq": event.seq}
        for name, fmt, _ in fields:
            value = getattr(event, name)
            if value is None and name in T.OPTIONAL_FIELDS:
                continue  # absent from the event line, so absent here too
            d[name] = fmt(value, game)
        return d

    allowed = {TAG, "seq", *(name for name, _, _ in fields)}

    def into(d: dict[str, Any], _: type) -> Any:
        _only(d, allowed)
        values: dict[str, Any] = {"seq": int_in(d["seq"])}
        for name, _fmt, parse in fields:
            if name in d:
                values[name] = parse(d[name], game)
            elif name in T.OPTIONAL_FIELDS:
                values[name] = None
            else:
                raise KeyError(name)
        return cls(**values)

    conv.register_unstructure_hook(cls, out)
    conv.register_structure_hook(cls, into)


def event_to_json(event: Event, game: str) -> dict[str, Any]:
    conv, union = _converter(game)
    result: dict[str, Any] = conv.unstructure(event, unstructure_as=union)
    return result


def event_from_json(obj: dict[str, Any], game: str) -> Event:
    conv, union = _converter(game)
    return conv.structure(obj, union)


def _dump(obj: dict[str, Any]) -> str:
    obj = {TAG: obj.pop(TAG), **obj}  # the tag first, for people reading the file
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def record_to_jsonl(record: Record) -> str:
    lines = [_dump({TAG: "header", "key": k, "value": v}) for k, v in record.headers]
    game = "xactika"
    for event in record.events:
        if isinstance(event, GameStarted):
            game = event.config.game
        lines.append(_dump(event_to_json(event, game)))
    if record.result is not None:
        lines.append(_dump(_result_to_json(record.result)))
    if record.sig is not None:
        lines.append(_dump(_sig_to_json(record.sig, 0)))
    return "".join(line + "\n" for line in lines)


def text_to_jsonl(lines: Iterable[str | bytes]) -> str:
    """A text record as JSONL, streaming; raises RecordError naming the line.

    An event line's hash-chain token (spec/TAMPER.md) is kept as the ``h`` key.
    """
    out: list[str] = []
    game = "xactika"
    current: list[str | bytes] = [""]

    def tap(source: Iterable[str | bytes]) -> Iterator[str | bytes]:
        for raw in source:
            current[0] = raw
            yield raw

    for lineno, kind, value in iter_record_lines(tap(lines)):
        if kind == "header":
            out.append(_dump({TAG: "header", "key": value[0], "value": value[1]}))
            continue
        if kind == SIG_WORD:
            out.append(_dump(_sig_to_json(value, lineno)))
            continue
        if kind == RESULT_WORD:
            out.append(_dump(_result_to_json(value)))
            continue
        if isinstance(value, GameStarted):
            game = value.config.game
        obj = event_to_json(value, game)
        raw = current[0]
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        _, chain = split_hash(text.strip())
        if chain is not None:
            obj[CHAIN_KEY] = chain
        out.append(_dump(obj))
    return "".join(line + "\n" for line in out)


def iter_jsonl(
    lines: Iterable[str | bytes], *, with_chain: bool = False
) -> Iterator[tuple[int, str, Any]]:
    """Like :func:`iter_record_lines`, for the JSONL form.

    With ``with_chain`` an event comes as ``(event, hash or None)``.
    """
    game: str | None = None
    headers = items = 0
    for lineno, raw in enumerate(lines, 1):
        text = decode_line(raw, lineno)
        if not text.strip(BLANKS):
            continue
        items += 1
        if items > MAX_RECORD_LINES:
            raise RecordError(f"line {lineno}: a record holds at most {MAX_RECORD_LINES} "
                              "lines")
        try:
            if _too_deep(text):  # json.loads would recurse until RecursionError
                raise ValueError(f"JSON nested deeper than {MAX_DEPTH} levels")
            obj = json.loads(text, object_pairs_hook=_unique, parse_constant=_no_constant)
            if not isinstance(obj, dict) or TAG not in obj:
                raise ValueError(f"expected an object with a {TAG!r} key")
            if obj[TAG] == "header":
                _only(obj, {TAG, "key", "value"})
                key, value = str(obj["key"]), str(obj["value"])
                format_header(key, value)
                headers += 1
                if headers > MAX_HEADERS:
                    raise ValueError(f"a record holds at most {MAX_HEADERS} header lines")
                yield lineno, "header", (key, value)
                continue
            if obj[TAG] == SIG_WORD:
                _only(obj, {TAG, "events", "head", "ed25519"})
                yield lineno, SIG_WORD, _sig_from_json(obj)
                continue
            if obj[TAG] == RESULT_WORD:
                _only(obj, {TAG, "text"})
                if not isinstance(obj["text"], str) or not is_safe(obj["text"]):
                    raise ValueError("a result's text must be one line of printable text")
                yield lineno, RESULT_WORD, f"{RESULT_WORD} {obj['text']}"
                continue
            if obj[TAG] == "record":  # a games file's separator (spec/RECORDS.md)
                raise ValueError("a games file, several records in one: read one record "
                                 "of it (xactika replay --record N), or audit or convert "
                                 "it whole")
            if obj[TAG] == "game-started":
                game = str(obj["config"]["game"])
                game_rules(game)
            elif game is None:
                raise ValueError("the first event must be game-started")
            chain = obj.pop(CHAIN_KEY, None)
            event = event_from_json(obj, game)
            yield lineno, "event", (event, chain) if with_chain else event
        except (ValueError, KeyError, TypeError, XactikaError, cattrs.BaseValidationError) as exc:
            raise RecordError(f"line {lineno}: {_message(exc)}") from None


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object whose keys are all different: with ``"card"`` twice, a reader that keeps
    the first would see another game than the audit (which kept the last) verified."""
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            raise ValueError(f"the key {escape(key, 40)!r} appears twice in one object")
        obj[key] = value
    return obj


def _no_constant(name: str) -> Any:
    """NaN and Infinity are not JSON (RFC 8259); Python's reader alone takes them."""
    raise ValueError(f"{name} is not a JSON value")


MAX_DEPTH = 16  # a record's objects nest 6 deep (an event, its config, deals, hands)
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_BRACKET = re.compile(r"[\[\]{}]")


def _too_deep(text: str) -> bool:
    """Whether brackets outside strings nest deeper than MAX_DEPTH."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return False
    depth = 0
    for bracket in _BRACKET.findall(_JSON_STRING.sub("", text)):
        depth += 1 if bracket in "[{" else -1
        if depth > MAX_DEPTH:
            return True
    return False


def _message(exc: BaseException) -> str:
    if isinstance(exc, cattrs.BaseValidationError):
        inner = exc.exceptions[0] if exc.exceptions else exc
        return _message(inner) if inner is not exc else str(exc)
    if isinstance(exc, KeyError):
        return f"missing key {exc.args[0]!r}"
    return str(exc)


def jsonl_to_text(lines: Iterable[str | bytes]) -> str:
    """The JSONL form back as a text record."""
    return "".join(line + "\n" for line in _as_text(lines) if line)


def _as_text(lines: Iterable[str | bytes]) -> Iterator[str]:
    """The text line each JSONL line stands for, one for one ("" for a blank line).

    Line N of the output is line N of the input, so every reader's ``line N:`` and the
    auditor's hash chain work on JSONL exactly as on the text it converts back to.
    """
    game: TrickGame | None = None
    done = 0
    for lineno, kind, value in iter_jsonl(lines, with_chain=True):
        for _ in range(done + 1, lineno):
            yield ""
        done = lineno
        if kind == "header":
            yield format_header(*value)
            continue
        if kind in (SIG_WORD, RESULT_WORD):
            yield value
            continue
        event, chain = value
        if isinstance(event, GameStarted):
            game = game_rules(event.config.game)
        line = T.format_event(event, game)
        yield line if chain is None else f"{line} {T.CHAIN_PREFIX}{chain}"


def is_jsonl(first: str | bytes) -> bool:
    """Whether a record's first non-blank line is JSONL: JSON objects start with ``{``."""
    text = first.decode("utf-8", "replace") if isinstance(first, bytes) else first
    return text.lstrip(BLANKS).startswith("{")


def record_lines(lines: Iterable[str | bytes]) -> Iterator[str | bytes]:
    """A record's lines in its text form, whichever form it is in, detected by content.

    The one place a reader learns the form: a text record passes through untouched
    (bytes stay bytes), a JSONL record is converted line for line as it streams, with
    the JSONL reader's limits and its errors (``line N: ...``, a RecordError). Every
    record reader (read_record, the engine's ``load``, audit, replay, play --load) reads
    through here.
    """
    it = iter(lines)
    head: list[str | bytes] = []
    for raw in it:
        head.append(raw)
        text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
        if len(raw) > MAX_LINE or text.strip(BLANKS):
            break
    rest = itertools.chain(head, it)
    if head and is_jsonl(head[-1]):
        yield from _as_text(rest)
    else:
        yield from rest


def read_jsonl(lines: Iterable[str | bytes]) -> Record:
    headers: list[tuple[str, str]] = []
    events: list[Event] = []
    sig: list[str] = []
    result: list[str] = []
    for _, kind, value in iter_jsonl(lines):
        {"header": headers, "event": events, SIG_WORD: sig, RESULT_WORD: result}[kind].append(
            value)
    return Record(tuple(headers), tuple(events), sig[0] if sig else None,
                  result[0] if result else None)


def _result_to_json(line: str) -> dict[str, Any]:
    """The result line (spec/RECORDS.md) as an object: its words after ``result``."""
    return {TAG: RESULT_WORD, "text": line.split(" ", 1)[1] if " " in line else ""}


def _sig_to_json(line: str, lineno: int) -> dict[str, Any]:
    """The closing signature line (spec/TAMPER.md section 6) as an object, hex kept."""
    try:
        sig = parse_sig_line(line)
    except ValueError as exc:
        raise RecordError(f"line {lineno}: {exc}") from None
    return {TAG: SIG_WORD, "events": sig.events, "head": sig.head,
            "ed25519": sig.signature.hex()}


def _sig_from_json(obj: dict[str, Any]) -> str:
    """The sig line an object stands for; ValueError unless it reads back the same."""
    line = f"{SIG_WORD} events={int_in(obj['events'])} head={obj['head']} ed25519={obj['ed25519']}"
    parse_sig_line(line)
    return line
