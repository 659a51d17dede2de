"""Games per second of ``arena run`` against ``xactika match`` on the same bots, and the
runner's own cost per decision in each (the records' ``runner.cost``).

Both play Xactika, Play to Bid, 4 players, ``--rounds`` hands a game, four ``xactika bot
random`` processes kept between games (the arena keeps a built-in's process; the match
is given ``restart=off``), every record signed and fsynced, no sandbox, at the same
concurrency. The arena's entrants first play their qualifying sets against the house
bots (heuristic and strong:1, slower): that warm-up is not timed. Then ``arena run
--games N`` on SQLite (each game: claim or schedule, lease renewals, the record fsynced
and pinned in the manifest, the commit) against a match of the same bots over N/4 deals
(each deal in its 4 rotations, as an arena set), both measured in this process (the
imports are not counted).

The runner's cost per decision, as fastchess reports latency: a game's loop wall time
less the time waited for the bots' answers, and the CPU of the game's thread, over its
decisions; the medians over the timed games' records.

Measured 2026-12-02 on the shared 2-core machine (load 4 to 8), 200 games of 1 hand:
arena 104.4 games/s, match 136.0 (77%); runner per decision: arena latency 32 us and CPU
73 us, match 29 and 67 (medians). The arena's extra 2.3 ms a game are its record's three
fsyncs and its commit's (SQLite, ``synchronous=FULL``) in the worker's writer thread,
which a one-hand game of random bots (7 ms) does not hide; with real bots the season of
spec/ARENA.md ran at 89% of its match.

Run by hand (not a test): ``.venv/bin/python bench/arena.py [--games 200] [--rounds 1]
[--concurrency 1]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from xactika.frontends.arena.folder import Arena
from xactika.frontends.arena.play import Season
from xactika.frontends.match.game import MatchSettings
from xactika.frontends.match.runner import Progress, run_match
from xactika.frontends.match.sandbox import Sandbox
from xactika.frontends.match.tournament import parse_bot, seeded_deals
from xactika.protocol.records.textform import read_record

PLAYERS = 4
NAMES = ("ann", "bea", "cid", "dan")


def costs(paths: list[Path]) -> tuple[float, float]:
    """Median latency and CPU per decision (microseconds) of these records."""
    latency, cpu = [], []
    for path in paths:
        words = dict(w.partition("=")[::2]
                     for w in (read_record(path).header("runner.cost") or "").split())
        latency.append(float(words["latency"].removesuffix("us")))
        cpu.append(float(words["cpu"].removesuffix("us")))
    return statistics.median(latency), statistics.median(cpu)


def arena_rate(folder: Path, games: int, rounds: int, concurrency: int
               ) -> tuple[float, tuple[float, float]]:
    arena = Arena.init(folder, None)
    try:
        arena.add_ladder("main", "xactika", "bid", PLAYERS, rounds, {})
        for name in NAMES:
            arena.add_entrant(name, f"owner-{name}", None, None, "random")
        box = Sandbox("none")
        warm = 2 * len(NAMES) * PLAYERS  # the qualifying sets (QUALIFY_SETS = 2)
        Season(arena, box, concurrency, games=warm).run()
        before = set((folder / "ladders" / "main" / "games").iterdir())
        t0 = time.perf_counter()
        season = Season(arena, box, concurrency, games=games)
        season.run()
        took = time.perf_counter() - t0
        assert season.played == games and season.error is None, season.error
    finally:
        arena.close()
    timed = sorted(set((folder / "ladders" / "main" / "games").iterdir()) - before)
    return games / took, costs(timed)


def match_rate(folder: Path, games: int, rounds: int, concurrency: int
               ) -> tuple[float, tuple[float, float]]:
    bots = tuple(parse_bot([f"name={n}", "restart=off", "random"], builtins=["random"])
                 for n in NAMES)
    deals = max(1, games // PLAYERS)
    settings = MatchSettings(bots, "xactika", "bid", PLAYERS, rounds, deals, 1)
    deal_set = seeded_deals("xactika", "bid", PLAYERS, rounds, 1, deals)
    t0 = time.perf_counter()
    result = run_match(settings, deal_set, folder, concurrency, Progress(0, None), None)
    took = time.perf_counter() - t0
    played = result["summary"]["games"]
    assert result["terminations"] == {"normal": played}, result["terminations"]
    return played / took, costs(sorted((folder / "games").iterdir()))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=200, help="timed games (200)")
    parser.add_argument("--rounds", type=int, default=1, help="hands a game (1)")
    parser.add_argument("--concurrency", type=int, default=1, help="games at once (1)")
    args = parser.parse_args(argv)
    hands = f"{args.rounds} hand{'s' if args.rounds != 1 else ''}"
    print(f"xactika bid, {PLAYERS} players, {hands} a game, 4 x xactika bot random kept, "
          f"concurrency {args.concurrency}, {args.games} games")
    with tempfile.TemporaryDirectory() as tmp:
        arena, (a_lat, a_cpu) = arena_rate(Path(tmp) / "arena", args.games, args.rounds,
                                           args.concurrency)
        match, (m_lat, m_cpu) = match_rate(Path(tmp) / "match", args.games, args.rounds,
                                           args.concurrency)
    print(f"arena run: {arena:7.2f} games/s; runner per decision: latency {a_lat:.0f} us, "
          f"CPU {a_cpu:.0f} us (medians)")
    print(f"match:     {match:7.2f} games/s; runner per decision: latency {m_lat:.0f} us, "
          f"CPU {m_cpu:.0f} us (medians)")
    print(f"arena / match: {arena / match:.0%} (goal: within 10%)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
