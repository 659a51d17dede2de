"""An arena season's games per second against a match's, line-up for line-up.

The arena seats its least certain entrants most often and a match plays a round robin,
so the two play different line-ups, and a slow bot seated more often costs the arena
games per second that are no overhead of its own. This reads a season's records and a
match's (the records' ``think.<seat>`` and ``runner.cost`` headers), takes each line-up's
mean game time in the match (its bots' think times plus the runner's latency) and
weights it by the arena's line-ups: the arena's games per second at the match's mix,
and the runner's cost per decision in each (medians). spec/ARENA.md, "A season,
measured", was made with it:

    .venv/bin/python bench/arena_mix.py season 1801.8 season/match 250.8 \\
        --same lvl5=strong-5 lvl3=strong-3 lvl1=strong-1 rnd=random

(the arena folder and its run's seconds, the match folder and its seconds: from
``arena run``'s last line and the match's results.json less its deals.txt).
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path


def games(paths: list[Path]) -> list[tuple[list[str], float, float, float, float]]:
    """Each record's (seats, think seconds, runner latency seconds, and a decision's
    runner latency and CPU in us), from its headers."""
    out = []
    for path in paths:
        seats: list[str] = []
        think = latency = per = cpu = 0.0
        with path.open(encoding="utf-8") as fh:
            for line in fh:
                if not line.startswith("header "):
                    break
                _, key, value = [*line.rstrip("\n").split(" ", 2), ""][:3]
                if key == "seats":
                    seats = value.split(",")
                elif key.startswith("think."):
                    think += sum(int(x) for x in value.split(",") if x != "-") / 1000
                elif key == "runner.cost":
                    cost = dict(x.split("=") for x in value.split())
                    per = float(cost["latency"].removesuffix("us"))
                    latency = per * int(cost["decisions"]) / 1e6
                    cpu = float(cost["cpu"].removesuffix("us"))
        out.append((seats, think, latency, per, cpu))
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("arena", type=Path)
    p.add_argument("arena_s", type=float, help="the season's seconds")
    p.add_argument("match", type=Path)
    p.add_argument("match_s", type=float, help="the match's seconds")
    p.add_argument("--same", nargs="*", default=[], metavar="ENTRANT=BOT",
                   help="an arena entrant and the match bot it is")
    args = p.parse_args()
    same = dict(pair.split("=", 1) for pair in args.same)
    arena = games(sorted(args.arena.glob("ladders/*/games/*.log")))
    match = games(sorted(args.match.glob("games/*")))
    by_lineup: dict[frozenset[str], list[float]] = {}
    for seats, think, latency, *_ in match:
        by_lineup.setdefault(frozenset(seats), []).append(think + latency)
    mean = {k: statistics.mean(v) for k, v in by_lineup.items()}
    match_game = statistics.mean(t + lat for _, t, lat, *_ in match)
    weighted = [mean.get(frozenset(same.get(s, s) for s in seats), think + latency)
                for seats, think, latency, *_ in arena]  # a line-up the match lacks: its own
    arena_game = statistics.mean(weighted)
    arena_rate, match_rate = len(arena) / args.arena_s, len(match) / args.match_s
    at_mix = arena_rate * arena_game / match_game
    print(f"arena {len(arena)} games, {arena_rate:.2f} games/s; match {len(match)} games, "
          f"{match_rate:.2f} games/s: {arena_rate / match_rate:.1%}")
    print(f"a game at the arena's line-ups costs {arena_game / match_game - 1:+.1%} of one at "
          f"the match's (the match's times); at the match's line-ups the arena would play "
          f"{at_mix:.2f} games/s, {at_mix / match_rate:.1%} of the match")
    own = statistics.mean(t + lat for _, t, lat, *_ in arena)
    print(f"the arena's own think and runner time a game {own:.3f} s, predicted "
          f"{arena_game:.3f} s")
    for label, g in (("arena", arena), ("match", match)):
        print(f"{label}: runner latency median {statistics.median(x[3] for x in g):.0f} us, "
              f"CPU median {statistics.median(x[4] for x in g):.0f} us a decision")


if __name__ == "__main__":
    main()
