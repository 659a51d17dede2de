"""``xactika audit LOG... [--json]``: prove that records are legal, complete and untampered.

Exit status: 0 every log is clean, 1 some log has a violation or is unfinished, 2 some
log could not be read at all (missing, not UTF-8, not a record). spec/TAMPER.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from xactika.protocol.audit import LogReport, audit_file, exit_code, summarize


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="xactika audit",
        description="Check record files: every bid and card legal, every derived event as "
        "the rules compute it, headers consistent, the game complete, the hash chain and "
        "the seed commitment intact. Problems are printed as FILE:LINE: REASON.",
        epilog="exit status: 0 clean, 1 violations or unfinished games, 2 unreadable input",
    )
    ap.add_argument("logs", nargs="+", metavar="LOG", help="record files ('-' for stdin)")
    ap.add_argument("--json", action="store_true", help="print the report as one JSON object")
    ap.add_argument(
        "--strict", action="store_true",
        help="also fail logs without a hash chain or without a seed commitment",
    )
    ap.add_argument("--quiet", "-q", action="store_true",
                    help="print problems only, no per-log lines or summary")
    return ap


def main(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(argv)
    reports: list[LogReport] = []
    for path in args.logs:
        report = audit_file(path, strict=args.strict)
        reports.append(report)
        if not args.json:
            print_report(report, quiet=args.quiet)
    code = exit_code(reports)
    summary = summarize(reports)
    if args.json:
        json.dump({"logs": [r.to_json() for r in reports], "summary": summary, "exit": code},
                  sys.stdout, indent=1)
        print()
    elif not args.quiet:
        print_summary(summary)
    return code


def print_report(report: LogReport, *, quiet: bool = False) -> None:
    for p in report.problems:
        print(f"{report.file}:{p.line}: {p.reason}")
    if report.dropped:
        print(f"{report.file}: ... and {report.dropped} more problems")
    if quiet:
        return
    if report.game is None:
        print(f"{report.file}: {report.status}")
        return
    facts = [f"{report.game} {report.mode}", f"{report.players} players",
             f"{report.rounds} rounds", f"{report.events} events"]
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
    print(line)


def print_summary(summary: dict[str, object]) -> None:
    s = summary
    print(
        f"audited {s['logs']} logs: {s['games']} games ({s['complete']} clean and complete, "
        f"{s['unfinished']} unfinished, {s['invalid']} invalid, {s['unreadable']} unreadable), "
        f"{s['events']} events, {s['rounds']} rounds, {s['problems']} problems"
    )
    players = s["players"]
    assert isinstance(players, dict)
    if players:
        width = max(6, *(len(n) for n in players))
        print(f"  {'player':<{width}}  games  wins  points")
        for name, p in players.items():
            print(f"  {name:<{width}}  {p['games']:>5}  {p['wins']:>4}  {p['points']:>6}")
