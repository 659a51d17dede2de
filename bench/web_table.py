"""The web table's weight and speed (issue 27). Run by hand: ``python bench/web_table.py``.

1. Weight: the table page and the lobby page with everything they load (HTML, JS, CSS),
   uncompressed and as they travel (gzip, as a browser asks). Goal: under 150 KB, no
   framework.
2. Time to the first interactive table on loopback: from navigating to a table's invite
   link to the first control a person can use (a bid button or a raised card), in Debian's
   chromium driven by Playwright, over ``--games`` fresh tables (median and worst).
3. Move round trip: from the click on a card or a bid to the trick (or bids) updated with
   that move, over whole games of Xactika against three bots: p50, p95 and max. Goal:
   p95 under 100 ms on loopback.
4. The server's CPU per move at those tables (a person, three built-in bots and a
   spectator's page each): the server's own process, and apart from it its thinking
   process (the bots' choices). ``--before DIR`` runs the same games first on the code of
   another checkout (DIR's core, protocol and frontends, e.g. ``git worktree add /tmp/before
   main``; with its compiled kernel, or the bots think in pure Python) and prints both.
"""

from __future__ import annotations

import argparse
import gzip
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from procs import children_cpu, code_of, cpu_seconds  # bench/procs.py

CHROMIUM = "/usr/bin/chromium"


def weight(url: str, page: str) -> tuple[dict[str, int], int]:
    """Bytes of a page and of every script and stylesheet it loads (imports followed),
    uncompressed; and their sum as it travels, gzip asked for."""
    sizes: dict[str, int] = {}
    wire = 0
    todo = [page]
    while todo:
        path = todo.pop()
        if path in sizes:
            continue
        asked = urllib.request.Request(url + path, headers={"Accept-Encoding": "gzip"})
        with urllib.request.urlopen(asked) as answer:
            body = answer.read()
            wire += len(body)
            if answer.headers.get("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
        sizes[path] = len(body)
        text = body.decode()
        todo += re.findall(r'(?:src|href)="(/static/[^"]+\.(?:js|css))"', text)
        todo += ["/static/" + name for name in re.findall(r'from "\./([^"]+\.js)"', text)]
    return sizes, wire


MOVE = re.compile(r"^event \d+ (?:bid|lead|play) ", re.MULTILINE)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=3, help="whole games to time (default 3)")
    p.add_argument("--rounds", type=int, default=8, help="rounds a game (default 8)")
    p.add_argument("--before", default=None, metavar="DIR",
                   help="run the same games first on DIR's code (another checkout)")
    args = p.parse_args()
    runs = [("before", args.before), ("after", None)] if args.before else [("this code", None)]
    cpus = {label: measure(args, code_of(checkout), label) for label, checkout in runs}
    if args.before:
        before, after = cpus["before"], cpus["after"]
        print(f"server CPU per move, after / before: {after[0]:.0f} / {before[0]:.0f} us = "
              f"{after[0] / before[0]:.2f}x (its thinking process: {after[1]:.0f} / "
              f"{before[1]:.0f} us)")
    return 0


def measure(args: argparse.Namespace, env: dict[str, str], label: str) -> tuple[float, float]:
    """The figures of one run of the server (on the code ``env`` names); its CPU per move
    (its own process, its thinking process), in microseconds."""
    out = Path(tempfile.mkdtemp(prefix="xactika-web-bench-"))
    proc = subprocess.Popen([sys.executable, "-m", "xactika.frontends.cli", "web", "--port",
                             "0", "--out", str(out), "--seed", "1"],
                            stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    url = re.search(r"(http://\S+?)/ ", proc.stdout.readline()).group(1)  # type: ignore[union-attr]
    moves, cpu, thinking = 0, 0.0, 0.0
    print(f"-- {label}")
    try:
        for name, page in (("table", "/table/1"), ("lobby", "/")):
            sizes, wire = weight(url, page)
            total = sum(sizes.values())
            parts = ", ".join(f"{k.rsplit('/', 1)[-1] if k.startswith('/static/') else 'html'} {v}"
                              for k, v in sizes.items())
            print(f"weight of the {name} page: {total / 1000:.1f} KB ({parts}), "
                  f"{wire / 1000:.1f} KB compressed"
                  f"  goal < 150 KB: {'ok' if total < 150_000 else 'MISSED'}")
        from playwright.sync_api import sync_playwright

        firsts: list[float] = []
        trips: list[float] = []
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=CHROMIUM, args=["--no-sandbox"] if os.geteuid() == 0 else [])
            for _ in range(args.games):
                page = browser.new_page(viewport={"width": 1280, "height": 800})
                page.goto(url + "/")
                made = page.evaluate(
                    """async (rounds) => (await fetch('/api/tables', {method: 'POST', headers:
                    {'content-type': 'application/json'}, body: JSON.stringify({rounds,
                    seats: ['open', '3', '3', '3'], clock: 120})})).json()""", args.rounds)
                number = made["table"]["id"]
                watcher = browser.new_page(viewport={"width": 1280, "height": 800})
                watcher.goto(f"{url}/table/{number}#watch")  # a spectator's page beside
                began, child = cpu_seconds(proc.pid), children_cpu(proc.pid)
                start = time.perf_counter()
                page.goto(f"{url}/table/{number}#seat={made['invites']['0']}"
                          "&name=Bench")
                page.wait_for_selector("#controls button.bid:not([disabled]), "
                                       "#hand button.card.playable")
                firsts.append(time.perf_counter() - start)
                while not page.locator("#end").is_visible():
                    for selector in ("#controls button.bid:not([disabled])",
                                     "#controls button.call-choice",
                                     "#hand button.card.playable"):
                        found = page.locator(selector)
                        if found.count():
                            found.first.click()
                            break
                    else:
                        page.wait_for_timeout(10)
                trips += page.evaluate("window.xactikaTimes")
                cpu += cpu_seconds(proc.pid) - began
                thinking += children_cpu(proc.pid) - child
                record = ""
                while not MOVE.search(record):  # written once the game is over
                    record = page.evaluate(f"async () => (await fetch('/api/tables/{number}"
                                           "/record')).text()")
                moves += len(MOVE.findall(record))
                watcher.close()
                page.close()
            browser.close()
    finally:
        proc.terminate()
        proc.wait()
    print(f"time to the first interactive table: median {statistics.median(firsts) * 1000:.0f} ms, "
          f"worst {max(firsts) * 1000:.0f} ms over {len(firsts)} tables")
    trips.sort()
    p95 = trips[int(0.95 * (len(trips) - 1))]
    print(f"move round trip (click to the trick updated), {len(trips)} moves: "
          f"p50 {statistics.median(trips):.1f} ms, p95 {p95:.1f} ms, max {trips[-1]:.1f} ms"
          f"  goal p95 < 100 ms: {'ok' if p95 < 100 else 'MISSED'}")
    per, per_child = cpu / max(1, moves) * 1e6, thinking / max(1, moves) * 1e6
    print(f"server CPU at a table of a person, three bots and a spectator: {cpu:.2f} s over "
          f"{moves} moves, {per:.0f} us a move; its thinking process {per_child:.0f} us a "
          f"move; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    return per, per_child


if __name__ == "__main__":
    sys.exit(main())
