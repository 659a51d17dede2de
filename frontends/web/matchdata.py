"""A match folder's ``results.json`` as the match viewer's rows, read without trusting it.

The file is the object ``xactika match --json`` prints (spec/MATCH.md); here it is
turned into the same table the terminal shows (frontends/match/report.py): per bot its
games, faults and means with their 95% intervals, the paired differences, the two-bot
Elo line, and the Plackett-Luce ratings. Every value is checked for its type, so a
hand-edited file makes a shorter table, never an error page or markup: the template
escapes every string.
"""

from __future__ import annotations

import math
from typing import Any


def _num(x: Any) -> float | None:
    if isinstance(x, bool) or not isinstance(x, int | float) or not math.isfinite(x):
        return None
    return float(x)


def _int(x: Any) -> int | None:
    return x if isinstance(x, int) and not isinstance(x, bool) else None


def _text(x: Any, limit: int = 200) -> str:
    return x[:limit] if isinstance(x, str) else ""


def _dict(x: Any) -> dict[str, Any]:
    return x if isinstance(x, dict) else {}


def _list(x: Any) -> list[Any]:
    return x if isinstance(x, list) else []


def mean(est: Any, digits: int = 3) -> str:
    m = _num(_dict(est).get("mean"))
    return "-" if m is None else f"{m:.{digits}f}"


def interval(est: Any, digits: int = 3, sign: str = "") -> str:
    e = _dict(est)
    lo, hi, n = _num(e.get("lo")), _num(e.get("hi")), _int(e.get("n"))
    if lo is None or hi is None or (n is not None and n < 2):
        return ""
    return f"[{lo:{sign}.{digits}f}, {hi:{sign}.{digits}f}]"


def diff(est: Any) -> str:
    e = _dict(est)
    m = _num(e.get("mean"))
    if m is None:
        return "-"
    span = interval(est, sign="+")
    lo, hi = _num(e.get("lo")), _num(e.get("hi"))
    mark = " *" if span and lo is not None and hi is not None and (lo > 0 or hi < 0) else ""
    return f"{m:+.3f}" + (f" {span}{mark}" if span else "")


def elo_lines(h2h: Any) -> list[str]:
    """The two-bot lines, as cutechess and the terminal table print them."""
    h = _dict(h2h)
    a, b = _text(h.get("a")), _text(h.get("b"))
    wins, losses, draws = _int(h.get("wins")), _int(h.get("losses")), _int(h.get("draws"))
    if not a or not b or wins is None or losses is None or draws is None:
        return []
    games = wins + losses + draws
    score = _num(h.get("score"))
    lines = [f"Score of {a} vs {b}: {wins} - {losses} - {draws}"
             + (f"  [{score:.3f}]" if score is not None else "") + f" {games}"]
    elo, margin = _num(h.get("elo")), _num(h.get("elo_margin"))
    lo, hi = _num(h.get("elo_lo")), _num(h.get("elo_hi"))
    los = _num(h.get("los"))
    if elo is None:  # JSON has no infinity: a clean sweep's Elo is unbounded
        text = ("Elo difference: " + ("inf" if wins and not losses and not draws else
                                      "-inf" if losses and not wins and not draws else "-"))
    elif margin is not None:
        text = f"Elo difference: {elo:.1f} +/- {margin:.1f}"
    elif lo is not None or hi is not None:
        text = (f"Elo difference: {elo:.1f} [{'-inf' if lo is None else f'{lo:.1f}'}, "
                f"{'inf' if hi is None else f'{hi:.1f}'}]")
    else:
        text = f"Elo difference: {elo:.1f}"
    draw = 100 * draws / games if games else 0.0
    text += ", LOS: " + ("-" if los is None else f"{100 * los:.1f} %")
    lines.append(text + f", DrawRatio: {draw:.1f} %")
    return lines


def results_view(results: Any) -> dict[str, Any]:
    """The match viewer's table from a parsed ``results.json``."""
    r = _dict(results)
    settings = _dict(r.get("settings"))
    summary = _dict(r.get("summary"))
    bots = []
    for b in _list(summary.get("bots")):
        b = _dict(b)
        bots.append({
            "name": _text(b.get("name")),
            "games": _int(b.get("games")),
            "faults": _int(b.get("faults")),
            "points": mean(b.get("points_per_hand")),
            "points_ci": interval(b.get("points_per_hand")),
            "win": mean(b.get("win_share")),
            "win_ci": interval(b.get("win_share")),
            "rank": mean(b.get("mean_rank"), 2),
            "rank_ci": interval(b.get("mean_rank"), 2),
        })
    pairs = [{"a": _text(_dict(p).get("a")), "b": _text(_dict(p).get("b")),
              "points": diff(_dict(p).get("points_per_hand")),
              "win": diff(_dict(p).get("win_share"))}
             for p in _list(summary.get("pairs"))]
    ratings: list[dict[str, Any]] = []
    for x in _list(summary.get("ratings")):
        x = _dict(x)
        mu, sigma = _num(x.get("mu")), _num(x.get("sigma"))
        if mu is not None and sigma is not None:
            ordinal = _num(x.get("ordinal"))
            ratings.append({"name": _text(x.get("name")), "mu": f"{mu:.2f}",
                            "spread": f"{2 * sigma:.2f}",
                            "order": -(mu - 3 * sigma if ordinal is None else ordinal)})
    ratings.sort(key=lambda x: x["order"])
    terminations = ", ".join(f"{_text(k, 40)} {v}" for k, v in
                             sorted(_dict(r.get("terminations")).items()) if _int(v) is not None)
    faults = [{"game": _text(_dict(f).get("game")), "seat": _int(_dict(f).get("seat")),
               "bot": _text(_dict(f).get("bot")), "reason": _text(_dict(f).get("reason")),
               "detail": _text(_dict(f).get("detail"))}
              for f in _list(r.get("faults"))[:100]]
    return {
        "game": _text(settings.get("game")), "mode": _text(settings.get("mode")),
        "players": _int(settings.get("players")), "rounds": _int(settings.get("rounds")),
        "deals": _int(summary.get("deals")), "games": _int(summary.get("games")),
        "bots": bots, "pairs": pairs, "elo": elo_lines(summary.get("head_to_head")),
        "ratings": ratings, "terminations": terminations, "faults": faults,
    }
