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

Hostile (``--hostile 10``, with ``--think``): the seats are people (``kind=human``, a
3600 s bank each), and the same load runs twice, without and then with N hostile tables
beside it, made as issue 30's attack makes them: every seat taken by a person who never
answers, a 50 ms clock, level-5 stand-ins, no pace (the attacker's choice). It reports the
people's p99 move latency in both runs and their ratio, and the most a person was charged
that they did not spend thinking (the bank's drop across a move, less the time from the
``go`` arriving to the answer leaving). Such a table pauses once every seat is a stand-in
(spec/SERVER.md section 6); ``--keep-one`` has the attacker keep one seat with an instant
bot, so that three level-5 stand-ins play on at full speed.

Built-in bots (``--web-bots 10``, with ``--think``): as hostile, but the N tables beside
are lobby tables of three level-5 built-in bots (the bots a web table seats, run by
frontends/web/transport.py) and one seat played at once by this process, unpaced.

The thinking child killed (``--kill-child``, with ``--web-bots``): one run, in which the
server's thinking process (protocol/net/thinking.py) is sent SIGKILL halfway through the
measured window; the people's p99 before the kill and after it, their ratio (issue 40's
target: within 2x), and how long until a fresh child was thinking.

Web tables (``--web 10``): ``xactika web`` (no pace) with N tables at once, each of a
person (a WebSocket playing random legal moves at once, as the page speaks), three
built-in bots (``--level``) and a spectator's WebSocket, every game to its end: the
server's CPU per move (its own process; its thinking process apart), which is where
each connection's narration and facts and each bot's reading are (issue 44).
``--before DIR`` runs the same load first on the code of another checkout (DIR's core,
protocol and frontends, e.g. ``git worktree add /tmp/before main``, with its compiled
kernel) and prints both figures.

Run by hand: ``.venv/bin/python bench/server_load.py --tables 200``,
``... --web 10 --before /tmp/before``,
``... --tables 1000 --think 1-3 --duration 60``, ``... --journal both``,
``... --tables 200 --think 1-3 --duration 60 --hostile 10``,
``... --tables 200 --think 1-3 --duration 60 --web-bots 10``,
``... --tables 200 --think 1-3 --duration 60 --web-bots 10 --kill-child``. ``SERVE_CMD``
replaces the server's command (e.g. a cProfile wrapper around ``xactika.frontends.cli.main``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from procs import children_cpu, code_of, cpu_seconds  # bench/procs.py

XACTIKA = Path(sys.executable).with_name("xactika")
SERVE = os.environ.get("SERVE_CMD", str(XACTIKA)).split()


async def seat(port: int, token: str, rng: random.Random, latencies: list[float],
               think: tuple[float, float] = (0.0, 0.0), window: tuple[float, float] = (0.0, 1e18),
               unspent: list[float] | None = None,
               later: tuple[float, list[float]] | None = None) -> bool:
    """Play one seat with random legal answers, thinking ``think`` seconds (a uniform
    range) before each; True when the game ended with quit. Latencies count within
    ``window`` (perf_counter times); with ``later`` (a time, a list), those of moves sent
    from that time on go to that list instead. With ``unspent`` the seat is a person:
    each move's charge to its bank, less the time it thought, goes there (seconds)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=1 << 16)
    writer.write(f"seat {token}\n".encode())
    me = ""
    sent = 0.0
    bank, thought = -1, 0.0  # the last go's time= (ms), and how long we took to answer it
    try:
        while line := (await reader.readline()).decode():
            words = line.split()
            if not words:
                continue
            if words[0] == "seated":
                me = "seat=" + dict(w.partition("=")[::2] for w in words[1:])["seat"]
            elif words[0] == "hello":
                writer.write(b"hello 1 name=load" + (b" kind=human\n" if unspent is not None
                                                      else b"\n"))
            elif words[0] == "isready":
                writer.write(b"readyok\n")
            elif words[0] == "go":
                got = time.perf_counter()
                fields = dict(w.partition("=")[::2] for w in words[2:])
                left = int(fields.get("time", "-1"))
                if unspent is not None and bank >= 0 and left >= 0 \
                        and window[0] <= got < window[1]:
                    unspent.append((bank - left) / 1000 - thought)  # no increment: 3600+0
                bank = left
                if think[1] > 0:
                    await asyncio.sleep(rng.uniform(*think))
                options = fields["options"].split(",")
                choice = rng.choice(options)
                answer = f"bid {choice}" if words[1] == "bid" else "play " + choice.replace(
                    ":", " ")
                writer.write(answer.encode() + b"\n")
                sent = time.perf_counter()
                thought = sent - got
            elif sent and words[0] == "event" and len(words) > 3 and words[3] == me:
                if window[0] <= sent < window[1]:
                    into = later[1] if later is not None and sent >= later[0] else latencies
                    into.append(time.perf_counter() - sent)
                sent = 0.0
            elif words[0] == "quit":
                return True
            elif words[0] == "error":
                print(f"server error: {line.strip()}", file=sys.stderr)
                return False
    finally:
        writer.close()
    return False


async def silent(port: int, token: str) -> None:
    """Issue 30's attacker: take the seat as a person, then never answer (nor read)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"seat {token}\n".encode())
    try:
        while line := (await reader.readline()).decode():
            if line.startswith("hello"):
                writer.write(b"hello 1 name=mute kind=human\n")
            elif line.startswith("isready"):
                writer.write(b"readyok\n")
                await reader.read()  # never a move: wait until the server closes the seat
                return
    finally:
        writer.close()


