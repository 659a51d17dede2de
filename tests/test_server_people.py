"""People at the table server (spec/SERVER.md, "People"): a time bank of their own, a bot
that stands in when it runs out and gives the seat back, forfeits that never win, names.
Raw sockets on 127.0.0.1; every wait is bounded."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from netkit import Client, LiveServer, first_option, in_thread, play_first

from xactika.core import Config, GameOver
from xactika.core.engine.check import check_log
from xactika.frontends.records import audit as audit_cli
from xactika.protocol.net.clock import Clock
from xactika.protocol.net.table import table_settings
from xactika.protocol.records.textform import read_record, result_line
from xactika.protocol.trust.audit import OK, audit_file


def person(client: Client, token: str | None, name: str = "Ann", resume: int | None = None,
           until: str = "go ", kind: str = "human") -> list[str]:
    """Take a seat as a person (``kind=human``; None: taken already); the lines up to the
    first that starts with ``until``."""
    if token is not None:
        client.send(f"seat {token}" + (f" resume={resume}" if resume is not None else ""))
    got = []
    while (line := client.read(10)) is not None:
        got.append(line)
        word = line.split()[0]
        if word == "hello":
            client.send(f"hello 1 name={name} kind={kind}")
        elif word == "isready":
            client.send("readyok")
        if line.startswith(until):
            return got
    return got


def go_time(go: str) -> int:
    return int(dict(w.partition("=")[::2] for w in go.split()[2:])["time"])


def last_seq(lines: list[str]) -> int:
    return max(int(line.split()[1]) for line in lines if line.startswith("event "))


def settings(**clocks: object) -> object:
    return table_settings({"players": "2", "rounds": "1", "seed": "7"}, grace=5.0, **clocks)


def test_a_person_thinks_past_the_bots_move_timeout_and_keeps_the_seat(tmp_path: Path) -> None:
    with LiveServer(tmp_path) as live:
        table = live.table(settings(move_timeout=0.3, clock=Clock(4000, 1000)))
        bot = in_thread(play_first, Client(live.port), table.seats[1].token)
        ann = Client(live.port)
        seated = time.monotonic()  # her go cannot leave before she takes the seat
        lines = person(ann, table.seats[0].token)
        newgame = next(x for x in lines if x.startswith("newgame"))
        assert newgame == "newgame seat=0 names=Ann,first"  # a person learns the names
        assert go_time(lines[-1]) == 4000  # the bank, not the bots' 300 ms
        time.sleep(0.8)  # past the bots' move timeout
        ann.send(first_option(lines[-1]))
        got = []
        while (line := ann.read(10)) is not None and not line.startswith("go "):
            got.append(line)
        asked_again = time.monotonic()  # her answer was heard before the next go came
        assert line is not None
        # 4000 less what she took (0.8 s at least, no more than seat to next go) plus 1000
        most = (asked_again - seated) * 1000
        assert 5000 - most - 2 <= go_time(line) <= 4200 + 1, (line, most)  # 2: ms rounding
        ann.send(first_option(line))
        play_first(ann, None)
        bot.result(20)
        live.wait_over(table)
    assert table.faults == []
    record = read_record(table.record)
    assert record.header("seats") == "Ann,first"
    assert record.header("kinds") == "human,bot"
    assert record.header("clock") == "4+1 on-timeout=bot"
    assert record.header("fault") is None and record.header("forfeit") is None
    check_log(list(record.events))


def test_a_table_of_bots_has_no_clock_header(tmp_path: Path) -> None:
    """Issue 34: a record of bots alone carried ``clock``, which SERVER.md section 7 says
    appears when people had one."""
    with LiveServer(tmp_path) as live:
        table = live.table(settings(move_timeout=2.0, clock=Clock(4000, 1000)))
        one = in_thread(play_first, Client(live.port), table.seats[1].token)
        play_first(Client(live.port), table.seats[0].token)
        one.result(20)
        live.wait_over(table)
    record = read_record(table.record)
    assert record.header("kinds") == "bot,bot"
    assert record.header("clock") is None


def test_a_bank_that_runs_out_seats_a_bot_and_the_person_takes_it_back(
        tmp_path: Path) -> None:
    with LiveServer(tmp_path) as live:
        table = live.table(settings(move_timeout=5.0, clock=Clock(500, 0)))
        other = Client(live.port)
        held = in_thread(play_first, other, table.seats[1].token,
                         lambda line: line.startswith("go play"))
        ann = Client(live.port)
        lines = person(ann, table.seats[0].token)
        assert lines[-1].startswith("go bid") and go_time(lines[-1]) == 500
        rest = ann.rest(10)  # no answer: the bank runs out
        assert rest[-2].startswith("info seat 1 (Ann) ran out of time: a level-3 bot plays")
        assert rest[-1].startswith("error replaced: the clock (0.5+0) ran out at 'go bid'")
        seen = held.result(20)  # the other seat is told in one line, and the bot bid
        assert sum(x.startswith("info seat 1 (Ann) ran out of time") for x in seen) == 1
        assert any(x.startswith("event 4 bid seat=0") for x in seen)
        # back with the token, resuming after the last event this connection had
        back = Client(live.port)
        got = person(back, table.seats[0].token, resume=last_seq(lines + rest),
                     until="info seat 1 (Ann) is back")
        assert any(x.startswith("event 4 bid seat=0") for x in got)
        assert got[-1] == "info seat 1 (Ann) is back: they play their seat from their next turn"
        reclaimed = last_seq(got)
        other.send(first_option(seen[-1]))
        theirs = in_thread(play_first, other, None)
        go = person(back, None)[-1]
        assert go.startswith("go ")
        back.send(first_option(go))  # the person plays again
        play_first(back, None)
        theirs.result(20)
        live.wait_over(table)
    record = read_record(table.record)
    check_log(list(record.events))
    headers = record.headers
    assert ("fault", "0 timeout: the clock (0.5+0) ran out at 'go bid'") in headers
    stand_in = [v for k, v in headers if k == "stand-in"]
    assert stand_in == [f"0 events 4-{reclaimed} bot:strong:3"]  # then Ann played on
    assert record.header("termination") == "timeout"
    assert record.header("forfeit") is None  # reclaimed: the seat may win
    assert audit_file(str(table.record)).status == OK


@pytest.mark.parametrize("on_timeout", ["bot", "forfeit"])
def test_a_seat_that_does_not_come_back_never_wins(tmp_path: Path, on_timeout: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    with LiveServer(tmp_path) as live:
        table = live.table(settings(clock=Clock(300, 0), on_timeout=on_timeout))
        bot = in_thread(play_first, Client(live.port), table.seats[1].token)
        ann = Client(live.port)
        person(ann, table.seats[0].token)
        last = ann.rest(10)[-1]
        assert last.startswith("error replaced:" if on_timeout == "bot" else "error timeout:")
        bot.result(20)
        live.wait_over(table)
        again = Client(live.port)
        again.send(f"seat {table.seats[0].token}")
        assert again.read(10).startswith("error ")  # over (and forfeited)
    record = read_record(table.record)
    assert record.header("forfeit") == "0"
    who = "bot:strong:3" if on_timeout == "bot" else "random"
    assert next(v for k, v in record.headers if k == "stand-in").endswith(who)
    assert record.result is not None and "seat 0 (Ann) forfeited" in record.result
    assert "seat 0 (Ann) wins" not in record.result and "share" not in record.result
    assert audit_file(str(table.record)).status == OK
    assert audit_cli.main(["--json", str(table.record)]) == 0
    players = json.loads(capsys.readouterr().out)["summary"]["players"]
    assert players["Ann"]["wins"] == 0 and players["first"]["wins"] == 1


def test_a_person_leaves_by_the_tables_own_leave(tmp_path: Path) -> None:
    """``Table.leave`` (the web's "leave", no longer its private ``_replace``): before the
    game and for a bot's seat it is refused, state unchanged; in play a bot of the table's
    level takes the seat at once, everyone is told, the record says so."""
    with LiveServer(tmp_path) as live:
        table = live.table(settings(clock=Clock(20_000, 0)))
        with pytest.raises(ValueError, match="in play"):
            table.leave(0)  # not started
        bot = in_thread(play_first, Client(live.port), table.seats[1].token)
        ann = Client(live.port)
        person(ann, table.seats[0].token)
        with pytest.raises(ValueError, match="person's seat"):
            live.call(_async(table.leave, 1))  # the bot's
        assert not table.faults
        live.call(_async(table.leave, 0))
        assert ann.rest(10)[-1].startswith("error replaced: left the table")
        bot.result(20)
        live.wait_over(table)
    assert table.seats[0].replaced and table.faults[0][:2] == (0, "left")
    record = read_record(table.record)
    assert next(v for k, v in record.headers if k == "stand-in").endswith("bot:strong:3")
    assert audit_file(str(table.record)).status == OK


async def _async(fn: object, *args: object) -> object:
    """Call ``fn`` on the server's loop (the table is the loop's)."""
    return fn(*args)  # type: ignore[operator]


def test_two_people_with_one_name_are_told_apart(tmp_path: Path) -> None:
    with LiveServer(tmp_path) as live:
        table = live.table(table_settings({"players": "2", "rounds": "1", "seed": "7"},
                                          grace=0.3, clock=Clock(20_000, 0)))
        a, b = Client(live.port), Client(live.port)
        ra = in_thread(person, a, table.seats[0].token, "Ann", None, "newgame")
        lines_b = person(b, table.seats[1].token, until="newgame")
        lines_a = ra.result(20)
        for lines in (lines_a, lines_b):
            newgame = next(x for x in lines if x.startswith("newgame"))
            assert newgame.endswith("names=Ann,Ann%20%282%29")
        for client in (a, b):  # both leave: past the grace, bots play them out
            client.close()
        live.wait_over(table)
    record = read_record(table.record)
    assert record.header("seats") == "Ann,Ann (2)"
    assert record.header("kinds") == "human,human"
    assert [v for k, v in record.headers if k == "forfeit"] == ["0", "1"]
    assert record.result is not None and record.result.startswith("result nobody wins")


@pytest.mark.parametrize(("totals", "winners", "out", "said"), [
    ((5, 3, -1), (0,), {0}, "seat 1 (b) wins; seat 0 (a) forfeited"),
    ((5, 5, -1), (0, 1), {0}, "seat 1 (b) wins; seat 0 (a) forfeited"),
    ((-4, -2, -9), (2,), {2}, "seat 0 (a) wins; seat 2 (c) forfeited"),
    ((1, 3, 5), (0,), {1}, "seat 0 (a) wins; seat 1 (b) forfeited"),
    ((5, 3, 3), (0,), {0}, "seats 1 (b) and 2 (c) share the win; seat 0 (a) forfeited"),
    ((5, 3, 1), (0,), {0, 1, 2}, "nobody wins; seats 0 (a), 1 (b), 2 (c) forfeited"),
])
def test_result_never_names_a_forfeited_seat(totals: tuple[int, ...], winners: tuple[int, ...],
                                             out: set[int], said: str) -> None:
    headers = [("seats", "a,b,c")] + [("forfeit", str(s)) for s in sorted(out)]
    line = result_line(headers, totals, winners)
    assert line.startswith(f"result {said}; totals: ")
    assert result_line([("seats", "a,b,c")], totals, winners).startswith(
        "result seat " if len(winners) == 1 else "result seats ")


def _record(tmp_path: Path, name: str, headers: list[tuple[str, str]]) -> tuple[str, GameOver]:
    from test_audit import write_game

    path = tmp_path / name
    config = Config(mode="bid", players=3, rounds=1, seed=len(name))
    write_game(path, config, headers=[("game", "xactika"), ("mode", "bid"),
                                      ("players", "3"), *headers])
    over = read_record(path).events[-1]
    assert isinstance(over, GameOver)
    return str(path), over


def test_audit_counts_people_by_name_and_seat(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """Two people a record calls ``human`` are two players, not one; named people and
    bots sharing seats are counted as before; a forfeited seat's game is no win."""
    one, over1 = _record(tmp_path, "a.log", [("seats", "human,human,cbot"),
                                             ("kinds", "human,human,bot")])
    two, over2 = _record(tmp_path, "bb.log", [("seats", "Ann,Bob,cbot"),
                                              ("kinds", "human,human,bot"),
                                              ("forfeit", "1")])
    code = audit_cli.main(["--json", one, two])
    players = json.loads(capsys.readouterr().out)["summary"]["players"]
    assert code == 0
    assert set(players) == {"human (seat 0)", "human (seat 1)", "cbot", "Ann", "Bob"}
    assert players["human (seat 1)"]["points"] == over1.totals[1]
    assert players["cbot"]["games"] == 2
    assert players["Bob"]["wins"] == 0  # forfeited: never a winner
    assert players["Ann"]["wins"] == int(0 in result_winners_of(over2, {1}))


def result_winners_of(over: GameOver, out: set[int]) -> tuple[int, ...]:
    from xactika.protocol.records.textform import result_winners

    return result_winners([("forfeit", str(s)) for s in out], over.totals, over.winners)
