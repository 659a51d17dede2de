"""The web replay and match viewers: records and match folders, stepped through in a browser.

``viewer_app(records_dir, keys)`` is a Starlette app (``viewer_routes`` the same routes,
for a larger app to mount). The server reads, audits and redacts; the page
(static/replay.js) only lays out the JSON it is given and steps through it:

- ``GET /replay`` the page: the folder's records and an upload form; ``?file=NAME``
  (or ``?upload=NAME``), ``&seat=N`` and ``&e=N`` name the position, so a reload shows it.
- ``GET /replay/api/record?file=NAME&seat=N`` a record of the folder as JSON: its
  events as seat N saw them (no ``seat``: everyone), narration texts and audit verdict,
  and each move's analysis where the folder holds ``NAME.analysis.json``.
- ``POST /replay/api/upload?seat=N`` the same for a record sent as the request body.
- ``GET /match`` the folder's match folders; ``?dir=NAME`` one match's results and games.

What it guarantees: a name from the client is never joined to a path unchecked (every
file is opened through :class:`Folder`: no absolute path, no ``..``, no symbolic link);
uploads and files are read with the record readers' limits; the omniscient view, or any
seat's, of a game still in progress is never served (a folder record must end in
game-over, and no record of a match folder is served before its ``results.json``, since
a finished game's record holds the seed of its deal's other seatings); every response
carries a Content-Security-Policy without inline script, and every text from a record is
escaped (Jinja's autoescape; the page sets ``textContent`` only).
"""

from __future__ import annotations

import errno
import io
import json
import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from xactika.core.engine.api import GameOver
from xactika.frontends import i18n
from xactika.frontends.records.analysisform import (
    MAX_ANALYSIS_BYTES,
    AnalysisError,
    read_analysis,
)
from xactika.frontends.records.replay import Game
from xactika.frontends.web.lang import catalog, install_gettext, page, page_language
from xactika.frontends.web.matchdata import results_view
from xactika.frontends.web.replaydata import MAX_VIEW_EVENTS, record_view, verdict
from xactika.protocol.notation.untrusted import escape
from xactika.protocol.records.files import (
    MAX_RECORD_BYTES,
    Folder,
    PathRefused,
    bounded_lines,
)
from xactika.protocol.records.textform import RecordError, record_from_lines
from xactika.protocol.trust.audit import audit_lines
from xactika.protocol.trust.manifest import MANIFEST_FILE, check_manifest
from xactika.protocol.trust.signing import PublicKey

HERE = Path(__file__).resolve().parent
RECORD_SUFFIXES = (".log", ".rec", ".jsonl", ".txt")
SKIPPED = (".tmp", ".rejected", ".bak")
NOT_RECORDS = (MANIFEST_FILE, "deals.txt", "all-games.txt")  # a match folder's other files
RESULTS = "results.json"
MATCH_MARKS = (MANIFEST_FILE, "match.json")  # a folder holding one is a match folder
MAX_LISTED = 500  # records or games named on one page
MAX_DEPTH = 4  # folders below the served one that the listings look into
MAX_RESULTS_BYTES = 16 * 1024 * 1024
DEFAULT_MAX_UPLOAD = 16 * 1024 * 1024
MAX_NAME = 200  # characters of an upload's name kept
ANALYSIS_SUFFIX = ".analysis.json"  # beside a record: its analysis (spec/ANALYSE.md)

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
SECURITY_HEADERS = {"Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff",
                    "Referrer-Policy": "no-referrer", "Cache-Control": "no-store"}

templates = Jinja2Templates(directory=str(HERE / "templates"))  # autoescape on for .html
install_gettext(templates)


class Refused(Exception):
    """A request the viewer answers with ``status`` and one line saying why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _json(data: Any, status: int = 200) -> JSONResponse:
    return JSONResponse(data, status_code=status, headers=SECURITY_HEADERS)


def _error(exc: Refused) -> JSONResponse:
    return _json({"error": exc.message}, exc.status)


def _page(request: Request, name: str, context: dict[str, Any], status: int = 200
          ) -> Response:
    return page(templates, request, name, context, status_code=status,
                headers=SECURITY_HEADERS)


def _seat(value: str | None) -> int | None:
    if value in (None, "", "all"):
        return None
    if not value.isdigit() or len(value) > 3:
        raise Refused(400, f"bad seat {escape(value, 20)!r}: a seat number, or 'all'")
    return int(value)


def match_over(manifest: os.stat_result | None, results: os.stat_result | None) -> bool:
    """Whether a match folder's match is over: results.json is written after the last
    game's manifest entry, so it exists and is no older than the manifest."""
    return results is not None and (manifest is None
                                    or results.st_mtime_ns >= manifest.st_mtime_ns)


