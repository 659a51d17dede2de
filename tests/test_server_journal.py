"""The table server's journal in process: tokens kept as hashes, a restart that resumes a
game, a restored stand-in that moves as it would have (tests/test_server_crash.py kills
the real process)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import stat
from pathlib import Path

import pytest
from netkit import Client, LiveServer, first_option, in_thread, play_first

from xactika.core.engine.api import game_rules
from xactika.core.engine.check import command_of
from xactika.core.engine.referee import Faulted, FaultPolicy, Referee
from xactika.protocol.net.journal import Journal, JournalError
from xactika.protocol.net.link import token_key
from xactika.protocol.net.server import TokenBook
from xactika.protocol.net.table import Table, table_settings
from xactika.protocol.notation.text import format_event
from xactika.protocol.player.wire import format_go, parse_answer
from xactika.protocol.records.assemble import read_think
from xactika.protocol.records.textform import read_record


def test_token_book_knows_tokens_by_hash_only() -> None:
    book: TokenBook[str] = TokenBook()
    book.add("a" * 32, "by token")
    book.add_key(token_key("b" * 32), "by hash")  # as a restart restores it
    assert book.get("a" * 32) == "by token"
    assert book.get("b" * 32) == "by hash"
    assert book.get("c" * 32) is None
    assert book.get(token_key("b" * 32).hex()) is None  # the hash is no token


def straight(seed: int) -> list[str]:
    """The spec's first-option game, two players, one round, with no server at all."""
    settings = table_settings({"players": "2", "rounds": "1", "seed": str(seed)})
    referee = Referee.new(settings.config, policy=FaultPolicy.abort())
    rules = game_rules("xactika")
    while (turn := referee.turn()) is not None:
        go = format_go(turn.legal, rules, 1000)
        referee.submit(parse_answer(first_option(go), turn.legal, rules))
    return [format_event(e, rules) for e in referee.events[1:-1]]


def test_a_restart_resumes_the_game_where_it_stood(tmp_path: Path) -> None:
    out = tmp_path / "out"
    journal = Journal.open(out)
    with LiveServer(out, journal=journal) as live:
        table = live.table(players=2, rounds=1, seed=7)
        tokens = [s.token for s in table.seats]
        port = live.port
        clients = [Client(port), Client(port)]
        futures = [in_thread(play_first, c, t, lambda line: line.startswith("event 9 "))
                   for c, t in zip(clients, tokens, strict=True)]
        got = [f.result(20) for f in futures]
    journal.close()  # the server is gone; its tables were never over
    for c in clients:
        c.close()
    kept = b"".join(p.read_bytes() for p in out.iterdir() if p.name.startswith("journal"))
    assert all(t.encode() not in kept for t in tokens)  # hashes only, never a token
    assert stat.S_IMODE(os.stat(out / "journal.sqlite").st_mode) == 0o600
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o700
    seen = [int(next(line for line in reversed(g) if line.startswith("event")).split()[1])
            for g in got]
    with LiveServer(out, journal=Journal.open(out)) as again:
        resumed = again.server.tables
        assert [t.id for t in resumed] == [1] and len(resumed[0].events) >= max(seen)
        clients = [Client(again.port), Client(again.port)]
        futures = [in_thread(play_first, c, t, None, n)
                   for c, t, n in zip(clients, tokens, seen, strict=True)]
        rest = [f.result(20) for f in futures]
        again.wait_over(resumed[0])
        journal = again.server.journal
        assert journal is not None and journal.unfinished() == []
        assert journal._db.execute("select count(*) from events").fetchone() == (0,)
    for c in clients:
        c.close()
    assert [line.split()[0] for line in rest[0][:1]] == ["seated"]  # no handshake again
    assert all(g[-1] == "quit" for g in rest)
    record = read_record(out / "table-1.log")
    rules = game_rules("xactika")
    events = [format_event(e, rules) for e in record.events[1:-1]]
    assert events == straight(7)
    # every answer was timed, those before the restart too (the journal kept them)
    decisions = [e.seq for e in record.events if command_of(e) is not None]
    assert sorted(read_think(record.headers, record.events)) == decisions
    assert min(seen) < decisions[-1] and decisions[0] <= min(seen)


