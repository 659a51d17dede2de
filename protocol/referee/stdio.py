"""The thin loop: byte lines from a stream into a RefereeSession, its answers out, flushed.

Reading is bounded: a line longer than the limit is consumed and discarded in chunks,
so a flood cannot exhaust memory, and the session reports it as ``error toolong``.
"""

from __future__ import annotations

from typing import BinaryIO

from xactika.protocol.records.textform import MAX_LINE
from xactika.protocol.referee.sansio import RefereeSession


def serve(session: RefereeSession, stdin: BinaryIO, stdout: BinaryIO) -> int:
    """Run until ``quit`` or end of input; returns the exit status."""
    chunk = MAX_LINE + 3  # the longest line with its "\r\n", plus one byte to tell
    try:
        while not session.done:
            line = stdin.readline(chunk)
            if not line:
                break
            if len(line) >= chunk and not line.endswith(b"\n"):
                while True:  # over-long: drop the rest of it, answer once
                    more = stdin.readline(chunk)
                    if not more or more.endswith(b"\n"):
                        break
            out = session.feed(line)
            if out:
                # every line of the answer goes out before the next command is read
                stdout.write("".join(o + "\n" for o in out).encode("utf-8"))
                stdout.flush()
    finally:
        session.close()
    return 0
