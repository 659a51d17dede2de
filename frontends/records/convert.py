"""``xactika convert LOG --to jsonl|text``: a record in its other form, losing nothing.

A games file (many records, spec/RECORDS.md) converts record by record, its separators
with them.

Every header, event and hash-chain token is carried over as it is, so text -> JSONL ->
text gives back the same bytes for a record as the engine writes it (comments and blank
lines, which carry nothing, are not kept). A record that does not read is refused with
the line that failed; its chain is not checked here: that is ``xactika audit``'s job.
"""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Iterable, Sequence

from xactika.frontends.cli.options import OneLineParser
from xactika.protocol.notation.untrusted import escape
from xactika.protocol.records.files import bounded_lines, open_regular
from xactika.protocol.records.games import (
    Part,
    format_separator,
    is_games_file,
    read_games,
    shifted,
)
from xactika.protocol.records.jsonl import is_jsonl, jsonl_to_text, text_to_jsonl
from xactika.protocol.records.textform import RecordError
from xactika.protocol.records.writing import write_record_file


def build_parser() -> argparse.ArgumentParser:
    ap = OneLineParser(
        prog="xactika convert",
        description="Convert a record between its text form and its JSONL form (losslessly).",
    )
    ap.add_argument("log", metavar="LOG", help="the record to read ('-' for stdin), or a "
                    "games file (a match's all-games.txt): every record in it")
    ap.add_argument("--to", required=True, choices=("jsonl", "text"), help="the form to write")
    ap.add_argument("-o", "--output", metavar="PATH", default=None,
                    help="write here instead of standard output (replaced atomically)")
    return ap


def convert_lines(lines: Sequence[bytes], to: str) -> str:
    """The converted text; raises RecordError naming the line that does not read."""
    first = next((ln for ln in lines if ln.strip()), b"")
    source = "jsonl" if is_jsonl(first) else "text"
    if source == to:
        raise RecordError(f"line 0: the record is already {to}")
    return text_to_jsonl(lines) if to == "jsonl" else jsonl_to_text(lines)


def convert_games(parts: Iterable[Part], to: str) -> str:
    """A games file in the other form: each separator and each record converted."""
    out = []
    for part in parts:
        try:
            text = convert_lines(list(bounded_lines(io.BytesIO(part.data))), to)
        except RecordError as exc:
            raise shifted(exc, part.line) from None
        out.append(format_separator(part.name, jsonl=to == "jsonl") + text)
    return "".join(out)


def main(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.log == "-":
            result = convert_lines(list(bounded_lines(sys.stdin.buffer)), args.to)
        elif is_games_file(args.log):  # many records (spec/RECORDS.md): one at a time
            result = convert_games(read_games(args.log), args.to)
        else:
            with open_regular(args.log) as fh:  # not a FIFO, not /dev/zero
                lines = list(bounded_lines(fh))
            result = convert_lines(lines, args.to)
    except OSError as exc:
        print(f"xactika convert: cannot read {escape(args.log)!r}: {exc.strerror}",
              file=sys.stderr)
        return 2
    except RecordError as exc:
        print(f"xactika convert: {escape(args.log)}:{exc}".replace(":line ", ":", 1),
              file=sys.stderr)
        return 2
    if args.output is None:
        sys.stdout.buffer.write(result.encode("utf-8"))
        sys.stdout.flush()
        return 0
    try:
        write_record_file(args.output, result, mode=0o600)
    except OSError as exc:
        print(f"xactika convert: cannot write {args.output!r}: {exc.strerror}", file=sys.stderr)
        return 2
    return 0


