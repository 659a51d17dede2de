"""The one builder of a record's headers (protocol/records/assemble.py): the order every
host's record has, and the ``think.<seat>`` headers each timed answer is written to."""

from __future__ import annotations

import io

import pytest

from xactika.core import Config, RandomAgent
from xactika.core.bots.agents import self_play
from xactika.core.engine.check import command_of
from xactika.frontends.i18n import using
from xactika.frontends.records.replay import Cursor, Game, screen
from xactika.protocol.records.assemble import (
    THINK,
    RecordFacts,
    move_headers,
    read_think,
    record_headers,
)
from xactika.protocol.records.textform import format_record, read_record
from xactika.protocol.trust.audit import INVALID, OK, audit_lines
from xactika.protocol.trust.signing import Signer
from xactika.protocol.trust.tamper import commit_config

CONFIG = commit_config(Config(mode="bid", players=3, rounds=2, seed=8))


def played() -> list:
    return self_play(CONFIG, [RandomAgent(s) for s in range(CONFIG.players)])[1]


def test_the_headers_come_in_one_order_with_the_hosts_own_as_a_mapping() -> None:
    events = played()
    decisions = [e for e in events if command_of(e) is not None]
    facts = RecordFacts(CONFIG, ["a", "b", "c"], event="e", extra={"site": "here"},
                        moves={decisions[0].seq: {THINK: 12}}, record_id="m/1")
    keys = [k for k, _ in record_headers(facts, events)]
    assert keys == ["game", "mode", "players", "seats", "seed", "event", "site",
                    "think.0", "think.1", "think.2", "id"]
    # a host that times nothing writes no think header, as before the field existed
    assert not any(k.startswith("think.") for k, _ in
                   record_headers(RecordFacts(CONFIG, ["a", "b", "c"]), events))


def test_think_times_go_by_decision_and_come_back_by_seq() -> None:
    events = played()
    decisions = [e for e in events if command_of(e) is not None]
    timed = {e.seq: 100 + n for n, e in enumerate(decisions) if n % 3}  # some: a stand-in's
    headers = move_headers(events, {seq: {THINK: ms} for seq, ms in timed.items()})
    for seat in range(CONFIG.players):
        entries = dict(headers)[f"think.{seat}"].split(",")
        own = [e for e in decisions if command_of(e).seat == seat]  # type: ignore[union-attr]
        assert entries == [str(timed[e.seq]) if e.seq in timed else "-" for e in own]
    assert read_think(headers, events) == timed
    # xactika replay says it at each timed move, in the reader's language
    g = Game.from_record(read_record(io.StringIO(format_record([("seats", "a,b,c"), *headers],
                                                               events))))
    pos = next(n for n, e in enumerate(events) if e.seq in timed)
    seat = command_of(events[pos]).seat  # type: ignore[union-attr]
    assert f"seat {seat + 1} ({'abc'[seat]}) thought for {timed[events[pos].seq]} ms" in screen(
        g, Cursor(pos=pos))
    assert "thought" not in screen(g, Cursor(pos=0))  # game-started: nobody's move
    with using("de"):
        assert f"überlegte {timed[events[pos].seq]} ms" in screen(g, Cursor(pos=pos))


@pytest.mark.parametrize(("header", "reason"), [
    (("think.x", "1"), "'x' is not a seat number"),
    (("think.0", "1,2,abc"), "'abc' is not a number of ms"),
    (("think.0", ",".join(["5"] * 500)), "500 times for the seat's"),
])
def test_a_think_header_that_does_not_fit_is_one_line_and_the_game_replays(
        header: tuple[str, str], reason: str) -> None:
    events = played()
    with pytest.raises(ValueError, match=reason):
        read_think([header], events)
    text = format_record([("seats", "a,b,c"), header], events)
    g = Game.from_record(read_record(io.StringIO(text)))
    assert g.think == {} and g.think_problem is not None and reason in g.think_problem
    assert g.think_problem in screen(g, Cursor()) and len(g.events) == len(events)


def test_the_signature_covers_the_think_headers() -> None:
    events = played()
    first = next(e for e in events if command_of(e) is not None)
    command = command_of(first)
    assert command is not None
    seq, key = first.seq, f"header think.{command.seat}"
    signer = Signer.generate()
    headers = record_headers(RecordFacts(CONFIG, ["a", "b", "c"], moves={seq: {THINK: 42}},
                                         record_id="t/1"), events)
    text = format_record(headers, events, signer=signer)
    lines = [line.encode() for line in text.splitlines(keepends=True)]
    assert audit_lines(lines, "t.log", trusted={signer.public}).status == OK
    forged = [line.replace(f"{key} 42,".encode(), f"{key} 9,".encode()) for line in lines]
    assert forged != lines
    assert audit_lines(forged, "t.log", trusted={signer.public}).status == INVALID

