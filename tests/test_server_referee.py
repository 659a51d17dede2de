"""The table server on the referee (core/engine/referee.py): a seat that faults while
another is to act is handed to its stand-in at once, and the game plays on."""

from __future__ import annotations

from pathlib import Path

from netkit import Client, LiveServer, first_option, in_thread, play_first, until

from xactika.core.engine.api import GameOver
from xactika.core.engine.check import check_log
from xactika.core.engine.referee import Fault
from xactika.protocol.net.link import Limits
from xactika.protocol.records.textform import read_record


def test_a_fault_while_not_asked_gives_the_seat_to_its_stand_in_then(tmp_path: Path) -> None:
    with LiveServer(tmp_path, Limits(auth_timeout=2.0)) as live:
        # two seats, seat 0 deals: seat 1 bids first, and seat 0 faults while it waits
        table = live.table(players=2, rounds=1, seed=8, mode="bid", dealer=0)
        first = Client(live.port)
        waiting = in_thread(play_first, first, table.seats[1].token,
                            lambda line: line.startswith("go"))
        other = Client(live.port)
        play_first(other, table.seats[0].token, lambda line: line.startswith("newgame"))
        go = waiting.result(20)[-1]
        other.send("play " + "1" * 5000)
        assert other.rest()[-1] == "error flood: a line longer than 4096 bytes"
        until(lambda: table.faults, "the server reads the line and forfeits the seat")
        opening = len(table.events)
        first.send(first_option(go))
        play_first(first, None)
        live.wait_over(table)
        assert table.referee is not None
        detail = "a line longer than 4096 bytes"
        assert table.referee.faults == [Fault(0, "flood", detail, opening)]
        assert table.faults == [(0, "flood", detail)]
        record = read_record(table.record)
        check_log(list(record.events))
        assert isinstance(record.events[-1], GameOver)
        assert record.header("termination") == "flood"