class Viewer:
    """The served folder (None: uploads only), the server's keys and the upload bound."""

    def __init__(self, records_dir: str | os.PathLike[str] | None,
                 keys: Sequence[PublicKey] = (), max_upload: int = DEFAULT_MAX_UPLOAD) -> None:
        self.folder = Folder(records_dir) if records_dir is not None else None
        self.keys = frozenset(keys)
        self.max_upload = min(max_upload, MAX_RECORD_BYTES)

    # -- the folder
    def _need_folder(self) -> Folder:
        if self.folder is None:
            raise Refused(404, "this server serves no records folder: upload a record")
        return self.folder

    def _stat(self, rel: str) -> os.stat_result | None:
        """A path's own status inside the folder (links not followed); None if absent."""
        try:
            with self._need_folder().place(rel) as (fd, name):
                return os.stat(name, dir_fd=fd, follow_symlinks=False)
        except FileNotFoundError:
            return None
        except PathRefused as exc:
            raise Refused(403, exc.strerror or "refused") from None
        except OSError as exc:
            if exc.errno == errno.ENOTDIR:
                return None
            raise Refused(404, f"cannot read {escape(rel, 80)!r}: {exc.strerror}") from None

    def _running_match(self, rel: str) -> str | None:
        """The match folder above ``rel`` still being played, if any: one whose
        results.json is missing or older than its manifest (a resumed match appends
        to its manifest game by game and writes results.json after the last)."""
        parts = self._need_folder().parts(rel)
        for depth in range(len(parts)):
            above = "/".join(parts[:depth])
            prefix = f"{above}/" if above else ""
            marks = [self._stat(prefix + mark) for mark in MATCH_MARKS]
            if any(m is not None for m in marks) and not match_over(
                    marks[0], self._stat(prefix + RESULTS)):
                return above or "."
        return None

    def read_folder_file(self, rel: str) -> list[bytes]:
        """A record's lines from the folder, bounded; Refused for any name not allowed."""
        folder = self._need_folder()
        try:
            running = self._running_match(rel)
            if running is not None:
                raise Refused(403, f"the match in {escape(running, 80)!r} is still being "
                              "played (no results.json): its records are shown once it is "
                              "over")
            with folder.open_read(rel) as fh:
                return list(bounded_lines(fh))
        except PathRefused as exc:
            raise Refused(403, exc.strerror or "refused") from None
        except RecordError as exc:
            raise Refused(413, str(exc)) from None
        except OSError as exc:
            raise Refused(404, f"cannot read {escape(rel, 80)!r}: {exc.strerror}") from None

    def listing(self, below: str = "") -> tuple[list[str], list[str], int]:
        """(record files, match folders, files left out) under the folder, sorted.

        Links are never followed, folders of a running match are skipped, and at most
        MAX_LISTED names are given.
        """
        if self.folder is None:
            return [], [], 0
        files: list[str] = []
        matches: list[str] = []
        left = 0

        def walk(path: str, rel: str, depth: int) -> None:
            nonlocal left
            try:
                entries = sorted(os.scandir(path), key=lambda e: e.name)
            except OSError:
                return
            found = {e.name: e for e in entries}
            is_match = any(m in found for m in MATCH_MARKS)
            if is_match:
                manifest, results = found.get(MANIFEST_FILE), found.get(RESULTS)
                if not match_over(manifest.stat(follow_symlinks=False) if manifest else None,
                                  results.stat(follow_symlinks=False) if results else None):
                    return  # still being played: nothing of it is shown
                matches.append(rel or ".")
            for e in entries:
                sub = f"{rel}/{e.name}" if rel else e.name
                if e.is_symlink():
                    continue
                if e.is_dir(follow_symlinks=False):
                    if depth < MAX_DEPTH and not e.name.startswith("."):
                        walk(e.path, sub, depth + 1)
                elif (e.is_file(follow_symlinks=False) and e.name.endswith(RECORD_SUFFIXES)
                      and not e.name.endswith(SKIPPED) and not e.name.startswith(".")
                      and e.name not in NOT_RECORDS
                      and "/stderr/" not in f"/{sub}"):
                    if len(files) < MAX_LISTED:
                        files.append(sub)
                    else:
                        left += 1

        walk(self.folder.path, "", 0)
        return files, matches, left

    def read_analysis_file(self, rel: str) -> bytes | None:
        """The analysis beside a folder's record (``NAME`` + :data:`ANALYSIS_SUFFIX`, as
        ``xactika analyse --json`` writes it), bounded; None where there is none."""
        if self.folder is None:
            return None
        try:
            with self.folder.open_read(rel + ANALYSIS_SUFFIX) as fh:
                return bytes(fh.read(MAX_ANALYSIS_BYTES + 1))
        except (PathRefused, OSError):
            return None

    # -- a record
    def record(self, lines: list[bytes], name: str, seat: int | None, *, own: bool,
               analysis: bytes | None = None) -> dict[str, Any]:
        """The viewer's JSON of a record; ``own``: the uploader's file, shown even when
        unfinished (a folder's record is shown only once the game is over); with
        ``analysis`` (an analysis file's bytes) each move's analysis beside it, or the
        one line that says why not."""
        try:
            record = record_from_lines(lines)
            if len(record.events) > MAX_VIEW_EVENTS:
                raise Refused(413, f"the record has {len(record.events)} events: the viewer "
                              f"shows records of at most {MAX_VIEW_EVENTS}")
            if not own and not isinstance(record.events[-1], GameOver):
                raise Refused(403, "this game is not finished (the record has no "
                              "game-over): the viewer shows finished games only")
            g = Game.from_record(record)
        except RecordError as exc:
            raise Refused(400, f"{name}: {exc}") from None
        if seat is not None and not 0 <= seat < g.config.players:
            raise Refused(400, f"no seat {seat}: seats are 0 to {g.config.players - 1}")
        weighed: dict[int, dict[str, Any]] = {}
        problem: str | None = None
        if analysis is not None:
            try:
                weighed = read_analysis(analysis, g.events)
            except AnalysisError as exc:
                problem = f"{name}{ANALYSIS_SUFFIX}: {exc}"
        data = record_view(g, seat, weighed)
        data["analysis_problem"] = problem
        data["name"] = name
        data["audit"] = verdict(audit_lines(lines, name, trusted=self.keys))
        return data

    # -- a match
    def match(self, rel: str) -> dict[str, Any]:
        """A match folder's results table, manifest verdict and games."""
        folder = self._need_folder()
        rel = rel.strip("/")
        prefix = f"{rel}/" if rel and rel != "." else ""
        if prefix:
            st = self._stat(rel)
            if st is None or not stat.S_ISDIR(st.st_mode):
                raise Refused(404, f"no match folder {escape(rel, 80)!r}")
        results, manifest = self._stat(prefix + RESULTS), self._stat(prefix + MANIFEST_FILE)
        if results is None and manifest is None:
            raise Refused(404, f"{escape(rel or '.', 80)!r} is not a match folder (no {RESULTS})")
        if not match_over(manifest, results):
            raise Refused(403, f"the match in {escape(rel or '.', 80)!r} is still being played: "
                          f"its {RESULTS} is missing or older than its manifest")
        try:
            with folder.open_read(prefix + RESULTS) as fh:
                raw = fh.read(MAX_RESULTS_BYTES + 1)
            if len(raw) > MAX_RESULTS_BYTES:
                raise Refused(413, f"{RESULTS} is larger than {MAX_RESULTS_BYTES} bytes")
            results = json.loads(raw.decode("utf-8"))
        except PathRefused as exc:
            raise Refused(403, exc.strerror or "refused") from None
        except (OSError, ValueError) as exc:
            raise Refused(400, f"{RESULTS} does not read: {escape(str(exc), 120)}") from None
        data = results_view(results)
        data["dir"] = rel or "."
        data["games_list"], data["games_left"] = self._games(prefix)
        data["manifest"] = self._manifest(prefix)
        return data

    def _games(self, prefix: str) -> tuple[list[str], int]:
        st = self._stat(prefix + "games")
        if st is None or not stat.S_ISDIR(st.st_mode):
            return [], 0
        assert self.folder is not None
        path = os.path.join(self.folder.path, *self.folder.parts(prefix + "games"))
        try:
            names = sorted(e.name for e in os.scandir(path)
                           if e.is_file(follow_symlinks=False)
                           and e.name.endswith(RECORD_SUFFIXES) and not e.name.startswith("."))
        except OSError:
            return [], 0
        return [prefix + "games/" + n for n in names[:MAX_LISTED]], max(0, len(names) - MAX_LISTED)

    def _manifest(self, prefix: str) -> str:
        st = self._stat(prefix + MANIFEST_FILE)
        if st is None or not stat.S_ISREG(st.st_mode):
            return "no manifest: the games are not vouched for as a set"
        assert self.folder is not None
        check = check_manifest(os.path.join(self.folder.path, *self.folder.parts(
            prefix + MANIFEST_FILE)))
        if check.problems:
            line, reason = check.problems[0]
            return f"manifest invalid: line {line}: {reason}"
        who = ("the server's key" if check.signer in self.keys
               else "a key this server does not trust")
        fingerprint = check.signer.fingerprint if check.signer is not None else "?"
        return (f"manifest intact: {len(check.entries)} games, signed by {who} "
                f"{fingerprint}")


