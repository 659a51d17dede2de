"""One reader of the wire (issue 35): ``wire.parse`` types every line, each kind formats
and parses back to itself, a bad line is one WireError (its text escaped), and no module
outside wire.py dispatches on a line's first word itself."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from xactika.protocol.net import lines, weblines
from xactika.protocol.player import wire
from xactika.protocol.player.wire import (
    Answer,
    EventLine,
    Go,
    Hello,
    Info,
    IsReady,
    Malformed,
    NewGame,
    Other,
    Outcome,
    Quit,
    ReadyOk,
    Seated,
    ServerError,
    TakeSeat,
    Watching,
    WireError,
)

ROOT = Path(__file__).resolve().parent.parent

# Every kind of line, as spec/PLAYER.md and spec/SERVER.md write it, and its value.
LINES: list[tuple[str, wire.Msg]] = [
    ("hello 1", Hello()),
    ("hello 1 name=deep-thought author=me", Hello(name="deep-thought",
                                                  fields={"author": "me"})),
    ("hello 1 name=Ann kind=human", Hello(name="Ann", kind="human")),
    ("isready", IsReady()),
    ("readyok", ReadyOk()),
    ("newgame seat=0", NewGame(0)),
    ("newgame seat=0 names=Ann,Ann%20%282%29,first",
     NewGame(0, {"names": "Ann,Ann%20%282%29,first"})),
    ("event 1 game-started game=xactika mode=bid players=2 rounds=1 dealer=0",
     EventLine(1, "game-started",
               "event 1 game-started game=xactika mode=bid players=2 rounds=1 dealer=0")),
    ("event 7 trick-won seat=0 trick=1", EventLine(7, "trick-won",
                                                   "event 7 trick-won seat=0 trick=1")),
    ("go bid options=0,1,2,3,4,5,6,7 time=1000", Go("bid", list("01234567"), 1000)),
    ("go lead options=2112:2ba,2112:1cu", Go("lead", ["2112:2ba", "2112:1cu"])),
    ("go play options=4S,6S,8S", Go("play", ["4S", "6S", "8S"])),
    ("bid 0", Answer("bid", ["0"])),
    ("play 1123", Answer("play", ["1123"])),
    ("play 2112 2ba", Answer("play", ["2112", "2ba"])),
    ("info seat 1 (Ann) ran out of time: a level-3 bot plays it until Ann takes it back",
     Info("seat 1 (Ann) ran out of time: a level-3 bot plays it until Ann takes it back")),
    ("result winners=1 forfeited=- totals=-5,-3", Outcome([1], [], [-5, -3])),
    ("result winners=0,2 forfeited=1 totals=3,-9,3", Outcome([0, 2], [1], [3, -9, 3])),
    ("quit", Quit()),
    ("seated table=1 seat=0 players=2", Seated("table=1 seat=0 players=2")),
    ("seated match bot=first", Seated("match bot=first")),
    ("error seat 0 of table 1 is already connected",
     ServerError("seat 0 of table 1 is already connected")),
    ("watching table=1", Watching("1")),
    ("watching table=1 names=Ann%20B,,bob", Watching("1", "Ann%20B,,bob")),
    ("seat 9f2c", TakeSeat("9f2c")),
    ("seat 9f2c resume=12", TakeSeat("9f2c", 12)),
    ("ponder on", Other("ponder", "ponder on")),
    ("", Other("", "")),
]


@pytest.mark.parametrize(("line", "value"), LINES, ids=[line[:24] for line, _ in LINES])
def test_every_line_parses_to_its_value_and_formats_back(line: str, value: wire.Msg) -> None:
    assert wire.parse(line) == value
    assert type(wire.parse(line)) is type(value)
    assert wire.format_line(value) == line
    assert wire.parse(wire.format_line(value)) == value
    assert wire.read(line) == value


def test_every_kind_of_line_is_in_the_table() -> None:
    kinds = {type(value) for _, value in LINES}
    readers = {wanted for wanted, _ in wire._READERS.values()}
    assert readers <= kinds and Other in kinds


@pytest.mark.parametrize(("line", "value"), [
    ("  isready  \r\n", IsReady()),  # any run of white space; extra words are ignored
    ("quit now", Quit()),
    ("info", Info("")),
    ("go play options=1123 time=soon extra=field", Go("play", ["1123"])),
    ("newgame seat=2 future=field", NewGame(2, {"future": "field"})),
    ("play", Answer("play")),  # an answer's shape is judged against its go: parse_answer
    ("bid x y z", Answer("bid", ["x", "y", "z"])),
    ("result winners=1 forfeited=- totals=-5,-3 future=x", Outcome([1], [], [-5, -3])),
])
def test_a_line_reads_as_it_always_did(line: str, value: wire.Msg) -> None:
    assert wire.parse(line) == value


def test_the_values_match_by_position_and_are_immutable() -> None:
    match wire.parse("go lead options=2112:2ba time=500"):
        case Go("lead", (option,), 500):
            assert option == "2112:2ba"
        case other:
            pytest.fail(f"no match: {other!r}")
    for _, value in LINES:
        assert type(value).__match_args__ == type(value)._order
        assert all(hasattr(value, name) for name in type(value).__match_args__)
        with pytest.raises(AttributeError):
            value.text = "changed"  # type: ignore[union-attr]


BAD = [
    ("hello", Hello, "speaks protocol version none"),
    ("hello two name=x", Hello, "speaks protocol version two"),
    ("hello \x1b[2J", Hello, "speaks protocol version \\x1b[2J"),
    ("newgame", NewGame, "expected newgame seat=<n>"),
    ("newgame seat=\u202eevil", NewGame, "got seat='\\u202eevil'"),
    ("event", EventLine, "expected an event line: event <seq> <kind>"),
    ("event 3", EventLine, "expected an event line: event <seq> <kind>"),
    ("event \x07x play", EventLine, "bad event seq '\\x07x': expected a number"),
    ("event ３ play", EventLine, "bad event seq '３': expected a number"),
    ("go", Go, "expected go <bid|lead|play>"),
    ("go pass options=1", Go, "expected go <bid|lead|play>"),
    ("go bid options=", Go, "go without options="),
    ("result winners=x forfeited=- totals=1", Outcome, "got winners='x'"),
    ("result winners=3 forfeited=- totals=1,2", Outcome, "names a seat beyond its totals"),
    ("seated", Seated, "expected seated table=<id>"),
    ("error", ServerError, "expected error <why>"),
    ("watching", Watching, "expected watching table=<id>"),
    ("watching table=1 \x1b[31m", Watching, "\\x1b[31m"),
    ("watching table=1 seats=2", Watching, "expected watching table=<id> [names=...]"),
    ("watching names=a table=1", Watching, "expected watching table=<id> [names=...]"),
    ("seat", TakeSeat, "expected 'seat TOKEN' or 'seat TOKEN resume=SEQ'"),
    ("seat t resume=x", TakeSeat, "expected 'seat TOKEN' or 'seat TOKEN resume=SEQ'"),
    ("seat t resume=1 more", TakeSeat, "expected 'seat TOKEN' or 'seat TOKEN resume=SEQ'"),
]


@pytest.mark.parametrize(("line", "wanted", "why"), BAD, ids=[b[0][:20] for b in BAD])
def test_a_malformed_line_is_one_clear_wire_error(line: str, wanted: type, why: str) -> None:
    with pytest.raises(WireError) as info:
        wire.parse(line)
    message = str(info.value)
    assert why in message and message.splitlines() == [message] and message.isprintable()
    assert wire.read(line) == Malformed(line.split()[0], line, message, wanted)


def reads_or_says_why(text: str) -> None:
    """``parse`` gives a value or one printable WireError line; ``read`` never raises."""
    try:
        value = wire.parse(text)
    except WireError as exc:
        assert "\n" not in str(exc) and str(exc).isprintable()
        assert isinstance(wire.read(text), Malformed)
    else:
        assert wire.read(text) == value


@given(st.text(max_size=80))
def test_no_text_makes_the_reader_raise_anything_but_a_wire_error(text: str) -> None:
    reads_or_says_why(text)


@given(word=st.sampled_from(sorted(wire._READERS)), rest=st.text(max_size=60))
def test_no_line_of_a_known_word_makes_it_raise_anything_else(word: str, rest: str) -> None:
    reads_or_says_why(f"{word} {rest}")


# --------------------------------------------------------------------------- the rule


WORDS = frozenset(wire._READERS)  # the command words wire.py reads
# ... and the server's and the web's (lines.py, weblines.py): their modules dispatch on no
# first word at all, of these or of any other line
SERVER_WORDS = WORDS | lines.WORDS | weblines.WORDS
SERVER_FOLDERS = ("protocol/net/", "frontends/web/", "frontends/net/")
WIRE_MODULES = ("protocol/player/wire.py", "protocol/net/lines.py", "protocol/net/weblines.py")
CONSTANTS = frozenset({"QUIT", "RESULT", "ISREADY", "READYOK", "ANSWERS"})
# First-word comparisons that are another grammar's, not the wire's (with the reason).
ALLOWED = {
    ("protocol/notation/text.py", "event"): "parse_event, the referee protocol's reader of an "
                                            "event's fields (PROTOCOL.md 5)",
    ("protocol/records/textform.py", "seat"): "a seat's name (seat 0), not a line",
    ("protocol/records/textform.py", "event"): "a record's event line (RECORDS.md), read by "
                                               "the records' own reader",
    ("protocol/trust/audit.py", "event"): "a record's event line, as the audit streams it",
}


def _is_first_word(node: ast.AST) -> bool:
    """``x.split()[0]``, ``x.split(...)[0]``, ``words[0]``, ``words[:1]``,
    ``x.partition(" ")[0]`` or ``first_word(x)``."""
    if isinstance(node, ast.Call):
        func = node.func
        return (isinstance(func, ast.Name) and func.id == "first_word") or (
            isinstance(func, ast.Attribute) and func.attr == "first_word")
    if not isinstance(node, ast.Subscript):
        return False
    index = node.slice
    first = (isinstance(index, ast.Constant) and index.value == 0) or (
        isinstance(index, ast.Slice) and index.lower is None
        and isinstance(index.upper, ast.Constant) and index.upper.value == 1)
    if not first:
        return False
    value = node.value
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
        return value.func.attr in ("split", "partition", "rsplit", "split_blanks") or (
            isinstance(value.func, ast.Name) and value.func.id == "split_blanks")
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
        return value.func.id == "split_blanks"
    return isinstance(value, ast.Name) and value.id in ("words", "tokens", "parts", "fields")


def _first_word_names(tree: ast.AST) -> set[str]:
    """The names given a first word (``command = words[0]``, ``command, rest = words[0],
    words[1:]``), which the scan then follows as first words themselves."""
    names = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            pairs = zip(target.elts, node.value.elts, strict=False) if isinstance(
                target, ast.Tuple) and isinstance(node.value, ast.Tuple) else [
                (target, node.value)]
            names |= {t.id for t, v in pairs if isinstance(t, ast.Name) and _is_first_word(v)}
    return names


def _wire_words(node: ast.AST, words: frozenset[str], any_word: bool) -> set[str]:
    """The command words a constant (or tuple of them, or wire's name) holds; with
    ``any_word``, the first word of any text."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        head = node.value.replace("=", " ").split()
        return set(head[:1]) if any_word else ({head[0]} & words if head else set())
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return set().union(*(_wire_words(e, words, any_word) for e in node.elts))
    if isinstance(node, ast.MatchValue):
        return _wire_words(node.value, words, any_word)
    if isinstance(node, ast.MatchOr | ast.MatchSequence):
        return set().union(*(_wire_words(p, words, any_word) for p in node.patterns))
    name = node.id if isinstance(node, ast.Name) else (
        node.attr if isinstance(node, ast.Attribute) else "")
    return {name.lower()} if name in CONSTANTS else set()


def first_word_checks(source: str, words: frozenset[str] = WORDS,
                      any_word: bool = False) -> list[tuple[int, str]]:
    """(line, word) of each place ``source`` compares a line's first word with one of
    ``words`` (with ``any_word``: with any text), matches it on them, or asks
    ``startswith`` one."""
    tree = ast.parse(source)
    named = _first_word_names(tree)

    def first(node: ast.AST) -> bool:
        return _is_first_word(node) or (isinstance(node, ast.Name) and node.id in named)

    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(first(side) for side in sides):
                for side in sides:
                    found += [(node.lineno, w) for w in sorted(_wire_words(side, words,
                                                                           any_word))]
        elif isinstance(node, ast.Match) and first(node.subject):
            for case in node.cases:
                found += [(case.pattern.lineno, w)
                          for w in sorted(_wire_words(case.pattern, words, any_word))]
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr == "startswith" and node.args):
            found += [(node.lineno, w) for w in sorted(_wire_words(node.args[0], words, False))]
    return sorted(found)


