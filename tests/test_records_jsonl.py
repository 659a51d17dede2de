"""The JSONL form: lossless, and text -> JSONL -> text gives back the same bytes."""

from __future__ import annotations

import io
import json

import pytest

from xactika.core import Config, PresetDeal, RandomAgent, visible
from xactika.core.bots.agents import self_play
from xactika.core.games.xactika import DECK
from xactika.protocol.records.jsonl import (
    event_from_json,
    event_to_json,
    jsonl_to_text,
    read_jsonl,
    text_to_jsonl,
)
from xactika.protocol.records.textform import RecordError, format_record, read_record


def events_for(config: Config) -> list[object]:
    agents = [RandomAgent((config.seed or 0) * 10 + s) for s in range(config.players)]
    return self_play(config, agents)[1]


def configs() -> list[Config]:
    out = [
        Config(game="xactika", mode=("win", "lose", "bid")[i % 3], players=2 + i % 9,
               rounds=1 + i % 3, dealer=i % 2, seed=1000 + i)
        for i in range(24)
    ]
    out += [Config(game="dix", mode=m, players=2, rounds=1, seed=s)
            for m in ("draw", "nodraw") for s in range(3)]
    hands = tuple(tuple(DECK[s * 8 : s * 8 + 8]) for s in range(3))
    out.append(Config(mode="win", players=3, rounds=1, deals=(PresetDeal(hands),)))
    return out


@pytest.mark.parametrize("config", configs(), ids=lambda c: f"{c.game}-{c.mode}-{c.seed}")
def test_text_jsonl_text_is_byte_for_byte(config: Config) -> None:
    events = events_for(config)
    headers = {"game": config.game, "seats": "ann,bob", "event": "Ünïcode night: 1/2"}
    for sign in (True, False):
        text = format_record(headers, events, sign=sign)
        jsonl = text_to_jsonl(io.StringIO(text))
        assert jsonl_to_text(io.StringIO(jsonl)) == text
        record = read_jsonl(io.StringIO(jsonl))
        assert record == read_record(io.StringIO(text))
        assert record.events == tuple(events)


def test_seat_view_records_keep_hidden_values_as_null() -> None:
    config = Config(mode="bid", players=3, rounds=1, seed=5)
    events = [visible(e, 1) for e in events_for(config)]
    text = format_record({"game": "xactika"}, events)
    jsonl = text_to_jsonl(io.StringIO(text))
    deal = json.loads(jsonl.splitlines()[2 + 1])
    assert deal["type"] == "deal"
    assert deal["hands"][0] is None and deal["hands"][2] is None and deal["aside"] is None
    assert len(deal["hands"][1]) == 8
    assert jsonl_to_text(io.StringIO(jsonl)) == text


def test_json_shape_is_plain_and_tagged() -> None:
    events = events_for(Config(mode="bid", players=2, rounds=1, seed=9))
    lead = next(e for e in events if type(e).__name__ == "Led")
    obj = event_to_json(lead, "xactika")
    assert obj["type"] == "lead"
    assert obj["call"] == str(lead.call)
    assert obj["card"] == str(lead.card) and isinstance(obj["seat"], int)
    assert event_from_json(obj, "xactika") == lead


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("not json", "line 1: "),
        ('{"key": "x"}', "line 1: expected an object with a 'type' key"),
        ('{"type": "bid", "seq": 2, "seat": 0, "bid": 1}',
         "line 1: the first event must be game-started"),
        ('{"type": "header", "key": "Bad", "value": "x"}', "line 1: bad header key"),
    ],
)
def test_bad_jsonl_names_the_line(line: str, message: str) -> None:
    with pytest.raises(RecordError) as info:
        read_jsonl(io.StringIO(line + "\n"))
    assert str(info.value).startswith(message)


def test_bad_card_in_jsonl_names_the_line() -> None:
    events = events_for(Config(mode="win", players=2, rounds=1, seed=2))
    jsonl = text_to_jsonl(io.StringIO(format_record({}, events)))
    lines = jsonl.splitlines()
    obj = json.loads(lines[-5])
    key = "card" if "card" in obj else "seat"
    obj[key] = "9999" if key == "card" else "x"
    lines[-5] = json.dumps(obj)
    with pytest.raises(RecordError, match=rf"^line {len(lines) - 4}: "):
        read_jsonl(io.StringIO("\n".join(lines)))
