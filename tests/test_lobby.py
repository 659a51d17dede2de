"""The table server's lobby (spec/SERVER.md section 9): list, create, join, leave,
rematch, watch; its limits. Loopback only, every wait bounded."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from netkit import Client, LiveServer, first_option, in_thread, play_first, until

from xactika.protocol.net.lobby import LobbyPolicy
from xactika.protocol.records.textform import read_record


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveServer]:
    with LiveServer(tmp_path) as server:
        yield server


def fields(line: str | None) -> dict[str, str]:
    assert line is not None
    return dict(w.partition("=")[::2] for w in line.split()[1:])


def ask(client: Client, line: str) -> str:
    client.send(line)
    got = client.read()
    assert got is not None, f"closed after {line!r}"
    return got


def listing(client: Client) -> dict[str, dict[str, str]]:
    client.send("tables")
    out = {}
    while (line := client.read()) != "ok":
        assert line is not None and line.startswith("table ")
        row = fields(line)
        out[row["id"]] = row
    return out


def lobby(live: LiveServer, first: str = "lobby") -> Client:
    client = Client(live.port)
    client.send(first)
    assert client.read() in ("lobby ok", "lobby ok admin")
    return client


def test_a_lobby_session_lists_creates_joins_plays_and_rematches(tmp_path: Path) -> None:
    with LiveServer(tmp_path) as live:
        ann, bob = lobby(live), lobby(live)
        assert listing(ann) == {}
        made = fields(ask(ann, "create players=2 rounds=1"))
        number = made["table"]
        assert listing(bob)[number]["open"] == "0,1"
        joined_a = fields(ask(ann, f"join {number} name=ann"))
        joined_b = fields(ask(bob, f"join {number} name=bob seat=1"))
        assert (joined_a["seat"], joined_b["seat"]) == ("0", "1")
        row = listing(ann)[number]
        assert (row["open"], row["names"], row["status"]) == ("-", "ann,bob", "waiting")
        assert joined_a["token"] not in " ".join(bob.lines)  # a token goes to its joiner only
        assert ask(bob, f"join {number} name=cy").startswith("error no open seat")
        # ann plays on her lobby connection, bob on a new one
        runs = [in_thread(play_first, ann, joined_a["token"]),
                in_thread(play_first, Client(live.port), joined_b["token"])]
        for run in runs:
            assert run.result(20)[-1] == "quit"
        table = live.server.tables[int(number) - 1]
        live.wait_over(table)
        assert read_record(table.record).header("seats") == "ann,bob"
        # a rematch: same names and settings, new tokens, a new deal
        again = lobby(live)
        first = fields(ask(again, f"rematch {joined_b['token']}"))
        assert first["seat"] == "1" and first["table"] != number
        assert fields(ask(again, f"rematch {joined_b['token']}")) == first  # asked twice
        second = fields(ask(again, f"rematch {joined_a['token']}"))
        assert (second["table"], second["seat"]) == (first["table"], "0")
        assert {first["token"], second["token"]}.isdisjoint(
            {joined_a["token"], joined_b["token"]})
        row = listing(again)[first["table"]]
        assert (row["names"], row["players"], row["rounds"], row["open"]) == \
            ("ann,bob", "2", "1", "-")
        old = Client(live.port)
        old.send(f"seat {joined_a['token']}")
        assert old.rest() == [f"error table {number} is over"]
        runs = [in_thread(play_first, Client(live.port), t)
                for t in (second["token"], first["token"])]
        for run in runs:
            assert run.result(20)[-1] == "quit"
        rematch = live.server.tables[int(first["table"]) - 1]
        live.wait_over(rematch)
        assert read_record(rematch.record).header("seats") == "ann,bob"
        assert rematch.config.seed != table.config.seed
        assert ask(again, "quit") == "bye"


def test_a_rematch_keeps_every_setting_and_passes_the_deal_on(live: LiveServer) -> None:
    """The clock, what happens at zero, the stand-in's level and the game's options come
    along; the seat after the last game's first dealer deals first."""
    ann = lobby(live)
    made = fields(ask(ann, "create game=ohhell players=3 rounds=1 top=2 clock=300+15"
                           " on-timeout=forfeit level=2 dealer=2"))
    number = made["table"]
    tokens = [fields(ask(ann, f"join {number} name={n} seat={i}"))["token"]
              for i, n in enumerate(("ann", "bob", "cy"))]
    runs = [in_thread(play_first, Client(live.port), t) for t in tokens]
    for run in runs:
        assert run.result(30)[-1] == "quit"
    table = live.server.tables[int(number) - 1]
    live.wait_over(table)
    again = fields(ask(ann, f"rematch {tokens[0]}"))
    rematch = live.server.tables[int(again["table"]) - 1]
    old, new = table.settings, rematch.settings
    assert (new.clock, new.on_timeout, new.level, new.pace) == \
        (old.clock, old.on_timeout, old.level, old.pace)
    assert new.clock is not None and (new.clock.base_ms, new.clock.inc_ms) == (300_000, 15_000)
    assert dict(rematch.config.options) == dict(table.config.options)
    assert (rematch.config.game, rematch.config.rounds) == ("ohhell", 1)
    assert (table.config.dealer, rematch.config.dealer) == (2, 0)


