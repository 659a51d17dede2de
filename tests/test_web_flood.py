"""Issue 30, item 3: a WebSocket client that floods chat and never reads is cut off, the
server's memory stays bounded and it still answers, and SIGINT still stops it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import time
import urllib.request
from pathlib import Path

from rawws import RawSocket
from webkit import WebServer
from websockets.sync.client import connect

from xactika.frontends.web.transport import QueueTransport
from xactika.protocol.net.link import Limits

MIB = 1 << 20


def _rss(pid: int) -> int:
    """The process's resident memory, bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def _create_table(url: str) -> int:
    body = {"game": "xactika", "rounds": 1, "players": 2, "seats": ["open", "1"]}
    request = urllib.request.Request(url + "/api/tables", data=json.dumps(body).encode(),
                                     headers={"content-type": "application/json",
                                              "origin": url})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return int(json.load(answer)["table"]["id"])


def test_a_chat_flood_is_cut_off_memory_stays_bounded_and_sigint_stops(tmp_path: Path) -> None:
    server = WebServer(tmp_path / "web", seed=7)
    try:
        host, port = server.url.removeprefix("http://").split(":")
        number = _create_table(server.url)
        idle = _rss(server.proc.pid)
        flooder = RawSocket(host, int(port))
        assert flooder.status == 101
        flooder.send_text(f"watch {number} name=flood")
        frame = ("chat " + "x" * 59 + "\n") * 1000  # 64,000 bytes, 1,000 chat lines
        sent, cut = 0, False
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                flooder.send_text(frame)
            except TimeoutError:
                break  # the server stopped reading but kept the connection
            except OSError:
                cut = True
                break
            sent += len(frame)
        flooder.close()
        assert cut, f"the flooding client was not cut off after {sent / MIB:.1f} MiB"
        # what the server took before the cut, its kernel's receive buffer included
        assert sent < 32 * MIB, f"{sent / MIB:.1f} MiB were taken before the cut"
        with urllib.request.urlopen(server.url + "/api/tables", timeout=5) as answer:
            assert answer.status == 200  # the server still answers others
        for _ in range(20):  # more than a table's 16 watchers, each cut in its first frame
            again = RawSocket(host, int(port))
            with contextlib.suppress(OSError):
                again.send_text(f"watch {number}\n" + frame)
            again.close()
        with connect(server.url.replace("http", "ws") + "/ws", origin=server.url,  # type: ignore[arg-type]
                     open_timeout=5, max_queue=None) as ws:  # reads all: a prompt close
            ws.send(f"watch {number} name=polite")
            heard = str(ws.recv(timeout=10))
            assert not heard.startswith("error"), heard  # no watcher's slot was kept
        grown = _rss(server.proc.pid) - idle
        assert grown < 64 * MIB, f"the server grew by {grown / MIB:.0f} MiB"
        server.proc.send_signal(signal.SIGINT)
        assert server.proc.wait(timeout=15) is not None  # SIGINT stops it
    finally:
        server.stop()


def test_a_full_outgoing_queue_ends_the_connection_not_the_server() -> None:
    async def run() -> None:
        transport = QueueTransport(Limits(write_buffer=1000), delay=5.0)  # held on purpose
        transport.write(b"x" * 600)
        assert not transport.full.is_set()
        transport.write(b"y" * 600)  # past the bound: the peer does not read
        assert transport.full.is_set() and transport.closed
        transport.write(b"z" * 600)  # dropped, never kept
        assert await asyncio.wait_for(transport.outgoing(), 1) is None  # ends at once
        assert transport._pending == 0 and len(transport._out) == 0

    asyncio.run(run())


def test_a_peer_that_never_reads_is_ended_when_its_queue_fills(tmp_path: Path) -> None:
    """The Connection over a WebSocket whose sends never complete (a peer that does not
    read): past the write buffer its link ends, the run returns and the socket is dropped."""
    from xactika.frontends.web.app import Connection, create_app
    from xactika.frontends.web.hosting import ABORT
    from xactika.protocol.net.server import Server

    class Stuck:
        client = None

        def __init__(self) -> None:
            self.aborted = False
            self.scope = {ABORT: self.abort}
            self.sending = asyncio.Event()  # its sender is stuck on a message

        def abort(self) -> None:
            self.aborted = True

        async def receive_text(self) -> str:
            await asyncio.Event().wait()  # the peer says nothing more
            return ""

        async def send_text(self, text: str) -> None:
            self.sending.set()
            await asyncio.Event().wait()  # and never takes what is sent

        async def close(self) -> None:
            await asyncio.Event().wait()

    async def run() -> tuple[Connection, Stuck]:
        server = Server(limits=Limits(write_buffer=64 * 1024), out=tmp_path)
        socket = Stuck()
        connection = Connection(create_app(server), socket)  # type: ignore[arg-type]
        task = asyncio.create_task(connection.run())
        await asyncio.sleep(0.05)
        connection._hear("chat someone hello")
        await asyncio.wait_for(socket.sending.wait(), 20)  # its sender is stuck on this one
        for _ in range(2000):  # 2,000 chat lines of 100 bytes to a peer that takes none
            connection._hear("chat someone " + "x" * 86)
        await asyncio.wait_for(task, 10)
        return connection, socket

    connection, socket = asyncio.run(run())
    assert connection.transport.full.is_set()
    assert connection.link.closed and "stopped reading" in str(connection.link.end)
    assert socket.aborted
