"""``xactika web`` and ``serve`` in one records folder: no record is ever replaced, one
server a folder, ``web --seed`` deals as ``serve`` does, and every bad option of ``web``
is one line (tests/test_web_crash.py kills the real process mid-game)."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import os
import re
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import attrs
import pytest
from netkit import Client, LiveServer, in_thread, play_first
from test_web_crash import XACTIKA, Person, Web, free_port
from test_web_server import _post
from webkit import WebServer
from websockets.sync.client import connect

from xactika.core.engine.events import Dealt
from xactika.core.engine.referee import FaultPolicy, Referee
from xactika.frontends.net.serve import table_seed
from xactika.protocol.net.journal import Journal
from xactika.protocol.net.table import Table, table_settings
from xactika.protocol.records.textform import read_record
from xactika.protocol.records.writing import write_new_record, write_record_file
from xactika.protocol.trust.signing import write_key


def test_a_record_written_with_replace_false_never_takes_a_taken_name(tmp_path: Path) -> None:
    path = tmp_path / "table-1.log"
    path.write_text("signed\n", encoding="utf-8")
    with pytest.raises(FileExistsError):
        write_record_file(path, "new\n", replace=False)
    assert path.read_text(encoding="utf-8") == "signed\n"
    assert sorted(os.listdir(tmp_path)) == ["table-1.log"]  # no temporary file left
    assert write_new_record(tmp_path, "table-1", "new\n") == str(tmp_path / "table-1.2.log")
    assert write_new_record(tmp_path, "table-2", "two\n") == str(tmp_path / "table-2.log")
    # the same record again (a crash before the journal noted it): that file, no twin
    assert write_new_record(tmp_path, "table-2", "two\n") == str(tmp_path / "table-2.log")
    assert write_new_record(tmp_path, "table-1", "new\n") == str(tmp_path / "table-1.2.log")
    assert sorted(os.listdir(tmp_path)) == ["table-1.2.log", "table-1.log", "table-2.log"]
    assert path.read_text(encoding="utf-8") == "signed\n"
    assert (tmp_path / "table-1.2.log").read_text(encoding="utf-8") == "new\n"


def test_a_server_numbers_its_tables_after_the_records_in_its_folder(tmp_path: Path) -> None:
    """The restarted server of the report numbered from 1 again and wrote its table 1 over
    the signed table-1.log; a lost journal must not do the same."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "table-1.log").write_text("signed 1\n", encoding="utf-8")
    (out / "table-4.2.log").write_text("signed 4\n", encoding="utf-8")
    (out / "table-x.log").write_text("not ours\n", encoding="utf-8")
    with LiveServer(out, journal=Journal.open(out)) as live:
        table = live.table(players=2, rounds=1, seed=3)
        assert table.id == 5
        futures = [in_thread(play_first, Client(live.port), s.token, None)
                   for s in table.seats]
        for future in futures:
            future.result(20)
        live.wait_over(table)
        assert live.server.journal is not None
        live.server.journal.close()
    assert (out / "table-1.log").read_text(encoding="utf-8") == "signed 1\n"
    assert ("server.table", "5") in read_record(out / "table-5.log").headers


def test_a_table_whose_record_name_is_taken_writes_beside_it(tmp_path: Path) -> None:
    """Exclusive create is the last guard: a file already at the name stays as it was."""
    (tmp_path / "table-1.log").write_text("someone's\n", encoding="utf-8")
    table = Table(1, table_settings({"players": "2", "rounds": "1", "seed": "4"}), tmp_path)
    table._write_record(dt.datetime.now(dt.UTC))
    assert table.record == tmp_path / "table-1.2.log"
    assert (tmp_path / "table-1.log").read_text(encoding="utf-8") == "someone's\n"


