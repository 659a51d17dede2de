"""The server's and the web's own lines (issue 44): each kind formats and reads back to
itself (``parse(format_line(m)) == m``, for the values of a table and for any values
hypothesis makes), and a bad line is one WireError saying what the server always said."""

from __future__ import annotations

import inspect
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from xactika.protocol.net import lines, weblines
from xactika.protocol.net.lines import (
    FIRST_EXPECTED,
    Admin,
    AdminOk,
    Bye,
    Create,
    Created,
    EnterLobby,
    Join,
    Joined,
    Leave,
    Left,
    ListTables,
    LobbyOk,
    LobbyTable,
    NewTable,
    Observe,
    Ok,
    Rematch,
    Rematched,
    SeatField,
    TableStatus,
    Watch,
    parse_admin,
    parse_answer,
    parse_first,
    parse_lobby,
)
from xactika.protocol.net.weblines import (
    Chat,
    Heard,
    SayChatRefused,
    SayCoach,
    SayDim,
    SayNames,
    SayNote,
    SayResult,
    SayRound,
    SayTable,
    SayWhyWon,
    parse_page,
    parse_page_first,
    parse_said,
)
from xactika.protocol.player import wire
from xactika.protocol.player.wire import Other, Quit, ServerError, TakeSeat, WireError

Reader = Callable[[str], wire.Value]

# Every kind of line, as SERVER.md and WEB.md write it, the reader that reads it, its value.
LINES: list[tuple[Reader, str, wire.Value]] = [
    (parse_first, "seat 9f2c", TakeSeat("9f2c")),
    (parse_first, "seat 9f2c resume=12", TakeSeat("9f2c", 12)),
    (parse_first, "seat 9f2c colour=red", SeatField("9f2c", "colour=red")),
    (parse_first, "observe 77ab", Observe("77ab")),
    (parse_first, "admin c0ff", Admin("c0ff")),
    (parse_first, "lobby", EnterLobby()),
    (parse_first, "lobby c0ff", EnterLobby("c0ff")),
    (parse_admin, "table game=dix players=3", NewTable(["game=dix", "players=3"])),
    (parse_admin, "tables", ListTables()),
    (parse_admin, "quit", Quit()),
    (parse_lobby, "quit", Quit()),
    (parse_lobby, "tables", ListTables()),
    (parse_lobby, "create players=2 rounds=1", Create(["players=2", "rounds=1"])),
    (parse_lobby, "join 3 name=Ann seat=1", Join("3", ["name=Ann", "seat=1"])),
    (parse_lobby, "leave 9f2c", Leave("9f2c")),
    (parse_lobby, "rematch 9f2c", Rematch("9f2c")),
    (parse_lobby, "watch 3", Watch("3")),
    (parse_lobby, "seat 9f2c resume=4", TakeSeat("9f2c", 4)),
    (parse_lobby, "observe 77ab", Observe("77ab")),
    (parse_page_first, "watch 3 name=Ann", Watch("3", "Ann")),
    (parse_page_first, "watch 3", Watch("3")),
    (parse_page_first, "seat 9f2c", TakeSeat("9f2c")),
    (parse_page, "chat hello all", Chat("hello all")),
    (parse_page, "bid 2", Other("bid", "bid 2")),
    (parse_said, "say names Ann,heuristic (2),-", SayNames(["Ann", "heuristic (2)", "-"])),
    (parse_said, "say table turn=1 move=lead sizes=8,7 stock=- trump=-",
     SayTable(1, "lead", [8, 7])),
    (parse_said, "say table turn=- move=- sizes=- stock=12 trump=clubs hand-suit=4S,QH "
                 "hand-rank=-",
     SayTable(None, None, [], 12, "clubs", [("suit", ["4S", "QH"]), ("rank", [])])),
    (parse_said, "say table turn=2 move=play sizes=7,6,7 stock=- trump=- round=1 dealer=0 "
                 "bids=2,-,1 taken=0,1,0 totals=0,-3,5 trick=1:2323 call=3st hand-value=-",
     SayTable(2, "play", [7, 6, 7], None, None, [("value", [])], round=1, dealer=0,
              bids=[2, None, 1], taken=[0, 1, 0], totals=[0, -3, 5], trick=[(1, "2323")],
              call="3st")),
    (parse_said, "say why-won trick=3 winner=1 Bob's 9 beat them all",
     SayWhyWon(3, 1, "Bob's 9 beat them all")),
    (parse_said, "say round Ann made her bid.", SayRound("Ann made her bid.")),
    (parse_said, "say dim you must follow the lead (cones) and you can",
     SayDim("you must follow the lead (cones) and you can")),
    (parse_said, "say coach bid what you can take", SayCoach("bid what you can take")),
    (parse_said, "say note the guided round is over", SayNote("the guided round is over")),
    (parse_said, "say chat-refused too fast, or not at a table",
     SayChatRefused("too fast, or not at a table")),
    (parse_said, "say result winners=0,2 forfeited=1 Ann wins.",
     SayResult([0, 2], [1], "Ann wins.")),
    (parse_said, "say result winners=- forfeited=-", SayResult([], [], "")),
    (parse_said, "chat Ann(watching) well played", Heard("Ann(watching)", "well played")),
    (parse_said, "go bid options=0,1", Other("go", "go bid options=0,1")),
    (parse_answer, "ok", Ok()),
    (parse_answer, "bye", Bye()),
    (parse_answer, "admin ok", AdminOk()),
    (parse_answer, "lobby ok", LobbyOk()),
    (parse_answer, "lobby ok admin", LobbyOk(admin=True)),
    (parse_answer, "created table=2", Created(2)),
    (parse_answer, "joined table=2 seat=0 token=9f2c", Joined(2, 0, "9f2c")),
    (parse_answer, "left table=2 seat=1", Left(2, 1)),
    (parse_answer, "rematch table=3 seat=1 token=77ab", Rematched(3, 1, "77ab")),
    (parse_answer, "table id=1 status=waiting seated=0/2", TableStatus(1, "waiting", "0/2")),
    (parse_answer, "table id=2 game=xactika mode=bid players=2 rounds=1 status=waiting "
                   "open=1 names=ann,- observers=0",
     LobbyTable(2, "xactika", "bid", 2, 1, "waiting", "1", "ann,-", 0)),
    (parse_answer, "error no lobby table 1", ServerError("no lobby table 1")),
]


