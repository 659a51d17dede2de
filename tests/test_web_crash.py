"""``xactika web`` killed with SIGKILL at random points of games played over WebSockets and
started again with the same ``--out`` finishes every game (spec/SERVER.md section 10).

People are scripted WebSocket clients (``kind=human``, a few ms of thought) that say
``seat TOKEN`` as the page does, or ``seat TOKEN resume=N`` as a program would, and come
back after each kill with the same token; the web's own bots sit at the other seats, in
the process, and are seated again by the restarted server. Every event line a seat ever
received must be in the final record, unchanged, and the records must audit with the
server's key. The all-people table is also checked against the same game played
straight through in process (tests/test_server_crash.py).
"""

from __future__ import annotations

import random
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from test_server_crash import answer, check_audit, check_record
from test_web_server import _post
from websockets.exceptions import ConnectionClosed, InvalidHandshake
from websockets.sync.client import connect

from xactika.protocol.records.textform import read_record
from xactika.protocol.trust.signing import write_key

XACTIKA = str(Path(sys.executable).with_name("xactika"))
KILLS = 6
DEADLINE = 120.0  # seconds for the whole test: a hang fails instead of blocking CI


class Web:
    """``xactika web`` as a process that the test kills and starts again on one port."""

    def __init__(self, port: int, out: Path, key: Path) -> None:
        self.url = f"http://127.0.0.1:{port}"
        self.args = [XACTIKA, "web", "--port", str(port), "--seed", "40", "--out", str(out),
                     "--key", str(key), "--pace", "off",
                     "--tables-per-address", "64"]  # its pages: one address, many people
        self.log = out.parent / "web.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0

    def start(self) -> list[str]:
        """Start it; the lines it printed once it listens (with ``resumed`` when the
        journal had tables)."""
        self.starts += 1
        mark = f"--- start {self.starts}\n"
        with self.log.open("a") as log:
            log.write(mark)
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(self.args, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            head = self.log.read_text().split(mark)[-1].splitlines()
            if any(line.startswith("resumed") for line in head) or (
                    self.starts == 1 and any(" web on " in line for line in head)):
                return head
            assert self.proc.poll() is None, head
            time.sleep(0.05)
        raise AssertionError(f"xactika web did not start: {self.log.read_text()[-500:]}")

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

class Person(threading.Thread):
    """One person's seat over the WebSocket: plays, and after any drop comes back with
    the same token (``resume=<last seq>`` when ``resume``, else as the page does)."""

    def __init__(self, url: str, token: str, seed: float, resume: bool) -> None:
        super().__init__(daemon=True)
        self.ws_url, self.origin = url.replace("http", "ws") + "/ws", url
        self.token, self.resume = token, resume
        self.rng = random.Random(seed)
        self.seat = -1
        self.seen: dict[int, str] = {}  # every event line received, by seq
        self.problems: list[str] = []
        self.finished = False  # quit received
        self.connects = 0

    def run(self) -> None:
        deadline = time.monotonic() + DEADLINE
        while not self.finished and not self.problems and time.monotonic() < deadline:
            try:
                self._session()
            except (OSError, ConnectionClosed, InvalidHandshake, TimeoutError):
                pass
            if not self.finished:
                time.sleep(0.05)  # the server is down or restarting

    def _session(self) -> None:
        with connect(self.ws_url, origin=self.origin, open_timeout=5) as ws:  # type: ignore[arg-type]
            self.connects += 1
            last = max(self.seen, default=0)
            ws.send(f"seat {self.token}{f' resume={last}' if last and self.resume else ''}")
            while not self.finished and not self.problems:
                for line in str(ws.recv(timeout=DEADLINE)).splitlines():
                    self._line(ws, line)

    def _line(self, ws: Any, line: str) -> None:
        words = line.split()
        if words[0] == "seated":
            self.seat = int(dict(w.partition("=")[::2] for w in words[1:])["seat"])
        elif words[0] == "hello":
            ws.send("hello 1 name=ann kind=human")
        elif words[0] == "isready":
            ws.send("readyok")
        elif words[0] == "event":
            seq = int(words[1])
            if self.seen.setdefault(seq, line) != line:
                self.problems.append(f"event {seq} changed: {self.seen[seq]!r} -> {line!r}")
        elif words[0] == "go":
            time.sleep(self.rng.uniform(0.01, 0.05))
            ws.send(answer(line, self.seat, max(self.seen, default=0)))
        elif words[0] == "quit":
            self.finished = True
        elif words[0] == "error":
            self.problems.append(line)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.slow
def test_web_sigkilled_at_random_points_loses_nothing(tmp_path: Path) -> None:
    key, out = tmp_path / "key.pem", tmp_path / "out"
    write_key(key)
    rng = random.Random(2027)
    web = Web(free_port(), out, key)
    people: list[tuple[int, Person]] = []
    try:
        web.start()

        def table(request: dict[str, Any]) -> None:
            made = _post(web, "/api/tables", request)
            assert "error" not in made, made
            number = made["table"]["id"]
            for seat, token in sorted(made["invites"].items()):
                person = Person(web.url, token, rng.random(),
                                resume=(number + int(seat)) % 2 == 0)
                people.append((number, person))
                person.start()

        table({"game": "xactika", "players": 2, "rounds": 3, "seats": ["open", "open"]})
        table({"game": "xactika", "players": 3, "rounds": 2, "seats": ["open", "1", "random"]})
        mid_game = 0
        for kill in range(KILLS):
            if kill == 2:  # made by a restarted server: its number follows the others'
                table({"game": "dix", "players": 2, "rounds": 2, "seats": ["1", "open"]})
            time.sleep(rng.uniform(0.2, 1.0))
            mid_game += not all(p.finished for _, p in people)
            web.kill()
            head = web.start()
            assert any(line.startswith("resumed") for line in head), head
        assert [n for n, _ in people] == [1, 1, 2, 3]
        for _, person in people:
            person.join(DEADLINE)
        problems = [f"table {n} seat {p.seat}: {why}" for n, p in people for why in p.problems]
        assert not problems, problems
        assert all(p.finished for _, p in people), [(n, len(p.seen)) for n, p in people]
        assert mid_game >= KILLS - 2, f"only {mid_game} kills found a game going"
        assert sum(p.connects for _, p in people) > len(people) + KILLS  # they came back
    finally:  # nothing left running when a check fails
        if web.proc is not None and web.proc.poll() is None:
            web.proc.terminate()
            web.proc.wait(10)

    names = sorted(p.name for p in out.iterdir())
    found = [re.fullmatch(r"table-(\d+)\.log", name) for name in names]
    records = {int(m.group(1)): out / m.group(0) for m in found if m is not None}
    # one record a table: a twin (table-N.2.log) is a game written twice, differently
    assert sorted(records) == [1, 2, 3] and len(records) == len(
        [n for n in names if n.startswith("table-")]), names
    for number, path in records.items():
        check_record(path, [(p.seat, p.seen) for n, p in people if n == number],
                     straight=number == 1)  # people only: as if never interrupted
    check_audit(out, key)


def test_a_page_comes_back_by_itself_after_a_kill(tmp_path: Path) -> None:
    """The real page in Chromium: ``xactika web`` is killed mid-game and started again;
    the page's own reconnecting finds the restarted server, its seat, its hand and the
    pending move, and the person plays the game to its end."""
    from webkit import DESKTOP, browser_session, create_table, play_by_clicks, screenshot

    key, out = tmp_path / "key.pem", tmp_path / "out"
    write_key(key)
    web = Web(free_port(), out, key)
    sessions = browser_session()
    browser = next(sessions)
    try:
        web.start()
        page = browser.new_page(viewport=DESKTOP)
        made = create_table(page, web.url, name="Ann", rounds=2, seats=["open", "1"])
        number, token = made["table"]["id"], made["invites"]["0"]
        page.goto(f"{web.url}/table/{number}#seat={token}")
        page.wait_for_selector("#hand button.card")
        page.wait_for_selector("#controls button.bid")
        page.locator("#controls button.bid:not([disabled])").first.click()
        page.wait_for_selector("#hand button.card.playable")
        before = page.locator("#hand button.card").count()
        frames = page.evaluate("() => window.xactikaFrames.length")
        web.kill()
        page.wait_for_function("() => document.querySelector('#status').textContent"
                               ".startsWith('connection lost')")
        screenshot(page, "web-killed-reconnecting")
        web.start()
        page.wait_for_function("(n) => window.xactikaFrames.slice(n).some("
                               "f => f.includes('seated table='))", arg=frames, timeout=15000)
        page.wait_for_selector("#hand button.card.playable")  # the pending go, asked again
        assert page.locator("#hand button.card").count() == before
        play_by_clicks(page)
        screenshot(page, "web-killed-game-over")
        assert "Ann (you)" in page.locator("#standings").inner_text()
    finally:
        if web.proc is not None and web.proc.poll() is None:
            web.proc.terminate()
            web.proc.wait(10)
        next(sessions, None)
    record = read_record(out / f"table-{number}.log")
    assert ("termination", "normal") in record.headers
    assert dict(record.headers)["seats"].startswith("Ann,")


def test_the_narration_lets_a_resumed_seats_lines_through() -> None:
    """``seat TOKEN resume=N`` over the WebSocket: the events come without ``newgame``
    or ``game-started``; the narration has nothing to fold and adds nothing, and every
    line goes out as it came (it asserted, and the connection closed in silence)."""
    from xactika.frontends.web.narrate import Narrator

    narrator = Narrator(lambda: ["ann", "bob"])
    lines = "seated table=1 seat=0 players=2\nevent 7 bid seat=1 bid=2\ngo bid options=0,1\n"
    assert narrator.annotate(lines) == "say names ann,bob\n" + lines
