"""Records read right (issue 12): JSONL wherever a record is read, audit in words.

The form of a record is told by its content, so these files are named against their
form on purpose: a JSONL record called ``.log`` and a text one called ``.jsonl``.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from xactika.core import Config, RandomAgent
from xactika.core.bots.agents import self_play
from xactika.core.engine.api import Dealt, RoundScored, TrickWon, game_rules
from xactika.frontends.records import replay
from xactika.frontends.repl.play import _load as play_load
from xactika.protocol.notation.text import format_event
from xactika.protocol.records.jsonl import text_to_jsonl
from xactika.protocol.records.textform import (
    Record,
    RecordError,
    format_record,
    read_record,
    result_line,
)
from xactika.protocol.referee.sansio import RefereeSession
from xactika.protocol.trust.audit import OK, UNREADABLE, audit_file
from xactika.protocol.trust.tamper import commit_config, sign_record

CONFIG = Config(mode="bid", players=3, rounds=2, seed=11)


def game_text(config: Config = CONFIG) -> str:
    _, events = self_play(commit_config(config), [RandomAgent(s + 1) for s in range(3)])
    return format_record([("seats", "ann,bob,cy")], events)


@pytest.fixture()
def files(tmp_path: Path) -> tuple[Path, Path, str]:
    text = game_text()
    (tmp_path / "text.jsonl").write_text(text, encoding="utf-8")
    (tmp_path / "json.log").write_text(text_to_jsonl(text.splitlines()), encoding="utf-8")
    return tmp_path / "text.jsonl", tmp_path / "json.log", text


def test_every_reader_takes_jsonl_by_content(files: tuple[Path, Path, str]) -> None:
    as_text, as_json, _ = files
    assert as_json.read_text().startswith('{"type":"header"')
    want = read_record(as_text)
    got = read_record(as_json)
    assert got == want and got.events and got.header("seats") == "ann,bob,cy"
    assert replay.load(str(as_json)).events == want.events
    events, _, _ = play_load(str(as_json))
    assert events == list(want.events)
    # the engine's load, inside its files folder
    engine = RefereeSession(files=as_json.parent)
    assert engine.feed(f"load {as_json.name}")[-1] == "ok load"
    assert tuple(engine.log) == want.events
    # audit: the same verdict, the same chain head as the text form
    text_report, json_report = audit_file(str(as_text)), audit_file(str(as_json))
    assert json_report.status == text_report.status == OK
    assert json_report.head == text_report.head is not None
    assert json_report.totals == text_report.totals


def test_jsonl_lines_keep_their_numbers_and_refuse_unknown_keys(
        files: tuple[Path, Path, str]) -> None:
    _, as_json, _ = files
    lines = as_json.read_text().splitlines()
    bid = next(i for i, ln in enumerate(lines) if '"type":"bid"' in ln)
    forged = lines.copy()
    forged[bid] = forged[bid].replace('"type":"bid",', '"type":"bid","note":"ann won",')
    as_json.write_text("\n\n" + "\n".join(forged) + "\n", encoding="utf-8")
    report = audit_file(str(as_json))
    assert report.status == UNREADABLE
    assert (report.problems[0].line, report.problems[0].reason) == (
        bid + 3, "unknown key 'note': the text form has no place for it")
    with pytest.raises(RecordError, match=rf"^line {bid + 3}: unknown key 'note'"):
        read_record(as_json)
    # a changed bid in JSONL breaks the chain at its own line, as in the text form
    lines[bid] = lines[bid].replace('"bid":', '"bid":1', 1)
    as_json.write_text("\n".join(lines) + "\n", encoding="utf-8")
    first = audit_file(str(as_json)).problems[0]
    assert first.line == bid + 1 and first.reason.startswith("hash chain broken at this line")


def _rewrite(text: str, kind: type, change: Callable[[Any], Any]) -> str:
    """The record with the first event of ``kind`` replaced, the chain made again."""
    record = read_record_text(text)
    events = list(record.events)
    i = next(i for i, e in enumerate(events) if isinstance(e, kind))
    events[i] = change(events[i])
    return sign_record(format_record(record.headers, events, sign=False))


def read_record_text(text: str) -> Record:
    return read_record(io.StringIO(text))


def problem(tmp_path: Path, text: str) -> str:
    path = tmp_path / "forged.log"
    path.write_text(text, encoding="utf-8")
    report = audit_file(str(path))
    assert report.problems, text
    reason = report.problems[0].reason
    assert "(" not in reason and "Dealt" not in reason and "..." not in reason
    return reason


def test_audit_names_what_differs_in_words(tmp_path: Path) -> None:
    text = game_text()
    deal = next(e for e in read_record_text(text).events if isinstance(e, Dealt))
    hand = deal.hands[2]
    assert hand is not None
    other = next(c for c in (deal.aside or ()) if c not in hand)

    def swap(e: Dealt) -> Dealt:
        hands = list(e.hands)
        hands[2] = (other, *hand[1:])
        aside = tuple(hand[0] if c == other else c for c in e.aside or ())
        return Dealt(e.seq, e.round, e.dealer, tuple(hands), aside, e.turned)

    assert problem(tmp_path, _rewrite(text, Dealt, swap)) == (
        f"round 1 deal does not match the rules: seat 2's hand has {other} where the seed "
        f"deals {hand[0]}; the cards aside are {','.join(map(str, swap(deal).aside or ()))} "
        f"where the seed deals {','.join(map(str, deal.aside or ()))}")

    def won(e: TrickWon) -> TrickWon:
        return TrickWon(e.seq, (e.seat + 1) % 3, e.trick)

    trick = next(e for e in read_record_text(text).events if isinstance(e, TrickWon))
    assert problem(tmp_path, _rewrite(text, TrickWon, won)) == (
        f"trick 1 won by seat {(trick.seat + 1) % 3} does not match the rules: the seat is "
        f"seat {(trick.seat + 1) % 3} where the rules give seat {trick.seat}")

    def score(e: RoundScored) -> RoundScored:
        return RoundScored(e.seq, e.round, e.bids, e.tricks,
                           (e.points[0] + 5, *e.points[1:]), e.totals)

    scored = next(e for e in read_record_text(text).events if isinstance(e, RoundScored))
    assert problem(tmp_path, _rewrite(text, RoundScored, score)) == (
        f"round 1 scoring does not match the rules: seat 0's points are "
        f"{scored.points[0] + 5} where the rules give {scored.points[0]}")


def test_a_play_where_a_lead_is_due_is_said_so(tmp_path: Path) -> None:
    text = game_text()
    record = read_record_text(text)
    lead = next(e for e in record.events if type(e).__name__ == "Led")
    line = format_event(lead, game_rules("xactika"))
    played = line.replace(" lead ", " play ", 1).rsplit(" call=", 1)[0]
    forged = "\n".join(played if ln.split(" h=")[0] == line else ln.split(" h=")[0]
                       for ln in text.splitlines())
    reason = problem(tmp_path, sign_record(forged + "\n"))
    assert reason.startswith(f"illegal play of {lead.card} by seat {lead.seat}: leading "
                             f"{lead.card} needs one of the calls ")


# --------------------------------------------------------------------------- date, result


def test_the_date_is_when_the_game_started_in_the_z_form(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    from xactika.core import start
    from xactika.core.bots.agents import make_agent
    from xactika.frontends.repl.shell import BOT, HUMAN, SeatSpec
    from xactika.frontends.repl.shell import Shell as Repl

    clock = [1_700_000_000.0]
    real = time.gmtime
    monkeypatch.setattr(time, "gmtime", lambda t=None: real(clock[0] if t is None else t))
    seats = [SeatSpec(HUMAN), SeatSpec(BOT, "random")]
    repl = Repl(start(Config(players=2, rounds=1, seed=4)), seats,
                lambda s: make_agent("random", s))
    clock[0] += 3600  # saved an hour later
    assert "saved" in repl.save(str(tmp_path / "g.log"))
    date = read_record(tmp_path / "g.log").header("date")
    assert date == "2023-11-14T22:13:20Z"


def test_a_finished_record_ends_with_its_result_and_audit_checks_it(tmp_path: Path) -> None:
    text = game_text()
    lines = text.splitlines()
    record = read_record_text(text)
    over = record.events[-1]
    names = ["ann", "bob", "cy"]
    (winner,) = over.winners  # type: ignore[attr-defined]
    want = (f"result seat {winner} ({names[winner]}) wins; totals: "
            + ", ".join(f"{n} {t}" for n, t in zip(names, over.totals, strict=True)))  # type: ignore[attr-defined]
    assert lines[-1] == want and record.result == want
    assert lines[-2].split()[2] == "game-over"
    # a tie names every winner
    assert result_line([("seats", "a,b,c")], (5, 5, 1), (0, 1)) == (
        "result seats 0 (a) and 1 (b) share the win; totals: a 5, b 5, c 1")
    assert result_line([], (1, 7), (1,)) == "result seat 1 wins; totals: seat 0 1, seat 1 7"
    # outside the chain, so a forger could change it: audit derives it again
    path = tmp_path / "g.log"
    path.write_text(text.replace(want, want.replace(f"({names[winner]}) wins",
                                                     "(mallory) wins")), encoding="utf-8")
    report = audit_file(str(path))
    assert report.status == "invalid"
    assert (report.problems[0].line, report.problems[0].reason.split(" but ")[1]) == (
        len(lines), f"game-over says {want.removeprefix('result ')!r}")
    # JSONL carries it, and the engine takes it as input
    jsonl = text_to_jsonl(lines)
    assert '{"type":"result","text":"seat ' in jsonl
    assert read_record_text(jsonl).result == want
    engine = RefereeSession()
    answers = [engine.feed(line)[-1] for line in lines]
    assert answers[-1] == "ok result" and all(a.startswith("ok") for a in answers)
    assert engine.feed("newgame players=2 rounds=1 seed=1")[-1] == "ok newgame"
    assert engine.feed(want)[0].startswith("error ")  # before game-over it is refused


def test_audit_quotes_a_strange_word_escaped_and_marks_the_cut() -> None:
    from xactika.protocol.trust.audit import audit_lines

    report = audit_lines(["header record 1", "\x1b[2J" + "x" * 60 + " 1"], "hostile")
    reason = report.problems[0].reason
    assert "\x1b" not in reason and "\\x1b[2J" in reason
    assert reason.endswith("...'")  # cut, and says so
