"""The thin stdin/stdout loop, on in-memory byte streams."""

from __future__ import annotations

import io

from xactika.protocol.records.textform import MAX_LINE
from xactika.protocol.referee.sansio import RefereeSession
from xactika.protocol.referee.stdio import serve


class CountingOut(io.BytesIO):
    flushes = 0

    def flush(self) -> None:
        self.flushes += 1
        super().flush()


def run(data: bytes) -> tuple[list[str], int]:
    out = CountingOut()
    assert serve(RefereeSession(seeds=lambda: 1), io.BytesIO(data), out) == 0
    return out.getvalue().decode().splitlines(), out.flushes


def test_over_long_lines_are_dropped_whole_and_reading_goes_on() -> None:
    data = (b"isready\n" + b"bid " + b"9" * (MAX_LINE * 3) + b"\n" + b"x" * MAX_LINE
            + b"\r\nisready\n")
    lines, _ = run(data)
    assert len(lines) == 4 and lines[0] == lines[3] == "readyok"
    assert lines[1].startswith("error toolong ")
    # exactly MAX_LINE bytes is allowed (and then just an unknown command)
    assert lines[2].startswith("error unknown unknown command 'xxxx")


def test_every_answer_is_flushed_before_the_next_read() -> None:
    lines, flushes = run(b"isready\n\n# note\nhello\nknown bid\n")
    assert lines[0] == "readyok" and lines[1].startswith("id name=xactika ")
    assert lines[2:] == ["ok hello", "ok known yes"]
    assert flushes == 3  # one per answered command; blank and comment lines get none


def test_quit_stops_reading_and_a_last_line_needs_no_newline() -> None:
    assert run(b"isready\nquit\nisready\n")[0] == ["readyok", "ok quit"]
    assert run(b"hello 1\r\nisready")[0][-1] == "readyok"
    assert run(b"\xff\xfeisready\nisready\n")[0][0].startswith("error utf8 ")