def test_a_restored_stand_in_moves_as_it_would_have() -> None:
    """A seat that faulted is played by the seeded random stand-in; restored from the
    events at any point, it makes the moves of the game that never stopped."""
    settings = table_settings({"players": "3", "rounds": "2", "seed": "5"})
    table = Table(1, settings, None)
    rules = game_rules("xactika")
    referee = Referee.new(table.config, policy=table._fallback())
    fault_at = 0
    steps = []  # the journal keeps whole moves: a restart finds the game between two
    while (turn := referee.turn()) is not None:
        steps.append(len(referee.events))
        if turn.stand_in is not None:
            referee.play_stand_in()
        elif turn.seat == 1 and len(referee.events) > 6 and not fault_at:
            fault_at = len(referee.events)
            referee.fault(1, "timeout", "no answer")
        else:
            go = format_go(turn.legal, rules, 1000)
            answer = parse_answer(first_option(go), turn.legal, rules)
            assert not isinstance(answer, Faulted)
            referee.submit(answer)
    whole = referee.events
    assert fault_at
    for cut in [n for n in steps if n > fault_at][::5]:
        again = Table(1, settings, None)
        again.config = table.config
        again._restore_game(whole[:cut], [(1, "timeout", "no answer", fault_at)])
        resumed = again.referee
        assert resumed is not None
        while (turn := resumed.turn()) is not None:
            if turn.stand_in is not None:
                resumed.play_stand_in()
            else:
                go = format_go(turn.legal, rules, 1000)
                resumed.submit(parse_answer(first_option(go), turn.legal, rules))
        assert resumed.events == whole, cut


def test_one_server_a_journal(tmp_path: Path) -> None:
    """Two servers on one --out would hand out the same table numbers: the second stops."""
    first = Journal.open(tmp_path)
    try:
        with pytest.raises(JournalError, match="another server"):
            Journal.open(tmp_path)
    finally:
        first.close()
    Journal.open(tmp_path).close()  # free again once the first is gone


def test_a_person_replaced_by_a_bot_is_still_replaced_after_a_restart(tmp_path: Path) -> None:
    """The clock's stand-in survives a crash: the seat's bank, that a bot plays it and
    from which event are journalled, and the person takes it back after the restart."""
    from test_server_people import last_seq, person

    from xactika.protocol.net.clock import Clock

    out = tmp_path / "out"
    journal = Journal.open(out)
    with LiveServer(out, journal=journal) as live:
        table = live.table(table_settings({"players": "2", "rounds": "1", "seed": "7"},
                                          move_timeout=5.0, grace=5.0, clock=Clock(500, 0)))
        token = table.seats[0].token
        other = Client(live.port)
        held = in_thread(play_first, other, table.seats[1].token,
                         lambda line: line.startswith("go play"))
        ann = Client(live.port)
        lines = person(ann, token)
        rest = ann.rest(10)  # no answer: the bank runs out, a bot bids for Ann
        assert rest[-1].startswith("error replaced:")
        seen = held.result(20)
        assert any(x.startswith("event 4 bid seat=0") for x in seen)
        at = table.referee.faults[-1].at if table.referee is not None else -1
    journal.close()
    other.close()
    with LiveServer(out, journal=Journal.open(out)) as again:
        [restored] = again.server.tables
        assert restored.seats[0].replaced and restored.seats[0].fault is None
        assert restored.seats[0].clock_ms == 0 and restored.seats[0].kind == "human"
        assert restored.settings.clock == Clock(500, 0)
        assert restored.referee is not None and 0 in restored.referee.stand_ins
        assert [f.at for f in restored.referee.faults] == [at]
        back = Client(again.port)
        got = person(back, token, resume=last_seq(lines + rest),
                     until="info seat 1 (Ann) is back")
        assert got[-1].startswith("info seat 1 (Ann) is back")
        assert not restored.seats[0].replaced
        back.close()


# -- a damaged journal: said in one line, and one bad table never stops the others
def _journal_with_games(out: Path, games: int) -> list[Table]:
    """``games`` tables journalled with a few events each, as a server leaves them."""
    journal = Journal.open(out)
    tables = []
    for number in range(1, games + 1):
        table = Table(number, table_settings({"players": "2", "rounds": "1",
                                              "seed": str(number)}), out)
        table.journalled(journal)
        table.referee = Referee.new(table.config, policy=FaultPolicy.abort())
        rules = game_rules("xactika")
        for _ in range(3):
            turn = table.referee.turn()
            assert turn is not None
            go = format_go(turn.legal, rules, 1000)
            table.referee.submit(parse_answer(first_option(go), turn.legal, rules))
        table.events = table.referee.events
        table._keep_events()
        tables.append(table)
    journal.close()
    return tables


def _restart(out: Path) -> tuple[list[int], list[str], int]:
    """A server started on ``out``: the tables it resumed, the journal's damage lines,
    and the number its next table gets."""
    import asyncio

    from xactika.protocol.net.server import Server

    async def run() -> tuple[list[int], list[str], int]:
        journal = Journal.open(out)
        server = Server(out=out, journal=journal)
        try:
            resumed = [t.id for t in server.restore()]
            made = server.add_table(table_settings({"players": "2", "rounds": "1"}))
            return resumed, list(journal.damage), made.id
        finally:
            await server.close()
            journal.close()

    return asyncio.run(run())


