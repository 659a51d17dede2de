"""Tamper evidence: the hash chain on record lines and the commitment to the seed."""

from __future__ import annotations

import io
from pathlib import Path

import attrs
import pytest

from xactika.core import Config, GameOver, GameStarted, ParseError, RandomAgent, game_rules
from xactika.core.bots.agents import self_play
from xactika.core.engine.api import Dealt, replay
from xactika.core.engine.views import view, visible
from xactika.protocol.notation.text import format_event, parse_event
from xactika.protocol.records.textform import RecordWriter, format_record, read_record
from xactika.protocol.trust.audit import OK, audit_lines
from xactika.protocol.trust.tamper import (
    Chain,
    commit_config,
    commitment,
    commitment_problem,
    sign_record,
    split_hash,
)

CONFIGS = [
    Config(game="xactika", mode="bid", players=4, rounds=2, seed=2**63 + 5),
    Config(game="xactika", mode="lose", players=3, rounds=1, seed=9),
    Config(game="dix", mode="draw", players=2, rounds=1, seed=77),
]


def committed_game(config: Config) -> tuple[Config, list[object]]:
    config = commit_config(config)
    _, events = self_play(config, [RandomAgent(s) for s in range(config.players)])
    return config, events


# --------------------------------------------------------------------------- commitment


def test_commit_config_makes_a_fresh_nonce_and_a_matching_commitment() -> None:
    a = commit_config(CONFIGS[0])
    b = commit_config(CONFIGS[0])
    assert a.nonce != b.nonce and a.commit != b.commit  # fresh every game
    assert a.nonce is not None and len(a.nonce) == 32
    assert a.commit == commitment("xactika", 2**63 + 5, a.nonce)
    assert commitment_problem(a) is None
    assert commitment_problem(CONFIGS[0]) is None  # no commitment is not a broken one
    preset_like = attrs.evolve(CONFIGS[0], seed=None)
    assert commit_config(preset_like) == preset_like


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"seed": 6}, "the seed was changed"),
        ({"nonce": "f" * 32}, "the seed was changed"),
        ({"nonce": "ab"}, "at least 32"),
        ({"nonce": None}, "no nonce="),
        ({"commit": None}, "no commit="),
        ({"commit": "abc"}, "64 lower-case hex"),
    ],
)
def test_broken_commitments_are_named(change: dict[str, object], reason: str) -> None:
    config = attrs.evolve(commit_config(CONFIGS[0]), **change)
    problem = commitment_problem(config)
    assert problem is not None and reason in problem


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.game}-{c.mode}")
def test_no_seat_learns_the_seed_or_nonce_before_game_over(config: Config) -> None:
    config, events = committed_game(config)
    assert config.nonce is not None and config.commit is not None
    rules = game_rules(config.game)
    for seat in range(config.players):
        seen = [visible(e, seat) for e in events]
        lines = [format_event(e, rules) for e in seen]
        before, last = lines[:-1], lines[-1]
        assert f"commit={config.commit}" in lines[0]
        for line in before:
            assert config.nonce not in line
            assert "seed=" not in line and "nonce=" not in line
        assert isinstance(seen[0], GameStarted)
        assert seen[0].config.seed is None and seen[0].config.nonce is None
        # every view the seat gets along the way hides them too
        state = replay(events[:1])
        for event in events[1:-1]:
            state = replay([event], state)
            v = view(state, seat)
            assert v.config.seed is None and v.config.nonce is None
            assert v.config.commit == config.commit
        # game-over reveals both, and the seat can check its own deals with them
        over = seen[-1]
        assert isinstance(over, GameOver)
        assert f"seed={config.seed}" in last and f"nonce={config.nonce}" in last
        assert commitment(config.game, over.seed, over.nonce) == seen[0].config.commit
        opened = attrs.evolve(seen[0].config, seed=over.seed)
        for dealt in (e for e in seen if isinstance(e, Dealt)):
            redealt = rules.deal(opened, dealt.round, dealt.dealer)
            assert redealt.hands[seat] == dealt.hands[seat]


def test_uncommitted_games_reveal_nothing_at_game_over() -> None:
    _, events = self_play(CONFIGS[1], [RandomAgent(s) for s in range(3)])
    over = events[-1]
    assert isinstance(over, GameOver) and over.seed is None and over.nonce is None
    assert "seed=" not in format_event(over, game_rules("xactika"))


# --------------------------------------------------------------------------- event text


def test_settings_and_reveal_round_trip_through_event_lines() -> None:
    _, events = committed_game(CONFIGS[0])
    rules = game_rules("xactika")
    for event in (events[0], events[-1]):
        line = format_event(event, rules)
        assert parse_event(line, rules) == event
        assert parse_event(f"{line} h={'0' * 64}", rules) == event  # the chain token
    with pytest.raises(ParseError, match="hexadecimal"):
        parse_event(format_event(events[0], rules).replace("nonce=", "nonce=XY"), rules)


# --------------------------------------------------------------------------- the chain


def test_split_hash() -> None:
    assert split_hash("event 3 bid seat=1 bid=2 h=ab") == ("event 3 bid seat=1 bid=2", "ab")
    assert split_hash("event 3 bid seat=1 bid=2") == ("event 3 bid seat=1 bid=2", None)
    assert split_hash("event 3 bid seat=1 bid=2   h=ab") == ("event 3 bid seat=1 bid=2", "ab")


def test_chain_links_depend_on_headers_order_and_every_byte() -> None:
    def head(headers: list[str], bodies: list[str]) -> str:
        chain = Chain()
        for h in headers:
            chain.header(h)
        for b in bodies:
            chain.link(b)
        return chain.head

    base = head(["header game xactika"], ["event 1 x", "event 2 y"])
    assert base != head(["header game xactikb"], ["event 1 x", "event 2 y"])
    assert base != head(["header game xactika"], ["event 2 y", "event 1 x"])
    assert base != head(["header game xactika"], ["event 1 x", "event 2  y"])
    assert base != head(["header game xactika"], ["event 1 x"])
    assert base == head(["header game xactika"], ["event 1 x", "event 2 y"])
    with pytest.raises(ValueError):
        chain = Chain()
        chain.link("event 1 x")
        chain.header("header late 1")


def test_records_are_signed_by_default_and_read_back(tmp_path: Path) -> None:
    _, events = committed_game(CONFIGS[0])
    headers = {"game": "xactika", "seats": "a,b,c,d"}
    signed = format_record(headers, events)
    unsigned = format_record(headers, events, sign=False)
    event_lines = [ln for ln in signed.splitlines() if ln.startswith("event ")]
    assert all(split_hash(ln)[1] is not None for ln in event_lines)
    assert " h=" not in unsigned
    assert sign_record(unsigned) == signed
    assert sign_record(signed) == signed
    path = tmp_path / "live.log"
    with RecordWriter(path, headers) as writer:
        for event in events:
            writer.write(event)
    assert path.read_text(encoding="utf-8") == signed
    with RecordWriter(tmp_path / "plain.log", headers, sign=False) as writer:
        for event in events:
            writer.write(event)
    assert (tmp_path / "plain.log").read_text(encoding="utf-8") == unsigned
    # every reader accepts signed lines, CRLF and padding included
    messy = "\r\n".join("  " + ln + " " for ln in signed.splitlines()) + "\r\n"
    assert read_record(io.StringIO(messy)).events == tuple(events)
    assert audit_lines(messy.encode("utf-8").splitlines(keepends=True), "m").status == OK
