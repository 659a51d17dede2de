"""What ``xactika match`` shows: progress lines or bar, the final table, faults, the SPRT.

Text only, from results already counted (tournament.py): the runner (runner.py) decides
when to print. The table fits 80 columns for bot names of up to 17 characters: each
bot's means on one row, their 95% intervals on the row below.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from xactika.frontends.match.stats import Estimate
from xactika.frontends.match.tournament import (
    Fault,
    GameResult,
    GameSpec,
    Summary,
    deal_notes,
)
from xactika.protocol.notation.untrusted import escape, is_safe

if TYPE_CHECKING:
    from xactika.frontends.match.game import MatchSettings

RESULTS_FILE = "results.json"
WIDTH = 80  # the table's lines fit a terminal this wide
FAULTS_SHOWN = 10  # fault lines under the table; results.json lists them all


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


# --------------------------------------------------------------------------- faults


def fault_text(fault: Fault, game: GameSpec, names: Sequence[str]) -> str:
    """``seat 1 (mine) crash: bot 'mine' exited with code 3 ...``: one line, safe to print."""
    bot = names[game.seats[fault.seat]] if fault.seat < len(game.seats) else "?"
    detail = " ".join(fault.detail.split())
    if not is_safe(detail):
        detail = escape(detail)
    return f"seat {fault.seat} ({bot}) {fault.reason}" + (f": {detail}" if detail else "")


def fault_list(results: Iterable[GameResult], names: Sequence[str]) -> list[dict[str, Any]]:
    """Every fault of the finished games, in schedule order (results.json's ``faults``)."""
    out = []
    for res in sorted(results, key=lambda r: r.game.index):
        for f in res.faults:
            out.append({"game": res.game.id, "seat": f.seat,
                        "bot": names[res.game.seats[f.seat]], "reason": f.reason,
                        "detail": f.detail})
    return out


# --------------------------------------------------------------------------- progress


class Progress:
    """Plain lines: one per finished game, its faults with their reasons, and the score."""

    def __init__(self, total: int, stream: TextIO | None) -> None:
        self.total = total
        self.stream = stream
        self.done = 0

    @property
    def shows_score(self) -> bool:
        return self.stream is not None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def game(self, result: GameResult, names: Sequence[str], score: str) -> None:
        self.done += 1
        if self.stream is None:
            return
        g = result.game
        seats = " ".join(
            f"{names[b]}={t}" for b, t in zip(g.seats, result.totals, strict=True)
        )
        # as cutechess's "{White loses on time}": the reason on the game's own line
        why = "".join(f" {{{fault_text(f, g, names)}}}" for f in result.faults)
        print(f"game {self.done}/{self.total} {g.id} {seats} [{result.termination}]{why}"
              f"  score: {score}", file=self.stream, flush=True)


class BarProgress(Progress):
    """prompt_toolkit's progress bar, its title the running score and the last fault;
    the bar counts the faults (every one is listed under the final table)."""

    def __enter__(self) -> BarProgress:
        from prompt_toolkit.shortcuts import ProgressBar

        self._bar: Any = ProgressBar(title="match")
        self._bar.__enter__()
        self._counter: Any = self._bar(total=self.total, label="games")
        self._faults = 0
        self._last = ""
        return self

    def __exit__(self, *exc: object) -> None:
        self._bar.__exit__(None, None, None)

    def game(self, result: GameResult, names: Sequence[str], score: str) -> None:
        self.done += 1
        for f in result.faults:
            self._faults += 1
            self._last = f"; last fault: {result.game.id} {fault_text(f, result.game, names)}"
        if self._faults:
            self._counter.label = f"games, {_plural(self._faults, 'fault')}"
        try:  # the terminal prompt_toolkit draws on, as it measures it
            width = self._bar.output.get_size().columns - 1
        except (OSError, AttributeError):
            width = WIDTH - 1
        self._bar.title = fit_title(score, self._last, width)
        self._counter.item_completed()


WIDTH = 80
"""The printed report's lines fit a terminal this wide."""


def score_line(summary: Summary) -> str:
    if not summary.deals:
        return "no complete deal yet"
    parts = [f"{b.name} {b.points.mean:+.3f}" for b in summary.bots]
    return ", ".join(parts) + f" ({_plural(summary.deals, 'deal')})"


def fit_title(score: str, last_fault: str, width: int) -> str:
    """The live score in one line of ``width`` (prompt_toolkit cuts its title there):
    in full where it fits, else each number to two places and each name shortened alike,
    then as much of the last fault as room is left for. Every bot's number stays."""
    full = f"score (points/hand): {score}"
    if len(full) <= width:
        return (full + last_fault)[:width]  # as much of the fault as fits
    found = re.fullmatch(r"(.*) \((\d+ deals?)\)", score)
    if found is None:  # "no complete deal yet"
        return full[:width]
    scores = [p.rsplit(" ", 1) for p in found.group(1).split(", ")]
    longest = max(len(name) for name, _ in scores)
    for keep in range(longest, 0, -1):
        parts = [f"{name[:keep]} {float(mean):+.2f}" for name, mean in scores]
        line = f"score: {' '.join(parts)} ({found.group(2)})"
        if len(line) <= width:
            return (line + last_fault)[:width]
    return line[:width]


# --------------------------------------------------------------------------- the table


def _mean(est: Estimate, digits: int = 3) -> str:
    return "-" if est.n == 0 else f"{est.mean:.{digits}f}"


def _interval(est: Estimate, digits: int = 3) -> str:
    return "" if est.n < 2 else f"[{est.lo:.{digits}f}, {est.hi:.{digits}f}]"


def _diff(est: Estimate, digits: int = 3) -> str:
    if est.n == 0:
        return "-"
    if est.n < 2:
        return f"{est.mean:+.{digits}f}"
    mark = " *" if est.excludes(0) else ""
    return f"{est.mean:+.{digits}f} [{est.lo:+.{digits}f}, {est.hi:+.{digits}f}]{mark}"


def _columns(rows: Sequence[Sequence[str]], right: int) -> list[str]:
    """Rows of cells, columns two spaces apart, as wide as their widest cell; the first
    ``right`` columns after the first are right-aligned (counts), the rest left."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    out = []
    for r in rows:
        cells = [c.rjust(w) if 1 <= i <= right else c.ljust(w)
                 for i, (c, w) in enumerate(zip(r, widths, strict=True))]
        out.append("  ".join(cells).rstrip())
    return out


def bot_table(summary: Summary) -> list[str]:
    """Per bot: games, faults, then each measure's mean, its 95% interval on the row below."""
    rows: list[list[str]] = [["bot", "games", "faults", "points/hand", "win share",
                              "mean rank"]]
    for b in summary.bots:
        rows.append([b.name, str(b.games), str(b.faults), _mean(b.points), _mean(b.win),
                     _mean(b.rank, 2)])
        spans = [_interval(b.points), _interval(b.win), _interval(b.rank, 2)]
        if any(spans):
            rows.append(["", "", "", *spans])
    return ["(under each mean, its 95% interval)", *_columns(rows, 2)]


def report(summary: Summary, settings: MatchSettings, terminations: Mapping[str, int],
           sprt_note: str | None, faults: Sequence[Mapping[str, Any]] = ()) -> str:
    s = settings
    lines = [
        f"match: {summary.games} games on {summary.deals} complete deals "
        f"({s.game} {s.mode}, {s.players} players, {_plural(s.rounds, 'hand')} a game)",
    ]
    if summary.uncounted:
        lines.append(f"  ({summary.uncounted} finished games of incomplete deals not counted)")
    lines.append("")
    lines += bot_table(summary)
    if summary.pairs:
        lines.append("")
        lines.append("paired differences on the same deals (* = interval excludes 0):")
        rows = [["", "points/hand", "win share"]]
        rows += [[f"{p.a} - {p.b}", _diff(p.points), _diff(p.win)] for p in summary.pairs]
        table = _columns(rows, 0)
        if max(len(line) for line in table) > WIDTH:  # long names: each on a line of its own
            values = _columns([["", *r[1:]] for r in rows], 0)
            table = [values[0]]
            for row, v in zip(rows[1:], values[1:], strict=True):
                table += [row[0], v]
        lines += table
    if summary.head_to_head is not None and summary.head_to_head.games:
        lines.append("")
        lines += summary.head_to_head.lines()
    if summary.ratings:
        width = max(3, *(len(b.name) for b in summary.bots))
        lines.append("")
        lines.append("ratings (Plackett-Luce on whole finishing orders, openskill; "
                     "mu +/- 2 sigma):")
        for r in sorted(summary.ratings, key=lambda r: -r.ordinal):
            lines.append(f"  {r.name:<{width}}  {r.mu:6.2f} +/- {2 * r.sigma:5.2f}")
    lines.append("")
    lines.append("terminations: " + ", ".join(f"{k} {v}" for k, v in sorted(terminations.items())))
    if faults:
        lines.append(f"faults ({len(faults)}, all in {RESULTS_FILE} and the records' fault "
                     "headers):")
        for f in faults[:FAULTS_SHOWN]:
            detail = " ".join(str(f["detail"]).split())
            detail = detail if is_safe(detail) else escape(detail)
            lines.append(f"  {f['game']} seat {f['seat']} ({f['bot']}) {f['reason']}"
                         + (f": {detail}" if detail else ""))
        if len(faults) > FAULTS_SHOWN:
            lines.append(f"  ... and {len(faults) - FAULTS_SHOWN} more")
    if sprt_note:
        lines.append(sprt_note)
    notes = deal_notes(s.bots, s.schedule(), s.seed)
    if s.seed is not None:
        notes.append("seeds: each game committed to its deal's seed; the seeds, withheld from "
                     f"the bots until now, are revealed in {RESULTS_FILE} (reveals)")
    lines += [textwrap.fill(n, WIDTH, subsequent_indent="  ", break_long_words=False,
                            break_on_hyphens=False) for n in notes]
    return "\n".join(lines)


def sprt_note(info: Mapping[str, Any] | None) -> str | None:
    """The sequential test's line: its verdict, or why there is none yet."""
    if info is None:
        return None
    what = f"{info['a']} - {info['b']} points/hand: H0 {info['d0']:g} vs H1 {info['d1']:g}"
    bounds = f"{info['bounds'][0]:.2f}, {info['bounds'][1]:.2f}"
    start = info.get("min_deals", 0)
    if info["verdict"] is None and info["deals"] < start:
        # before its first look the LLR may lie anywhere: no bound has been applied yet
        return (f"SPRT ({what}): not started: the test looks from deal {start} on, and the "
                f"match counted {_plural(info['deals'], 'complete deal')} (bounds {bounds})")
    if info["verdict"] is None:
        return (f"SPRT ({what}): not settled after {info['deals']} deals, LLR {info['llr']:.2f}"
                f" in ({bounds})")
    return (f"SPRT ({what}): {info['verdict']} accepted after {info['deals']} deals "
            f"(LLR {info['llr']:.2f}, bounds {bounds})")
