"""``xactika engine``: the referee protocol (spec/PROTOCOL.md) on stdin/stdout.

Only the session and the core are imported here: start-up time is part of the protocol's
contract with controllers that start an engine per game.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="xactika engine",
        description="The referee protocol on stdin/stdout (see spec/PROTOCOL.md).",
    )
    ap.add_argument("--seat", type=int, default=None,
                    help="print only what this seat may know (default: everything)")
    ap.add_argument("--record", metavar="PATH", default=None,
                    help="write each game's log to PATH as it goes (flushed per event)")
    ap.add_argument("--fsync", action="store_true",
                    help="with --record: force every line to disk, not just to the OS")
    return ap


def main(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(argv)
    if args.seat is not None and args.seat < 0:
        print(f"xactika engine: --seat must be 0 or more, not {args.seat}", file=sys.stderr)
        return 2
    from xactika.protocol.session import Session
    from xactika.protocol.stdio import serve

    session = Session(seat=args.seat, record=args.record, fsync=args.fsync)
    return serve(session, sys.stdin.buffer, sys.stdout.buffer)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
