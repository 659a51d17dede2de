"""Record files: format, read back, stream, write line by line."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from xactika.core import Config, PresetDeal, RandomAgent, replay
from xactika.core.bots.agents import self_play
from xactika.core.games.xactika import DECK
from xactika.protocol.records.textform import (
    Record,
    RecordError,
    RecordWriter,
    format_record,
    iter_record_lines,
    read_record,
)


def game(seed: int, mode: str = "bid", players: int = 4, rounds: int = 2) -> list[object]:
    config = Config(mode=mode, players=players, rounds=rounds, seed=seed)
    return self_play(config, [RandomAgent(seed + s) for s in range(players)])[1]


HEADERS = {"game": "xactika", "mode": "bid", "players": "4", "seats": "ann,bob,cy,di",
           "seed": "7", "date": "2026-11-22T17:00:00Z", "event": "Club night: table 2"}


def test_format_and_read_round_trip(tmp_path: Path) -> None:
    events = game(7)
    text = format_record(HEADERS, events)
    assert text.startswith("header record 1\nheader game xactika\n")
    assert "header event Club night: table 2\n" in text
    path = tmp_path / "g.log"
    path.write_text(text, encoding="utf-8")
    record = read_record(path)
    assert record.events == tuple(events)
    assert record.headers[0] == ("record", "1")
    assert dict(record.headers)["seats"] == "ann,bob,cy,di"
    assert record.header("event") == "Club night: table 2"
    assert format_record(record.headers, record.events) == text
    assert read_record(str(path)) == record
    assert read_record(io.StringIO(text)) == record


def test_reader_is_lenient_like_the_engine() -> None:
    events = game(3, rounds=1)
    text = format_record({"game": "xactika"}, events)
    lines = text.splitlines()
    messy = "# a comment\n\n" + "\r\n".join("  " + ln + "  " for ln in lines) + "\r\n"
    assert read_record(io.StringIO(messy)).events == tuple(events)


def test_preset_deal_record_round_trips() -> None:
    hands = tuple(tuple(DECK[s * 8 : s * 8 + 8]) for s in range(3))
    config = Config(mode="win", players=3, rounds=1, deals=(PresetDeal(hands),))
    events = self_play(config, [RandomAgent(s) for s in range(3)])[1]
    text = format_record([("game", "xactika")], events)
    assert read_record(io.StringIO(text)).events == tuple(events)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("header game xactika\nbid 1 2\n", "line 2: expected a header or event line, not 'bid'"),
        ("event 1 bid seat=0 bid=1\n", "line 1: bid event before game-started"),
        ("header Game x\n", "line 1: bad header key 'Game'"),
        ("header\n", "line 1: header line lacks its key"),
        ("", "line 0: no events"),
        ("event 1 game-started game=xactika mode=bid players=4 rounds=1 dealer=0 seed=1\n"
         "header late yes\n", "line 2: header after the first event"),
        ("event 1 game-started game=xactika mode=bid players=4 rounds=1 dealer=0 seed=1\n"
         "event 2 play seat=0 card=9999\n", "line 2: bad card '9999'"),
        ("event 1 game-started game=nope mode=bid players=4 rounds=1 dealer=0 seed=1\n",
         "line 1: unknown game 'nope'"),
    ],
)
def test_bad_records_name_the_line(text: str, message: str) -> None:
    with pytest.raises(RecordError) as info:
        read_record(io.StringIO(text))
    assert str(info.value).startswith(message)
    assert info.value.code == "record"


def test_invalid_utf8_and_long_lines_name_the_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.log"
    path.write_bytes(b"header game xactika\nheader who \xff\xfe\n")
    with pytest.raises(RecordError, match=r"^line 2: invalid UTF-8"):
        read_record(path)
    path.write_bytes(b"header game " + b"x" * 70000 + b"\n")
    with pytest.raises(RecordError, match=r"^line 1: line is longer than"):
        read_record(path)
    with pytest.raises(RecordError, match=r"^line 0: cannot read"):
        read_record(tmp_path / "missing.log")


def test_streaming_yields_kinds_in_order() -> None:
    events = game(5, rounds=1)
    text = format_record({"game": "xactika"}, events)
    items = list(iter_record_lines(io.StringIO(text)))
    assert [k for _, k, _ in items[:2]] == ["header", "header"]
    assert [v for _, k, v in items if k == "event"] == events
    assert items[2][0] == 3  # line numbers count from 1


def test_writer_flushes_every_line(tmp_path: Path) -> None:
    events = game(11, rounds=1)
    path = tmp_path / "live.log"
    with RecordWriter(path, {"game": "xactika"}) as writer:
        assert path.read_text() == "header record 1\nheader game xactika\n"
        for i, event in enumerate(events):
            writer.write(event)
            # readable after every event, without closing: nothing is buffered
            assert read_record(path).events == tuple(events[: i + 1])
    assert writer.closed
    assert path.read_text() == format_record({"game": "xactika"}, events)
    with pytest.raises(ValueError, match="closed"):
        writer.write(events[0])


def test_headers_that_would_not_read_back_are_refused() -> None:
    for key, value in [("Bad", "x"), ("k", " padded"), ("k", "two\nlines"), ("", "x")]:
        with pytest.raises(ValueError):
            format_record([(key, value)], [])


def test_many_games_round_trip_and_replay() -> None:
    for seed in range(20):
        mode = ("win", "lose", "bid")[seed % 3]
        events = game(seed, mode=mode, players=2 + seed % 5, rounds=1 + seed % 3)
        record = read_record(io.StringIO(format_record({}, events)))
        assert isinstance(record, Record)
        assert replay(record.events) == replay(events)