@pytest.mark.parametrize(("reader", "line", "value"), LINES,
                         ids=[line[:28] for _, line, _ in LINES])
def test_every_line_reads_to_its_value_and_formats_back(reader: Reader, line: str,
                                                        value: wire.Value) -> None:
    assert reader(line) == value and type(reader(line)) is type(value)
    assert wire.format_line(value) == line
    assert reader(wire.format_line(value)) == value


def test_every_kind_of_line_is_in_the_table() -> None:
    kinds = {type(value) for _, _, value in LINES}
    for module in (lines, weblines):
        for name, kind in vars(module).items():
            if (inspect.isclass(kind) and issubclass(kind, wire.Value)
                    and not name.startswith("_") and kind.__module__ == module.__name__):
                assert kind in kinds, name


# Words and one-line texts as the server writes them: no blank inside a word, none
# around a text (a reader takes a line's blanks away).
WORD = st.text(st.characters(codec="utf-8", exclude_characters=" \t\r\n,=",
                             exclude_categories=("Cs",)), min_size=1, max_size=12)
TEXT = st.lists(st.text(st.characters(codec="utf-8", exclude_characters=" \t\r\n",
                                      exclude_categories=("Cs",)), min_size=1, max_size=8),
                max_size=5).map(" ".join)
SEATS = st.lists(st.integers(0, 9), max_size=4)
HANDS = st.lists(st.tuples(WORD, st.lists(WORD, max_size=5)), max_size=3)
SAID = st.one_of(
    st.builds(SayNames, st.lists(st.text(st.characters(codec="utf-8",
                                                       exclude_characters="\t\r\n,",
                                                       exclude_categories=("Cs",))).map(
        str.strip), min_size=2, max_size=5)),
    st.builds(SayTable, st.none() | st.integers(0, 9), st.sampled_from([None, "bid", "lead",
                                                                         "play"]),
              st.lists(st.integers(0, 20), max_size=6), st.none() | st.integers(0, 60),
              st.none() | WORD, HANDS, round=st.none() | st.integers(1, 30),
              dealer=st.none() | st.integers(0, 9),
              bids=st.lists(st.none() | st.integers(0, 13), max_size=6),
              taken=st.lists(st.integers(0, 13), max_size=6),
              totals=st.lists(st.integers(-99, 999), max_size=6),
              trick=st.lists(st.tuples(st.integers(0, 9), WORD.filter(lambda w: ":" not in w)),
                             max_size=6), call=st.none() | WORD),
    st.builds(SayWhyWon, st.integers(1, 13), st.integers(0, 9), TEXT),
    *(st.builds(kind, TEXT) for kind in (SayRound, SayDim, SayCoach, SayNote, SayChatRefused)),
    st.builds(SayResult, SEATS, SEATS, TEXT),
    st.builds(Heard, WORD, TEXT.filter(bool)),
)


@given(SAID)
def test_any_said_line_reads_back_to_itself(value: wire.Value) -> None:
    assert parse_said(wire.format_line(value)) == value


@given(st.one_of(
    st.builds(TakeSeat, WORD, st.none() | st.integers(0, 10 ** 9 - 1)),
    st.builds(SeatField, WORD, WORD.filter(lambda w: not w.startswith("resume="))),
    st.builds(Observe, WORD), st.builds(Admin, WORD), st.builds(EnterLobby, st.none() | WORD)))