def _start(args: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen([XACTIKA, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def _first_line(proc: subprocess.Popen[str]) -> str:
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line, proc.stderr.read() if proc.stderr else ""
    return line


def _stop(proc: subprocess.Popen[str]) -> str:
    proc.terminate()
    try:
        _, err = proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
    return err


@pytest.mark.parametrize("first", ["serve", "web"])
def test_a_second_server_on_one_folder_stops_in_one_line(tmp_path: Path, first: str) -> None:
    out = str(tmp_path / "out")
    running = _start([first, "--port", "0", "--out", out])
    try:
        _first_line(running)
        for second in ("serve", "web"):
            found = subprocess.run([XACTIKA, second, "--port", "0", "--out", out],
                                   capture_output=True, text=True, timeout=30)
            assert found.returncode == 2, found.stderr
            assert found.stderr.count("\n") == 1 and "another server" in found.stderr, \
                found.stderr
            assert found.stderr.startswith(f"xactika {second}: ")
    finally:
        _stop(running)


def _record(out: Path, number: int, limit: float = 30.0) -> Path:
    path = out / f"table-{number}.log"
    deadline = time.monotonic() + limit
    while not path.exists():
        assert time.monotonic() < deadline, f"no {path.name}: {os.listdir(out)}"
        time.sleep(0.1)
    return path


def test_web_seed_deals_each_table_from_its_own_hmac(tmp_path: Path) -> None:
    """Table 1's revealed seed says nothing of table 2's hands (the report's web dealt
    table k from SEED+k-1), and a guessable --seed is said so."""
    out = tmp_path / "out"
    proc = _start(["web", "--port", "0", "--seed", "7", "--out", str(out)])
    try:
        web = WebServer.__new__(WebServer)
        web.url = re.search(r"(http://\S+?)/ ", _first_line(proc)).group(1)  # type: ignore[union-attr]
        request = {"game": "dix", "players": 2, "rounds": 1, "seats": ["random", "random"]}
        for number in (1, 2):
            made = _post(web, "/api/tables", request)
            assert made["table"]["id"] == number, made
        records = [read_record(_record(out, n)) for n in (1, 2)]
    finally:
        err = _stop(proc)
    assert "note: guessable deals: --seed 7" in err
    seeds = [record.events[-1].seed for record in records]  # type: ignore[attr-defined]
    assert seeds == [table_seed(7, 1), table_seed(7, 2)]

    def first_deal(seed: int) -> tuple[object, ...]:
        config = records[1].events[0].config  # type: ignore[attr-defined]
        referee = Referee.new(attrs.evolve(config, seed=seed), policy=FaultPolicy.abort())
        return next(e.hands for e in referee.events if isinstance(e, Dealt))

    dealt = next(e.hands for e in records[1].events if isinstance(e, Dealt))
    assert dealt == first_deal(seeds[1])  # the check can tell deals apart
    assert dealt != first_deal(seeds[0] + 1)  # what SEED+k-1 would have dealt
    assert dealt != first_deal(seeds[0])


@pytest.mark.parametrize("args", [
    ["--port", "99999"], ["--port", "x"], ["--tcp-port", "-1"], ["--max-connections", "0"],
    ["--max-per-address", "x"], ["--seed", "-3"], ["--bogus"], ["--tls-cert", "c.pem"],
    ["--tls-cert", "missing.pem", "--tls-key", "missing.pem"],
    ["--host", "no-such-host.invalid"], ["--key", "/nonexistent/dir/key.pem"], ["--pace", "fast"],
])
def test_every_bad_option_of_web_is_one_line(tmp_path: Path, args: list[str]) -> None:
    found = subprocess.run([XACTIKA, "web", "--port", "0", "--out", str(tmp_path / "o"),
                            *args], capture_output=True, text=True, timeout=30, cwd=tmp_path)
    assert found.returncode == 2, (found.stdout, found.stderr)
    assert found.stderr.startswith("xactika web: ") and found.stderr.count("\n") == 1, \
        found.stderr
    assert found.stdout == ""


def test_a_port_in_use_is_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        found = subprocess.run([XACTIKA, "web", "--port", str(port), "--out", str(tmp_path)],
                               capture_output=True, text=True, timeout=30)
    assert found.returncode == 2 and found.stderr.count("\n") == 1, found.stderr
    assert "xactika web: " in found.stderr


def test_a_waiting_web_table_survives_a_kill_with_its_open_seats(tmp_path: Path) -> None:
    """Killed before anyone sat down: the table is listed again, its bot sits again, the
    creator's token still holds seat 0 and a newcomer can take the open seat."""
    key, out = tmp_path / "key.pem", tmp_path / "out"
    write_key(key)
    web = Web(free_port(), out, key)
    try:
        web.start()
        made = _post(web, "/api/tables", {"game": "xactika", "players": 3, "rounds": 1,
                                          "seats": ["open", "open", "random"]})
        creator = made["invites"]["0"]
        web.kill()
        assert "table id=1 resumed status=waiting events=0" in web.start()
        listed = _get(web.url + "/api/tables")
        assert [s["state"] for s in listed[0]["seats"]] == ["taken", "open", "bot"]
        with connect(web.url.replace("http", "ws") + "/ws", origin=web.url,  # type: ignore[arg-type]
                     open_timeout=5) as spectator:
            spectator.send("watch 1 name=eve")
            assert "watching table=1" in str(spectator.recv(timeout=10))
        taken = _post(web, "/api/tables/1/take", {"name": "bob"})
        assert taken["seat"] == 1 and taken["token"] != made["invites"]["1"]
        people = [Person(web.url, token, 0.5, resume=False)
                  for token in (creator, taken["token"])]
        for person in people:
            person.start()
        for person in people:
            person.join(60)
        assert all(p.finished and not p.problems for p in people), \
            [p.problems for p in people]
    finally:
        if web.proc is not None and web.proc.poll() is None:
            web.proc.terminate()
            web.proc.wait(10)
    assert ("server.table", "1") in read_record(out / "table-1.log").headers


def _get(url: str) -> list[dict[str, object]]:
    with urllib.request.urlopen(url, timeout=10) as found:
        result: list[dict[str, object]] = json.load(found)
    return result


def test_web_says_a_damaged_journal_in_one_line_and_serves(tmp_path: Path) -> None:
    from test_server_journal import _killed_journal

    out = tmp_path / "out"
    _killed_journal(out)
    (out / "journal.sqlite-wal").unlink()
    proc = _start(["web", "--port", "0", "--out", str(out)])
    try:
        url = re.search(r"(http://\S+?)/ ", _first_line(proc)).group(1)  # type: ignore[union-attr]
        assert _get(url + "/api/tables") == []  # it serves on
    finally:
        err = _stop(proc)
    damage = [line for line in err.splitlines() if "journal damaged" in line]
    assert damage == [line for line in err.splitlines() if line.startswith("xactika web:")]
    assert len(damage) == 1 and "tables 1 to 3 whole" in damage[0], err


def test_a_stopped_web_closes_its_journal(tmp_path: Path) -> None:
    """SIGTERM: uvicorn shuts down, then the journal closes (uvicorn raised the signal
    again once it had stopped, which ended the process before that)."""
    out = tmp_path / "out"
    proc = _start(["web", "--port", "0", "--out", str(out)])
    url = re.search(r"(http://\S+?)/ ", _first_line(proc)).group(1)  # type: ignore[union-attr]
    assert _get(url + "/api/tables") == []  # it serves: its signal handlers are in place
    err = _stop(proc)
    assert proc.returncode == 0, err
    assert not (out / "journal.sqlite-wal").exists()  # checkpointed and closed
    assert "Traceback" not in err


def test_a_game_is_journalled_over_only_once_its_quit_has_left(tmp_path: Path) -> None:
    """The journal forgets an over table's tokens; a web seat's last lines (result,
    ``quit``) go out from a queue. Were the table noted over while the quit still waited
    there, a kill then left a person who came back with ``unknown token`` and no end of
    their game (test_web_crash.py, about once in six runs)."""
    import asyncio

    from xactika.core.bots.agents import make_agent
    from xactika.frontends.web.transport import QueueTransport, run_bot
    from xactika.protocol.net.link import Limits, Link
    from xactika.protocol.net.server import Server
    from xactika.protocol.player.agentside import PlayerSession

    async def run() -> tuple[list[int], list[int], bool]:
        journal = Journal.open(tmp_path)
        server = Server(out=tmp_path, journal=journal)
        try:
            table = server.add_table(table_settings({"players": "2", "rounds": "1",
                                                     "seed": "3"}))
            bot = asyncio.ensure_future(run_bot(server.serve_link, table.seats[1].token,
                                                "random", "xactika", 1, Limits()))
            transport = QueueTransport(Limits())  # a page's seat; its sender stops at quit
            link = Link(None, None, Limits(), "page", transport=transport)
            serving = asyncio.ensure_future(server.serve_link(link, "page"))
            session = PlayerSession(make_agent("random", 2, "xactika"), "page")
            transport.feed(f"seat {table.seats[0].token}\n")
            while True:
                data = await transport.outgoing()
                assert data is not None
                lines = data.decode("utf-8").splitlines()
                for line in lines:
                    for answer in await asyncio.to_thread(session.feed, line):
                        transport.feed(answer + "\n")
                if "quit" in lines:
                    break  # taken from the queue, not yet sent: the page has not got it
            await asyncio.sleep(0.3)
            while_queued = [t.id for t in journal.unfinished()]
            assert await transport.outgoing() is None  # sent: the sender asks for more
            await asyncio.wait_for(table.over.wait(), 10)
            await asyncio.gather(bot, serving)
            return while_queued, [t.id for t in journal.unfinished()], transport.closed
        finally:
            await server.close()
            journal.close()

    while_queued, after, closed = asyncio.run(run())
    assert closed and while_queued == [1] and after == []


def test_a_web_table_comes_back_with_the_seats_either_lobby_gave(tmp_path: Path) -> None:
    """A seat of a web table taken through the terminal lobby (``join``) was kept by
    nobody: after a restart the page showed it open and gave it to someone else. Now both
    lobbies show every seat as it was: taken, open or a bot's."""
    from xactika.frontends.web.weblobby import WebLobby

    out = tmp_path / "out"
    journal = Journal.open(out)
    with LiveServer(out, journal=journal) as live:
        async def make() -> WebLobby:
            lobby = WebLobby(live.server)
            lobby.create({"players": 4, "rounds": 1, "seats": ["open", "open", "open", "1"],
                          "name": "ann"}, "192.0.2.1")
            return lobby

        web = live.call(make())
        client = Client(live.port)
        client.send("lobby")
        assert client.read() == "lobby ok"
        client.send("join 1 name=bob")
        assert (client.read() or "").startswith("joined table=1 seat=1 ")
        client.close()

        async def shown(lobby: WebLobby) -> tuple[list[object], list[str]]:
            return ([(s["state"], s["name"]) for s in lobby.get(1).public()["seats"]],
                    lobby.lobby.tables())

        before = live.call(shown(web))
    journal.close()
    assert before[0] == [("taken", "ann"), ("taken", "bob"), ("open", ""),
                         ("bot", "beginner")], before
    assert "open=2 names=ann,bob,-,beginner" in before[1][0]
    with LiveServer(out, journal=Journal.open(out)) as again:
        async def resume() -> tuple[list[object], list[str]]:
            lobby = WebLobby(again.server)
            lobby.resume(again.server.tables)
            return await shown(lobby)

        assert again.call(resume()) == before  # before: bob's seat open, the name gone


def test_a_serve_lobby_table_resumed_by_the_web_seats_its_bots_again(tmp_path: Path) -> None:
    """A table of serve's lobby with a bot, resumed by ``xactika web`` on the same --out:
    the web seats no bots for that lobby, so the bot was listed and never sat again and
    the game could not be played. Now it sits again as a web table's bot and plays."""
    from test_server_journal import _lobby

    from xactika.frontends.net.serve import bot_seats
    from xactika.frontends.web.weblobby import WebLobby

    out = tmp_path / "out"
    journal = Journal.open(out)
    with LiveServer(out, journal=journal) as live:
        live.server.lobby.bots = bot_seats(live.server, 1)  # serve's
        created, joined = _lobby(live.port, "create players=2 rounds=1 seats=human,1",
                                 "join 1 name=ann")
        assert created == "created table=1" and joined.startswith("joined table=1 seat=0 ")
        ann = joined.split("token=")[1]
    journal.close()
    with LiveServer(out, journal=Journal.open(out)) as again:  # the web's: no lobby bots
        async def resume() -> None:
            WebLobby(again.server).resume(again.server.tables)

        again.call(resume())
        table = again.server.tables[0]
        person = in_thread(play_first, Client(again.port), ann)
        assert person.result(20)[-1] == "quit"
        again.wait_over(table)  # the bot sat again and played its seat
    assert not table.faults and table.record is not None


def test_a_tables_chat_survives_a_restart_bounded(tmp_path: Path) -> None:
    """The chat was in memory only: a restart lost what the table had said, though its game
    came back (BGA and lichess keep a table's chat with its game). Now the last 100
    messages come back with the table, the journal never holds more, and nobody hears a
    message before it is on disk."""
    from xactika.frontends.web.weblobby import CHAT_KEEP, WebLobby

    out = tmp_path / "out"
    journal = Journal.open(out)
    heard: list[str] = []
    with LiveServer(out, journal=journal) as live:
        async def chat() -> tuple[list[str], int]:
            lobby = WebLobby(live.server)
            web, _ = lobby.create({"players": 2, "rounds": 1, "seats": ["open", "1"],
                                   "name": "ann"}, "192.0.2.1")
            web.listeners.add(heard.append)
            for n in range(CHAT_KEEP + 20):
                lobby.say(web, "ann", f"hello {n}")
            at_once = len(heard)  # none: each waits for its flush, beside the loop
            for _ in range(2000):  # each heard once on disk; 20 s only as a guard
                if len(heard) == CHAT_KEEP + 20:
                    break
                await asyncio.sleep(0.01)
            return list(web.chat), at_once

        said, at_once = live.call(chat())
        kept = journal._db.execute("select count(*) from chat").fetchone()[0]
    journal.close()
    assert len(said) == CHAT_KEEP and said[-1] == f"chat ann hello {CHAT_KEEP + 19}"
    assert at_once == 0 and len(heard) == CHAT_KEEP + 20 and heard[-CHAT_KEEP:] == said
    assert kept == CHAT_KEEP
    with LiveServer(out, journal=Journal.open(out)) as again:
        async def resume() -> tuple[list[str], int]:
            lobby = WebLobby(again.server)
            lobby.resume(again.server.tables)
            web = lobby.get(1)
            lobby.say(web, "ann", "still here")
            for _ in range(2000):  # heard once on disk; 20 s only as a guard
                if web.chat and web.chat[-1] == "chat ann still here":
                    break
                await asyncio.sleep(0.01)
            return list(web.chat), web.said

        chat_after, said_after = again.call(resume())
    assert chat_after == [*said[1:], "chat ann still here"]  # before: only the new line
    assert said_after == CHAT_KEEP + 21