def test_the_scan_finds_every_way_of_dispatching_on_a_first_word() -> None:
    bad = """
if line.split()[0] == "go": pass
if words[0] in ("bid", "play"): pass
if words[:1] == ["newgame"]: pass
if first_word(line) == QUIT: pass
if wire.first_word(line) in ANSWERS: pass
if line.startswith("event "): pass
if line.startswith(("watching table=", "x")): pass
if stale.split(maxsplit=1)[0] != "info": pass
match words[0]:
    case "hello" | "quit": pass
match split_blanks(line)[:1]:
    case ["go"]: pass
"""
    assert [w for _, w in first_word_checks(bad)] == [
        "go", "bid", "play", "newgame", "quit", "answers", "event", "watching", "info",
        "hello", "quit", "go"]
    server = """
command, rest = words[0], words[1:]
if command == "quit": pass
if words[0] == "lobby": pass
if split_blanks(line)[0] == "ping": pass
if text.startswith("chat "): pass
match words[0]:
    case "tables": pass
"""
    assert [w for _, w in first_word_checks(server, SERVER_WORDS, any_word=True)] == [
        "quit", "lobby", "ping", "chat", "tables"]
    fine = """
if legal.kind == "bid": pass
if word == "back": pass
if line.split()[0].lower() == "help": pass
if key.startswith("seat."): pass
if name.startswith("."): pass
match wire.parse(line):
    case wire.Go(): pass
"""
    assert first_word_checks(fine) == []
    assert first_word_checks(fine, SERVER_WORDS, any_word=True) == []


def test_no_module_but_wire_dispatches_on_a_line_s_first_word() -> None:
    """The wire's words nowhere; in the server and the web (protocol/net, frontends/web)
    no first word at all, nor a ``startswith`` of the server's or the web's words."""
    found, allowed = [], set()
    for folder in ("protocol", "frontends"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel in WIRE_MODULES:
                continue
            server = rel.startswith(SERVER_FOLDERS)
            checks = first_word_checks(path.read_text(encoding="utf-8"),
                                       SERVER_WORDS if server else WORDS, any_word=server)
            for line, word in checks:
                if (rel, word) in ALLOWED:
                    allowed.add((rel, word))
                else:
                    found.append(f"{rel}:{line} compares a first word with {word!r}")
    assert found == [], "match on wire.parse(line) (or lines', weblines') instead:\n" + \
        "\n".join(found)
    assert allowed == set(ALLOWED), "an allowance no longer needed: remove it"