async def hostile_tables(port: int, admin: str, count: int) -> list[str]:
    """``count`` tables made by the admin as the attack makes them; their seat tokens."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"admin {admin}\n".encode())
    await reader.readline()
    tokens = []
    for _ in range(count):
        writer.write(b"table players=4 rounds=8 clock=0.05+0 level=5 pace=off\n")
        for _ in range(5):  # four seats and the observer
            words = (await reader.readline()).decode().split()
            if len(words) == 6 and words[2] == "seat":
                tokens.append(words[5])
    writer.close()
    return tokens


async def bot_tables(port: int, admin: str, count: int) -> list[str]:
    """``count`` lobby tables of three level-5 built-in bots (the web's bots, seated by the
    server: frontends/web/transport.py) and one seat for an instant player, unpaced; that
    seat's tokens."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"lobby {admin}\n".encode())
    await reader.readline()
    tokens = []
    for n in range(count):
        writer.write(b"create players=4 rounds=8 pace=off seats=human,5,5,5\n")
        number = (await reader.readline()).decode().split("=")[-1].strip()
        writer.write(f"join {number} name=keeper{n}\n".encode())
        tokens.append((await reader.readline()).decode().split("token=")[-1].strip())
    writer.close()
    return tokens


def thinkers(pid: int) -> list[int]:
    """The server's thinking processes: its children started by multiprocessing's spawn
    (not its resource tracker)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            if entry.name.isdigit() and int(stat[1]) == pid \
                    and b"spawn_main" in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except (OSError, IndexError, ValueError):
            continue
    return found


async def kill_child(pid: int, at: float) -> str:
    """At perf_counter time ``at``, SIGKILL the server's thinking processes; what
    happened, and how long until a fresh one was up."""
    await asyncio.sleep(max(0.0, at - time.perf_counter()))
    dead = thinkers(pid)
    for child in dead:
        os.kill(child, signal.SIGKILL)
    killed = time.perf_counter()
    while not (fresh := set(thinkers(pid)) - set(dead)):
        if time.perf_counter() - killed > 60:
            return f"killed {dead}: no fresh thinking process within 60 s"
        await asyncio.sleep(0.05)
    return (f"killed the thinking process{'es' if len(dead) > 1 else ''} "
            f"{','.join(map(str, dead)) or '(none running)'}; a fresh one "
            f"({','.join(map(str, fresh))}) was up {time.perf_counter() - killed:.2f} s later")


def memory_kib(pid: int) -> dict[str, int]:
    found = {}
    with open(f"/proc/{pid}/status", encoding="ascii") as fh:
        for line in fh:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                found[key] = int(value.split()[0])
    return found


async def run(args: argparse.Namespace, journal: bool, hostile: int = 0,
              bots: int = 0) -> dict[str, float]:
    """One load: moves per second, the p99 latency and the most unspent charge (and with
    ``--kill-child`` the p99 of the moves after the kill)."""
    out = tempfile.mkdtemp(prefix="server-load-")
    conns = args.tables * args.players + 16
    think = tuple(float(x) for x in args.think.split("-")) if args.think else (0.0, 0.0)
    serve = subprocess.Popen(
        [*SERVE, "serve", "--port", "0", "--tables", str(args.tables),
         "--players", str(args.players), "--rounds", str(args.rounds), "--seed", "1",
         "--max-connections", str(conns), "--max-per-address", str(conns),
         "--max-unauthenticated", str(conns),
         "--move-timeout", "60", "--out", out, "--exit-when-done",
         *(["--clock", "3600+0"] if args.hostile or args.web_bots else []),
         *([] if journal else ["--no-journal"])],
        stdout=subprocess.PIPE, text=True,
    )
    assert serve.stdout is not None
    first = serve.stdout.readline()
    port = int(re.search(r":(\d+) ", first).group(1))  # type: ignore[union-attr]
    admin = serve.stdout.readline().strip().partition("=")[2]  # the admin token
    tables: dict[str, list[str]] = {}  # a line per token: table N seat S token T
    while not (line := serve.stdout.readline()).startswith("clocks:"):
        words = line.split()
        if len(words) == 6 and words[2] == "seat":
            tables.setdefault(words[1], []).append(words[5])
    # its line per finished game must never fill the pipe and stall the server
    threading.Thread(target=lambda: [None for _ in serve.stdout or ()], daemon=True).start()
    idle = memory_kib(serve.pid)
    latencies: list[float] = []
    unspent: list[float] | None = [] if args.hostile or args.web_bots else None
    rng = random.Random(args.seed)
    began = time.perf_counter()
    # human-paced: latency and CPU after every seat has had time to connect and settle
    window = (began + args.warmup, began + args.warmup + args.duration) if args.duration \
        else (0.0, 1e18)
    cpu_began = cpu_seconds(serve.pid)
    after_kill: list[float] = []
    kill_at = (window[0] + window[1]) / 2
    later = (kill_at, after_kill) if args.kill_child else None
    jobs = []
    for tokens in tables.values():
        jobs += [seat(port, t, random.Random(rng.random()), latencies, think, window, unspent,
                      later) for t in tokens]
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
    kept: list[float] = []  # the moves of the bot tables' own seats: those tables play on

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
        if hostile:  # once the people's tables are under way
            await asyncio.sleep(min(5.0, args.warmup / 2))
            for n, token in enumerate(await hostile_tables(port, admin, hostile)):
                if args.keep_one and n % 4 == 0:  # the attacker's own instant bot
                    tasks.append(asyncio.ensure_future(seat(port, token, random.Random(n), [])))
                else:
                    tasks.append(asyncio.ensure_future(silent(port, token)))
        if bots:
            await asyncio.sleep(min(5.0, args.warmup / 2))

            async def one_after_another(n: int) -> None:  # the load stays while it is killed
                while await seat(port, (await bot_tables(port, admin, 1))[0],
                                 random.Random(n), kept, window=window):
                    n += bots

            if args.kill_child:
                tasks += [asyncio.ensure_future(one_after_another(n)) for n in range(bots)]
            for n, token in enumerate([] if args.kill_child else
                                      await bot_tables(port, admin, bots)):
                tasks.append(asyncio.ensure_future(seat(port, token, random.Random(n), kept,
                                                        window=window)))
        killing = asyncio.ensure_future(kill_child(serve.pid, kill_at)) \
            if args.kill_child else None
        await asyncio.sleep(args.warmup)
        cpu_began = cpu_seconds(serve.pid)
        await asyncio.sleep(args.duration)
        if killing is not None:
            print(await killing)
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
    games = sum(1 for one in done if one is True) // args.players
    print(f"journal {'on' if journal else 'off'}; "
          f"{'think ' + args.think + ' s' if args.think else 'saturated'}"
          + (f"; {hostile} hostile tables beside" if hostile else "")
          + (", a seat of each kept by an instant bot" if hostile and args.keep_one else "")
          + (f"; {bots} tables of three level-5 built-in bots beside" if bots else ""))

    def p(q: float, among: list[float] = latencies) -> float:  # the q-quantile in ms
        return among[min(len(among) - 1, int(q * len(among)))] * 1000

    if args.kill_child:
        after_kill.sort()
        print(f"people's p99 move latency after / before the thinking process was killed: "
              f"{p(0.99, after_kill):.2f} / {p(0.99):.2f} ms = "
              f"{p(0.99, after_kill) / p(0.99):.2f}x (target within 2x); max after "
              f"{after_kill[-1] * 1000:.2f} ms over {len(after_kill)} moves")

    print(f"tables {args.tables} ({args.players} players, {args.rounds} rounds), "
          f"{games} games complete; measured {elapsed:.2f} s: {games / elapsed:.1f} games/s, "
          f"{len(latencies) / elapsed:.0f} moves/s")
    print(f"move latency (answer sent -> its event back): p50 {p(0.5):.2f} ms, "
          f"p99 {p(0.99):.2f} ms, max {latencies[-1] * 1000:.2f} ms over {len(latencies)} moves")
    if bots:
        print(f"the {bots} tables of built-in bots: {len(kept)} moves of their one "
              f"instant seat in the window (about a quarter of theirs)")
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
    worst = 0.0
    if unspent:
        unspent.sort()
        worst = unspent[-1] * 1000
        mid, high = unspent[len(unspent) // 2] * 1000, unspent[int(0.99 * len(unspent))] * 1000
        print(f"people charged for time they did not think: p50 {mid:.1f} ms, p99 {high:.1f} ms, "
              f"max {worst:.1f} ms over {len(unspent)} moves")
    shutil.rmtree(out, ignore_errors=True)
    return {"moves/s": len(latencies) / elapsed, "p99": p(0.99), "unspent": worst}


async def web_person(url: str, token: str, rng: random.Random) -> None:
    """A page's seat over the WebSocket: ``seat TOKEN``, then random legal answers at once."""
    from websockets.asyncio.client import connect

    async with connect(url.replace("http", "ws", 1) + "/ws", origin=url,  # type: ignore[arg-type]
                       max_size=None) as ws:
        await ws.send(f"seat {token}")
        async for message in ws:
            for line in str(message).split("\n"):
                words = line.split()
                if not words:
                    continue
                if words[0] == "hello":
                    await ws.send("hello 1 name=load kind=human")
                elif words[0] == "isready":
                    await ws.send("readyok")
                elif words[0] == "go":
                    options = dict(w.partition("=")[::2] for w in words[2:])["options"]
                    choice = rng.choice(options.split(","))
                    await ws.send(f"bid {choice}" if words[1] == "bid"
                                  else "play " + choice.replace(":", " "))
                elif words[0] == "quit":
                    return


