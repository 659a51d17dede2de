"""A JSONL record survives the JSON tools people pipe it through (jq, a browser, Python
with numbers as doubles): big integers are strings, the chain and the signature cover the
canonical text, and the records written before still read (spec/RECORDS.md)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from xactika.core import Config, RandomAgent
from xactika.core.bots.agents import self_play
from xactika.frontends.records import audit as audit_cli
from xactika.protocol.records.jsonl import read_jsonl, text_to_jsonl
from xactika.protocol.records.textform import RecordError, format_record
from xactika.protocol.trust.signing import Signer
from xactika.protocol.trust.tamper import commit_config

KEY = Signer.generate()
SEED = 77362819716469543211234567890123456789012345678901234567890123456789012345678


def signed_jsonl(seed: int = SEED) -> str:
    config = commit_config(Config(mode="bid", players=3, rounds=2, seed=seed))
    _, events = self_play(config, [RandomAgent(s) for s in range(3)])
    text = format_record([("game", "xactika"), ("seats", "ann,bob,cy")], events, signer=KEY)
    return text_to_jsonl(text.splitlines())


def like_javascript(jsonl: str) -> str:
    """Every number read as a double and written back, as JSON.parse/stringify, jq 1.6
    and Python with parse_int=float do; keys re-spaced and non-ASCII escaped."""
    return "".join(json.dumps(json.loads(line, parse_int=float)) + "\n"
                   for line in jsonl.splitlines())


def strict_audit(tmp_path: Path, text: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    pub = tmp_path / "referee.pub"
    pub.write_text(KEY.public.text + "\n", encoding="utf-8")
    log = tmp_path / "g.jsonl"
    log.write_text(text, encoding="utf-8")
    code = audit_cli.main(["--strict", "--key", str(pub), str(log)])
    return code, capsys.readouterr().out


def test_a_seed_past_2_53_is_a_string_wherever_it_appears() -> None:
    jsonl = signed_jsonl()
    objs = [json.loads(line) for line in jsonl.splitlines()]
    started = next(o for o in objs if o["type"] == "game-started")
    over = next(o for o in objs if o["type"] == "game-over")
    assert started["config"]["seed"] == str(SEED) and over["seed"] == str(SEED)
    # no JSON number in the whole record is past what a double holds exactly
    numbers = [int(n) for n in re.findall(r'(?<![\w".])-?\d+(?![\w".])', jsonl)]
    assert numbers and max(abs(n) for n in numbers) < 2**53


def test_a_record_rewritten_with_doubles_still_audits_strict_and_keyed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rewritten = like_javascript(signed_jsonl())
    assert '"seq": 1.0' in rewritten  # the tool did change the bytes
    code, out = strict_audit(tmp_path, rewritten, capsys)
    assert code == 0, out
    assert f"verified: signed by {KEY.public.fingerprint}" in out


def test_a_record_written_before_with_a_number_seed_still_reads_and_audits(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = re.sub(r'"seed":"(\d+)"', r'"seed":\1', signed_jsonl())
    assert f'"seed":{SEED}' in old
    assert read_jsonl(old.splitlines()).events[0].config.seed == SEED
    code, out = strict_audit(tmp_path, old, capsys)
    assert code == 0, out


def test_a_seed_that_lost_its_digits_is_named_not_misread() -> None:
    broken = re.sub(r'"seed":"(\d+)"', lambda m: f'"seed":{float(m.group(1))!r}',
                    signed_jsonl())
    with pytest.raises(RecordError, match=r"line \d+: bad number 7\.7\d*e\+76: a number "
                                          r"past 2\^53 has lost its digits"):
        read_jsonl(broken.splitlines())


@pytest.mark.parametrize("value", ["true", '"3x"', "3.5", '"03"', "[3]"])
def test_an_integer_field_takes_integers_only(value: str) -> None:
    lines = signed_jsonl().splitlines()
    bid = next(i for i, line in enumerate(lines) if '"type":"bid"' in line)
    lines[bid] = re.sub(r'"bid":\d+', f'"bid":{value}', lines[bid])
    with pytest.raises(RecordError, match=rf"line {bid + 1}: "):
        read_jsonl(lines)