@pytest.mark.parametrize(("damage", "why"), [
    ("update events set line = replace(line, 'hands=', 'hands=9999,') where table_id = 2 "
     "and seq = 2", "ParseError: bad card '9999'"),
    ("delete from events where table_id = 2 and seq = 2", "event 2 is missing"),
    ("update tables set settings = '{not json' where id = 2", "unreadable"),
    ("update seats set fields = '[1' where table_id = 2", "unreadable"),
])
def test_one_damaged_table_is_set_aside_and_the_others_resume(tmp_path: Path, damage: str,
                                                              why: str) -> None:
    import sqlite3

    out = tmp_path / "out"
    _journal_with_games(out, 3)
    with contextlib.closing(sqlite3.connect(out / "journal.sqlite")) as db:
        db.execute(damage)
        db.commit()
    resumed, said, next_id = _restart(out)
    assert resumed == [1, 3]
    assert len(said) == 1 and said[0].startswith("journal damaged: table 2 set aside"), said
    assert why in said[0] and "\n" not in said[0]
    assert next_id == 4  # its number is never given again
    with contextlib.closing(sqlite3.connect(out / "journal.sqlite")) as db:  # kept
        assert db.execute("select count(*) from seats where table_id = 2").fetchone()[0] == 2
        assert db.execute("select over from tables where id = 2").fetchone() == (2,)
    resumed, said, next_id = _restart(out)  # set aside once: not resumed, not said again
    assert resumed == [1, 3, 4] and said == [] and next_id == 5


def _killed_journal(out: Path) -> None:
    """A journal whose server was killed: three tables and events, no clean close (the
    -wal file holds it all)."""
    import subprocess
    import sys

    script = ("import os, sys; from pathlib import Path; sys.path.insert(0, 'tests'); "
              "from test_server_journal import _journal_with_games as made; "
              "from xactika.protocol.net.journal import Journal; "
              "Journal.close = lambda self: self.sync(); "  # the kill: no checkpoint
              f"made(Path({str(out)!r}), 3); os._exit(0)")
    subprocess.run([sys.executable, "-c", script], check=True, timeout=60,
                   cwd=Path(__file__).resolve().parent.parent)
    assert (out / "journal.sqlite-wal").stat().st_size > 0


def test_a_close_while_an_fsync_is_in_flight_touches_no_closed_file(tmp_path: Path) -> None:
    """A server that stops while the loop's fsync is under way: close() makes every row
    durable and counts it, and the fsync's callback, which runs after, writes nothing to
    the closed count file (it raised EBADF in the loop, and a number given to another
    file since would have had the count written into it)."""
    errors: list[dict[str, object]] = []

    async def stop_while_syncing() -> None:
        asyncio.get_running_loop().set_exception_handler(lambda _, context: errors.append(
            context))
        journal = Journal.open(tmp_path)
        journal.table(1, {"players": "2"}, b"o" * 32, [(b"k" * 32, {}), (b"l" * 32, {})])
        journal.events(1, 0, ["deal"])
        released: list[bool] = []
        assert not journal.wait(journal.mark, lambda: released.append(True))
        journal.close()  # the fsync just started is in flight; its callback comes after
        for _ in range(2000):  # 20 s, only as a guard: a loaded machine's fsync is slow
            if released:
                break
            await asyncio.sleep(0.01)
        assert released == [True]

    asyncio.run(stop_while_syncing())
    assert errors == []
    count = (tmp_path / "journal.sqlite-count").read_text().split()
    again = Journal.open(tmp_path)
    try:
        assert int(count[0]) == again.serial == 2 and again.damage == []  # table, events
    finally:
        again.close()


