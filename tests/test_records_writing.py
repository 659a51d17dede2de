"""protocol/records/writing.py: the one way records reach the disk, and their headers."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import pytest

from xactika.core.engine.api import Config
from xactika.protocol.records.assemble import standard_headers
from xactika.protocol.records.writing import write_record_file


def test_a_record_replaces_the_old_one_whole_and_leaves_no_temporary_file(
        tmp_path: Path) -> None:
    path = tmp_path / "g.log"
    path.write_text("old\n", encoding="utf-8")
    seen: list[str] = []
    write_record_file(path, "new\n", before_rename=lambda: seen.append(path.read_text()))
    assert seen == ["old\n"]  # the hook runs before the new text takes the name
    assert path.read_text(encoding="utf-8") == "new\n"
    assert sorted(os.listdir(tmp_path)) == ["g.log"]


def test_a_failure_before_the_rename_keeps_the_old_record_and_cleans_up(
        tmp_path: Path) -> None:
    path = tmp_path / "g.log"
    path.write_text("old\n", encoding="utf-8")

    def refuse() -> None:
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space"):
        write_record_file(path, "new\n", before_rename=refuse)
    assert path.read_text(encoding="utf-8") == "old\n"
    assert sorted(os.listdir(tmp_path)) == ["g.log"]


def test_the_standard_headers_come_in_one_order() -> None:
    seeded = Config(mode="bid", players=3, rounds=2, seed=42)
    when = dt.datetime(2026, 1, 2, 3, 4, 5, 678, tzinfo=dt.UTC)
    assert standard_headers(seeded, ["a", "b", "c"], date=when, event="e", deal="ignored",
                            extra=[("x", "1")]) == [
        ("game", "xactika"), ("mode", "bid"), ("players", "3"), ("seats", "a,b,c"),
        ("seed", "42"), ("date", "2026-01-02T03:04:05Z"), ("event", "e"), ("x", "1")]
    unseeded = Config(mode="win", players=2, rounds=1)
    assert standard_headers(unseeded, deal="deal 3 of f") == [
        ("game", "xactika"), ("mode", "win"), ("players", "2"), ("deal", "deal 3 of f")]
    assert standard_headers(seeded, ["a", "b", "c"], seed=False) == [
        ("game", "xactika"), ("mode", "bid"), ("players", "3"), ("seats", "a,b,c")]
