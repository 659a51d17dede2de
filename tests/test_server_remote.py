"""Remote seats end to end, with the installed commands: ``xactika serve``, bots through
``xactika connect``, a raw socket seat, and a person through ``xactika play --connect``
in a real pseudo-terminal; then a killed seat and a cut connection coming back."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from netkit import Client, LiveServer, Proxy, first_option, in_thread, play_first, until

from xactika.core.engine.api import game_rules
from xactika.core.engine.check import check_log
from xactika.core.engine.views import visible
from xactika.protocol.net.link import PUBLIC
from xactika.protocol.net.lobby import LobbyPolicy
from xactika.protocol.net.table import table_settings
from xactika.protocol.notation.text import format_event
from xactika.protocol.records.textform import read_record
from xactika.protocol.trust.audit import OK, VERIFIED, audit_file
from xactika.protocol.trust.signing import default_signer

pexpect = pytest.importorskip("pexpect")

from test_play_pty import PROMPT, move_by_hint  # noqa: E402 (typing at the REPL, one way)

XACTIKA = Path(sys.executable).with_name("xactika")
BOT = [sys.executable, str(Path(__file__).resolve().parent.parent / "examples" / "random_bot.py")]

pytestmark = pytest.mark.skipif(not XACTIKA.exists(), reason="needs the installed command")


def seen_as(events: list, seat: int) -> list[str]:
    rules = game_rules(events[0].config.game)
    return [format_event(visible(e, seat), rules) for e in events]


def connect(port: int, token: str) -> subprocess.Popen[str]:
    """A bot in a seat, its token read from a file (never on the command line)."""
    with tempfile.NamedTemporaryFile("w", suffix=".token", delete=False) as file:
        file.write(token + "\n")
    return subprocess.Popen(
        [str(XACTIKA), "connect", f"127.0.0.1:{port}", "--token-file", file.name, "--", *BOT],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )


def test_four_remote_seats_two_bots_a_socket_and_a_person(tmp_path: Path) -> None:
    out = tmp_path / "records"
    serve = subprocess.Popen(
        [str(XACTIKA), "serve", "--port", "0", "--players", "4", "--rounds", "1",
         "--seed", "21", "--exit-when-done", "--out", str(out), "--move-timeout", "30"],
        stdout=subprocess.PIPE, text=True, start_new_session=True,
    )
    procs: list[subprocess.Popen[str]] = []
    child = None
    try:
        assert serve.stdout is not None
        heard = [serve.stdout.readline() for _ in range(7)]
        port = int(re.search(r"127\.0\.0\.1:(\d+)", heard[0]).group(1))
        assert [line.split()[:4] for line in heard[2:]] == [  # a line per token
            ["table", "1", "seat", str(n)] for n in range(4)] + [
            ["table", "1", "observer", "token"]]
        tokens = [line.split()[-1] for line in heard[2:6]]
        observer = Client(port)
        observer.send(f"observe {heard[6].split()[-1]}")
        procs = [connect(port, tokens[0]), connect(port, tokens[1])]
        raw = in_thread(play_first, Client(port), tokens[2])
        env = dict(os.environ, NO_COLOR="1", TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1",
                   XACTIKA_HISTORY="")
        env["XACTIKA_TOKEN"] = tokens[3]  # a person's token, from the environment
        child = pexpect.spawn(str(XACTIKA), ["play", "--connect", f"127.0.0.1:{port}",
                                             "--name", "Dee"],
                              env=env, encoding="utf-8", timeout=30, dimensions=(40, 120))
        child.logfile_read = open(tmp_path / "screen.log", "w", encoding="utf-8")
        moves = 0
        while child.expect([PROMPT, "final standings"]) == 0:
            move_by_hint(child)
            moves += 1
        assert moves == 9  # one bid and eight cards
        child.expect("Enter, 'quit' or Ctrl-D leaves")
        child.sendline("")
        child.expect(pexpect.EOF)
        socket_lines = raw.result(30)
        watched = observer.rest()
        assert serve.wait(30) == 0
        for proc in procs:
            assert proc.wait(10) == 0
    finally:
        for proc in [serve, *procs]:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        if child is not None:
            child.close(force=True)
    record = read_record(out / "table-1.log")
    events = list(record.events)
    check_log(events)
    # signed with the referee's key (the same default key: conftest's config folder)
    report = audit_file(str(out / "table-1.log"), strict=True,
                        trusted={default_signer().public})
    assert report.status == OK and report.signature == VERIFIED
    assert record.header("termination") == "normal"
    # names as the seats gave them, one name told apart; the person says what it is
    assert record.header("seats") == "python-random,python-random (2),first,Dee"
    assert record.header("kinds") == "bot,bot,bot,human"
    assert [x for x in socket_lines if x.startswith("event ")] == seen_as(events, 2)
    assert [x for x in watched if x.startswith("event ")] == seen_as(events, PUBLIC)
    screen = (tmp_path / "screen.log").read_text(encoding="utf-8")
    others = {str(c) for e in events[1:2] for s, h in enumerate(e.hands) if s != 3 for c in h}
    shown_before_play = screen.split("leads")[0]  # before the first lead, only our hand
    assert not any(card in shown_before_play for card in others)


def test_a_killed_seat_comes_back_with_its_token(tmp_path: Path) -> None:
    with LiveServer(tmp_path) as live:
        table = live.table(table_settings({"players": "2", "rounds": "1", "seed": "4"},
                                          grace=20.0))
        other = Client(live.port)
        stalled = in_thread(play_first, other, table.seats[1].token,
                            lambda line: line.startswith("go play"))
        first = connect(live.port, table.seats[0].token)
        go = stalled.result(20)[-1]  # seat 1 holds its answer: seat 0 is mid-game
        os.kill(first.pid, signal.SIGKILL)  # the relay dies; its bot sees end of input
        first.wait()
        second = connect(live.port, table.seats[0].token)
        other.send(first_option(go))
        play_first(other, None)
        live.wait_over(table)
        assert second.wait(10) == 0
        assert table.faults == []
        record = read_record(table.record)
        assert record.header("termination") == "normal"
        check_log(list(record.events))


def test_a_cut_connection_resumes_where_the_bot_was(tmp_path: Path) -> None:
    with LiveServer(tmp_path) as live:
        table = live.table(table_settings({"players": "2", "rounds": "1", "seed": "6"},
                                          grace=20.0))
        proxy = Proxy(live.port)
        try:
            other = Client(live.port)
            stalled = in_thread(play_first, other, table.seats[1].token,
                                lambda line: line.startswith("go play"))
            relay = connect(proxy.port, table.seats[0].token)
            go = stalled.result(20)[-1]
            until(lambda: table.seats[0].link is not None, "the relay is seated")
            cut = table.seats[0].link
            proxy.cut()
            until(lambda: table.seats[0].link not in (None, cut), "the relay is back")
            other.send(first_option(go))
            play_first(other, None)
            live.wait_over(table)
            assert relay.wait(10) == 0
            assert relay.stderr is not None
            assert "reconnected once" in relay.stderr.read()
        finally:
            proxy.close()
        assert table.faults == []
        assert read_record(table.record).header("termination") == "normal"


def test_watch_tells_the_public_events_as_they_happen(tmp_path: Path) -> None:
    """The seats by name (issue 34: ``seat 0``, ``seat 1``), from the server's lobby."""
    with LiveServer(tmp_path, lobby=LobbyPolicy()) as live:
        table = live.table(players=2, rounds=1, seed=7)
        held = Client(live.port)  # seat 0 stops at its first turn: the game is on
        first = in_thread(play_first, held, table.seats[0].token,
                          lambda line: line.startswith("go "))
        other = in_thread(play_first, Client(live.port), table.seats[1].token)
        go = first.result(20)[-1]
        watcher = subprocess.Popen(
            [str(XACTIKA), "connect", f"127.0.0.1:{live.port}", "--watch"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(
                os.environ, NO_COLOR="1", XACTIKA_TOKEN=table.observer_token))
        assert watcher.stdout is not None
        head = [watcher.stdout.readline().rstrip("\n") for _ in range(3)]
        held.send(first_option(go))
        play_first(held, None)
        other.result(20)
        out = watcher.stdout.read()  # not communicate(): it would skip what readline kept
        assert watcher.wait(20) == 0, watcher.stderr.read() if watcher.stderr else ""
        live.wait_over(table)  # issue 41: a watcher of the finished table, which the lobby
        late = subprocess.run(  # no longer lists: the server's watching line names the seats
            [str(XACTIKA), "connect", f"127.0.0.1:{live.port}", "--watch"], capture_output=True,
            text=True, timeout=60, env=dict(os.environ, NO_COLOR="1",
                                            XACTIKA_TOKEN=table.observer_token))
    lines = head + out.splitlines()
    assert lines[:2] == ["watching table=1", "xactika bid, 2 players, 1 round"]
    # both say 'first': the server calls the later one "first (2)"
    named = re.fullmatch(r"seats: seat 1 \((first(?: \(2\))?)\), seat 2 \((first(?: \(2\))?)\)",
                         lines[2])
    assert named is not None and named.group(1) != named.group(2), lines[2]
    zero, one = named.group(1), named.group(2)
    assert f"round 1: seat 1 ({zero}) deals" in lines
    assert f"seat 1 ({zero}) wins trick 8" in lines
    assert lines[-4:-2] == ["the game is over", "final standings:"]  # totals=-5,-3
    assert re.fullmatch(rf"  1\. seat 2 \({re.escape(one)}\) +-3  winner", lines[-2])
    assert re.fullmatch(rf"  2\. seat 1 \({re.escape(zero)}\) +-5", lines[-1])
    assert late.returncode == 0, late.stderr
    assert late.stdout.splitlines()[2] == lines[2]
    assert f"seat 1 ({zero}) wins trick 8" in late.stdout
    assert not any("2112" in line for line in lines[:5])  # seat 0's hand, unplayed yet


def test_no_server_at_the_address_is_one_line_naming_it() -> None:
    """`play --connect` and `connect` where nothing listens: one line with the address,
    not a bare `[Errno 111] Connection refused`."""
    import socket

    with socket.socket() as probe:  # a port that was free a moment ago
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    address = f"127.0.0.1:{port}"
    for args in (["play", "--connect", address, "--token", "t"],
                 ["connect", address, "--token", "t", "--", "true"]):
        done = subprocess.run([str(XACTIKA), *args], input="", capture_output=True,
                              text=True, timeout=60, check=False)
        assert done.returncode == 1
        assert done.stderr.count("\n") == 1, done.stderr
        assert f"cannot connect to {address}: connection refused" in done.stderr
        assert "Errno" not in done.stderr and "Traceback" not in done.stderr


def test_tokens_come_from_a_file_or_the_environment_with_one_line_errors(
        tmp_path: Path) -> None:
    empty = tmp_path / "empty.token"
    empty.write_text("\n")
    env = {k: v for k, v in os.environ.items() if k != "XACTIKA_TOKEN"}
    cases = [
        (["connect", "127.0.0.1:9", "--", "true"], "no token: give --token-file FILE"),
        (["connect", "127.0.0.1:9", "--token-file", str(tmp_path / "nope"), "--", "true"],
         "cannot read the token file"),
        (["connect", "127.0.0.1:9", "--token-file", str(empty), "--", "true"], "is empty"),
        (["connect", "127.0.0.1:9", "--token", "a", "--token-file", str(empty), "--", "true"],
         "not both"),
        (["play", "--connect", "127.0.0.1:9"], "no token"),
        (["connect", "127.0.0.1:9", "--reconnect", "-1", "--token", "a"], "--reconnect"),
    ]
    for args, why in cases:
        done = subprocess.run([str(XACTIKA), *args], input="", capture_output=True,
                              text=True, timeout=60, check=False, env=env)
        assert done.returncode == 2, (args, done.stderr)
        assert done.stderr.count("\n") == 1 and why in done.stderr, (args, done.stderr)


def test_a_seat_token_from_a_file_plays_a_whole_game(tmp_path: Path) -> None:
    with LiveServer(tmp_path) as live:
        table = live.table(players=2, rounds=1, seed=7)
        bots = [connect(live.port, s.token) for s in table.seats]
        live.wait_over(table)
        for bot in bots:
            assert bot.wait(20) == 0
    assert table.faults == [] and len(table.totals()) == 2


def test_every_bad_serve_option_is_one_line(tmp_path: Path) -> None:
    for bad in (["--port", "99999"], ["--port", "x"], ["--max-connections", "-1"],
                ["--max-per-address", "0"], ["--grace", "nan"], ["--move-timeout", "-2"],
                ["--tables", "-1"], ["--lobby-tables", "many"], ["--tls-cert", "c.pem"]):
        done = subprocess.run([str(XACTIKA), "serve", "--out", str(tmp_path), *bad],
                              capture_output=True, text=True, timeout=60, check=False)
        assert done.returncode == 2, bad
        assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
        assert done.stderr.startswith("xactika serve: "), done.stderr
