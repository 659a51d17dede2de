"""One table must never slow or charge another (spec/SERVER.md sections 2 and 6): stand-ins
think off the event loop, a person's bank runs while they are away at their turn, a table
with people is paced without charging anyone, and every seat and observer is told the
outcome the record writes (a forfeited seat never wins). Raw sockets on 127.0.0.1."""

from __future__ import annotations

import asyncio
import itertools
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from netkit import Client, LiveServer, NotedAsyncio, first_option, in_thread, play_first
from test_server_people import go_time, last_seq, person

from xactika.core.bots.agents import make_agent
from xactika.core.bots.search import StrongAgent
from xactika.core.engine.referee import Faulted, FaultPolicy, Referee, run_async
from xactika.frontends.repl import render
from xactika.frontends.repl.remote import RemoteShell
from xactika.frontends.web.narrate import Narrator
from xactika.protocol.net import asking, thinking
from xactika.protocol.net import table as table_module
from xactika.protocol.net.clock import Clock, Pace
from xactika.protocol.net.journal import Journal
from xactika.protocol.net.link import Line, Link
from xactika.protocol.net.link import text as line_text
from xactika.protocol.net.table import Table, table_settings
from xactika.protocol.notation.text import config_from_pairs, parse_event
from xactika.protocol.player.wire import parse_result
from xactika.protocol.records.textform import read_record, result_winners
from xactika.protocol.trust.audit import OK, audit_file

XACTIKA = Path(sys.executable).with_name("xactika")


def people_table(live: LiveServer, **pairs: object) -> Table:
    """A table made by the admin's ``table`` command (the attack's way in)."""
    admin = Client(live.port)
    admin.send(f"admin {live.server.admin_token}")
    assert admin.read() == "admin ok"
    admin.send("table " + " ".join(f"{k}={v}" for k, v in pairs.items()))
    number = int(admin.read().split()[1])
    admin.close()
    return next(t for t in live.server.tables if t.id == number)


def silent_person(live: LiveServer, token: str) -> Client:
    """Take a seat as a person and never answer a go (the attack's seats)."""
    client = Client(live.port)
    client.send(f"seat {token}")
    for _ in range(3):
        line = client.read(5)
        assert line is not None
        if line.startswith("hello"):
            client.send("hello 1 name=mute kind=human")
        elif line == "isready":
            client.send("readyok")
            break
    return client


