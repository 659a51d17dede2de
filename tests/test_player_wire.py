"""wire.py, the player protocol's lines: every kind formats and parses back to itself, a
bad line is one clear WireError (never another exception), every host shakes hands and
keeps names alike, and the lean random bot answers exactly as PlayerSession does."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from netkit import Client, LiveServer, first_option, in_thread, play_first

from xactika.core import Config, RandomAgent, game_rules, games, legal_actions, start, step
from xactika.core.engine.api import Legal, TrickGame, new_game
from xactika.core.engine.errors import ParseError
from xactika.protocol.notation.text import format_event
from xactika.protocol.player import wire
from xactika.protocol.player.agentside import PlayerSession
from xactika.protocol.player.lean import LeanRandomSession
from xactika.protocol.player.process import LoopbackPlayer
from xactika.protocol.player.wire import Go, Handshake, Hello, WireError
from xactika.protocol.records.textform import read_record

SPEC = Path(__file__).resolve().parent.parent / "spec" / "PLAYER.md"


def positions(game: str, mode: str, players: int, seed: int) -> list[tuple[Legal, TrickGame]]:
    """(legal, rules) at every decision of one random game."""
    rules = game_rules(game)
    state = new_game(Config(game=game, mode=mode, players=players, rounds=1, seed=seed))
    agent = RandomAgent(seed)
    seen = []
    while (legal := legal_actions(state)).seat is not None:
        seen.append((legal, rules))
        state, _ = step(state, agent.choose(None, legal))
    return seen


SHAPES = [(g, m, game_rules(g).min_players) for g in games() for m in game_rules(g).modes]


# --------------------------------------------------------------------------- round trips


@pytest.mark.parametrize("hello", [
    Hello(), Hello(name="deep-thought"), Hello(name="Ann", kind="human"),
    Hello(name="x", fields={"author": "me", "version": "2.1"}), Hello(3, name="future"),
])
def test_hello_round_trips(hello: Hello) -> None:
    assert wire.parse_hello(wire.format_hello(hello)) == hello


def test_hello_reads_todays_bots_and_tomorrows_seats() -> None:
    assert wire.format_hello() == "hello 1"
    assert wire.hello_answer("my bot") == "hello 1 name=my-bot"  # names never hold spaces
    today = wire.parse_hello("hello 1 name=deep-thought author=me")
    assert (today.name, today.kind, today.fields) == ("deep-thought", None, {"author": "me"})
    person = wire.parse_hello("hello 1 name=Ann kind=human")
    assert (person.name, person.kind) == ("Ann", "human")
    assert wire.parse_hello("hello 1").name is None


@pytest.mark.parametrize("seat", [0, 1, 9])
def test_newgame_round_trips(seat: int) -> None:
    assert wire.parse_newgame(wire.format_newgame(seat).split()) == seat
    assert wire.parse_newgame(f"newgame seat={seat} future=field".split()) == seat


@given(kind=st.sampled_from(wire.KINDS),
       options=st.lists(st.from_regex(r"[0-9A-Z]{1,4}(:[0-9][a-z]{2})?", fullmatch=True),
                        min_size=1, max_size=30),
       time_ms=st.none() | st.integers(0, 10**9))
def test_go_round_trips(kind: str, options: list[str], time_ms: int | None) -> None:
    go = Go(kind, options, time_ms)
    assert wire.parse_go(wire.format_go_line(go).split()) == go


@pytest.mark.parametrize(("game", "mode", "players"), SHAPES)
def test_go_from_a_legal_and_every_answer_round_trip(game: str, mode: str, players: int) -> None:
    for legal, rules in positions(game, mode, players, seed=3):
        line = wire.format_go(legal, rules, 250)
        go = wire.parse_go(line.split())
        assert wire.format_go_line(go) == line and go.time_ms == 250
        back = wire.legal_from_go(go, legal.seat, rules)
        assert list(back.commands()) == list(legal.commands())
        for command in legal.commands():
            answer = wire.answer_line(command, rules)
            assert wire.parse_answer(answer, legal, rules) == command
            assert wire.is_answer(answer)


def test_event_lines_give_their_sequence_and_kind() -> None:
    opening = start(Config(players=2, seed=1))
    for event in opening:
        line = format_event(event, game_rules("xactika"))
        assert wire.parse(line) == wire.EventLine(event.seq, event.kind, line)
    line = "event 12 play seat=0 card=1123"
    assert wire.parse(line) == wire.EventLine(12, "play", line)
    assert not isinstance(wire.read("event x play"), wire.EventLine)
    assert wire.parse("newgame seat=0") == wire.NewGame(0)


def test_info_is_one_line_whatever_it_says() -> None:
    assert wire.format_info("agent failed (boom)") == "info agent failed (boom)"
    line = wire.format_info("a\nb\r\nc\x85d")
    assert line.splitlines() == [line] and wire.is_info(line)


# --------------------------------------------------------------------------- bad lines


@pytest.mark.parametrize(("parse", "line", "why"), [
    (wire.parse_hello, "readyok", "expected 'hello 1 name=<name>'"),
    (wire.parse_hello, "hello", "speaks protocol version none"),
    (wire.parse_hello, "hello two name=x", "speaks protocol version two"),
    (wire.parse_hello, "hello 01 name=x", "speaks protocol version 01"),
    (wire.parse_hello, "hello \x1b[2J", "speaks protocol version \\x1b[2J"),
    (lambda line: wire.parse_newgame(line.split()), "newgame", "expected newgame seat=<n>"),
    (lambda line: wire.parse_newgame(line.split()), "newgame seat=-1", "got seat='-1'"),
    (lambda line: wire.parse_go(line.split()), "go", "expected go <bid|lead|play>"),
    (lambda line: wire.parse_go(line.split()), "go pass options=1", "expected go <bid|lead"),
    (lambda line: wire.parse_go(line.split()), "go bid", "expected go <bid|lead|play>"),
    (lambda line: wire.parse_go(line.split()), "go bid options=", "go without options="),
    (lambda line: wire.parse_go(line.split()).bids(), "go bid options=a,1",
     "go bid with an option that is not a number: 'a,1'"),
    (lambda line: wire.expect(line, ("readyok",), "answering isready"), "ready\x07",
     "sent 'ready\\x07' while answering isready: expected 'readyok'"),
])
def test_a_bad_line_is_one_clear_wire_error(parse: object, line: str, why: str) -> None:
    with pytest.raises(WireError) as info:
        parse(line)  # type: ignore[operator]
    message = str(info.value)
    assert why in message and message.splitlines() == [message] and message.isprintable()


def test_an_unknown_time_or_field_in_go_is_ignored() -> None:
    go = wire.parse_go("go play options=1123 time=soon extra=field".split())
    assert go == Go("play", ["1123"], None)


@given(st.text(max_size=60))
def test_no_text_makes_a_parser_raise_anything_but_a_value_error(text: str) -> None:
    rules = game_rules("xactika")
    words = text.split()
    for parse in (lambda: wire.parse_hello(text), lambda: wire.parse_newgame(words),
                  lambda: wire.legal_from_go(wire.parse_go(["go", *words]), 0, rules)):
        try:
            parse()
        except ValueError as exc:  # WireError, or ParseError for a card the rules refuse
            assert isinstance(exc, WireError | ParseError)
            assert "\n" not in str(exc)


# --------------------------------------------------------------------------- handshake


def shake(*answers: str) -> Handshake:
    """Drive a Handshake with ``answers``, as a host's I/O would."""
    hand = Handshake()
    for answer in answers:
        assert hand.request() is not None
        hand.receive(answer)
    return hand