def test_leave_gives_the_seat_back_under_a_new_token(live: LiveServer) -> None:
    ann = lobby(live)
    number = fields(ask(ann, "create players=2 rounds=1"))["table"]
    token = fields(ask(ann, f"join {number} name=ann"))["token"]
    sitting = Client(live.port)
    sitting.send(f"seat {token}")
    assert sitting.read() == f"seated table={number} seat=0 players=2"
    assert sitting.read() == "hello 1"
    assert ask(ann, f"leave {token}") == f"left table={number} seat=0"
    assert sitting.rest() == ["error the seat was left in the lobby"]
    again = Client(live.port)
    again.send(f"seat {token}")
    assert again.rest() == ["error unknown token"]
    row = listing(ann)[number]
    assert (row["open"], row["names"]) == ("0,1", "-,-")
    fresh = fields(ask(ann, f"join {number} name=cy"))["token"]
    assert fresh != token


def test_bad_lobby_commands_get_one_error_line_and_the_session_goes_on(
        live: LiveServer) -> None:
    c = lobby(live)
    number = fields(ask(c, "create players=2"))["table"]
    for bad in ["join", f"join {number}", f"join {number} name=" + "x" * 21,
                f"join {number} name=a,b", f"join {number} name=\u202eevil",
                f"join {number} name=a seat=7", "join 99 name=a", "join -1 name=a",
                "create players=2 players=3", "create seed=1", "create colour=red",
                "leave", "leave 00", "rematch", "watch", "watch x", "\x1b[2J"]:
        answer = ask(c, bad)
        assert answer.startswith("error "), (bad, answer)
        assert answer.isprintable()
    assert listing(c)[number]["open"] == "0,1"  # nothing changed


def test_a_lobby_table_takes_the_peoples_clock_and_stand_in_level(live: LiveServer) -> None:
    """The web lobby and `xactika lobby` create tables for people: a clock, what happens
    at zero and the stand-in's level are the creator's to choose, each checked."""
    c = lobby(live)
    number = fields(ask(c, "create players=2 clock=60+5 on-timeout=forfeit level=2"))["table"]
    settings = live.server.tables[int(number) - 1].settings
    assert (settings.clock.base_ms, settings.clock.inc_ms) == (60_000, 5_000)
    assert (settings.on_timeout, settings.level) == ("forfeit", 2)
    for bad in ["create clock=soon", "create on-timeout=never", "create level=9"]:
        answer = ask(c, bad)
        assert answer.startswith("error ") and answer.isprintable(), (bad, answer)
    assert list(listing(c)) == [number]  # nothing else was made


