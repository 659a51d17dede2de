"""Games per second of ``xactika match`` between random bots, against in-process play.

Match: Xactika, Play to Bid, 4 players, 8 hands a game, four ``xactika bot random``
processes per game, every line through the player protocol, every game's record
fsynced; at concurrency 1 and 2, with a fresh process per seat and game (the default,
``restart=on``) and with processes kept between games (``restart=off``).

Peer: the core benchmark's in-process random play (bench/random_play.py ``ours_hands``:
``legal_actions`` + ``step`` in a loop, no processes), measured in the same run and
turned into games per second (8 hands a game).

Also shown: the cost of starting the four bot processes alone (spawn, handshake, quit),
which bounds how fast a fresh-process-per-game runner can go, and the rate with the
standard-library example bot (which parses nothing), the runner's own ceiling.

Run by hand (not a test): ``.venv/bin/python bench/match_speed.py [--games 16] [--seconds 3]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from random_play import ROUNDS, ours_hands

from xactika.frontends.match.runner import MatchSettings, Progress, run_match
from xactika.frontends.match.tournament import parse_bot, seeded_deals
from xactika.protocol.client import PlayerProcess

PLAYERS = 4


EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "random_bot.py"


def match_rate(games: int, concurrency: int, restart: bool = True,
               example: bool = False) -> float:
    """Games per second of a whole match of ``games`` games at ``concurrency``."""
    deals = max(1, games)
    tokens = [f"restart={'on' if restart else 'off'}"]
    tokens += ["name=ex", f"cmd={sys.executable} {EXAMPLE} 1"] if example else ["random"]
    bot = parse_bot(tokens, builtins=["random"])
    settings = MatchSettings((bot,), "xactika", "bid", PLAYERS, ROUNDS, deals, 1)
    deal_set = seeded_deals("xactika", "bid", PLAYERS, ROUNDS, 1, deals)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "match"
        t0 = time.perf_counter()
        result = run_match(settings, deal_set, out, concurrency, Progress(0, None), None)
        elapsed = time.perf_counter() - t0
    played = result["summary"]["games"]
    assert played == deals, result["summary"]  # one lineup of 4 identical bots: 1 rotation
    assert result["terminations"] == {"normal": played}
    return played / elapsed


def startup_cost(rounds: int = 5) -> float:
    """Seconds to start four bots in parallel, handshake and quit them (one game's overhead)."""
    import threading

    bot = parse_bot(["random"], builtins=["random"])
    times = []
    for _ in range(rounds):
        players = [PlayerProcess(bot.cmd, name="random") for _ in range(PLAYERS)]
        t0 = time.perf_counter()
        threads = [threading.Thread(target=p.start) for p in players]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for p in players:
            p.quit(1.0)
        times.append(time.perf_counter() - t0)
    return sorted(times)[len(times) // 2]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=16, help="games per match run (16)")
    parser.add_argument("--seconds", type=float, default=3.0,
                        help="time for the in-process figure (3)")
    args = parser.parse_args(argv)
    print(f"xactika bid, {PLAYERS} players, {ROUNDS} hands a game; Python "
          f"{sys.version.split()[0]}, {os.cpu_count()} CPUs")
    hands, elapsed = ours_hands(args.seconds)
    inproc = hands / ROUNDS / elapsed
    print(f"in-process random play (step loop):   {inproc:9.1f} games/s")
    start = startup_cost()
    print(f"start + handshake + quit of 4 bots:   {start * 1000:9.1f} ms "
          f"(at most {1 / start:.1f} games/s at concurrency 1)")
    for restart in (True, False):
        rates = {}
        label = "restart=on " if restart else "restart=off"
        for conc in (1, 2):
            rates[conc] = match_rate(args.games, conc, restart)
            print(f"xactika match {label}, concurrency {conc}: {rates[conc]:7.2f} games/s  "
                  f"ratio to in-process {rates[conc] / inproc:.4f} "
                  f"(1 : {inproc / rates[conc]:.0f})")
        print(f"  {label}: concurrency 2 / concurrency 1 = {rates[2] / rates[1]:.2f}x")
    # the runner's own ceiling: a bot that does no work (examples/random_bot.py)
    for conc in (1, 2):
        rate = match_rate(args.games, conc, restart=False, example=True)
        print(f"examples/random_bot.py restart=off, concurrency {conc}: {rate:7.2f} games/s  "
              f"ratio to in-process {rate / inproc:.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