def test_the_handshake_asks_hello_then_isready() -> None:
    hand = Handshake()
    assert (hand.request(), hand.doing) == ("hello 1", "answering hello")
    hand.receive("hello 1 name=Ann kind=human")
    assert (hand.request(), hand.doing) == ("isready", "answering isready")
    hand.receive("readyok")
    assert hand.request() is None and hand.done
    assert hand.hello == Hello(name="Ann", kind="human")
    with pytest.raises(WireError, match="nothing was asked"):
        hand.receive("readyok")


@pytest.mark.parametrize(("answers", "why"), [
    (["readyok"], "sent 'readyok' while answering hello: expected 'hello'"),
    (["hello 2 name=x"], "speaks protocol version 2, expected 'hello 1 name=<name>'"),
    (["hello 1", "hello 1"], "sent 'hello 1' while answering isready: expected 'readyok'"),
])
def test_a_wrong_handshake_answer_says_what_was_expected(answers: list[str], why: str) -> None:
    with pytest.raises(WireError, match=re.escape(why)):
        shake(*answers)


@pytest.mark.parametrize(("given", "kept"), [
    ("deep-thought", "deep-thought"), ("a,b", "a_b"), ("\x1b[31mred", "\\x1b[31mred"),
    ("x" * 50, "x" * 40 + "..."), ("back\\slash", "back\\\\slash"),
])
def test_every_host_keeps_a_self_given_name_one_way(given: str, kept: str) -> None:
    assert wire.clean_name(given) == kept
    answers = {"hello": f"hello 1 name={given}", "isready": "readyok"}
    player = LoopbackPlayer(Scripted(answers))
    assert player.start() == kept  # the process host, as the server's handshake: clean_name


