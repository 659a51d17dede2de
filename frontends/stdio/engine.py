"""``xactika engine``: the referee protocol (spec/PROTOCOL.md) on stdin/stdout.

Only the session and the core are imported here: start-up time is part of the protocol's
contract with controllers that start an engine per game.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse


def build_parser() -> argparse.ArgumentParser:
    from xactika.frontends.cli.options import OneLineParser

    ap = OneLineParser(
        prog="xactika engine",
        description="The referee protocol on stdin/stdout (see spec/PROTOCOL.md).",
    )
    ap.add_argument("--seat", type=int, default=None,
                    help="print only what this seat may know (default: everything)")
    ap.add_argument("--record", metavar="PATH", default=None,
                    help="write each game's log to PATH as it goes (flushed per event)")
    ap.add_argument("--files", metavar="DIR", default=None,
                    help="let the load and record commands name files inside DIR, and "
                    "nowhere else (default: they are refused)")
    ap.add_argument("--fsync", action="store_true",
                    help="with --record: force every line to disk, not just to the OS")
    ap.add_argument("--key", metavar="FILE", default=None,
                    help="sign records with this private key (default: the user's key, "
                    "made on first use; see xactika keygen)")
    return ap


def main(argv: Sequence[str]) -> int:
    seat: int | None = None
    record: str | None = None
    fsync = False
    key: str | None = None
    files: str | None = None
    if argv:  # argparse (and gettext) only when there is something to parse
        args = build_parser().parse_args(argv)
        if args.seat is not None and args.seat < 0:
            print(f"xactika engine: --seat must be 0 or more, not {args.seat}",
                  file=sys.stderr)
            return 2
        seat, record, fsync, key = args.seat, args.record, args.fsync, args.key
        files = args.files
    from xactika.protocol.referee.sansio import RefereeSession
    from xactika.protocol.referee.stdio import serve
    from xactika.protocol.trust.signing import KeyFileError, load_signer, signer_for

    if key is not None:
        try:
            load_signer(key)  # a bad key is refused at the start, not at the first record
        except KeyFileError as exc:
            print(f"xactika engine: --key: {exc}", file=sys.stderr)
            return 2
    try:
        session = RefereeSession(seat=seat, record=record, fsync=fsync,
                          signer=lambda: signer_for(key), files=files,
                          lock_view=seat is not None)
    except OSError as exc:
        print(f"xactika engine: --files: {exc.strerror}", file=sys.stderr)
        return 2
    return serve(session, sys.stdin.buffer, sys.stdout.buffer)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
