"""What one record cannot show alone: the match it belongs to, its file, and its copies.

A signed record proves who wrote it, not where it should be: a copy of a verified game
verifies again, under any name, and a match folder whose manifest was deleted shows
nothing of games deleted, added or replaced. The auditor therefore also checks, across
every record of one run (spec/TAMPER.md section 7):

- a match record's ``id`` (``<match>/<game>``) against its file name and its match (the
  manifest's, or the first record of its folder's);
- copies: two records with one ``id`` or one chain head are one game, counted once;
- a match folder (one holding ``games/``, ``match.json`` or ``results.json``) must hold
  its ``manifest.txt``.
"""

from __future__ import annotations

import os
import re

from xactika.protocol.notation.untrusted import escape
from xactika.protocol.trust.audit import INVALID, MISSING, UNREADABLE, LogReport
from xactika.protocol.trust.manifest import MANIFEST_FILE

MATCH_MARKERS = ("match.json", "results.json")
"""What the match runner writes into its folder besides the manifest and ``games/``."""

_MATCH_ID = re.compile(r"^([0-9a-f]{32})/([A-Za-z0-9._-]+)$")
_GAME_FILE = re.compile(r"^d\d+-t\d+-r\d+$")  # a runner's game file: d00001-t0-r0


ARENA_MARKER = "arena.json"
"""What ``xactika arena init`` writes into an arena folder (spec/ARENA.md)."""


def arena_ladders(path: str) -> list[str] | None:
    """The ladder folders of an arena folder (each a match folder), None for another path:
    auditing an arena audits every ladder with its manifest."""
    if path == "-" or not os.path.isfile(os.path.join(path, ARENA_MARKER)):
        return None
    top = os.path.join(path, "ladders")
    try:
        names = sorted(os.listdir(top))
    except OSError:
        return []
    return [os.path.join(top, n) for n in names if os.path.isdir(os.path.join(top, n))]


def match_folder(path: str) -> str | None:
    """The match folder ``path`` is or holds the games of, else None.

    ``M`` is one when it holds its manifest, ``match.json``, ``results.json`` or a
    ``games/`` folder of the runner's game files (``d00001-t0-r0.log``): all of them but
    the games may be deleted, and --strict must still ask for the manifest. A folder
    named ``games`` (``M/games``, or ``.`` inside it) stands for the folder above it, so
    auditing it alone still checks its games against ``M``'s manifest.
    """
    if path == "-" or not os.path.isdir(path):
        return None
    if _is_match(path):
        return path
    normal = os.path.normpath(path)
    if os.path.basename(os.path.abspath(normal)) == "games":  # the games of the folder above
        above = os.path.normpath(os.path.join(normal, os.pardir))
        return above if _is_match(above) or _runner_games(normal) else None
    return None


def _is_match(path: str) -> bool:
    return os.path.isfile(os.path.join(path, MANIFEST_FILE)) or \
        any(os.path.exists(os.path.join(path, m)) for m in MATCH_MARKERS) or \
        _runner_games(os.path.join(path, "games"))


def _runner_games(folder: str) -> bool:
    """Whether ``folder`` holds a file named as the match runner names its games."""
    try:
        names = os.listdir(folder)
    except OSError:
        return False
    return any(_GAME_FILE.match(name.split(".", 1)[0]) for name in names)


def no_manifest(folder: str, strict: bool, gone: bool = False) -> LogReport:
    """The report of a match folder without its manifest: a problem (a deleted manifest
    hides deleted games: ``audit m && publish`` must not pass), a warning only where the
    auditor says it is known to be gone (``gone``, ``--manifest-gone``) and not --strict."""
    report = LogReport(os.path.join(folder, MANIFEST_FILE), status=MISSING, kind="manifest")
    why = ("a match folder without its manifest shows nothing of games deleted, added or "
           "replaced")
    if strict:
        report.add(0, f"missing: {why} (--strict)")
    elif not gone:
        report.add(0, f"missing: {why} (--manifest-gone if it is known to be lost)")
    else:
        report.notes.append(f"warning: {why} (--manifest-gone)")
    return report