def wait_for(check: object, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_a_table_of_level_5_stand_ins_never_holds_the_loop_nor_charges_another_table(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The attack of issue 30: seats taken and never answered, a 50 ms clock and level-5
    stand-ins (unpaced: the worst case), one seat kept by the attacker's own bot so that
    the table is not deserted. Inline, the stand-ins played whole stretches of the game in
    one call of the event loop (seconds) and a person at another table waited and was
    charged for it; now they think in the thinking process and the loop stays free: no
    stand-in's move is thought in the server's own process (the patched ``choose`` is
    this process's alone: the child imported its own), and Ann's moves were answered
    while the stand-ins played. (The figures, loop lag and what Ann was charged, are
    bench/server_load.py --hostile's.)"""
    here: list[int] = []  # stand-in moves thought in the server's process: inline or a thread
    choose = StrongAgent.choose

    def noted(agent: StrongAgent, *args: Any) -> Any:
        here.append(1)
        return choose(agent, *args)

    monkeypatch.setattr(StrongAgent, "choose", noted)
    failures = thinking._failures
    with LiveServer(tmp_path) as live:
        hostile = people_table(live, players=4, rounds=3, seed=5, clock="0.05+0", level=5,
                               pace="off")
        victim = live.table(table_settings({"players": "2", "rounds": "3", "seed": "7"},
                                           grace=5.0, clock=Clock(20_000, 0)))
        bot = in_thread(play_first, Client(live.port), victim.seats[1].token)
        ann = Client(live.port)
        lines = person(ann, victim.seats[0].token)
        banks = [go_time(lines[-1])]
        during = []  # for each of Ann's moves: was the attack still playing?
        # the attack starts while Ann plays: its seats time out and level-5 bots take over
        mutes = [silent_person(live, s.token) for s in hostile.seats[1:]]
        keeper = in_thread(play_first, Client(live.port), hostile.seats[0].token)
        while True:
            time.sleep(0.05)  # Ann thinks a little at each go
            ann.send(first_option(lines[-1]))
            echoed = False
            lines = []
            while (line := ann.read()) is not None:
                lines.append(line)
                if not echoed and line.startswith("event ") and " seat=0 " in line:
                    during.append(not hostile.over.is_set())
                    echoed = True
                if line.startswith(("go ", "quit")):
                    break
            if not lines or not lines[-1].startswith("go "):
                break
            banks.append(go_time(lines[-1]))
        bot.result(20)
        live.wait_over(victim)
        # Ann's moves were answered while the stand-ins thought (the attack may end first:
        # the compiled search plays its game faster than she plays hers)
        overlapped = sum(during) >= 10
        live.wait_over(hostile, 60)
        keeper.result(20)
        for mute in mutes:
            mute.close()
    assert all(s.replaced for s in hostile.seats[1:])
    assert len(banks) >= 20, banks  # Ann played her game to its end
    assert here == [] and thinking._failures == failures  # all thought in the child, which lived
    assert overlapped and len(hostile.events) > 100 and hostile.record is not None


def test_dropping_at_each_go_buys_no_time(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 30 item 2: a person who drops at each go and comes back was asked again with
    the same bank, so a 3 s bank gave unlimited thinking. Away time is the bank's now:
    each go offers less, and the bank runs out while the seat is away: the server waits
    for the seat no longer than its bank (not its 5 s of grace)."""
    away = NotedAsyncio()  # the waits for the seat to come back (asking.py's only wait_for)
    monkeypatch.setattr(asking, "asyncio", away)
    with LiveServer(tmp_path) as live:
        table = live.table(table_settings({"players": "2", "rounds": "1", "seed": "7"},
                                          grace=5.0, clock=Clock(3000, 0)))
        bot = in_thread(play_first, Client(live.port), table.seats[1].token)
        ann = Client(live.port)
        lines = person(ann, table.seats[0].token)
        token, seq = table.seats[0].token, last_seq(lines)
        offered = [go_time(lines[-1])]
        while True:
            time.sleep(0.3)  # thinking with the go
            ann.close()  # dropped at its go, away for a while
            time.sleep(0.4)
            if table.faults:  # the bank ran out (away or thinking): a bot plays it
                break
            ann = Client(live.port)
            ann.send(f"seat {token} resume={seq}")
            go = next((x for x in iter(ann.read, None) if x.startswith("go ")), None)
            if go is None:
                break
            offered.append(go_time(go))
        bot.result(20)
        live.wait_over(table)
    assert table.faults and table.faults[0][:2] == (0, "timeout"), table.faults
    # each go offers what is left: at least the 0.7 s away and thinking are gone
    assert all(b <= a - 650 for a, b in itertools.pairwise(offered)), offered
    assert len(offered) <= 5, offered  # 3 s go in about 4 drops, no more
    assert "ran out" in table.faults[0][2] and table.seats[0].replaced, table.faults
    assert away.timeouts and max(t or 0 for t in away.timeouts) <= 3.0, away.timeouts


def test_the_grace_period_bounds_the_seat_not_the_clock(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A person away at their turn with 1 s in the bank is replaced after that second,
    not after the 5 s of grace: the grace keeps the seat, the bank keeps the time. The
    server waits for the seat no longer than the bank, and the bank is what ran out."""
    away = NotedAsyncio()  # the waits for the seat to come back (asking.py's only wait_for)
    monkeypatch.setattr(asking, "asyncio", away)
    with LiveServer(tmp_path) as live:
        table = live.table(table_settings({"players": "2", "rounds": "1", "seed": "7"},
                                          grace=5.0, clock=Clock(1000, 0)))
        bot = in_thread(play_first, Client(live.port), table.seats[1].token)
        ann = Client(live.port)
        person(ann, table.seats[0].token)
        ann.close()
        wait_for(lambda: table.seats[0].replaced, 20.0)
        bot.result(20)
        live.wait_over(table)
    assert table.faults[0][:2] == (0, "timeout"), table.faults  # the grace's would be "crash"
    assert "ran out" in table.faults[0][2] and "while the seat was away" in table.faults[0][2]
    assert away.timeouts and max(t or 0 for t in away.timeouts) <= 1.0, away.timeouts


def test_a_bot_that_drops_at_each_go_buys_no_time(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot's move limit ran afresh at every ``go``: a bot that dropped at its go and came
    back was offered the whole limit again, without end (as people's banks were before
    issue 30). The limit runs from its turn, connected or not: each go offers what is
    left, and the seat forfeits once it is spent, away or not: the server waits for the
    seat no longer than its limit (not its 5 s of grace)."""
    away = NotedAsyncio()  # the waits for the seat to come back (asking.py's only wait_for)
    monkeypatch.setattr(asking, "asyncio", away)
    with LiveServer(tmp_path) as live:
        table = live.table(table_settings({"players": "2", "rounds": "1", "seed": "7"},
                                          grace=5.0, move_timeout=2.0))
        other = in_thread(play_first, Client(live.port), table.seats[1].token)
        token = table.seats[0].token
        slow = Client(live.port)
        lines = person(slow, token, name="slow", kind="bot")
        offered = [go_time(lines[-1])]
        while len(offered) < 8:  # before: a whole limit at each go, without end
            time.sleep(0.2)  # thinking with the go
            slow.close()  # dropped at its go, away for a while
            time.sleep(0.3)
            if table.faults:
                break
            slow = Client(live.port)
            slow.send(f"seat {token} resume={last_seq(lines)}")
            go = next((x for x in iter(slow.read, None) if x.startswith("go ")), None)
            if go is None:
                break
            offered.append(go_time(go))
        slow.close()
        other.result(20)
        live.wait_over(table)
    assert table.faults and table.faults[0][:2] == (0, "timeout"), table.faults
    assert all(b <= a - 450 for a, b in itertools.pairwise(offered)), offered
    assert len(offered) <= 5, offered  # 2 s go in about 4 drops, no more
    assert away.timeouts and max(t or 0 for t in away.timeouts) <= 2.0, away.timeouts


def watch_text(port: int, token: str) -> str:
    """``xactika connect --watch`` of a table, to its end: what it printed."""
    out = subprocess.run([str(XACTIKA), "connect", f"127.0.0.1:{port}", "--watch"],
                         capture_output=True, text=True, timeout=30, check=True,
                         env=dict(os.environ, NO_COLOR="1", XACTIKA_TOKEN=token))
    return out.stdout


class _Said:
    """A remote seat that has said everything already: the REPL's session only answers."""

    def send(self, line: str) -> None:
        pass


def repl_text(lines: list[str], seat: int) -> list[str]:
    """What ``play --connect`` prints for a seat's lines (RemoteShell, as it reads)."""
    first = next(n for n, x in enumerate(lines) if " game-started " in x)
    started = parse_event(lines[first], None)
    session = RemoteShell(_Said(), seat, started, names=["Ann", "first"],  # type: ignore[arg-type]
                            style=render.Style(color=False))
    out = []
    for line in lines[first + 1:]:
        out += session.take(line)
    assert session.over
    return out


def test_every_seat_and_observer_is_told_the_record_s_outcome(tmp_path: Path) -> None:
    """Issue 30 item 5: the server sent only game-over's winners, so a seat that forfeited
    and had the best total was shown as the winner, by the watcher and the REPL too. The
    ``result`` line says what the record says; the forfeited person is told before their
    connection closes."""
    with LiveServer(tmp_path) as live:
        for _ in range(12):  # until the forfeited seat has game-over's best total
            table = live.table(table_settings(
                {"players": "2", "rounds": "1"}, grace=5.0, clock=Clock(50, 0),
                on_timeout="forfeit"))
            watcher = Client(live.port)
            watcher.send(f"observe {table.observer_token}")
            told_watch = in_thread(watch_text, live.port, table.observer_token)
            wait_for(lambda: len(table.observers) == 2)  # noqa: B023 (this table's)
            bot = in_thread(play_first, Client(live.port), table.seats[1].token)
            ann = Client(live.port)
            told = person(ann, table.seats[0].token, until="error")
            watched = watcher.rest()
            seat1 = bot.result(20)
            shown = told_watch.result(30)
            live.wait_over(table)
            over = table.events[-1]
            if 0 in over.winners:  # type: ignore[attr-defined]
                break
        else:
            raise AssertionError("seat 0 never had the best total in 12 games")
    assert told[-2].startswith("info seat 1 (Ann) forfeits (timeout)"), told[-3:]
    assert told[-1].startswith("error timeout:")
    record = read_record(table.record)  # type: ignore[arg-type]
    outcome = parse_result(watched[-1].split())
    assert watched[-1] == seat1[-2] and seat1[-1] == "quit"
    assert outcome.forfeited == (0,) and 0 not in outcome.winners
    assert outcome.winners == result_winners(record.headers, over.totals,  # type: ignore[attr-defined]
                                             over.winners)  # type: ignore[attr-defined]
    assert record.result is not None and "seat 0 (Ann) forfeited" in record.result
    # the watcher and the REPL name the record's winner, never the forfeited seat
    for text in (shown.splitlines(), "\n".join(repl_text(seat1, 1)).splitlines()):
        marked = [line for line in text if line.rstrip().endswith("winner")]
        assert marked and all("seat 0" not in line for line in marked), text[-6:]
        assert any("forfeited: it cannot win" in line for line in text), text[-6:]


def test_the_page_is_told_the_outcome_in_words() -> None:
    """frontends/web/narrate.py: the ``result`` line becomes ``say result``, worded for
    the seat that reads it (its own forfeit first) or for a spectator."""
    names = lambda: ["Ann", "Bob"]  # noqa: E731
    spectator = Narrator(names).annotate("result winners=1 forfeited=0 totals=4,-2\n")
    assert spectator.splitlines()[-1] == (
        "say result winners=1 forfeited=0 seat 1 (Ann) forfeited: it cannot win. "
        "seat 2 (Bob) wins.")  # words for people: seats counted from 1
    seat = Narrator(names)
    seat.annotate("newgame seat=0\n")
    said = seat.annotate("result winners=1 forfeited=0 totals=4,-2\n").splitlines()
    assert said[-1] == ("say result winners=1 forfeited=0 your seat was forfeited: it "
                        "cannot win, whatever its total. seat 2 (Bob) wins.")
    plain = Narrator(names).annotate("result winners=0,1 forfeited=- totals=3,3\n")
    assert plain.splitlines()[-1] == "say result winners=0,1 forfeited=-"
    bad = Narrator(names).annotate("result winners=7 forfeited=- totals=3,3\n")
    assert "say result" not in bad  # a seat beyond the totals: no outcome is made up


def test_an_all_bot_table_is_never_paced(tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A pace of 5 s a card would take minutes; a table of bots plays at once: the table
    never pauses (its pauses are table.py's sleeps)."""
    paused = NotedAsyncio()
    monkeypatch.setattr(table_module, "asyncio", paused)
    with LiveServer(tmp_path) as live:
        table = live.table(table_settings({"players": "2", "rounds": "1", "seed": "7"},
                                          grace=5.0, pace=Pace(5.0, 5.0, 5.0)))
        runs = [in_thread(play_first, Client(live.port), s.token) for s in table.seats]
        for run in runs:
            run.result(20)
        live.wait_over(table)
    assert len(table.events) > 10 and not table.faults
    assert paused.slept == [], paused.slept


def test_a_people_table_paces_the_bots_and_charges_nobody_for_the_pause(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Bots' cards arrive one by one, a finished trick stays before the next lead; the
    person's clock starts when they are asked, after the pause: each charge to the bank
    counts from a moment after the last pause ended. Both are seen on the loop: the gaps
    between the lines as the server queued them for Ann, and the order of the pauses and
    the charges, not how late a loaded machine delivered or read them."""
    pace = Pace(0.3, 0.6, 1.0)
    order: list[tuple[str, float]] = []  # ("paused", when a pause ended), ("charged", from)
    pause, charge = Table._pace, asking._charge

    async def noted_pause(table: Table, turn: Any) -> None:
        await pause(table, turn)
        order.append(("paused", time.monotonic()))

    def noted_charge(table: Table, seat: int, bank: Any, began: float) -> None:
        if bank is not None:  # a person's (a bot's move has no bank to charge)
            order.append(("charged", began))
            ann.append(table.seats[seat].link)
        charge(table, seat, bank, began)

    queued: list[tuple[Any, float, str]] = []  # (the link, when, the line) as the loop sent it
    ann: list[Any] = []  # her link, as her charges find it
    send = Link.send

    def noted_send(link: Link, *lines: Line) -> None:
        at = time.monotonic()
        queued.extend((link, at, line_text(line)) for line in lines)
        send(link, *lines)

    monkeypatch.setattr(Table, "_pace", noted_pause)
    monkeypatch.setattr(asking, "_charge", noted_charge)
    monkeypatch.setattr(Link, "send", noted_send)
    with LiveServer(tmp_path) as live:
        table = live.table(table_settings({"players": "2", "rounds": "1", "seed": "7"},
                                          grace=5.0, clock=Clock(20_000, 0), pace=pace))
        bot = in_thread(play_first, Client(live.port), table.seats[1].token)
        person = Client(live.port)
        person.send(f"seat {table.seats[0].token}")
        got: list[str] = []
        while (line := person.read()) is not None:
            got.append(line)
            word = line.split()[0]
            if word == "hello":
                person.send("hello 1 name=Ann kind=human")
            elif word == "isready":
                person.send("readyok")
            elif word == "go":
                person.send(first_option(line))
        bot.result(20)
        live.wait_over(table)
    assert ann and all(link is ann[0] for link in ann)
    events = [(at, line) for link, at, line in queued
              if link is ann[0] and line.startswith(("event ", "go "))]
    assert [line for _, line in events] == [x for x in got if x.startswith(("event ", "go "))]
    bot_moves = trick_ends = 0
    for (before, prior), (at, line) in itertools.pairwise(events):
        if " seat=1 " in line and line.split()[2] in ("bid", "lead", "play"):
            bot_moves += 1
            assert at - before >= pace.card, (prior, line, at - before)
        if " trick-won " in prior and not line.split()[2].startswith(("round", "game")):
            trick_ends += 1
            assert at - before >= pace.trick, (prior, line, at - before)
    assert bot_moves >= 8 and trick_ends >= 7
    banks = [go_time(line) for line in got if line.startswith("go ")]
    charged = [(n, began) for n, (what, began) in enumerate(order) if what == "charged"]
    assert len(charged) == len(banks) >= 8, (charged, banks)  # each of Ann's moves
    for n, began in charged:  # counted from after the pause that came before her go
        ended = max(at for what, at in order[:n] if what == "paused")
        assert began >= ended, (n, began, ended)


def test_a_table_everyone_left_waits_for_them_then_is_abandoned(tmp_path: Path) -> None:
    """Every seat a stand-in: no bot plays on for nobody. The game waits the grace period
    (a person who comes back plays on), then every seat forfeits and nobody wins."""
    with LiveServer(tmp_path) as live:
        table = live.table(table_settings({"players": "3", "rounds": "2", "seed": "5"},
                                          grace=1.5, clock=Clock(50, 0), level=5))
        watcher = Client(live.port)
        watcher.send(f"observe {table.observer_token}")
        mutes = [silent_person(live, s.token) for s in table.seats]
        wait_for(lambda: all(s.replaced for s in table.seats))
        paused = len(table.events)
        time.sleep(0.8)
        assert len(table.events) == paused and not table.over.is_set()  # no bot plays on
        back = Client(live.port)  # one comes back within the grace: the game goes on
        back.send(f"seat {table.seats[0].token}")
        wait_for(lambda: not table.seats[0].replaced)
        back.close()  # and leaves again: its bank is out, a bot stands in once more
        live.wait_over(table, 30)
        watched = watcher.rest()
        for mute in mutes:
            mute.close()
    assert len(table.events) > paused
    assert [f[:2] for f in table.faults[-3:]] == [(0, "abandoned"), (1, "abandoned"),
                                                  (2, "abandoned")], table.faults
    assert any("the game waits 1.5 s for a player" in line for line in watched)
    assert watched[-1] == "result winners=- forfeited=0,1,2 totals=" + ",".join(
        map(str, table.totals()))
    record = read_record(table.record)  # type: ignore[arg-type]
    assert record.result is not None and record.result.startswith("result nobody wins")
    assert [v for k, v in record.headers if k == "forfeit"] == ["0", "1", "2"]
    assert audit_file(str(table.record)).status == OK  # the stand-ins' headers hold


def test_a_stand_in_thinks_in_a_child_process_and_plays_on_as_it_would_here() -> None:
    """protocol/net/thinking.py: the child's choice and the agent's new state come back,
    so a seeded stand-in plays exactly the moves it plays inline (its random number
    generator goes on where the child left it)."""
    config = config_from_pairs({"players": "3", "rounds": "1", "seed": "3"}, defaults=True)

    def play(think: object) -> list[object]:
        referee = Referee.new(config, policy=FaultPolicy.stand_in(
            lambda seat: make_agent("heuristic", seat, game="xactika")))
        for seat in range(3):
            referee.fault(seat, "crash")

        async def never(turn: object) -> Faulted:
            raise AssertionError("every seat is a stand-in")

        asyncio.run(run_async(referee, never, think=think))  # type: ignore[arg-type]
        return referee.events

    pids: list[int] = []

    async def spy(agent: object, view: object, legal: object) -> object:
        pids.append(await asyncio.get_running_loop().run_in_executor(
            thinking._pool(), os.getpid))
        return await thinking.think(agent, view, legal)

    assert play(spy) == play(None)
    assert pids and os.getpid() not in pids and thinking._failures == 0


def test_a_restart_keeps_the_pace_and_costs_no_bank(tmp_path: Path) -> None:
    """The journal keeps the table's pace; a person's bank does not run while the server
    is down nor until they are back after its restart (spec/SERVER.md section 10), though
    it does run while they are away at their turn otherwise."""
    out = tmp_path / "out"
    journal = Journal.open(out)
    pace = Pace(0.1, 0.2, 0.3)
    with LiveServer(out, journal=journal) as live:
        table = live.table(table_settings({"players": "2", "rounds": "1", "seed": "7"},
                                          grace=5.0, clock=Clock(3000, 0), pace=pace))
        token = table.seats[0].token
        bot = in_thread(play_first, Client(live.port), table.seats[1].token)
        ann = Client(live.port)
        lines = person(ann, token)
        assert go_time(lines[-1]) == 3000
    journal.close()
    ann.close()
    bot.result(20)
    with LiveServer(out, journal=Journal.open(out)) as again:
        [restored] = again.server.tables
        assert restored.settings.pace == pace
        time.sleep(1.0)  # away since the restart: not charged
        came = time.monotonic()
        back = Client(again.port)
        got = person(back, token, resume=last_seq(lines))
        within = time.monotonic() - came  # her return to her go: all the bank may lose
        assert 3000 - go_time(got[-1]) <= within * 1000 + 2, (got[-1], within)  # ms rounding
        back.close()


CHILD_PID = """
import asyncio, os, sys, time
from xactika.core.bots.agents import make_agent
from xactika.core.engine.referee import Referee, FaultPolicy
from xactika.protocol.net import thinking
from xactika.protocol.notation.text import config_from_pairs

async def main() -> None:
    config = config_from_pairs({"players": "2", "rounds": "1", "seed": "3"}, defaults=True)
    turn = Referee.new(config, policy=FaultPolicy.abort()).turn()
    await thinking.think(make_agent("heuristic", 1, game="xactika"), turn.view, turn.legal)
    pid = await asyncio.get_running_loop().run_in_executor(thinking._pool(), os.getpid)
    print(pid, flush=True)
    time.sleep(60)

if __name__ == "__main__":
    asyncio.run(main())
"""


def test_the_stand_ins_process_ends_with_its_server(tmp_path: Path) -> None:
    """A server killed with SIGKILL leaves no stand-in process behind."""
    script = tmp_path / "server.py"
    script.write_text(CHILD_PID)
    server = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None
    child = int(server.stdout.readline())
    assert child != server.pid
    os.kill(child, 0)  # alive while its server is
    server.kill()
    server.wait(10)
    deadline = time.monotonic() + 10
    while Path(f"/proc/{child}").exists() and "Z" not in _state(child):
        assert time.monotonic() < deadline, "the stand-ins' process outlived its server"
        time.sleep(0.05)


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "Z"
