"""Load on the table server: many concurrent tables of random socket bots on 127.0.0.1.

Starts ``xactika serve`` as its own process (so its memory is its own), opens every
table's seats at once from this process (asyncio, one connection per seat, random legal
answers), and reports tables, games per second, the move latency (a seat's answer sent
to its event back: the server's work and fan-out for one move) and the server's memory.

Two modes: saturated (the default: every seat answers at once, the server's most moves
per second) and human-paced (``--think 1-3``: each seat thinks 1 to 3 s before each
answer, for ``--duration`` seconds; the latency people feel and the server's CPU share).
``--journal both`` runs the same load with the crash journal (spec/SERVER.md section 10)
off and on and prints the ratio of moves per second.

Run by hand: ``.venv/bin/python bench/server_load.py --tables 200``,
``... --tables 1000 --think 1-3 --duration 60``, ``... --journal both``. ``SERVE_CMD``
replaces the server's command (e.g. a cProfile wrapper around ``xactika.frontends.cli.main``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

XACTIKA = Path(sys.executable).with_name("xactika")
SERVE = os.environ.get("SERVE_CMD", str(XACTIKA)).split()


async def seat(port: int, token: str, rng: random.Random, latencies: list[float],
               think: tuple[float, float] = (0.0, 0.0), window: tuple[float, float] = (0.0, 1e18),
               ) -> bool:
    """Play one seat with random legal answers, thinking ``think`` seconds (a uniform
    range) before each; True when the game ended with quit. Latencies count within
    ``window`` (perf_counter times)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=1 << 16)
    writer.write(f"seat {token}\n".encode())
    me = ""
    sent = 0.0
    try:
        while line := (await reader.readline()).decode():
            words = line.split()
            if not words:
                continue
            if words[0] == "seated":
                me = "seat=" + dict(w.partition("=")[::2] for w in words[1:])["seat"]
            elif words[0] == "hello":
                writer.write(b"hello 1 name=load\n")
            elif words[0] == "isready":
                writer.write(b"readyok\n")
            elif words[0] == "go":
                if think[1] > 0:
                    await asyncio.sleep(rng.uniform(*think))
                options = dict(w.partition("=")[::2] for w in words[2:])["options"].split(",")
                choice = rng.choice(options)
                answer = f"bid {choice}" if words[1] == "bid" else "play " + choice.replace(
                    ":", " ")
                writer.write(answer.encode() + b"\n")
                sent = time.perf_counter()
            elif sent and words[0] == "event" and len(words) > 3 and words[3] == me:
                if window[0] <= sent < window[1]:
                    latencies.append(time.perf_counter() - sent)
                sent = 0.0
            elif words[0] == "quit":
                return True
            elif words[0] == "error":
                print(f"server error: {line.strip()}", file=sys.stderr)
                return False
    finally:
        writer.close()
    return False


