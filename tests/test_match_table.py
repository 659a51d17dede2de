"""The match table counts bots, not seats (issue 12), from results made by hand.

No processes here: ``summarize`` and ``report`` are fed GameResults directly, so each
number can be worked out on paper.
"""

from __future__ import annotations

import math

import pytest

from xactika.frontends.match.runner import report
from xactika.frontends.match.stats import wilson
from xactika.frontends.match.tournament import GameResult, GameSpec, schedule, summarize

SETTINGS_KEYS = ("game", "mode", "players", "rounds", "bots", "seed")


def results(plan: list[GameSpec], winner_bot: int | None) -> dict[int, GameResult]:
    """Every game won by ``winner_bot``'s first seat (None: bot 0 and 1 share it)."""
    out = {}
    for g in plan:
        totals = [0] * len(g.seats)
        if winner_bot is None:
            won = (g.seats.index(0), g.seats.index(1))
        else:
            won = (g.seats.index(winner_bot),)
        for seat in won:
            totals[seat] = 10
        out[g.index] = GameResult(g, tuple(totals), won, 2, (), False)
    return out


def test_a_bot_in_two_of_four_seats_that_wins_every_game_shows_one() -> None:
    plan = schedule(2, 4, 5)  # two bots fill four seats: a, b, a, b in two rotations
    summary = summarize(results(plan, 0), plan, ["a", "b"])
    a, b = summary.bots
    assert summary.games == len(plan) == 10
    assert a.games == b.games == summary.games  # the games column agrees with the header
    assert a.win.mean == 1.0 and b.win.mean == 0.0
    # Wilson on 10 games, not a floor on 5 per-deal means
    assert a.win.hi == 1.0 and a.win.lo == pytest.approx(0.7225, abs=1e-4)
    pair = summary.pairs[0]  # the same +1 every deal: no interval invented around it
    assert (pair.win.mean, pair.win.lo, pair.win.hi) == (1.0, 1.0, 1.0)
    head = summary.head_to_head
    assert head is not None and (head.wins, head.losses, head.draws) == (10, 0, 0)
    assert (len(head.deals), head.per_deal) == (5, 2)  # the games of a deal are one sample
    assert head.counts() == [0, 0, 0, 0, 5]
    assert summary.ratings == ()


def test_shared_wins_are_draws_between_two_bots() -> None:
    plan = schedule(2, 2, 4)
    summary = summarize(results(plan, None), plan, ["a", "b"])
    assert [b.win.mean for b in summary.bots] == [0.5, 0.5]
    head = summary.head_to_head
    assert head is not None and (head.wins, head.losses, head.draws) == (0, 0, 8)
    assert head.lines()[0] == "Score of a vs b: 0 - 0 - 8  [0.500] 8"


def test_three_bots_get_plackett_luce_ratings_and_the_report_prints_them() -> None:
    plan = schedule(3, 4, 3)  # one table a, b, c, a in four rotations
    summary = summarize(results(plan, 2), plan, ["a", "b", "c"])
    assert summary.head_to_head is None
    assert [b.games for b in summary.bots] == [12, 12, 12] == [summary.games] * 3
    assert math.fsum(b.win.mean for b in summary.bots) == pytest.approx(1.0)
    ratings = {r.name: r for r in summary.ratings}
    assert ratings["c"].mu > ratings["a"].mu and ratings["c"].mu > ratings["b"].mu

    class Settings:
        game, mode, players, rounds, bots, seed = "xactika", "bid", 4, 2, [], None

        def schedule(self) -> list[GameSpec]:
            return plan

    text = report(summary, Settings(), {"normal": 12}, None)  # type: ignore[arg-type]
    assert text.splitlines()[0] == ("match: 12 games on 3 complete deals (xactika bid, 4 "
                                    "players, 2 hands a game)")
    Settings.rounds = 1
    assert "4 players, 1 hand a game)" in report(summary, Settings(), {}, None)  # type: ignore[arg-type]
    rows = {line.split()[0]: line.split() for line in text.splitlines()
            if line[:1] in ("a", "b", "c") and line[1:2] == " "}
    assert rows["c"][1] == "12" and rows["c"][4] == "1.000"  # games, then win share
    lines = text.splitlines()
    below = lines[lines.index(next(ln for ln in lines if ln.startswith("c "))) + 1].split()
    assert below[2:4] == [f"[{wilson(12, 12).lo:.3f},", "1.000]"]  # its interval below it
    assert "ratings (Plackett-Luce" in text
    rating_lines = [ln.split() for ln in text.splitlines() if "+/-" in ln and ln.startswith("  ")]
    assert rating_lines[0][0] == "c"
    assert "Score of" not in text
