"""``xactika convert``: text <-> JSONL, byte for byte, chain tokens and all."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from xactika.core import Config, PresetDeal, RandomAgent
from xactika.core.bots.agents import self_play
from xactika.core.games.xactika import DECK
from xactika.frontends.records import convert
from xactika.protocol.records.textform import format_record
from xactika.protocol.trust.audit import audit_lines
from xactika.protocol.trust.tamper import commit_config

CONFIGS = [
    commit_config(Config(mode="win", players=4, rounds=2, seed=1)),
    commit_config(Config(mode="lose", players=3, rounds=1, seed=2)),
    commit_config(Config(mode="bid", players=5, rounds=2, seed=3)),
    commit_config(Config(game="dix", mode="draw", players=2, seed=4)),
    Config(mode="win", players=2, rounds=1,
           deals=(PresetDeal((tuple(DECK[:8]), tuple(DECK[8:16]))),)),
]


def record(config: Config, *, sign: bool = True, cut: int | None = None) -> str:
    _, events = self_play(config, [RandomAgent(s) for s in range(config.players)])
    seats = ",".join(f"ann{s}" for s in range(config.players))
    return format_record([("game", config.game), ("seats", seats), ("note", "café ☕")],
                         events[:cut], sign=sign)


def both_ways(text: str) -> tuple[str, str]:
    raw = text.encode("utf-8").splitlines(keepends=True)
    jsonl = convert.convert_lines(raw, "jsonl")
    back = convert.convert_lines(jsonl.encode("utf-8").splitlines(keepends=True), "text")
    return jsonl, back


@pytest.mark.parametrize("config", CONFIGS, ids=["win", "lose", "bid", "dix", "preset"])
def test_text_to_jsonl_to_text_is_byte_for_byte(config: Config) -> None:
    for sign in (True, False):
        text = record(config, sign=sign)
        jsonl, back = both_ways(text)
        assert back == text
        assert jsonl.count("\n") == text.count("\n")
        assert ('"h":"' in jsonl) == sign


def test_unfinished_and_tampered_records_convert_as_they_are() -> None:
    text = record(CONFIGS[2], cut=40)
    assert both_ways(text)[1] == text
    lines = record(CONFIGS[0]).splitlines()
    lines[20] = lines[20].replace("seat=", "seat=1", 1) if "seat=" in lines[20] else lines[20]
    tampered = "\n".join(lines) + "\n"
    _, back = both_ways(tampered)
    assert back == tampered  # never re-signed: the break survives the round trip
    before = audit_lines(tampered.splitlines(), "t").problems[0]
    after = audit_lines(back.splitlines(), "t").problems[0]
    assert before == after and before.line == 21


def test_cli(tmp_path: Path) -> None:
    text = record(CONFIGS[3])
    src = tmp_path / "g.log"
    src.write_text(text, encoding="utf-8")
    cli = [sys.executable, "-m", "xactika.frontends.cli", "convert"]
    out = tmp_path / "g.jsonl"
    done = subprocess.run([*cli, str(src), "--to", "jsonl", "-o", str(out)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    done = subprocess.run([*cli, str(out), "--to", "text"], capture_output=True, check=False)
    assert done.returncode == 0 and done.stdout == src.read_bytes()
    for args, message in [
        ([str(src), "--to", "text"], f"{src}:0: the record is already text"),
        ([str(tmp_path / "nope.log"), "--to", "jsonl"], "cannot read"),
    ]:
        done = subprocess.run([*cli, *args], capture_output=True, text=True, check=False)
        assert done.returncode == 2 and message in done.stderr
        assert "Traceback" not in done.stderr
    bad = tmp_path / "bad.jsonl"
    bad.write_text(out.read_text(encoding="utf-8").replace('"seat":1', '"seat":"x"', 1),
                   encoding="utf-8")
    done = subprocess.run([*cli, str(bad), "--to", "text"], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 2 and f"{bad}:" in done.stderr
    assert "Traceback" not in done.stderr