class Scripted:
    def __init__(self, answers: dict[str, str]) -> None:
        self.answers = answers

    def feed(self, line: str) -> list[str]:
        answer = self.answers.get(line.split()[0])
        return [] if answer is None else [answer]


# --------------------------------------------------------------------------- the two bots


def spec_host_lines() -> list[str]:
    """Every line a host sends in spec/PLAYER.md's transcripts, in order."""
    text = SPEC.read_text(encoding="utf-8")
    return [line[2:] for line in text.splitlines() if line.startswith("> ")]


ODD = [
    "hello 1", "hello 1 name=host kind=human", "  isready  \r\n", "", "# a comment",
    "event 3 bid seat=1 bid=0", "newgame seat=0 future=field", "go lead options=", "go bid",
    "event 1 game-started game=xactika mode=bid players=2 rounds=1 dealer=0",
    "go bid options=0,1,2 time=100 ponder=no", "go bid options=x,1", "go pass options=1",
    "go lead options=1123:1ba,1123:1cu,1123:2co,1123:3st,2111:2ba,2111:1cu,2111:1co,2111:1st",
    "go play options=1123,2111 time=5",
    "newgame seat=one", "ponder on", "isready", "quit",
]


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_the_lean_bot_and_player_session_answer_the_same_lines_alike(seed: int) -> None:
    lean, full = LeanRandomSession(seed), PlayerSession(RandomAgent(seed), "random")
    # a host lists every call of a card: the lean bot draws from those, the reference
    # from the rules' (tests/test_startup.py), which are the same
    script = [line for line in spec_host_lines() if line != "quit"] + ODD
    answered = 0
    for line in script:
        said = lean.feed(line)
        assert said == full.feed(line), line
        answered += sum(s.startswith(("bid ", "play ")) for s in said)
    assert answered > 30  # the spec's games were played, not just refused
    assert lean.done and full.done


# --------------------------------------------------------------------------- the server


def seat_named(client: Client, token: str, hello: str) -> list[str]:
    """Take a seat answering ``hello`` with ``hello``, then play first options."""
    client.send(f"seat {token}")
    got = []
    while (line := client.read()) is not None:
        got.append(line)
        word = line.split()[0]
        if word == "hello":
            client.send(hello)
        elif word == "isready":
            client.send("readyok")
        elif word == "go":
            client.send(first_option(line))
    return got


def test_the_server_keeps_a_seat_name_as_every_host_does(tmp_path: Path) -> None:
    given = "a,b\x1b[2J" + "z" * 40
    with LiveServer(tmp_path) as live:
        table = live.table(players=2, rounds=1, seed=5)
        clients = [Client(live.port) for _ in table.seats]
        runs = [in_thread(seat_named, clients[0], table.seats[0].token, f"hello 1 name={given}"),
                in_thread(play_first, clients[1], table.seats[1].token)]
        for run in runs:
            run.result(20)
        live.wait_over(table)
    assert table.record is not None
    seats = read_record(table.record).header("seats")
    assert seats == f"{wire.clean_name(given)},first"


def test_the_server_refuses_a_wrong_handshake_answer_in_wire_words(tmp_path: Path) -> None:
    with LiveServer(tmp_path) as live:
        table = live.table(players=2, rounds=1, seed=5)
        client = Client(live.port)
        got = seat_named(client, table.seats[0].token, "readyok \x07")
    assert got[-1] == "error garbage: sent 'readyok \\x07' while answering hello: expected 'hello'"