async def web_watcher(url: str, table: int) -> None:
    """A spectator's page: ``watch N``, every line read until the table closes it."""
    from websockets.asyncio.client import connect

    async with connect(url.replace("http", "ws", 1) + "/ws", origin=url,  # type: ignore[arg-type]
                       max_size=None) as ws:
        await ws.send(f"watch {table}")
        async for _ in ws:
            pass


def web_table(url: str, level: str, rounds: int) -> tuple[int, str]:
    """A lobby table of the web: an open seat and three bots; its number and seat token."""
    import json
    import urllib.request

    body = json.dumps({"rounds": rounds, "seats": ["open", level, level, level],
                       "name": "load"}).encode()
    asked = urllib.request.Request(url + "/api/tables", data=body, method="POST", headers={
        "content-type": "application/json", "origin": url})
    with urllib.request.urlopen(asked) as answer:
        made = json.loads(answer.read())
    return made["table"]["id"], made["invites"]["0"]


async def web_load(args: argparse.Namespace, env: dict[str, str], label: str
                   ) -> tuple[float, float]:
    """``--web``: N web tables at once on the code ``env`` names; the server's CPU per
    move (its own process, its thinking process), in microseconds."""
    out = tempfile.mkdtemp(prefix="server-load-web-")
    serve = subprocess.Popen(
        [sys.executable, "-m", "xactika.frontends.cli", "web", "--port", "0", "--out", out,
         "--seed", "1", "--pace", "off", "--tables-per-address", str(args.web),
         "--no-journal"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        env=env)
    assert serve.stdout is not None
    url = re.search(r"(http://\S+?)/ ", serve.stdout.readline()).group(1)  # type: ignore[union-attr]
    threading.Thread(target=lambda: [None for _ in serve.stdout or ()], daemon=True).start()
    rng = random.Random(args.seed)
    try:
        made = [web_table(url, args.level, args.rounds) for _ in range(args.web)]
        began, child = cpu_seconds(serve.pid), children_cpu(serve.pid)
        elapsed = time.perf_counter()
        await asyncio.gather(*(web_watcher(url, n) for n, _ in made),
                             *(web_person(url, token, random.Random(rng.random()))
                               for _, token in made))
        cpu, thinking = cpu_seconds(serve.pid) - began, children_cpu(serve.pid) - child
        elapsed = time.perf_counter() - elapsed
    finally:
        serve.terminate()
        serve.wait(60)
    moves = 0
    for record in Path(out).glob("*.log"):
        moves += len(re.findall(r"^event \d+ (?:bid|lead|play) ", record.read_text(),
                                re.MULTILINE))
    shutil.rmtree(out, ignore_errors=True)
    per, per_child = cpu / max(1, moves) * 1e6, thinking / max(1, moves) * 1e6
    print(f"{label}: {args.web} web tables (a person, three level-{args.level} bots and a "
          f"spectator each, {args.rounds} rounds): {moves} moves in {elapsed:.1f} s; server "
          f"CPU {cpu:.2f} s, {per:.0f} us a move (its thinking process {per_child:.0f} us a "
          f"move); load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    return per, per_child


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
    p.add_argument("--hostile", type=int, default=0, metavar="N",
                   help="with --think and --duration: people's seats, run without and then "
                   "with N hostile tables beside (issue 30's attack), and compare")
    p.add_argument("--keep-one", action="store_true",
                   help="with --hostile: the attacker keeps one seat of each hostile table "
                   "with an instant bot, so the table is never deserted and its three "
                   "level-5 stand-ins play on")
    p.add_argument("--web-bots", type=int, default=0, metavar="N",
                   help="with --think and --duration: people's seats, run without and then "
                   "with N lobby tables of three level-5 built-in bots (the web's) beside")
    p.add_argument("--kill-child", action="store_true",
                   help="with --web-bots: SIGKILL the server's thinking process halfway "
                   "through the window, and compare the people's p99 before and after")
    p.add_argument("--web", type=int, default=0, metavar="N",
                   help="N web tables at once (a person, three bots, a spectator each): "
                   "the server's CPU per move")
    p.add_argument("--level", default="3", help="with --web: the bots' level (default 3)")
    p.add_argument("--before", default=None, metavar="DIR",
                   help="with --web: run the same load first on DIR's code (a checkout)")
    args = p.parse_args()
    if args.web:
        runs = [("before", args.before), ("after", None)] if args.before else [("now", None)]
        figures = {label: asyncio.run(web_load(args, code_of(checkout), label))
                   for label, checkout in runs}
        if args.before:
            (after, after_child), (before, before_child) = figures["after"], figures["before"]
            print(f"server CPU per move, after / before: {after:.0f} / {before:.0f} us = "
                  f"{after / before:.2f}x (its thinking process: {after_child:.0f} / "
                  f"{before_child:.0f} us)")
    elif args.kill_child:
        if not (args.web_bots and args.think and args.duration):
            p.error("--kill-child needs --web-bots, --think and --duration")
        asyncio.run(run(args, args.journal != "off", bots=args.web_bots))
    elif args.web_bots:
        if not (args.think and args.duration):
            p.error("--web-bots needs --think and --duration")
        calm = asyncio.run(run(args, args.journal != "off"))
        busy = asyncio.run(run(args, args.journal != "off", bots=args.web_bots))
        print(f"people's p99 move latency with / without {args.web_bots} tables of built-in "
              f"bots: {busy['p99']:.2f} / {calm['p99']:.2f} ms = "
              f"{busy['p99'] / calm['p99']:.2f}x; the most a person was charged that they "
              f"did not think: {busy['unspent']:.1f} ms with, {calm['unspent']:.1f} ms without")
    elif args.hostile:
        if not (args.think and args.duration):
            p.error("--hostile needs --think and --duration")
        calm = asyncio.run(run(args, args.journal != "off"))
        attacked = asyncio.run(run(args, args.journal != "off", args.hostile))
        print(f"people's p99 move latency with / without {args.hostile} hostile tables: "
              f"{attacked['p99']:.2f} / {calm['p99']:.2f} ms = "
              f"{attacked['p99'] / calm['p99']:.2f}x (target within 2x); the most a person "
              f"was charged that they did not think: {attacked['unspent']:.1f} ms with, "
              f"{calm['unspent']:.1f} ms without (target <= 100 ms)")
    elif args.journal == "both":
        off = asyncio.run(run(args, False))["moves/s"]
        on = asyncio.run(run(args, True))["moves/s"]
        print(f"moves/s with the journal / without: {on:.0f} / {off:.0f} = {on / off:.2f}x")
    else:
        asyncio.run(run(args, args.journal == "on"))


if __name__ == "__main__":
    main()