def test_a_deleted_wal_is_noticed_and_no_number_is_given_again(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _killed_journal(out)
    assert _restart_copy(out)[0] == [1, 2, 3]  # whole, the same journal resumes it all
    for name in ("journal.sqlite-wal", "journal.sqlite-shm"):
        (out / name).unlink(missing_ok=True)
    resumed, said, next_id = _restart(out)
    assert resumed == []
    assert len(said) == 1 and "tables 1 to 3 whole" in said[0], said
    assert said[0].startswith("journal damaged: it holds 0 of the 4 commits")
    assert next_id == 4


def test_a_wal_cut_short_is_noticed(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _killed_journal(out)
    wal = out / "journal.sqlite-wal"
    with wal.open("r+b") as f:  # the last commit (the games' events) cut off
        f.truncate(wal.stat().st_size * 95 // 100)
    _, said, next_id = _restart(out)
    assert len(said) == 1, said
    held = re.match(r"journal damaged: it holds (\d+) of the (\d+) commits", said[0])
    assert held is not None and 0 < int(held.group(1)) < int(held.group(2)), said
    assert "the last moves of any game then in progress are lost" in said[0]
    assert next_id == 4


def _restart_copy(out: Path) -> tuple[list[int], list[str], int]:
    """``_restart`` on a copy of ``out`` (the original stays as the kill left it)."""
    import shutil

    copy = out.with_name(out.name + "-copy")
    shutil.copytree(out, copy)
    return _restart(copy)


def test_a_kill_right_after_the_record_finds_the_same_game_and_writes_no_twin(
        tmp_path: Path) -> None:
    """The record is written at the game's end, before the journal notes the table over; a
    kill in between is resumed from the journal. The journal on disk when the record took
    its name (a copy of its files, as SIGKILL leaves them: what is not committed is lost)
    must hold the whole game and the signed record's ``id``, so the resumed table writes
    the same record again and no ``table-1.2.log`` appears (test_web_crash.py found one
    about once in six runs: each writing drew a new random ``id``)."""
    import datetime as dt
    import shutil

    from xactika.protocol.trust.signing import write_key

    out, kept = tmp_path / "out", tmp_path / "on-disk"
    signer = write_key(tmp_path / "key.pem")
    journal = Journal.open(out)
    table = Table(1, table_settings({"players": "2", "rounds": "1", "seed": "6"}), out,
                  signer=signer)
    table.journalled(journal)
    table.started_at = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.UTC)
    journal.started(1, table.started_at.isoformat())
    table.referee = Referee.new(table.config, policy=table._fallback())
    table.events = table.referee.events
    rules = game_rules("xactika")
    while (turn := table.referee.turn()) is not None:  # as _play journals each move
        go = format_go(turn.legal, rules, 1000)
        table.referee.submit(parse_answer(first_option(go), turn.legal, rules))
        table._keep_events()
    import xactika.protocol.records.writing as writing
    write = writing.write_record_file

    def write_then_kill(*args: object, **kwargs: object) -> None:
        """SIGKILL once the record has its name: the journal's files as they are now."""
        write(*args, **kwargs)  # type: ignore[arg-type]
        kept.mkdir()
        for name in ("journal.sqlite", "journal.sqlite-wal"):
            shutil.copy(out / name, kept / name)

    try:
        writing.write_record_file = write_then_kill  # type: ignore[assignment]
        table._write_record(table.started_at)
    finally:
        writing.write_record_file = write
    journal.close()
    assert sorted(p.name for p in out.glob("table-*")) == ["table-1.log"]
    again = Journal.open(kept)
    try:
        [saved] = again.unfinished()
        resumed = Table.restore(saved, again, out, signer=signer)
        assert resumed.events == table.events  # the whole game, as the record has it
        resumed._write_record(resumed.started_at or dt.datetime.now(dt.UTC))
    finally:
        again.close()
    assert sorted(p.name for p in out.glob("table-*")) == ["table-1.log"]
    assert resumed.record == out / "table-1.log"
    assert ("id", table.record_id) in read_record(out / "table-1.log").headers


def _lobby(port: int, *commands: str) -> list[str]:
    """A terminal lobby session's answers, one line a command."""
    client = Client(port)
    client.send("lobby")
    assert client.read() == "lobby ok"
    answers = []
    for command in commands:
        client.send(command)
        answers.append(client.read())
    client.close()
    return answers


def test_the_lobbys_tables_come_back_with_the_seats_they_had(tmp_path: Path) -> None:
    """serve's own lobby kept nothing: after a restart its tables were no lobby's (no open
    seat, ``join`` refused) and their bots never sat again, so the game could not begin.
    Now each comes back with its given seats, its open ones and its bots."""
    from xactika.frontends.net.serve import bot_seats

    out = tmp_path / "out"
    journal = Journal.open(out)
    with LiveServer(out, journal=journal) as live:
        live.server.lobby.bots = bot_seats(live.server, 1)
        created, joined = _lobby(live.port, "create players=3 rounds=1 seats=human,human,1",
                                 "join 1 name=ann")
        assert created == "created table=1" and joined.startswith("joined table=1 seat=0 ")
        before = live.server.lobby.tables()
        ann = joined.split("token=")[1]
    journal.close()
    assert "open=1 names=ann,-,beginner" in before[0], before
    with LiveServer(out, journal=Journal.open(out)) as again:
        again.server.lobby.bots = bot_seats(again.server, 1)

        async def resume() -> list[str]:
            again.server.lobby.resume(again.server.tables)
            return again.server.lobby.tables()

        assert again.call(resume()) == before  # before: open=- and no lobby table 1
        [bob] = _lobby(again.port, "join 1 name=bob")
        assert bob.startswith("joined table=1 seat=1 ")
        table = again.server.tables[0]
        people = [in_thread(play_first, Client(again.port), token)
                  for token in (ann, bob.split("token=")[1])]
        for person in people:
            assert person.result(20)[-1] == "quit"
        again.wait_over(table)  # the bot sat again and played its seat
    assert not table.faults and table.record is not None