def memory_kib(pid: int) -> dict[str, int]:
    found = {}
    with open(f"/proc/{pid}/status", encoding="ascii") as fh:
        for line in fh:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                found[key] = int(value.split()[0])
    return found


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def run(args: argparse.Namespace, journal: bool) -> float:
    """One load; the moves per second."""
    out = tempfile.mkdtemp(prefix="server-load-")
    conns = args.tables * args.players + 16
    think = tuple(float(x) for x in args.think.split("-")) if args.think else (0.0, 0.0)
    serve = subprocess.Popen(
        [*SERVE, "serve", "--port", "0", "--tables", str(args.tables),
         "--players", str(args.players), "--rounds", str(args.rounds), "--seed", "1",
         "--max-connections", str(conns), "--max-per-address", str(conns),
         "--max-unauthenticated", str(conns),
         "--move-timeout", "60", "--out", out, "--exit-when-done",
         *([] if journal else ["--no-journal"])],
        stdout=subprocess.PIPE, text=True,
    )
    assert serve.stdout is not None
    first = serve.stdout.readline()
    port = int(re.search(r":(\d+) ", first).group(1))  # type: ignore[union-attr]
    serve.stdout.readline()  # the admin token
    tables: dict[str, list[str]] = {}  # a line per token: table N seat S token T
    while not (line := serve.stdout.readline()).startswith("clocks:"):
        words = line.split()
        if len(words) == 6 and words[2] == "seat":
            tables.setdefault(words[1], []).append(words[5])
    # its line per finished game must never fill the pipe and stall the server
    threading.Thread(target=lambda: [None for _ in serve.stdout or ()], daemon=True).start()
    idle = memory_kib(serve.pid)
    latencies: list[float] = []
    rng = random.Random(args.seed)
    began = time.perf_counter()
    # human-paced: latency and CPU after every seat has had time to connect and settle
    window = (began + args.warmup, began + args.warmup + args.duration) if args.duration \
        else (0.0, 1e18)
    cpu_began = cpu_seconds(serve.pid)
    jobs = []
    for tokens in tables.values():
        jobs += [seat(port, t, random.Random(rng.random()), latencies, think, window)
                 for t in tokens]
    peak = {"VmHWM": 0, "cpu": 0.0}

    async def sample() -> None:  # the server exits with its last game: watch it meanwhile
        ticks = os.sysconf("SC_CLK_TCK")
        while True:
            try:
                peak["VmHWM"] = max(peak["VmHWM"], memory_kib(serve.pid).get("VmHWM", 0))
                with open(f"/proc/{serve.pid}/stat", encoding="ascii") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
                peak["cpu"] = (int(fields[11]) + int(fields[12])) / ticks
            except (OSError, IndexError, ValueError):
                return
            await asyncio.sleep(0.1)

    lags: list[float] = []

    async def lag() -> None:  # this process's own delays are in every latency it measures
        while True:
            asked = time.perf_counter()
            await asyncio.sleep(0.01)
            if window[0] <= asked < window[1]:
                lags.append(time.perf_counter() - asked - 0.01)

    sampler = asyncio.create_task(sample())
    lagger = asyncio.create_task(lag())
    if args.duration:
        tasks = [asyncio.ensure_future(job) for job in jobs]
        await asyncio.sleep(args.warmup)
        cpu_began = cpu_seconds(serve.pid)
        await asyncio.sleep(args.duration)
        cpu = cpu_seconds(serve.pid) - cpu_began
        elapsed = args.duration
        for task in tasks:
            task.cancel()
        done = [t.result() for t in tasks if t.done() and not t.cancelled()]
    else:
        done = await asyncio.gather(*jobs)
        elapsed = time.perf_counter() - began
        cpu = peak["cpu"] - cpu_began
    sampler.cancel()
    lagger.cancel()
    if args.duration:
        serve.terminate()
    serve.wait(60)
    latencies.sort()
    games = sum(done) // args.players
    print(f"journal {'on' if journal else 'off'}; "
          f"{'think ' + args.think + ' s' if args.think else 'saturated'}")

    def p(q: float) -> float:  # the q-quantile in ms
        return latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000

    print(f"tables {args.tables} ({args.players} players, {args.rounds} rounds), "
          f"{games} games complete; measured {elapsed:.2f} s: {games / elapsed:.1f} games/s, "
          f"{len(latencies) / elapsed:.0f} moves/s")
    print(f"move latency (answer sent -> its event back): p50 {p(0.5):.2f} ms, "
          f"p99 {p(0.99):.2f} ms, max {latencies[-1] * 1000:.2f} ms over {len(latencies)} moves")
    lags.sort()
    if lags:
        mid, high = lags[len(lags) // 2] * 1000, lags[int(0.99 * len(lags))] * 1000
        print(f"the playing process's own loop delay (in those figures): p50 {mid:.2f} ms, "
              f"p99 {high:.2f} ms")
    print(f"server CPU: {cpu:.1f} s in {elapsed:.1f} s: {100 * cpu / elapsed:.1f}% of one core "
          f"({cpu / max(1, len(latencies)) * 1e6:.0f} us a move); load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(f"server memory: {idle.get('VmRSS', 0) / 1024:.1f} MiB with every table open, "
          f"peak {peak.get('VmHWM', 0) / 1024:.1f} MiB "
          f"(records in {out}: {len(os.listdir(out))} files)")
    shutil.rmtree(out, ignore_errors=True)
    return len(latencies) / elapsed


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--tables", type=int, default=100)
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--rounds", type=int, default=8)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--think", default="", metavar="LO-HI",
                   help="human-paced: seconds each seat thinks before each answer (e.g. 1-3)")
    p.add_argument("--duration", type=float, default=0.0, metavar="S",
                   help="measure S seconds (after --warmup) instead of every game to its end")
    p.add_argument("--warmup", type=float, default=10.0, metavar="S",
                   help="with --duration: seconds to connect and settle before measuring")
    p.add_argument("--journal", choices=("on", "off", "both"), default="on",
                   help="the server's crash journal; both: off, then on, and the ratio")
    args = p.parse_args()
    if args.journal == "both":
        off = asyncio.run(run(args, False))
        on = asyncio.run(run(args, True))
        print(f"moves/s with the journal / without: {on:.0f} / {off:.0f} = {on / off:.2f}x")
    else:
        asyncio.run(run(args, args.journal == "on"))


if __name__ == "__main__":
    main()
