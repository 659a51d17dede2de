"""Stateful fuzzing of the session: legal and illegal commands, garbage, broken lines.

Invariants after every line: no exception escapes and no ``error internal`` (a bug);
exactly one final line, last, for every command (none for blank and comment lines); an
error leaves everything unchanged; the log always replays to the live state.
"""

from __future__ import annotations

import hypothesis.strategies as st
from hypothesis import settings
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from xactika.core import Bid, game_rules, legal_actions, replay, step
from xactika.protocol.notation.text import format_event
from xactika.protocol.notation.untrusted import is_safe
from xactika.protocol.records.textform import MAX_LINE
from xactika.protocol.referee.sansio import FINAL_WORDS, USAGE, RefereeSession

WORDS = [*USAGE, "BID", "Play", "go", "event", "ok", "error", "readyok", "x"]
# what str.splitlines() or str.split() treats as a break or a blank, and other controls
NASTY = "\u2028\u2029\x85\x1c\x1d\x1e\x1f\x0b\x0c\x00\x1b\x7f\x9b\xa0\u3000\u200e\ufeff"
NASTY_TEXT = st.text(alphabet=st.sampled_from([*NASTY, "a", "k", " ", "\t"]), max_size=10)
TOKENS = st.one_of(
    NASTY_TEXT,
    st.integers(-3, 12).map(str),
    st.sampled_from(["1323", "3333", "1111", "9999", "2st", "1ba", "3co", "2stars", "AS",
                     "JK", "-", "?", "=", "seat=1", "bid=2", "players=3", "seed=4",
                     "mode=win", "mode=nope", "game=dix", "rounds=1", "all", "off"]),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=8),
)


def command_line(state: object, cmd: object) -> str:
    rules = state.rules  # type: ignore[attr-defined]
    if isinstance(cmd, Bid):
        return f"bid {cmd.seat} {cmd.bid}"
    call = "" if cmd.call is None else " " + rules.format_call(cmd.call)  # type: ignore[attr-defined]
    return f"play {cmd.seat} {cmd.card}{call}"  # type: ignore[attr-defined]


class SessionMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.session = RefereeSession(clock=lambda: "2026-01-01T00:00:00Z", seeds=lambda: 5,
                               nonces=lambda: "0" * 32)

    @initialize(seat=st.none() | st.integers(0, 2), players=st.integers(2, 4),
                mode=st.sampled_from(["win", "lose", "bid"]), seed=st.integers(0, 10**6))
    def start(self, seat: int | None, players: int, mode: str, seed: int) -> None:
        if seat is not None:
            self.feed(f"view {seat}")
        self.feed(f"newgame players={players} rounds=2 mode={mode} seed={seed}")

    def feed(self, line: str | bytes) -> list[str]:
        s = self.session
        before = (s.game, s.pending_headers, s.seat)
        out = s.feed(line)
        text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
        stripped = text.strip(" \t\r\n")  # blank means ASCII blanks only
        if (not stripped or stripped.startswith("#")) and "\n" not in stripped \
                and "\r" not in stripped and len(line) <= MAX_LINE:
            assert out == [] or out[-1].startswith("error "), out
        else:
            assert out, f"no answer to {line!r}"  # every command gets its final line
        assert all(is_safe(o) and len(o.encode()) <= MAX_LINE for o in out), out
        if out:
            finals = [o for o in out if o.split(" ", 1)[0] in FINAL_WORDS]
            assert finals == [out[-1]], out
            assert not out[-1].startswith("error internal"), out[-1]
            assert all("\n" not in o and "\r" not in o for o in out)
            if out[-1].startswith("error "):
                assert len(out) == 1
                assert (s.game, s.pending_headers, s.seat) == before
        return out

    @rule(data=st.data())
    def legal_command(self, data: st.DataObject) -> None:
        state = self.session.state
        legal = legal_actions(state)
        if legal.seat is None:
            self.feed("newgame players=3 rounds=1 seed=1")
            return
        commands = list(legal.commands())
        cmd = data.draw(st.sampled_from(commands))
        out = self.feed(command_line(state, cmd))
        assert out[-1].startswith("ok ")

    @rule(data=st.data())
    def legal_event_line(self, data: st.DataObject) -> None:
        """The next action as a recorded event line, as a piped record would send it."""
        state = self.session.state
        legal = legal_actions(state)
        if legal.seat is None:
            return
        cmd = data.draw(st.sampled_from(list(legal.commands())))
        event = step(state, cmd)[1][0]
        out = self.feed(format_event(event, state.rules))
        assert out[-1] == "ok event"

    @rule(word=st.sampled_from(WORDS), tokens=st.lists(TOKENS, max_size=4))
    def random_command(self, word: str, tokens: list[str]) -> None:
        if word in ("quit", "load", "record"):
            word = "turn"  # files and exits are tested elsewhere
        self.feed(" ".join([word, *tokens]))

    @rule(key=st.sampled_from(["seats", "event", "k"]), value=NASTY_TEXT)
    def nasty_header(self, key: str, value: str) -> None:
        out = self.feed(f"header {key} {value}")
        if out == ["ok header"]:  # accepted only when every character is printable
            assert is_safe(value.strip(" \t"))

    @rule(raw=st.binary(max_size=40))
    def garbage(self, raw: bytes) -> None:
        if raw.lstrip().startswith((b"quit", b"load", b"record")):
            return
        self.feed(raw)

    @rule(data=st.data(), cut=st.integers(1, 12))
    def partial_line(self, data: st.DataObject, cut: int) -> None:
        state = self.session.state
        legal = legal_actions(state)
        if legal.seat is None:
            return
        line = command_line(state, data.draw(st.sampled_from(list(legal.commands()))))
        self.feed(line[: max(1, len(line) - cut)])

    @rule(data=st.data(), ending=st.sampled_from(["\r\n", "\n", " \r\n", "\t\r\n"]),
          spaces=st.sampled_from([" ", "  ", "\t", " \t "]))
    def crlf_and_whitespace(self, data: st.DataObject, ending: str, spaces: str) -> None:
        state = self.session.state
        legal = legal_actions(state)
        if legal.seat is None:
            return
        line = command_line(state, data.draw(st.sampled_from(list(legal.commands()))))
        out = self.feed(spaces + spaces.join(line.split()) + ending)
        assert out[-1].startswith("ok ")

    @rule(extra=st.integers(1, 100))
    def over_long(self, extra: int) -> None:
        out = self.feed(b"play 0 " + b"1" * (MAX_LINE + extra))
        assert out[-1].startswith("error toolong")

    @rule(pos=st.integers(0, 8), bad=st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80"]))
    def invalid_bytes(self, pos: int, bad: bytes) -> None:
        line = b"isready"
        out = self.feed(line[:pos] + bad + line[pos:])
        assert out[-1].startswith("error utf8")

    @rule()
    def readiness(self) -> None:
        assert self.feed("isready") == ["readyok"]

    @invariant()
    def log_replays_to_the_live_state(self) -> None:
        s = self.session
        if s.log:
            assert replay(s.log) == s.state
            game_rules(s.state.config.game)


SessionMachine.TestCase.settings = settings(stateful_step_count=50,
                                            deadline=None)
TestSessionFuzz = SessionMachine.TestCase
