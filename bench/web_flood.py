"""``xactika web`` under flooding and slow clients (issue 30). Run by hand:
``nice python bench/web_flood.py`` (about 100 s on loopback).

1. Flood: ``--clients`` WebSockets (10) each watch a table and send 64 KiB frames of chat
   lines without ever reading, for ``--seconds`` (60); a client that is cut off comes
   back at once. The server's RSS is sampled every second: goal, its peak within +64 MiB
   of the idle server's. A person's request (``GET /api/tables``) is timed throughout.
2. Slowloris: ``--slow`` connections (600) each send part of a request head and then a
   byte a second; how many the server still holds after 2, 5, 12 and 20 s, with the
   header deadline (``--header-timeout 10``, the default) and, in the same run, without
   one (uvicorn's own behaviour: ``--header-timeout 3600``).
"""

from __future__ import annotations

import argparse
import json
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from rawws import RawSocket

MIB = 1 << 20


def rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


class Web:
    """``xactika web`` on a free port in a subprocess."""

    def __init__(self, out: Path, *extra: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "xactika.frontends.cli", "web", "--port", "0", "--out",
             str(out), "--max-connections", "1024", *extra],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert self.proc.stdout is not None
        found = re.search(r"http://([\d.]+):(\d+)/", self.proc.stdout.readline())
        assert found is not None, "xactika web did not start"
        self.host, self.port = found.group(1), int(found.group(2))
        self.url = f"http://{self.host}:{self.port}"

    def table(self) -> int:
        body = {"game": "xactika", "rounds": 1, "players": 2, "seats": ["open", "1"]}
        request = urllib.request.Request(self.url + "/api/tables",
                                         data=json.dumps(body).encode(),
                                         headers={"origin": self.url})
        with urllib.request.urlopen(request, timeout=10) as answer:
            return int(json.load(answer)["table"]["id"])

    def stop(self) -> float:
        """SIGINT, as a person's Ctrl-C; the seconds it took to exit."""
        started = time.monotonic()
        self.proc.send_signal(2)
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return float("inf")
        return time.monotonic() - started


def flood(args: argparse.Namespace, out: Path) -> None:
    web = Web(out / "flood")
    number = web.table()
    for _ in range(20):  # warm: the pages and the API once
        urllib.request.urlopen(web.url + "/api/tables", timeout=10).read()
    time.sleep(1)
    idle = rss(web.proc.pid)
    stop = time.monotonic() + args.seconds
    frame = ("chat " + "x" * 59 + "\n") * 1000  # 64,000 bytes
    sent: list[int] = []  # bytes taken from each connection before its cut
    cuts, held = [0], [0]
    lock = threading.Lock()

    def client() -> None:
        while time.monotonic() < stop:
            taken = 0
            try:
                ws = RawSocket(web.host, web.port)
                ws.send_text(f"watch {number} name=flood")
                while time.monotonic() < stop:
                    ws.send_text(frame)
                    taken += len(frame)
            except TimeoutError:
                with lock:
                    held[0] += 1  # the server stopped reading and kept us: not a cut
            except OSError:
                with lock:
                    cuts[0] += 1
            finally:
                ws.close()
                with lock:
                    sent.append(taken)

    threads = [threading.Thread(target=client, daemon=True) for _ in range(args.clients)]
    for thread in threads:
        thread.start()
    peak, waits, timeline = idle, [], []
    while time.monotonic() < stop:
        started = time.monotonic()
        urllib.request.urlopen(web.url + "/api/tables", timeout=30).read()
        waits.append(time.monotonic() - started)
        now = rss(web.proc.pid)
        peak = max(peak, now)
        if len(waits) % 10 == 0:
            timeline.append(now)
        time.sleep(max(0.0, 1.0 - (time.monotonic() - started)))
    for thread in threads:
        thread.join(15)
    time.sleep(2)
    after = rss(web.proc.pid)
    exit_s = web.stop()
    print(f"flood: {args.clients} clients x {args.seconds:g} s, 64 KiB chat frames, "
          "never reading")
    print(f"  server RSS idle {idle / MIB:.1f} MiB, peak {peak / MIB:.1f} MiB "
          f"(+{(peak - idle) / MIB:.1f} MiB; goal +64), after {after / MIB:.1f} MiB")
    print("  every 10 s: " + ", ".join(f"{m / MIB:.0f}" for m in timeline) + " MiB")
    print(f"  sent {sum(sent) / MIB:.1f} MiB in {cuts[0]} connections cut off "
          f"({held[0]} held without reading); per connection median "
          f"{statistics.median(sent) / MIB:.2f} MiB, max {max(sent) / MIB:.2f} MiB")
    print(f"  a person's GET /api/tables meanwhile: median {statistics.median(waits) * 1000:.0f}"
          f" ms, max {max(waits) * 1000:.0f} ms ({len(waits)} requests)")
    print(f"  SIGINT after the flood: exited in {exit_s:.1f} s")


def held_after(web: Web, count: int, marks: list[float]) -> list[int]:
    """Open ``count`` slow request heads; how many are still open at each mark."""
    socks = []
    for n in range(count):
        sock = socket.create_connection((web.host, web.port), timeout=5)
        sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow-%d: a" % n)
        sock.setblocking(False)
        socks.append(sock)
    started, counts, open_ = time.monotonic(), [], set(range(count))
    for mark in marks:
        while time.monotonic() - started < mark:
            for n in list(open_):
                try:
                    if socks[n].recv(4096) == b"":
                        open_.discard(n)
                except BlockingIOError:
                    try:
                        socks[n].send(b"b")  # a byte now and then
                    except OSError:
                        open_.discard(n)
                except OSError:
                    open_.discard(n)
            time.sleep(1.0)
        counts.append(len(open_))
    for sock in socks:
        sock.close()
    return counts


def slowloris(args: argparse.Namespace, out: Path) -> None:
    marks = [2.0, 5.0, 12.0, 20.0]
    print(f"slowloris: {args.slow} partial request heads, a byte a second; still held at "
          + ", ".join(f"{m:g} s" for m in marks))
    for label, extra in (("--header-timeout 10 (default)", ()),
                         ("--header-timeout 3600 (uvicorn alone)", ("--header-timeout", "3600"))):
        web = Web(out / f"slow{len(extra)}", *extra)
        counts = held_after(web, args.slow, marks)
        started = time.monotonic()
        urllib.request.urlopen(web.url + "/api/tables", timeout=30).read()
        answer = time.monotonic() - started
        web.stop()
        print(f"  {label}: {', '.join(map(str, counts))}; a request after: "
              f"{answer * 1000:.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--slow", type=int, default=600)
    parser.add_argument("--only", choices=("flood", "slowloris"), default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if args.only in (None, "flood"):
            flood(args, Path(tmp))
        if args.only in (None, "slowloris"):
            slowloris(args, Path(tmp))


if __name__ == "__main__":
    main()