async def _body(request: Request, limit: int) -> bytes:
    """The request body, refused as soon as it passes ``limit`` bytes."""
    length = request.headers.get("content-length", "")
    too_big = Refused(413, f"the upload is larger than {limit} bytes")
    if length.isdigit() and int(length) > limit:
        raise too_big
    buf = bytearray()
    async for chunk in request.stream():
        buf += chunk
        if len(buf) > limit:
            raise too_big
    return bytes(buf)


def viewer_routes(viewer: Viewer) -> list[BaseRoute]:
    """The viewers' routes (pages and JSON), for an app of their own or a larger one."""

    async def replay_page(request: Request) -> Response:
        files, _, left = await run_in_threadpool(viewer.listing)
        table = request.query_params.get("table", "")
        return _page(request, "replay.html", {
            "files": files, "left": left, "has_folder": viewer.folder is not None,
            "max_upload": viewer.max_upload,
            # the way back, where the viewer is part of the web table's site
            "lobby": any(getattr(r, "path", None) == "/" for r in request.app.routes),
            "table": table if table.isdigit() and len(table) < 10 else ""})

    async def record_api(request: Request) -> Response:
        try:
            name = request.query_params.get("file", "")
            seat = _seat(request.query_params.get("seat"))
            lines = await run_in_threadpool(viewer.read_folder_file, name)
            analysis = await run_in_threadpool(viewer.read_analysis_file, name)
            with i18n.using(page_language(request)):  # the narration in the reader's words
                data = await run_in_threadpool(viewer.record, lines, name, seat, own=False,
                                               analysis=analysis)
        except Refused as exc:
            return _error(exc)
        return _json(data)

    async def upload_api(request: Request) -> Response:
        try:
            seat = _seat(request.query_params.get("seat"))
            name = request.query_params.get("name", "")[:MAX_NAME] or "upload"
            body = await _body(request, viewer.max_upload)
            try:
                lines = list(bounded_lines(io.BytesIO(body)))
            except RecordError as exc:
                raise Refused(413, str(exc)) from None
            with i18n.using(page_language(request)):
                data = await run_in_threadpool(viewer.record, lines, name, seat, own=True)
        except Refused as exc:
            return _error(exc)
        return _json(data)

    async def match_page(request: Request) -> Response:
        rel = request.query_params.get("dir")
        if rel is None:
            _, matches, _ = await run_in_threadpool(viewer.listing)
            return _page(request, "match.html", {"matches": matches, "match": None,
                                                 "error": None})
        try:
            data = await run_in_threadpool(viewer.match, rel)
        except Refused as exc:
            return _page(request, "match.html", {"matches": [], "match": None,
                                                 "error": exc.message}, exc.status)
        return _page(request, "match.html", {"matches": [], "match": data, "error": None})

    return [
        Route("/replay", replay_page),
        Route("/replay/api/record", record_api),
        Route("/replay/api/upload", upload_api, methods=["POST"]),
        Route("/match", match_page),
        Route("/i18n/{lang}.json", catalog),  # the scripts' words (also where it stands alone)
    ]


class _Static(StaticFiles):
    """Static files with the viewer's security headers."""

    async def get_response(self, path: str, scope: Any) -> Response:
        response = await super().get_response(path, scope)
        response.headers.update(SECURITY_HEADERS)
        return response


def viewer_app(records_dir: str | os.PathLike[str] | None, keys: Sequence[PublicKey] = (),
               *, max_upload: int = DEFAULT_MAX_UPLOAD) -> Starlette:
    """The viewers as an app of their own: pages, JSON and /static."""
    viewer = Viewer(records_dir, keys, max_upload)
    routes = [*viewer_routes(viewer),
              Mount("/static", app=_Static(directory=str(HERE / "static")), name="static")]
    return Starlette(routes=routes)
