"""The host-side client against real misbehaving processes (tests/bots/fault_bot.py).

Each fault must raise its precise BotError subclass and leave no process behind: the
process table is checked for the bot's whole process group, not just its exit code.
"""

from __future__ import annotations

import logging
import os
import select
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from xactika.core import Bid, Command, Config, Legal, Play, RandomAgent, game_rules, start, visible
from xactika.core.bots.agents import self_play
from xactika.protocol.player.process import (
    BotCrashed,
    BotError,
    BotIllegalMove,
    BotProtocolError,
    BotTimeout,
    LoopbackPlayer,
    PlayerProcess,
    ProcessAgent,
    format_go,
    parse_answer,
)
from xactika.protocol.player.process import log as process_log

FAULT_BOT = Path(__file__).parent / "bots" / "fault_bot.py"
XACTIKA = game_rules("xactika")


def group_members(pgid: int) -> list[int]:
    """Pids of live (non-zombie) processes in process group ``pgid``, from /proc."""
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()  # after "pid (comm) "
        state, pgrp = fields[0], int(fields[2])
        if pgrp == pgid and state != "Z":
            members.append(int(entry))
    return members


def assert_gone(player: PlayerProcess) -> None:
    """The bot is reaped and nothing is left in its process group.

    SIGKILL is delivered asynchronously, so a child of the bot may take a moment to die.
    """
    assert player.pid is not None
    with pytest.raises(ProcessLookupError):  # reaped: not even a zombie
        os.kill(player.pid, 0)
    deadline = time.monotonic() + 20  # a guard: on a loaded machine it may take a while
    while group_members(player.pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert group_members(player.pid) == []


def fault_player(fault: str, **kwargs: object) -> PlayerProcess:
    options: dict = {"startup_timeout": 5.0, "move_timeout": 1.0}
    options.update(kwargs)
    return PlayerProcess([sys.executable, str(FAULT_BOT), fault], **options)


def play_game(player: PlayerProcess, mode: str = "bid") -> None:
    player.start()
    play_game_started(player, mode)


def play_game_started(player: PlayerProcess, mode: str = "bid") -> None:
    config = Config(mode=mode, players=2, rounds=2, seed=11)
    state, _ = self_play(config, [ProcessAgent(player), RandomAgent(1)])
    assert state.over


class Waits:
    """The waits a host's player asks of poll for its bot (``_pump``), since it last sent a
    request or :meth:`clear`: each counted as what it asked or what it took, whichever is
    less. Those add up to no more than the limit that ends the wait, however late a loaded
    machine wakes the caller, so a limit is checked with no wall-clock bound."""

    def __init__(self, player: PlayerProcess) -> None:
        self.reading: list[float] = []  # waits for the bot's output
        self.writing: list[float] = []  # waits for the bot to take our input
        pump, request = player._pump, player._request

        def noted_pump(timeout: float, write_fd: int | None = None) -> bool:
            began = time.monotonic()
            try:
                return pump(timeout, write_fd)
            finally:
                took = min(timeout, time.monotonic() - began)
                (self.reading if write_fd is None else self.writing).append(took)

        def noted_request(line: str) -> None:
            self.clear()
            request(line)

        player._pump = noted_pump  # type: ignore[method-assign]
        player._request = noted_request  # type: ignore[method-assign]

    def clear(self) -> None:
        self.reading.clear()
        self.writing.clear()


# --------------------------------------------------------------------------- faults


def test_crash_at_start_up_names_the_exit_code_and_stderr(tmp_path: Path) -> None:
    err = tmp_path / "bot.err"
    player = fault_player("crash-start", stderr_path=err)
    with pytest.raises(BotCrashed) as info:
        player.start()
    assert info.value.exit_code == 3 and info.value.startup
    assert "exited with code 3 during start-up" in str(info.value)
    assert "crashing at start-up" in str(info.value)  # the stderr tail helps the author
    assert err.read_text() == "fault bot: crashing at start-up\n"  # never in the protocol
    assert_gone(player)


def test_a_command_that_cannot_start_is_a_start_up_crash() -> None:
    player = PlayerProcess(["/nonexistent/bot"])
    with pytest.raises(BotCrashed) as info:
        player.start()
    assert info.value.exit_code is None and info.value.startup
    assert "cannot start bot" in str(info.value)


def test_crash_mid_game() -> None:
    player = fault_player("crash-mid")
    with pytest.raises(BotCrashed) as info:
        play_game(player)
    assert info.value.exit_code == 4 and not info.value.startup
    assert "exited with code 4 while answering 'go" in str(info.value)
    assert_gone(player)


def test_timeout_kills_the_bot_and_its_children() -> None:
    player = fault_player("timeout", move_timeout=0.5)
    player.start()
    waits = Waits(player)
    with pytest.raises(BotTimeout) as info:
        play_game_started(player)
    assert waits.reading and sum(waits.reading) <= 0.5 + 1e-3, waits.reading  # then it gave up
    assert "did not answer within 0.5 s" in str(info.value)
    assert_gone(player)  # the `sleep 300` child shared the group and died with it


@pytest.mark.parametrize(
    ("fault", "reason", "words"),
    [
        ("garbage", "garbage", "sent 'I think I will play the blue one'"),
        ("invalid-utf8", "invalid-utf8", "invalid UTF-8"),
        ("flood", "flood", "more than 1000 lines"),
        ("long-line", "flood", "longer than 4096 bytes"),
        ("close-stdout", "closed-stdout", "closed its output"),
        ("close-stdin", "closed-stdin", "closed its input"),
    ],
)
def test_protocol_faults_have_precise_reasons(fault: str, reason: str, words: str) -> None:
    player = fault_player(fault)
    with pytest.raises(BotProtocolError) as info:
        play_game(player)
    assert info.value.reason == reason
    assert words in str(info.value)
    assert_gone(player)


@pytest.mark.parametrize(
    ("fault", "reason", "words"),
    [
        ("unasked", "early-answer", "sent 'bid 1' before it was asked: no go was waiting"),
        ("early", "early-answer", "sent 'bid 1' before it was asked: no go was waiting"),
        ("double", "extra-answer", "sent a second answer 'play "),
        ("stale", "extra-answer", "one go, one answer"),  # before or after the next go
    ],
)
def test_answers_before_go_or_after_the_first_are_faults(fault: str, reason: str,
                                                          words: str) -> None:
    player = fault_player(fault)
    player.start()
    config = Config(mode="bid", players=2, rounds=1, seed=1)
    with pytest.raises(BotProtocolError) as info:
        player.new_game(0, [visible(e, 0) for e in start(config)], XACTIKA)
        if fault in ("unasked", "early"):  # its move is there before the next line: no race
            assert select.select([player._out_fd], [], [], 20)[0], "the early move came"
        self_play(config, [ProcessAgent(player), RandomAgent(1)])
    assert info.value.reason == reason
    assert words in str(info.value)
    assert_gone(player)


def test_a_nul_in_stderr_is_escaped_in_the_crash_message() -> None:
    player = fault_player("stderr-nul")
    with pytest.raises(BotCrashed) as info:
        play_game(player)
    message = str(info.value)
    assert "\\x00 and an ESC \\x1b[2J here" in message
    assert "\x00" not in message and "\x1b" not in message
    assert_gone(player)


def test_stderr_keeps_its_head_and_tail_and_says_how_much_was_cut(tmp_path: Path) -> None:
    err = tmp_path / "flood.err"
    script = ("import sys\nsys.stderr.write('HEAD\\n' + 'x' * 3_000_000 + '\\nTAIL\\n')\n"
              "sys.stderr.flush()\nsys.exit(7)\n")
    player = PlayerProcess([sys.executable, "-c", script], stderr_path=err, stderr_keep=4096)
    with pytest.raises(BotCrashed, match="its stderr ends: TAIL"):
        player.start()
    data = err.read_bytes()
    assert data.startswith(b"HEAD\n") and data.endswith(b"x\nTAIL\n")
    assert b"[... 3.0 MB cut ...]" in data
    assert len(data) < 2 * 4096 + 100
    assert_gone(player)


@pytest.mark.parametrize("mode", ["bid", "win"])
def test_illegal_move(mode: str) -> None:
    player = fault_player("illegal")
    with pytest.raises(BotIllegalMove) as info:
        play_game(player, mode)
    assert info.value.line.split()[0] in ("bid", "play")
    assert "not one of the options" in str(info.value)
    assert_gone(player)


def test_ignoring_quit_gets_the_group_killed_after_the_grace() -> None:
    player = fault_player("ignore-quit")
    play_game(player)
    waits = Waits(player)
    started = time.monotonic()
    code = player.quit(grace=0.3)
    assert time.monotonic() - started >= 0.3  # the grace was given
    assert waits.reading and sum(waits.reading) <= 0.3 + 1e-3, waits.reading  # and no more
    assert player.killed and code == -9
    assert_gone(player)


def test_a_well_behaved_quit_exits_cleanly() -> None:
    player = fault_player("none")
    play_game(player)
    assert player.quit() == 0 and not player.killed
    assert_gone(player)


def test_quits_sent_first_reach_every_bot_before_any_wait() -> None:
    """A host ending a game sends every quit, then waits: the exits overlap."""
    players = [fault_player("none") for _ in range(3)]
    for player in players:
        player.start()
    for player in players:
        player.send_quit(1.0)
    pids = [player.pid for player in players]
    assert None not in pids
    deadline = time.monotonic() + 10
    while any(group_members(pid) for pid in pids if pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    # every bot ended on its own, though quit() had not yet been called on any of them
    assert not any(group_members(pid) for pid in pids if pid)
    assert [player.quit(1.0) for player in players] == [0, 0, 0]
    assert not any(player.killed for player in players)
    for player in players:
        assert_gone(player)


def test_slow_answers_are_measured_not_faulted() -> None:
    player = fault_player("slow")
    thinks: list[tuple[float, float]] = []  # (as the player measured it, the whole ask)
    ask = player.ask

    def timed(*args: Any, **kwargs: Any) -> Command:
        began = time.monotonic()
        try:
            return ask(*args, **kwargs)
        finally:
            thinks.append((player.last_think_s, time.monotonic() - began))

    player.ask = timed  # type: ignore[method-assign]
    with player:
        play_game(player)
    assert len(thinks) > 3 and thinks[2][0] >= 0.5, thinks  # the 3rd slept 0.5 s: no fault
    # each ask's own think, within its ask: the slow one is not carried into later ones
    assert all(think <= whole for think, whole in thinks), thinks
    assert_gone(player)


def test_info_blank_lines_and_crlf_are_not_faults(caplog: pytest.LogCaptureFixture) -> None:
    seen: list[tuple[str, str]] = []
    player = fault_player("chatty", on_line=lambda d, line: seen.append((d, line)))
    with caplog.at_level(logging.INFO, logger=process_log.name):  # its logger, wherever it is
        with player:
            assert player.start() == "fault-chatty"
            play_game_started(player)
    assert ("<", "info about to say readyok") in seen
    assert ("<", "readyok") in seen  # the \r is gone
    assert any("fault-chatty: info about to say bid" in r.getMessage() for r in caplog.records)
    assert_gone(player)


def test_a_bot_that_stops_reading_is_a_timeout_not_a_hang() -> None:
    player = fault_player("deaf", move_timeout=0.5)
    player.start()
    config = Config(mode="bid", players=2, rounds=1, seed=3)
    opening = start(config)
    waits = Waits(player)
    started = time.monotonic()
    with pytest.raises(BotTimeout, match=r"stopped reading its input for 0\.5 s"):
        player.new_game(0, [visible(e, 0) for e in opening], XACTIKA)
        for _ in range(10_000):  # far more than a pipe holds
            player.tell(visible(opening[1], 0))
    assert time.monotonic() - started >= 0.5  # the full pipe was given its 0.5 s
    assert waits.writing and sum(waits.writing) <= 0.5 + 1e-3, waits.writing  # and no more
    assert_gone(player)


def test_with_no_move_limit_the_time_budget_plus_a_second_applies() -> None:
    player = fault_player("timeout", move_timeout=None)
    player.start()
    waits = Waits(player)
    started = time.monotonic()
    with pytest.raises(BotTimeout, match=r"within 1\.2 s"):
        self_play(Config(mode="bid", players=2, rounds=1, seed=3),
                  [ProcessAgent(player, time_ms=200), RandomAgent(1)])
    assert time.monotonic() - started >= 1.2  # 200 ms and the second were waited
    assert waits.reading and sum(waits.reading) <= 1.2 + 1e-3, waits.reading  # and no more
    assert_gone(player)


def test_every_fault_is_a_bot_error() -> None:
    for cls in (BotCrashed, BotTimeout, BotProtocolError, BotIllegalMove):
        assert issubclass(cls, BotError)
    assert len({cls.code for cls in (BotCrashed, BotTimeout, BotProtocolError,
                                     BotIllegalMove)}) == 4


# --------------------------------------------------------------------------- line codec


def test_go_lines_list_every_option() -> None:
    card = XACTIKA.parse_card("1323")
    other = XACTIKA.parse_card("2111")
    lead = Legal(0, "lead", cards=(card, other), rules=XACTIKA)
    assert format_go(lead, XACTIKA, 1500) == (
        "go lead options=1323:1ba,1323:3cu,1323:2co,1323:3st,"
        "2111:2ba,2111:1cu,2111:1co,2111:1st time=1500"
    )
    assert format_go(Legal(0, "play", cards=(card,), rules=XACTIKA), XACTIKA) == (
        "go play options=1323"
    )
    assert format_go(Legal(1, "bid", bids=(0, 1, 3)), XACTIKA) == "go bid options=0,1,3"


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("play 1323", "a lead must name its call"),
        ("play 1323 2ba", "not one of the options"),
        ("play 3333 3ba", "not one of the options"),
        ("play 9999 1ba", "bad card '9999'"),
        ("bid 2", "expected play <card> <call>"),
        ("play 1323 1ba extra", "expected play <card> <call>"),
    ],
)
def test_bad_lead_answers_say_why(line: str, why: str) -> None:
    card = XACTIKA.parse_card("1323")
    lead = Legal(0, "lead", cards=(card,), rules=XACTIKA)
    with pytest.raises(ValueError, match=why):
        parse_answer(line, lead, XACTIKA)