def test_any_first_line_reads_back_to_itself(value: wire.Value) -> None:
    assert parse_first(wire.format_line(value)) == value


@given(st.one_of(
    st.builds(Create, st.lists(WORD, max_size=4)),
    st.builds(Join, WORD, st.lists(WORD, max_size=3)),
    st.builds(Leave, WORD), st.builds(Rematch, WORD), st.builds(Watch, WORD)))
def test_any_lobby_command_reads_back_to_itself(value: wire.Value) -> None:
    assert parse_lobby(wire.format_line(value)) == value


@given(st.builds(Watch, st.integers(0, 10 ** 6).map(str), st.none() | WORD),
       st.builds(Chat, TEXT.filter(lambda t: t == t.strip())))  # its text as the chat keeps it
def test_the_page_s_lines_read_back_to_themselves(watch: Watch, chat: Chat) -> None:
    assert parse_page_first(wire.format_line(watch)) == watch
    assert parse_page(wire.format_line(chat)) == chat


N = st.integers(0, 10 ** 6)


@given(st.one_of(
    st.builds(LobbyOk, st.booleans()), st.builds(Created, N), st.builds(Joined, N, N, WORD),
    st.builds(Left, N, N), st.builds(Rematched, N, N, WORD),
    st.builds(TableStatus, N, WORD, WORD),
    st.builds(LobbyTable, N, WORD, WORD, N, N, WORD, WORD, WORD, N)))
def test_any_answer_reads_back_to_itself(value: wire.Value) -> None:
    assert parse_answer(wire.format_line(value)) == value


BAD: list[tuple[Reader, str, str]] = [
    (parse_first, "GET / HTTP/1.1", FIRST_EXPECTED),
    (parse_first, "seat", FIRST_EXPECTED),
    (parse_first, "observe", FIRST_EXPECTED),
    (parse_first, "lobby a b", "unknown token"),  # as it always was: no token is a lobby's
    (parse_admin, "\x1b[2J now", "unknown admin command '\\\\x1b[2J': expected"),  # as ever
    (parse_admin, "", "unknown admin command '': expected table KEY=VALUE..., tables or quit"),
    (parse_lobby, "watch", "unknown lobby command 'watch': expected tables, create, join, "
                           "leave, rematch, watch, seat or quit"),
    (parse_lobby, "admin c0ff", "unknown lobby command 'admin c0ff'"),
    (parse_lobby, "tables now", "unknown lobby command 'tables now'"),
    (parse_said, "say table turn=x move=- sizes=- stock=- trump=-", "bad turn='x'"),
    (parse_said, "say table move=-", "expected say table turn= move="),
    (parse_said, "say table turn=- move=- sizes=- stock=- trump=- trick=1", "bad trick='1'"),
    (parse_said, "say table turn=- move=- sizes=- stock=- trump=- bids=1,x", "bad bids='x'"),
    (parse_said, "say why-won trick=a winner=1 x", "expected say why-won trick=<n>"),
    (parse_said, "say result winners=1", "expected say result winners=<seats>"),
    (parse_said, "say result winners=\u202e forfeited=-", "bad winners='\\u202e'"),
    (parse_said, "say shout hi", "expected say <kind> ... or chat <name> <text>"),
    (parse_said, "chat Ann", "expected say <kind> ... or chat <name> <text>"),
    (parse_answer, "created table=x", "bad table='x': expected a number"),
    (parse_answer, "left seat=1 table=2", "expected left table=... seat=..."),
]


@pytest.mark.parametrize(("reader", "line", "why"), BAD, ids=[b[1][:24] for b in BAD])
def test_a_bad_line_is_one_clear_wire_error(reader: Reader, line: str, why: str) -> None:
    with pytest.raises(WireError) as info:
        reader(line)
    message = str(info.value)
    assert why in message
    assert message.splitlines() == [message] and message.isprintable()


READERS = [parse_first, parse_admin, parse_lobby, parse_page_first, parse_page, parse_said,
           parse_answer]


@given(st.sampled_from(READERS),
       st.sampled_from(["", "seat", "observe", "admin", "lobby", "table", "tables", "quit",
                        "create", "join", "leave", "rematch", "watch", "chat", "say",
                        "say table", "say result", "say why-won", "say names", "created",
                        "joined", "left", "lobby ok", "ok"]),
       st.text(max_size=60))
def test_no_line_makes_a_reader_raise_anything_but_a_wire_error(reader: Reader, word: str,
                                                                 rest: str) -> None:
    try:
        reader(f"{word} {rest}")
    except WireError as exc:
        assert "\n" not in str(exc) and str(exc).isprintable()