def test_lobby_limits_per_address_and_in_all(tmp_path: Path) -> None:
    policy = LobbyPolicy(max_tables=3, tables_per_address=2, seats_per_address=3)

    with LiveServer(tmp_path, lobby=policy) as live:
        a = lobby(live)
        made = [fields(ask(a, "create players=2"))["table"] for _ in range(2)]
        assert ask(a, "create players=2") == \
            "error 2 tables of yours are not over yet"
        a.send("quit")
        b = Client(live.port, source="127.0.0.2")
        b.send("lobby")
        assert b.read() == "lobby ok"
        made.append(fields(ask(b, "create players=4"))["table"])
        assert ask(b, "create players=2") == \
            "error the lobby has 3 tables already; try again later"
        for n in range(3):
            assert ask(b, f"join {made[2]} name=p{n}").startswith("joined ")
        assert ask(b, f"join {made[0]} name=p9") == \
            "error 3 seats of yours are waiting for their games already"
        admin = lobby(live, f"lobby {live.server.admin_token}")
        assert ask(admin, "create players=2 seed=3").startswith("created table=")


def test_an_unplayed_lobby_table_closes_after_the_idle_time(tmp_path: Path) -> None:
    with LiveServer(tmp_path, lobby=LobbyPolicy(idle=0.3, tables_per_address=1)) as live:
        c = lobby(live)
        number = fields(ask(c, "create players=2"))["table"]
        token = fields(ask(c, f"join {number} name=ann"))["token"]  # joined, never sat
        assert ask(c, "create players=2").startswith("error 1 tables of yours")
        until(lambda: number not in listing(c), "the idle table closes")
        assert ask(c, "create players=2").startswith("created ")
        assert ask(c, f"rematch {token}") == \
            f"error table {number} closed before its game began"


def test_observers_are_capped_per_table(tmp_path: Path) -> None:
    from xactika.protocol.net.link import Limits

    with LiveServer(tmp_path, Limits(max_observers=2)) as live:
        table = live.table(players=2, rounds=1, seed=3)
        watchers = [Client(live.port) for _ in range(2)]
        for w in watchers:
            w.send(f"observe {table.observer_token}")
            assert w.read() == "watching table=1"
        extra = Client(live.port)
        extra.send(f"observe {table.observer_token}")
        assert extra.rest() == ["error table 1 has 2 observers already; try again later"]
        watchers[0].close()
        until(lambda: len(table.observers) < 2, "the server sees the watcher go")
        late = lobby(live)
        number = fields(ask(late, "create players=2"))["table"]
        late.send(f"watch {number}")
        assert late.read() == f"watching table={number}"


def test_idle_connections_from_four_addresses_never_keep_a_seat_out(tmp_path: Path) -> None:
    """The issue's attack: four addresses hold 64 idle connections each (more than the
    256 slots of old) and keep opening new ones while a real seat joins 30 times and,
    once the game runs, drops and comes back 9 times. It gets in every time."""
    from xactika.protocol.net.link import Limits

    spray = 64
    limits = Limits(auth_timeout=30.0)  # the idle ones are only ever evicted
    with LiveServer(tmp_path, limits) as live:
        table = live.table(players=2, rounds=2, seed=5)
        idle: list[Client] = []

        def more(n: int) -> None:
            for k in range(n):
                idle.append(Client(live.port, source=f"127.0.0.{2 + k % 4}"))
            while len(idle) > 4 * spray:
                idle.pop(0).close()

        more(4 * spray)
        for _ in range(30):
            more(16)
            c = Client(live.port)
            c.send(f"seat {table.seats[0].token}")
            assert c.read() == "seated table=1 seat=0 players=2"
            assert c.read() == "hello 1"
            c.close()
            until(lambda: table.seats[0].link is None and table.seats[0].claim is None,
                  "the server sees the drop: the seat is free again")
        assert live.server.evicted > 0
        other = in_thread(play_first, Client(live.port), table.seats[1].token)
        seat = Client(live.port)
        got = play_first(seat, table.seats[0].token, until=lambda line: line.startswith("go"))
        last = 0
        for _ in range(9):
            last = max([last, *(int(line.split()[1]) for line in got
                                if line.startswith("event "))])
            seat.close()
            more(16)
            until(lambda: table.seats[0].link is None, "the server sees the drop")
            seat = Client(live.port)
            got = play_first(seat, table.seats[0].token, resume=last,
                             until=lambda line: line.startswith("go"))
            assert got[0] == "seated table=1 seat=0 players=2", got
        seat.send(first_option(got[-1]))
        play_first(seat, None)
        other.result(20)
        live.wait_over(table)
        assert table.faults == []
        assert live.server.evicted > 0
        for c in idle:
            c.close()
