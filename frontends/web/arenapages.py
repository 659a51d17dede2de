"""``xactika web --arena DIR``: the arena's pages and JSON API, and its records in the
replay viewer (spec/ARENA.md, "The web pages").

    GET /arena            the ladders' standings, the sets under way, the latest games
    GET /arena/NAME       an entrant: ratings over time, opponents, faults, games, owner
    GET /api/arena        the same as JSON; /api/arena/NAME an entrant's
    GET /arena/watch/SET  a set under way, watched live where the rule allows (live.py)
    GET /api/arena/live/SET?from=N   its frames from the N-th on, as JSON

The pages only read (frontends/arena/views.py). A record opens in the replay viewer
as ``/replay?file=arena/ladders/L/games/G.log``: :class:`ArenaViewer` serves such a
name only when it is a game of a finished set in the database, through the viewer's
own checks of a path (no ``..``, no link, nothing outside the arena's folder).
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route
from starlette.templating import Jinja2Templates

from xactika.frontends import i18n
from xactika.frontends.arena import live
from xactika.frontends.arena.folder import Arena
from xactika.frontends.arena.standings import ladder_facts
from xactika.frontends.arena.views import REPLAY_PREFIX, ArenaView
from xactika.frontends.i18n import _
from xactika.frontends.match.tournament import rotations
from xactika.frontends.web.lang import install_gettext, page, page_language
from xactika.frontends.web.livedata import live_view
from xactika.frontends.web.viewer import Refused, Viewer
from xactika.protocol.trust.signing import PublicKey

HERE = Path(__file__).parent
PLOT_W, PLOT_H, PAD_L, PAD_R, PAD_T, PAD_B = 600, 240, 56, 14, 12, 42


class _Finished(Viewer):
    """The arena's folder, read as the viewer reads a file: its checks of a path."""

    def _running_match(self, rel: str) -> str | None:
        return None  # a ladder folder is a match that never ends: record_of decides


class ArenaViewer(Viewer):
    """The replay viewer over the web server's records, and the arena's under ``arena/``."""

    def __init__(self, records_dir: str | os.PathLike[str] | None, keys: Sequence[PublicKey],
                 arena: ArenaPages) -> None:
        super().__init__(records_dir, [*keys, arena.public])
        self.arena = arena
        self.finished = _Finished(arena.folder)

    def read_analysis_file(self, rel: str) -> bytes | None:
        """An arena record has no analysis beside it (the server's folder holds none)."""
        return None if rel.startswith(REPLAY_PREFIX) else super().read_analysis_file(rel)

    def read_folder_file(self, rel: str) -> list[bytes]:
        if not rel.startswith(REPLAY_PREFIX):
            return super().read_folder_file(rel)
        record = rel[len(REPLAY_PREFIX):]
        if not self.arena.view.record_of(record):
            raise Refused(404, "no finished game of the arena has this record (a set's "
                          "games are shown once every seating of its deal is played)")
        return self.finished.read_folder_file(record)


class ArenaPages:
    """The arena's routes over one arena folder, opened once."""

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        arena = Arena.open(folder)  # one line of error for a folder that is no arena
        self.folder = arena.folder
        self.public = arena.signer.public
        self.view = ArenaView(arena.engine, arena.folder)
        self.templates = Jinja2Templates(directory=str(HERE / "templates"))
        install_gettext(self.templates)

    def viewer(self, records_dir: str | os.PathLike[str] | None,
               keys: Sequence[PublicKey]) -> Viewer:
        return ArenaViewer(records_dir, keys, self)

    def routes(self) -> list[BaseRoute]:
        return [Route("/arena", self.ladders_page), Route("/arena/{name}", self.entrant_page),
                Route("/api/arena", self.ladders_api),
                Route("/api/arena/{name}", self.entrant_api),
                Route("/arena/watch/{set}", self.watch_page),
                Route("/api/arena/live/{set}", self.live_api)]

    def _watched(self, request: Request) -> dict[str, Any]:
        """A set's live facts, or Refused with the status and the one line that say why
        it is not shown (no such set, not under way, the rule of live.closed)."""
        text = request.path_params["set"]
        if not (text.isascii() and text.isdigit() and len(text) <= 9):
            raise Refused(404, _("no set {set} in the arena").format(set=text[:12]))
        data = self.view.live(int(text))
        if data is None:
            raise Refused(404, _("no set {set} in the arena").format(set=int(text)))
        if data["state"] != "done" and not data["under_way"]:
            raise Refused(404, _("set {set} is not being played now").format(set=data["set"]))
        if data["why"] is not None and data["why"] != live.WAITING:
            raise Refused(403, _(data["why"]))
        return data

    async def live_api(self, request: Request) -> Response:
        with i18n.using(page_language(request)):
            try:
                start = request.query_params.get("from", "0")
                if not (start.isascii() and start.isdigit() and len(start) <= 9):
                    raise Refused(400, _("from= is the number of frames already drawn: a "
                                         "whole number"))
                data = await run_in_threadpool(self._watched, request)
                out = await run_in_threadpool(live_json, data, int(start))
            except Refused as exc:
                return JSONResponse({"error": exc.message}, status_code=exc.status)
        return JSONResponse(out)

    async def watch_page(self, request: Request) -> Response:
        with i18n.using(page_language(request)):
            try:
                data = await run_in_threadpool(self._watched, request)
            except Refused as exc:
                return page(self.templates, request, "arena_watch.html",
                            {"error": exc.message, "set": None}, status_code=exc.status)
        return page(self.templates, request, "arena_watch.html",
                    {"error": None, "set": data})

    async def ladders_api(self, request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(self.view.overview))

    async def entrant_api(self, request: Request) -> Response:
        name = request.path_params["name"]
        data = await run_in_threadpool(self.view.entrant, name)
        if data is None:
            return JSONResponse({"error": f"no entrant named {name[:40]!r}"}, status_code=404)
        return JSONResponse(data)

    async def ladders_page(self, request: Request) -> Response:
        data = await run_in_threadpool(self.view.overview)
        return page(self.templates, request, "arena.html",
                    {"arena": data, "when": when, "facts": ladder_facts})

    async def entrant_page(self, request: Request) -> Response:
        name = request.path_params["name"]
        data = await run_in_threadpool(self.view.entrant, name)
        if data is None:
            return page(self.templates, request, "arena_entrant.html",
                        {"entrant": None, "name": name[:40]}, status_code=404)
        for lad in data["ladders"]:
            lad["plot"] = plot(lad["history"])
        return page(self.templates, request, "arena_entrant.html",
                    {"entrant": data, "name": name, "when": when})


