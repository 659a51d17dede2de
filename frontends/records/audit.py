"""``xactika audit LOG... [--json]``: prove that records are legal, complete and untampered.

Exit status: 0 every log is clean, 1 some log has a violation or is unfinished, 2 some
log could not be read at all (missing, not UTF-8, not a record). spec/TAMPER.md.
Each log's report is written as soon as it is audited and then dropped, so auditing a
hundred thousand logs takes little more memory than auditing one (the copy check keeps
about 200 bytes a record: protocol/trust/folders.py).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
import sys
from collections.abc import Iterable, Iterator, Sequence
from typing import TextIO

from xactika.frontends.cli.options import OneLineParser
from xactika.frontends.i18n import later
from xactika.frontends.parallel import (
    Backend,
    ClusterError,
    ProcessBackend,
    RayBackend,
    RaySession,
    batches,
    ordered,
    parse_cluster,
)
from xactika.protocol.notation.untrusted import escape, is_safe
from xactika.protocol.records.files import MAX_RECORD_BYTES, open_regular
from xactika.protocol.records.games import is_games_file, read_games
from xactika.protocol.records.textform import RecordError
from xactika.protocol.trust.audit import (
    BAD_SIGNATURE,
    INVALID,
    MISSING,
    UNREADABLE,
    VERIFIED,
    LogReport,
    Problem,
    Summary,
    Trusted,
    audit_file,
)
from xactika.protocol.trust.fastaudit import audit_data, audit_path
from xactika.protocol.trust.folders import (
    FolderChecks,
    arena_ladders,
    match_folder,
    no_manifest,
)
from xactika.protocol.trust.manifest import (
    MANIFEST_FILE,
    ManifestCheck,
    check_manifest,
    compare,
)
from xactika.protocol.trust.signing import (
    KeyFileError,
    PublicKey,
    default_key_path,
    load_public_keys,
    public_key_arg,
)

RECORD_SUFFIXES = (".log", ".rec", ".jsonl")
SET_ASIDE = (".rejected", ".tmp", ".bak")  # records put aside, never counted
SNIFF_BYTES = 4096  # a file of another name is a record when its first line is one
# a text record's first line, or a JSONL one's (writers put the "type" tag first)
_RECORD_START = re.compile(r'(?:header|event)[ \t]|\{\s*"type"\s*:\s*"(?:header|game-started)"')
BATCH = 16  # records a parallel job audits: amortises a task's cost over many small files

# one record to audit: its path (read where it is audited), its bytes (read by the driver
# for a cluster node that may not see the file), a record of a games file (its bytes and
# the line its separator is on), or a report already made by the driver
Item = (tuple[str, str] | tuple[str, str, bytes] | tuple[str, str, bytes, int]
        | tuple[str, LogReport])
Job = tuple[list[Item], bool, frozenset[PublicKey]]


def build_parser() -> argparse.ArgumentParser:
    ap = OneLineParser(
        prog="xactika audit",
        description="Check record files: every bid and card legal, every derived event as "
        "the rules compute it, headers consistent, the game complete, the hash chain and "
        "the seed commitment intact. Problems are printed as FILE:LINE: REASON. "
        "A directory stands for every record file under it: *.log, *.rec, *.jsonl, and "
        "any other file that starts as a record does (a REPL save of any name); a games "
        "file (a match's all-games.txt) named here is audited record by record, as "
        "FILE[NAME].",
        epilog="exit status: 0 clean, 1 violations or unfinished games, 2 unreadable input",
    )
    ap.add_argument("logs", nargs="*", metavar="LOG",
                    help="record files or directories ('-' for stdin)")
    ap.add_argument("--json", action="store_true", help="print the report as one JSON object")
    ap.add_argument(
        "--strict", action="store_true",
        help="also fail logs without a hash chain, without a seed commitment, or without "
        "a signature by a trusted key",
    )
    ap.add_argument("--key", action="append", default=[], metavar="PUB",
                    help="trust this public key: a file (ed25519:<hex>, ssh-ed25519 or PEM) "
                    "or the text ed25519:<hex>; repeatable")
    ap.add_argument("--trusted-keys", action="append", default=[], metavar="FILE",
                    help="trust every key in FILE (one a line, # comments)")
    ap.add_argument("--manifest", action="append", default=[], metavar="FILE",
                    help=later("check the records of FILE's match folder against this "
                               "manifest (a folder holding {file} is checked without it)",
                               file=MANIFEST_FILE))
    ap.add_argument("--manifest-gone", action="store_true",
                    help=later("a match folder without its {file} is known to have lost it: "
                               "a warning, not a failure (except with --strict)",
                               file=MANIFEST_FILE))
    ap.add_argument("--quiet", "-q", action="store_true",
                    help="print problems only, no per-log lines or summary")
    ap.add_argument("-j", "--jobs", type=int, default=1, metavar="N",
                    help="audit in N processes (default 1); the output is the serial run's")
    ap.add_argument("--cluster", default=None, metavar="ray[=ADDRESS]",
                    help="audit on a Ray cluster (pip install 'xactika[ray]'): the driver "
                    "reads the records and reports in input order, as a serial run does")
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
                if name.endswith(RECORD_SUFFIXES) or looks_like_record(folder, name):
                    found = True
                    yield os.path.join(folder, name)
        if not found:
            yield path  # audit_file reports it: a directory, not a record


def looks_like_record(folder: str, name: str) -> bool:
    """Whether a file of another name starts as a text or JSONL record does: its first
    line a header or an event. Hidden files (a writer's temporary ones), the match
    manifest and records the match runner set aside are not audited."""
    if name.startswith(".") or name == MANIFEST_FILE or name.endswith(SET_ASIDE):
        return False
    try:
        with open_regular(os.path.join(folder, name)) as fh:
            head = fh.read(SNIFF_BYTES)
    except OSError:
        return False
    for raw in head.splitlines():
        line = raw.decode("utf-8", "replace").strip()
        if not line or line.startswith("#"):
            continue
        return bool(_RECORD_START.match(line))
    return False


def reports(paths: Iterable[str], *, strict: bool = False, trusted: Trusted = (),
            manifests: Sequence[str] = (), pool: Pool | None = None,
            manifest_gone: bool = False) -> Iterator[LogReport]:
    """Each path's reports; a match folder's (with its manifest) ends in the manifest's,
    or in the problem of its absence (a warning with ``manifest_gone``).

    With a ``pool`` the records are audited there, and reported in the same order.
    Across all of them, :class:`FolderChecks` checks ids and counts copies once.
    """
    checks = FolderChecks()
    folders: list[tuple[str, str | None, str]] = []
    plain: list[str] = []
    given: list[tuple[str, str, str | None]] = [
        (os.path.dirname(m) or ".", m, None) for m in manifests]
    for path in (one for given_path in paths
                 for one in arena_ladders(given_path) or [given_path]):
        folder = match_folder(path)
        if folder is None:
            plain.append(path)
        else:
            given.append((folder, os.path.join(folder, MANIFEST_FILE), path))
    for folder, manifest, named in given:
        if any(os.path.realpath(folder) == os.path.realpath(f) for f, _, _ in folders):
            continue  # the same match twice (a folder and its manifest, M and M/games)
        # a manifest named by --manifest is read even if absent: its report says so
        kept = manifest if named is None or os.path.isfile(manifest) else None
        folders.append((folder, kept, named or folder))
    # match folders first: a record also named on its own is then audited as the match's
    for folder, found, root in folders:
        check = check_manifest(found) if found is not None else None
        match = check.match_id if check is not None and check.intact else None
        heads: list[tuple[str, str | None]] = []
        files = [p for p in expand([root]) if not os.path.isdir(p)]
        for report in _records(_once(files, checks), strict, trusted, pool):
            checks.check(report, match, in_match=True)
            rel = os.path.relpath(report.file, folder).replace(os.sep, "/")
            heads.append((rel, report.head))
            yield report
        if found is None:
            yield no_manifest(folder, strict, manifest_gone)
        else:
            yield manifest_report(found, heads, strict, trusted, check)
    # one stream for all the plain paths: a pool works on many of them at once
    for report in _records(_once(plain, checks), strict, trusted, pool):
        checks.check(report)
        yield report


def _once(paths: Iterable[str], checks: FolderChecks) -> Iterator[str]:
    """The record files of ``paths``, each file once (a path given twice, a hard link)."""
    for path in expand(paths):
        if path == "-" or not checks.seen_file(path):
            yield path


def _items(paths: Iterable[str], strict: bool, trusted: Trusted,
           pool: Pool | None) -> Iterator[Item]:
    """What to audit: a games file named on the command line is split into its records
    (files found in a folder are *.log and *.rec records, never looked into)."""
    for path in paths:
        if path != "-" and not os.path.isdir(path) and is_games_file(path):
            yield from games_items(path)
            continue
        for found in expand([path]):
            yield ("path", found) if pool is None else pool.item(found, strict, trusted)


def games_items(path: str) -> Iterator[Item]:
    """A games file's records (spec/RECORDS.md), each named ``FILE[NAME]``."""
    try:
        for part in read_games(path):
            yield ("part", f"{path}[{escape(part.name, 200)}]", part.data, part.line)
    except RecordError as exc:
        report = LogReport(path, status=UNREADABLE)
        line, _, reason = str(exc).removeprefix("line ").partition(": ")
        report.problems.append(Problem(int(line) if line.isdigit() else 0, reason))
        yield ("report", report)


def _records(paths: Iterable[str], strict: bool, trusted: Trusted,
             pool: Pool | None = None) -> Iterator[LogReport]:
    if pool is None:
        for item in _items(paths, strict, trusted, None):
            yield audit_item(item, strict, trusted)
        return
    items = _items(paths, strict, trusted, pool)
    jobs = ((batch, strict, frozenset(trusted)) for batch in batches(items, BATCH))
    for found in ordered(jobs, pool.backend, pool.window):
        yield from found


def audit_item(item: Item, strict: bool, trusted: Trusted) -> LogReport:
    """One record's report, wherever it runs: the serial loop, a process, a Ray task."""
    if isinstance(item[1], LogReport):
        return item[1]
    path = item[1]
    if len(item) == 4:  # one record of a games file: its lines counted in the file
        report = audit_data(item[2], path, strict=strict, trusted=trusted)
        offset = item[3]
        report.problems = [Problem(p.line + offset if p.line else offset, p.reason)
                           for p in report.problems]
        return report
    # the lean path first (protocol/trust/fastaudit.py): it answers only "clean" and hands
    # everything else to the full auditor, so the report is the full auditor's either way
    if len(item) == 3:
        return audit_data(item[2], path, strict=strict, trusted=trusted)
    if os.path.isdir(path):
        report = LogReport(path, status=UNREADABLE)
        report.problems.append(Problem(
            0, "a directory with no record files "
            f"({', '.join('*' + s for s in RECORD_SUFFIXES)}, or starting as a record does)"))
        return report
    return audit_path(path, strict=strict, trusted=trusted)


def audit_job(job: Job) -> list[LogReport]:
    """A batch of records audited in a worker process or a Ray task."""
    items, strict, trusted = job
    return [audit_item(item, strict, trusted) for item in items]


class Pool:
    """Where records are audited besides the serial loop: N processes or a Ray cluster."""

    def __init__(self, backend: Backend[Job, list[LogReport]], window: int,
                 ship: bool) -> None:
        self.backend = backend
        self.window = window
        self.ship = ship  # send the bytes: cluster nodes need not see the driver's files

    def item(self, path: str, strict: bool, trusted: Trusted) -> Item:
        if path == "-":  # standard input is the driver's
            return ("report", audit_file(path, strict=strict, trusted=trusted))
        if not self.ship or os.path.isdir(path):
            return ("path", path)
        try:
            fh = open_regular(path)
        except OSError:  # reported by audit_file as a serial run reports it
            return ("report", audit_file(path, strict=strict, trusted=trusted))
        with fh:  # bounded_lines stops past MAX_RECORD_BYTES at the same line
            return ("bytes", path, fh.read(MAX_RECORD_BYTES + 1))

    def close(self) -> None:
        self.backend.close()


def manifest_report(path: str, heads: Iterable[tuple[str, str | None]], strict: bool,
                    trusted: Trusted, check: ManifestCheck | None = None) -> LogReport:
    """A match's manifest against the records found: deleted, added or replaced games."""
    check = check if check is not None else check_manifest(path)
    report = LogReport(path, kind="manifest")
    for line, reason in check.problems:
        report.add(line, f"manifest: {reason}")
    if check.signer is not None:
        report.signer = check.signer
        for line, reason in compare(check, heads):
            report.add(line, reason)
        for file, times in sorted(check.replaced.items()):  # a re-rolled game is visible
            report.notes.append(f"{escape(file, 200)}: played {times + 1} times: --resume "
                                "set the earlier records aside and the last one counts")
        if check.signer in trusted:
            report.signature = VERIFIED
        else:
            text = (f"signer unknown: the manifest is signed by {check.signer.fingerprint}, "
                    "a key not named with --key or --trusted-keys")
            if strict:
                report.add(1, text + " (--strict)")
            else:
                report.notes.append(text)
    if report.problems or report.dropped:
        report.status = INVALID
    return report


def trusted_keys(keys: Sequence[str], files: Sequence[str]) -> frozenset[PublicKey]:
    """The keys named by --key and --trusted-keys; KeyFileError for one that is unusable."""
    found: set[PublicKey] = set()
    for text in (*keys, *files):
        found.update(public_key_arg(text))
    return frozenset(found)


def run(paths: Iterable[str], out: TextIO, *, as_json: bool = False, strict: bool = False,
        quiet: bool = False, trusted: Trusted = (), manifests: Sequence[str] = (),
        pool: Pool | None = None, manifest_gone: bool = False) -> int:
    """Audit and report, one log at a time; returns the exit status."""
    summary = Summary()
    if as_json:
        out.write('{"logs": [')
    for n, report in enumerate(reports(paths, strict=strict, trusted=trusted,
                                       manifests=manifests, pool=pool,
                                       manifest_gone=manifest_gone)):
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
    ap = build_parser()
    args = ap.parse_args(argv)
    if not args.logs and not args.manifest:
        ap.error("give a LOG, a folder or --manifest FILE")
    if args.jobs < 1:
        ap.error(f"-j must be at least 1, not {args.jobs}")
    session: RaySession | None = None
    pool: Pool | None = None
    try:
        trusted = trusted_keys(args.key, args.trusted_keys)
        if args.cluster is not None:
            session = RaySession(parse_cluster(args.cluster),
                                 args.jobs if args.jobs > 1 else None)
            pool = Pool(RayBackend(audit_job, session), 4 * session.cpus(), ship=True)
        elif args.jobs > 1:
            pool = Pool(ProcessBackend(audit_job, args.jobs), 4 * args.jobs, ship=False)
        return run(args.logs, sys.stdout, as_json=args.json, strict=args.strict,
                   quiet=args.quiet, trusted=trusted, manifests=args.manifest, pool=pool,
                   manifest_gone=args.manifest_gone)
    except (KeyFileError, ClusterError) as exc:
        print(f"xactika audit: {exc}", file=sys.stderr)
        return 2
    finally:
        if pool is not None:
            pool.close()
        if session is not None:
            session.close()


def print_report(report: LogReport, out: TextIO, *, quiet: bool = False) -> None:
    # a file name is the attacker's too: ESC or CR in it must not rewrite the terminal
    file = report.file if is_safe(report.file) else escape(report.file)
    for p in report.problems:
        # line 0 is the file as a whole (or its absence), not a line of it: no ":0:"
        where = file if p.line == 0 else f"{file}:{p.line}"
        print(f"{where}: {p.reason}", file=out)
    if report.dropped:
        print(f"{file}: ... and {report.dropped} more problems", file=out)
    if quiet or (report.status == MISSING and report.problems):
        return  # the missing manifest's problem line said it all
    if report.game is None:
        extra = f" ({_signature_fact(report)})" if report.signer is not None else ""
        notes = "".join(f"\n  note: {note}" for note in report.notes)
        print(f"{file}: {report.status}{extra}{notes}", file=out)
        return
    facts = [f"{report.game} {report.mode}", _count(report.players, "player"),
             _count(report.rounds, "round"), _count(report.events, "event")]
    if report.unjudged:
        facts.append(f"{_count(report.unjudged, 'event')} not judged after the first "
                     "violation")
    facts.append("chained" if report.signed else "no hash chain")
    facts.append("committed" if report.committed else "no commitment")
    facts.append(_signature_fact(report))
    line = f"{file}: {report.status} ({', '.join(facts)})"
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


def _signature_fact(report: LogReport) -> str:
    if report.signature == BAD_SIGNATURE:
        return "bad signature"
    if report.signer is None:
        return "no signature"
    if report.signature == VERIFIED and report.status == INVALID:
        fingerprint = report.signer.fingerprint
        return f"not verified: the signature by {fingerprint} holds, the game does not"
    if report.signature == VERIFIED:
        return f"verified: signed by {report.signer.fingerprint}"
    own = own_key()
    if own is not None and report.signer == own[0]:
        return (f"signed by your own key {own[0].fingerprint}, not verified: "
                f"--key {own[1]} trusts it")
    return f"signer unknown: {report.signer.fingerprint}"


def own_key() -> tuple[PublicKey, str] | None:
    """The user's default signing key and its public file, if it exists (never made
    here): a record signed by it is the user's own, not a stranger's."""
    path = default_key_path()
    for source in (f"{path}.pub", str(path)):
        try:
            stamp = os.stat(source).st_mtime_ns
        except OSError:
            continue
        key = _load_key(source, stamp)
        if key is not None:
            return key, f"{path}.pub"
    return None


@functools.lru_cache(maxsize=4)
def _load_key(path: str, stamp: int) -> PublicKey | None:
    """One key file's first key, read once while it is unchanged (``stamp``)."""
    try:
        return load_public_keys(path)[0]
    except (KeyFileError, OSError):
        return None


def _count(n: int | None, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def print_summary(s: Summary, out: TextIO) -> None:
    manifests = f" and {_count(s.manifests, 'manifest')}" if s.manifests else ""
    if s.bad_manifests:
        manifests += f" ({s.bad_manifests} invalid)"
    if s.missing_manifests:
        manifests += f", {_count(s.missing_manifests, 'manifest')} missing"
    print(
        f"audited {_count(s.logs, 'log')}{manifests}: {_count(s.games, 'game')} "
        f"({s.complete} clean and complete, "
        f"{s.unfinished} unfinished, {s.invalid} invalid, {s.unreadable} unreadable), "
        f"{_count(s.events, 'event')}, {_count(s.rounds, 'round')}, "
        f"{_count(s.problems, 'problem')}; {s.verified} verified by a trusted key"
        + (f"; {s.copies} {'copy' if s.copies == 1 else 'copies'} of a game, counted once"
           if s.copies else ""),
        file=out,
    )
    if s.players:
        width = max(6, *(len(n) for n in s.players))
        print(f"  {'player':<{width}}  games  seats  wins  points", file=out)
        for name, p in s.players.items():
            print(f"  {name:<{width}}  {p.games:>5}  {p.seats:>5}  {p.wins:>4}  {p.points:>6}",
                  file=out)
