"""The executable spec: every transcript in spec/PROTOCOL.md runs against the session."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from xactika.protocol.referee.sansio import RefereeSession

SPEC = Path(__file__).resolve().parent.parent / "spec" / "PROTOCOL.md"
BLOCK = re.compile(r"^```transcript\n(.*?)^```$", re.S | re.M)


def transcripts() -> list[str]:
    return BLOCK.findall(SPEC.read_text(encoding="utf-8"))


def run(block: str) -> tuple[list[str], list[str]]:
    """(expected, actual) lines: input lines are echoed so both sides interleave."""
    session = RefereeSession(clock=lambda: "2026-01-01T00:00:00Z", seeds=lambda: 42,
                      nonces=lambda: "0" * 32)
    expected = block.splitlines()
    actual: list[str] = []
    for line in expected:
        if line.startswith(">"):
            actual.append(line)
            actual.extend(session.feed(line[2:]))
    return expected, actual


def test_spec_has_transcripts() -> None:
    assert len(transcripts()) >= 5


@pytest.mark.parametrize("index", range(len(transcripts())))
def test_transcript_matches_the_engine(index: int) -> None:
    expected, actual = run(transcripts()[index])
    assert actual == expected