def match_id_parts(record_id: str | None) -> tuple[str, str] | None:
    """(match, game) of a match record's id ``<32 hex>/<game>``; None for another id."""
    found = _MATCH_ID.match(record_id or "")
    return (found.group(1), found.group(2)) if found else None


class FolderChecks:
    """The checks across the records of one audit run; call :meth:`check` on each report.

    Memory grows with the records (an id, a head, a file name and an inode each: about
    200 bytes, some 200 MB for a million records). That is the price of counting a copy
    once, whatever order the records come in.
    """

    def __init__(self) -> None:
        self._ids: dict[str, str] = {}  # record id -> the first file that had it
        self._heads: dict[str, str] = {}  # chain head -> the first file that had it
        self._matches: dict[str, tuple[str, str]] = {}  # folder -> (match, first file)
        self._files: set[tuple[int, int]] = set()  # (device, inode) already audited

    def seen_file(self, path: str) -> bool:
        """True when ``path`` is a file already audited in this run (given twice, or a
        hard link of it): it is one game, so it is audited and counted once."""
        try:
            st = os.stat(path)
        except OSError:
            return False
        key = (st.st_dev, st.st_ino)
        if key in self._files:
            return True
        self._files.add(key)
        return False

    def check(self, report: LogReport, match: str | None = None,
              in_match: bool = False) -> None:
        """Add the problems of ``report`` that only other records show.

        ``match``: the id of the match folder's manifest the record lies in;
        ``in_match``: the record lies in a match folder (with or without a manifest).
        """
        if report.status == UNREADABLE or report.game is None:
            return
        self._check_id(report, match, in_match)
        if report.status != INVALID:
            self._check_copy(report)

    def _check_id(self, report: LogReport, match: str | None, in_match: bool) -> None:
        parts = match_id_parts(report.record_id)
        shown = escape(report.record_id or "", 80)
        if parts is None:
            if match is not None:
                _fail(report, f"its id {shown!r} is not a game of this match ({match[:16]}..."
                      f", {MANIFEST_FILE}): a record from elsewhere")
            return
        record_match, game = parts
        folder = os.path.dirname(report.file)
        stem = os.path.splitext(os.path.basename(report.file))[0]
        if (in_match or os.path.basename(folder) == "games" or _GAME_FILE.match(stem)) \
                and stem != game:
            # a copy of that game's file, or that file renamed: either way not a game here
            report.copy_of = os.path.join(folder, game + os.path.splitext(report.file)[1])
            _fail(report, f"its id names game {game}, not this file: a copy of "
                  f"{escape(report.copy_of, 200)} or that file renamed, counted once")
            return
        if match is not None:
            if record_match != match:
                _fail(report, f"its id names match {record_match[:16]}..., not this "
                      f"folder's {match[:16]}... ({MANIFEST_FILE}): a record from another "
                      "match")
            return
        first = self._matches.setdefault(folder, (record_match, report.file))
        if first[0] != record_match:
            _fail(report, f"its id names match {record_match[:16]}..., but "
                  f"{escape(first[1], 200)} in the same folder is of match {first[0][:16]}...:"
                  " records of two matches mixed")

    def _check_copy(self, report: LogReport) -> None:
        for key, seen, what in ((report.record_id, self._ids, "id"),
                                (report.head, self._heads, "chain head")):
            if key is None:
                continue
            first = seen.get(key)
            if first is not None:
                report.copy_of = first
                _fail(report, f"a copy of {escape(first, 200)} (the same {what}): one game, "
                      "counted once")
                return
        if report.record_id is not None:
            self._ids[report.record_id] = report.file
        if report.head is not None:
            self._heads[report.head] = report.file


def _fail(report: LogReport, reason: str) -> None:
    report.add(0, reason)
    report.status = INVALID
