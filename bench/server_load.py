"""Load on the table server: many concurrent tables of random socket bots on 127.0.0.1.

Starts ``xactika serve`` as its own process (so its memory is its own), opens every
table's seats at once from this process (asyncio, one connection per seat, random legal
answers), and reports tables, games per second, the move latency (a seat's answer sent
to its event back: the server's work and fan-out for one move) and the server's memory.
Run by hand: ``.venv/bin/python bench/server_load.py --tables 200``; ``SERVE_CMD`` replaces
the server's command (e.g. a cProfile wrapper around ``xactika.frontends.cli.main``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

XACTIKA = Path(sys.executable).with_name("xactika")
SERVE = os.environ.get("SERVE_CMD", str(XACTIKA)).split()


async def seat(port: int, token: str, rng: random.Random, latencies: list[float]) -> bool:
    """Play one seat with random legal answers; True when the game ended with quit."""
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
                options = dict(w.partition("=")[::2] for w in words[2:])["options"].split(",")
                choice = rng.choice(options)
                answer = f"bid {choice}" if words[1] == "bid" else "play " + choice.replace(
                    ":", " ")
                writer.write(answer.encode() + b"\n")
                sent = time.perf_counter()
            elif sent and words[0] == "event" and len(words) > 3 and words[3] == me:
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


async def run(args: argparse.Namespace) -> None:
    out = tempfile.mkdtemp(prefix="server-load-")
    conns = args.tables * args.players + 16
    serve = subprocess.Popen(
        [*SERVE, "serve", "--port", "0", "--tables", str(args.tables),
         "--players", str(args.players), "--rounds", str(args.rounds), "--seed", "1",
         "--max-connections", str(conns), "--max-per-address", str(conns),
         "--move-timeout", "60", "--out", out, "--exit-when-done"],
        stdout=subprocess.PIPE, text=True,
    )
    assert serve.stdout is not None
    first = serve.stdout.readline()
    port = int(re.search(r":(\d+) ", first).group(1))  # type: ignore[union-attr]
    serve.stdout.readline()  # the admin token
    tables = [serve.stdout.readline() for _ in range(args.tables)]
    idle = memory_kib(serve.pid)
    latencies: list[float] = []
    rng = random.Random(args.seed)
    began = time.perf_counter()
    jobs = []
    for line in tables:
        tokens = dict(w.partition("=")[::2] for w in line.split()[1:])["seats"].split(",")
        jobs += [seat(port, t, random.Random(rng.random()), latencies) for t in tokens]
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

    sampler = asyncio.create_task(sample())
    done = await asyncio.gather(*jobs)
    elapsed = time.perf_counter() - began
    sampler.cancel()
    serve.wait(60)
    latencies.sort()
    games = sum(done) // args.players

    def p(q: float) -> float:  # the q-quantile in ms
        return latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000

    print(f"tables {args.tables} ({args.players} players, {args.rounds} rounds), "
          f"{games} games complete in {elapsed:.2f} s: {games / elapsed:.1f} games/s, "
          f"{len(latencies) / elapsed:.0f} moves/s")
    print(f"move latency (answer sent -> its event back): p50 {p(0.5):.2f} ms, "
          f"p99 {p(0.99):.2f} ms, max {latencies[-1] * 1000:.2f} ms over {len(latencies)} moves")
    print(f"server CPU: {peak['cpu']:.1f} s ({peak['cpu'] / max(1, len(latencies)) * 1e6:.0f} "
          f"us a move); load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(f"server memory: {idle.get('VmRSS', 0) / 1024:.1f} MiB with every table open, "
          f"peak {peak.get('VmHWM', 0) / 1024:.1f} MiB "
          f"(records in {out}: {len(os.listdir(out))} files)")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--tables", type=int, default=100)
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--rounds", type=int, default=8)
    p.add_argument("--seed", type=int, default=1)
    asyncio.run(run(p.parse_args()))


if __name__ == "__main__":
    main()
