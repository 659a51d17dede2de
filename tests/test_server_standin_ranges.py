"""The record's ``stand-in`` ranges are exact (issue 40): a person who comes back while
their stand-in holds their turn has the seat from the move after the stand-in's, and
the range holds that move; a person back before their stand-in was ever asked leaves no
range at all (never ``events 8-7``). The stand-in's choice is held at a gate the test
opens, and the other seat is a bot the test answers for, so every point of the
stand-in's turn is reached by events, not time. In-process server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import re
import threading
from pathlib import Path
from typing import Any

import pytest
from netkit import Client, LiveServer, first_option, in_thread, play_first, until
from test_server_people import person

from xactika.protocol.net import table as table_module
from xactika.protocol.net.table import Table, table_settings
from xactika.protocol.records.textform import read_record
from xactika.protocol.trust.audit import OK, audit_file

GUARD = 30.0  # seconds: only so that a broken build fails instead of hanging


class Gate:
    """The stand-ins' thinking, held until the test lets each choice through: ``asked``
    is set when a stand-in is asked, ``moves`` the event number (1-based) each choice
    was asked for."""

    def __init__(self, table: list[Table]) -> None:
        self.asked = threading.Event()
        self.permits = threading.Semaphore(0)
        self.moves: list[int] = []
        self.table = table

    async def think(self, agent: Any, seen: Any, legal: Any) -> Any:
        self.moves.append(len(self.table[0].events) + 1)
        self.asked.set()
        assert await asyncio.to_thread(self.permits.acquire, True, GUARD), "never let through"
        return agent.choose(seen, legal)


def to_go(client: Client, hello: str = "hello 1 name=bot") -> str:
    """A seat's lines up to its next ``go``, left unanswered."""
    while (line := client.read(GUARD)) is not None:
        words = line.split()
        if words[0] == "hello":
            client.send(hello)
        elif words[0] == "isready":
            client.send("readyok")
        elif words[0] == "go":
            return line
    raise AssertionError("the seat was closed")


def play_on(client: Client, held: Any) -> list[str]:
    """Answer the go ``held`` (a future of ``to_go``) waits for, then play on."""
    client.send(first_option(held.result(GUARD)))
    return play_first(client, None)


def ranges(record: Path, seat: int) -> list[tuple[int, int]]:
    got = []
    for key, value in read_record(str(record)).headers:
        if key == "stand-in" and (m := re.match(rf"{seat} events (\d+)-(\d+) ", value)):
            got.append((int(m[1]), int(m[2])))
    return got


@pytest.mark.parametrize("point", ["before it is asked", "while it thinks",
                                   "after it answers"])
def test_a_person_back_at_any_point_of_the_stand_ins_turn_leaves_an_exact_range(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, point: str) -> None:
    """Ann (seat 0) leaves; a level bot stands in; she comes back at ``point``. Every
    move the stand-in made is inside a ``stand-in`` range of the record, no range is
    empty, and the record audits. Before issue 40 a return while the stand-in thought
    ended the range before its move, and one before it was asked wrote ``events 8-7``."""
    holder: list[Table] = []
    gate = Gate(holder)
    monkeypatch.setattr(table_module, "think", gate.think)
    with LiveServer(tmp_path) as live:
        table = live.table(table_settings({"players": "2", "rounds": "1", "seed": "7"},
                                          grace=GUARD))
        holder.append(table)
        bot, ann = Client(live.port), Client(live.port)
        bot.send(f"seat {table.seats[1].token}")
        ann.send(f"seat {table.seats[0].token}")
        ann_go = in_thread(to_go, ann, "hello 1 name=Ann kind=human")
        bot_go = in_thread(to_go, bot)  # always the bot's next go, unanswered
        until(lambda: table.referee is not None and table.referee.turn() is not None,
                 "the game starts")
        assert table.referee is not None
        first = table.referee.turn().seat  # type: ignore[union-attr]
        if point == "before it is asked":  # Ann leaves while the bot holds its turn
            if first == 0:
                ann.send(first_option(ann_go.result(GUARD)))
            bot_go.result(GUARD)
        else:  # Ann leaves at her turn: the stand-in's now
            if first == 1:
                bot.send(first_option(bot_go.result(GUARD)))
                bot_go = in_thread(to_go, bot)
            ann_go.result(GUARD)
        live.call(_leave(table, 0))  # a level bot stands in for Ann from here
        back = Client(live.port)
        if point == "while it thinks":
            assert gate.asked.wait(GUARD)
        elif point == "after it answers":
            gate.permits.release()
            until(lambda: gate.moves and len(table.events) >= gate.moves[0],
                     "the stand-in's move is in")
        person(back, table.seats[0].token, resume=0, until="info")
        until(lambda: not table.seats[0].replaced, "Ann is back")
        gate.permits.release(1000)
        players = [in_thread(play_first, back, None), in_thread(play_on, bot, bot_go)]
        live.wait_over(table, GUARD)
        for one in players:
            one.result(GUARD)
    assert table.record is not None
    spans = ranges(table.record, 0)
    assert all(a <= b for a, b in spans), spans  # never an empty range
    made = [n for n in gate.moves if n <= len(table.events)]
    assert all(any(a <= n <= b for a, b in spans) for n in made), (made, spans)
    assert bool(made) == bool(spans) == (point != "before it is asked"), (made, spans)
    assert audit_file(str(table.record)).status == OK


async def _leave(table: Table, seat: int) -> None:
    table.leave(seat)
