"""``xactika audit LOG... [--json]``: prove that records are legal, complete and untampered.

Exit status: 0 every log is clean, 1 some log has a violation or is unfinished, 2 some
log could not be read at all (missing, not UTF-8, not a record). spec/TAMPER.md.
Each log's report is written as soon as it is audited and then dropped, so auditing a
hundred thousand logs takes no more memory than auditing one.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from typing import TextIO

from xactika.protocol.audit import UNREADABLE, LogReport, Problem, Summary, audit_file

RECORD_SUFFIXES = (".log", ".rec")


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="xactika audit",
        description="Check record files: every bid and card legal, every derived event as "
        "the rules compute it, headers consistent, the game complete, the hash chain and "
        "the seed commitment intact. Problems are printed as FILE:LINE: REASON. "
        "A directory stands for every *.log and *.rec file under it.",
        epilog="exit status: 0 clean, 1 violations or unfinished games, 2 unreadable input",
    )
    ap.add_argument("logs", nargs="+", metavar="LOG",
                    help="record files or directories ('-' for stdin)")
    ap.add_argument("--json", action="store_true", help="print the report as one JSON object")
    ap.add_argument(
        "--strict", action="store_true",
        help="also fail logs without a hash chain or without a seed commitment",
    )
    ap.add_argument("--quiet", "-q", action="store_true",
                    help="print problems only, no per-log lines or summary")
    return ap


def expand(paths: Iterable[str]) -> Iterator[str]:
    """Paths, with each directory replaced by the record files under it (sorted)."""
    for path in paths:
        if path == "-" or not os.path.isdir(path):
            yield path
            continue
        found = False
        for folder, dirs, files in os.walk(path):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(RECORD_SUFFIXES):
                    found = True
                    yield os.path.join(folder, name)
        if not found:
            yield path  # audit_file reports it: a directory, not a record


def reports(paths: Iterable[str], *, strict: bool = False) -> Iterator[LogReport]:
    for path in expand(paths):
        if os.path.isdir(path):
            report = LogReport(path, status=UNREADABLE)
            report.problems.append(Problem(0, "a directory with no record files "
                                              f"({', '.join('*' + s for s in RECORD_SUFFIXES)})"))
            yield report
        else:
            yield audit_file(path, strict=strict)


def run(paths: Iterable[str], out: TextIO, *, as_json: bool = False, strict: bool = False,
        quiet: bool = False) -> int:
    """Audit and report, one log at a time; returns the exit status."""
    summary = Summary()
    if as_json:
        out.write('{"logs": [')
    for n, report in enumerate(reports(paths, strict=strict)):
        summary.add(report)
        if as_json:
            out.write(("\n " if n == 0 else ",\n ") + json.dumps(report.to_json()))
        else:
            print_report(report, out, quiet=quiet)
    code = summary.exit_code
    if as_json:
        out.write(f'\n],\n "summary": {json.dumps(summary.to_json())},\n "exit": {code}}}\n')
    elif not quiet:
        print_summary(summary, out)
    return code


def main(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(argv)
    return run(args.logs, sys.stdout, as_json=args.json, strict=args.strict, quiet=args.quiet)


def print_report(report: LogReport, out: TextIO, *, quiet: bool = False) -> None:
    for p in report.problems:
        print(f"{report.file}:{p.line}: {p.reason}", file=out)
    if report.dropped:
        print(f"{report.file}: ... and {report.dropped} more problems", file=out)
    if quiet:
        return
    if report.game is None:
        print(f"{report.file}: {report.status}", file=out)
        return
    facts = [f"{report.game} {report.mode}", _count(report.players, "player"),
             _count(report.rounds, "round"), _count(report.events, "event")]
    if report.unjudged:
        facts.append(f"{report.unjudged} events not judged after the first violation")
    facts.append("signed" if report.signed else "unsigned")
    facts.append("committed" if report.committed else "no commitment")
    line = f"{report.file}: {report.status} ({', '.join(facts)})"
    if report.totals is not None:
        names = report.names()
        won = set(report.winners or ())
        scores = ", ".join(
            f"{names[s] if s < len(names) else s} {t}{'*' if s in won else ''}"
            for s, t in enumerate(report.totals)
        )
        line += f"\n  totals: {scores}"
    if report.head is not None:
        line += f"\n  head: {report.head}"
    print(line, file=out)


def _count(n: int | None, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def print_summary(s: Summary, out: TextIO) -> None:
    print(
        f"audited {_count(s.logs, 'log')}: {_count(s.games, 'game')} "
        f"({s.complete} clean and complete, "
        f"{s.unfinished} unfinished, {s.invalid} invalid, {s.unreadable} unreadable), "
        f"{_count(s.events, 'event')}, {_count(s.rounds, 'round')}, "
        f"{_count(s.problems, 'problem')}",
        file=out,
    )
    if s.players:
        width = max(6, *(len(n) for n in s.players))
        print(f"  {'player':<{width}}  games  wins  points", file=out)
        for name, p in s.players.items():
            print(f"  {name:<{width}}  {p.games:>5}  {p.wins:>4}  {p.points:>6}", file=out)