def live_json(data: dict[str, Any], start: int) -> dict[str, Any]:
    """``/api/arena/live/SET``: the set, its state and the frames from ``start`` on."""
    out: dict[str, Any] = {"set": data["set"], "ladder": data["ladder"],
                           "entrants": data["entrants"], "rotations": data["rotations"]}
    if data["state"] == "done":
        return {**out, "state": "finished", "replay": [link for _, link in data["replay"]]}
    seating = data["seating"]
    out["rotation"] = data["rotation"] + 1
    view = None
    if seating is not None:
        seats = rotations(tuple(data["entrants"]))[seating.rotation]
        view = live_view(seating.lines, seats)
    if view is None:
        return {**out, "state": "waiting", "note": _(live.WAITING), "total": 0, "frames": []}
    frames = view.pop("events")
    return {**out, **view, "state": "over" if view["finished"] else "playing",
            "total": len(frames), "from": start, "frames": frames[start:]}


def when(t: float) -> str:
    """A time as the pages show it: UTC, to the minute."""
    return dt.datetime.fromtimestamp(t, dt.UTC).strftime("%Y-%m-%d %H:%M")


def plot(history: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """A rating's history as an SVG's shapes: the μ line, the μ ± 2σ band, the axes.

    x is the ladder's finished sets, y the rating; drawn by the template, no script.
    """
    if not history:
        return None
    lows = [h["low"] for h in history]
    highs = [h["high"] for h in history]
    y0, y1 = min(lows), max(highs)
    if y1 - y0 < 20:
        y0, y1 = y0 - 10, y1 + 10
    x0, x1 = 0, max(h["sets"] for h in history)
    inner_w, inner_h = PLOT_W - PAD_L - PAD_R, PLOT_H - PAD_T - PAD_B

    def x(v: float) -> float:
        return round(PAD_L + inner_w * (v - x0) / max(x1 - x0, 1), 1)

    def y(v: float) -> float:
        return round(PAD_T + inner_h * (y1 - v) / (y1 - y0), 1)

    line = " ".join(f"{x(h['sets'])},{y(h['mu'])}" for h in history)
    band = " ".join([*(f"{x(h['sets'])},{y(h['high'])}" for h in history),
                     *(f"{x(h['sets'])},{y(h['low'])}" for h in reversed(history))])
    ticks = [round(y0 + (y1 - y0) * i / 4) for i in range(5)]
    last = history[-1]
    return {
        "width": PLOT_W, "height": PLOT_H, "left": PAD_L, "right": PLOT_W - PAD_R,
        "top": PAD_T, "bottom": PLOT_H - PAD_B, "line": line, "band": band,
        "dots": [{"x": x(h["sets"]), "y": y(h["mu"])} for h in history],
        "yticks": [{"y": y(t), "label": str(t)} for t in ticks],
        "xticks": [{"x": x(v), "label": str(v)} for v in sorted({x0, (x0 + x1) // 2, x1})],
        "summary": _("rating {mu} ± {spread} after {sets} sets, from {first} after {start}"
                     ).format(mu=f"{last['mu']:.0f}", spread=f"{last['high'] - last['mu']:.0f}",
                              sets=last["sets"], first=f"{history[0]['mu']:.0f}",
                              start=history[0]["sets"]),
    }