def test_answers_parse_to_commands() -> None:
    card = XACTIKA.parse_card("1323")
    lead = Legal(2, "lead", cards=(card,), rules=XACTIKA)
    assert parse_answer("play 1323 3cu", lead, XACTIKA) == Play(2, card, card.calls[1])
    assert parse_answer("play  1323   3cubes", lead, XACTIKA) == Play(2, card, card.calls[1])
    assert parse_answer("bid 3", Legal(1, "bid", bids=(2, 3)), XACTIKA) == Bid(1, 3)
    with pytest.raises(ValueError, match="not one of the options"):
        parse_answer("bid 4", Legal(1, "bid", bids=(2, 3)), XACTIKA)
    with pytest.raises(ValueError, match="only the leader makes a call"):
        parse_answer("play 1323 3cu", Legal(2, "play", cards=(card,), rules=XACTIKA), XACTIKA)


# --------------------------------------------------------------------------- handshake


class Scripted:
    """A bot side that answers each request with a fixed line."""

    def __init__(self, **answers: str) -> None:
        self.answers = answers

    def feed(self, line: str) -> list[str]:
        answer = self.answers.get(line.split()[0])
        return [] if answer is None else answer.split("\n")


@pytest.mark.parametrize(
    ("answers", "message"),
    [
        ({"hello": "hello 2 name=x"}, "speaks protocol version 2, expected 'hello 1 name=<name>'"),
        ({"hello": "readyok"}, "sent 'readyok' while answering hello: expected 'hello'"),
        ({"hello": "hello 1 name=x\nreadyok", "isready": "readyok"},
         "sent 'readyok' when nothing was asked"),
        ({"hello": "hello 1 name=x", "isready": "info hm\nready"},
         "sent 'ready' while answering isready: expected 'readyok'"),
    ],
)
def test_handshake_faults_are_garbage_at_start_up(answers: dict[str, str], message: str) -> None:
    player = LoopbackPlayer(Scripted(**answers))
    with pytest.raises(BotProtocolError) as info:
        player.start()
    assert info.value.reason == "garbage" and info.value.startup
    assert message in str(info.value)


def test_the_handshake_returns_the_declared_name_and_keeps_a_given_one() -> None:
    answers = {"hello": "hello 1 name=deep-thought author=me", "isready": "readyok"}
    player = LoopbackPlayer(Scripted(**answers))
    assert player.start() == "deep-thought" and player.name == "deep-thought"
    named = LoopbackPlayer(Scripted(**answers), name="seat-a")
    assert named.start() == "deep-thought" and named.name == "seat-a"
