"""The table server on 127.0.0.1: whole games by socket, reconnects, hostile clients, TLS,
observers. Each test runs a live server in a thread; every wait is bounded."""

from __future__ import annotations

import datetime as dt
import ipaddress
import select
import ssl
import time
from pathlib import Path

import pytest
from netkit import (
    Client,
    LiveServer,
    NotedAsyncio,
    first_option,
    in_thread,
    play_first,
    until,
)

from xactika.core.engine.check import check_log
from xactika.core.engine.views import visible
from xactika.protocol.net import server as server_module
from xactika.protocol.net.link import PUBLIC, Limits
from xactika.protocol.notation.text import format_event
from xactika.protocol.records.textform import read_record

FAST = Limits(auth_timeout=0.6, fail_free=2, fail_delay=0.3, fail_delay_max=1.0)


@pytest.fixture
def live(tmp_path: Path) -> LiveServer:
    with LiveServer(tmp_path / "records", FAST) as server:
        yield server


def seen_as(record_events: list, seat: int) -> list[str]:
    """The event lines ``seat`` (PUBLIC: an observer) may see, from the whole record."""
    rules = None
    out = []
    for event in record_events:
        if rules is None:
            from xactika.core.engine.api import game_rules

            rules = game_rules(event.config.game)
        out.append(format_event(visible(event, seat), rules))
    return out


def events_of(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith("event ")]


def unseen_cards(lines: list[str], record_events: list, seat: int) -> list[str]:
    """Cards in ``seat``'s event lines that it could not know yet, found without
    ``visible``: a line may name the seat's own cards (dealt or drawn), the turned-up
    card and cards already played, and nothing else of the deck."""
    from xactika.core.engine.api import Dealt, Led, Played, game_rules
    from xactika.core.games.dix import Drew

    deck = {str(c) for c in game_rules(record_events[0].config.game).deck}
    known: set[str] = set()
    found = []
    for line, event in zip(events_of(lines), record_events, strict=True):
        if isinstance(event, Dealt):
            known |= {str(c) for c in (event.hands[seat] if seat >= 0 else ())}
            known |= {str(event.turned)} if event.turned is not None else set()
        elif isinstance(event, Led | Played) or (isinstance(event, Drew) and event.seat == seat):
            known.add(str(event.card))
        for token in line.replace(",", " ").replace("/", " ").replace("=", " ").split():
            if token in deck and token not in known:
                found.append(f"{token} in {line!r}")
    return found


# --------------------------------------------------------------------------- whole games


@pytest.mark.parametrize("game", ["xactika", "dix"])
def test_whole_game_by_sockets_streams_only_what_each_may_see(live: LiveServer,
                                                               game: str) -> None:
    pairs = {"game": game, "players": 2, "rounds": 1, "seed": 11}
    table = live.table(**pairs)
    observer = Client(live.port)
    observer.send(f"observe {table.observer_token}")
    seats = [Client(live.port) for _ in table.seats]
    runs = [in_thread(play_first, c, s.token) for c, s in zip(seats, table.seats, strict=True)]
    got = [r.result(20) for r in runs]
    watched = observer.rest()
    live.wait_over(table)
    assert table.record is not None
    record = read_record(table.record)
    check_log(list(record.events))
    assert record.header("termination") == "normal"
    assert record.header("seats") == "first,first (2)"  # one name, told apart
    for seat, lines in enumerate(got):
        assert lines[0] == f"seated table={table.id} seat={seat} players=2"
        assert events_of(lines) == seen_as(list(record.events), seat)
        assert unseen_cards(lines, list(record.events), seat) == []
        assert lines[-1] == "quit"
    assert watched[0] == f"watching table={table.id}"
    assert events_of(watched) == seen_as(list(record.events), PUBLIC)
    assert unseen_cards(watched, list(record.events), PUBLIC) == []
    # the check can fail: the whole record, shown to an observer, names unseen cards
    seat0_lines = seen_as(list(record.events), 0)
    assert unseen_cards(["watching"] + seat0_lines, list(record.events), PUBLIC) != []
    deal = next(line for line in watched if " deal " in line)
    assert "hands=?/?" in deal and "aside=?" in deal
    if game == "dix":
        assert any(line.endswith("card=?") for line in watched if " draw " in line)
    # the outcome as the record's result line says it ends the stream, after game-over
    assert watched[-1] == f"result winners={','.join(map(str, table.outcome().winners))} " \
        f"forfeited=- totals={','.join(map(str, table.totals()))}"
    assert " game-over " in watched[-2] and got[0][-2] == got[1][-2] == watched[-1]
    assert all("seed=" not in line for line in watched[:-2])


def test_reconnect_with_resume_gets_only_the_missed_events(live: LiveServer) -> None:
    table = live.table(players=2, rounds=1, seed=7)
    other = in_thread(play_first, Client(live.port), table.seats[1].token)
    first = Client(live.port)
    before = play_first(first, table.seats[0].token, until=lambda line: line.startswith("go"))
    seen = max(int(line.split()[1]) for line in events_of(before))
    first.close()  # dropped with the go unanswered
    again = Client(live.port)
    after = play_first(again, table.seats[0].token, resume=seen - 2)
    other.result(20)
    live.wait_over(table)
    assert after[0].startswith("seated ")
    # no hello and no newgame on a resume: the events after seq seen-2, then the same go,
    # with what is left of the seat's move limit (it ran while the seat was away)
    assert after[1].startswith(f"event {seen - 1} ")
    asked, again_asked = before[-1].rsplit(" time=", 1), after[3].rsplit(" time=", 1)
    assert again_asked[0] == asked[0] and int(again_asked[1]) <= int(asked[1]) == 5000
    assert table.faults == []
    assert read_record(table.record).header("termination") == "normal"


def test_seat_gone_past_the_grace_forfeits_and_the_game_ends(tmp_path: Path) -> None:
    with LiveServer(tmp_path, FAST) as live:
        from xactika.protocol.net.table import table_settings

        table = live.table(table_settings({"players": "2", "rounds": "1", "seed": "3"},
                                          move_timeout=5.0, grace=0.3))
        other = in_thread(play_first, Client(live.port), table.seats[1].token)
        quitter = Client(live.port)
        play_first(quitter, table.seats[0].token, until=lambda line: line.startswith("go"))
        quitter.close()
        other.result(20)
        live.wait_over(table)
        record = read_record(table.record)
        assert record.header("termination") == "crash"
        assert "did not come back within 0.3 s" in (record.header("fault") or "")
        check_log(list(record.events))
        late = Client(live.port)
        late.send(f"seat {table.seats[0].token}")
        assert late.rest() == [f"error table {table.id} is over"]


# --------------------------------------------------------------------------- tokens


def test_wrong_token_gets_one_error_line_and_is_closed(live: LiveServer) -> None:
    live.table(players=2, rounds=1)
    c = Client(live.port)
    c.send("seat " + "0" * 32)
    assert c.rest() == ["error unknown token"]


def test_a_seat_token_is_not_an_observer_token(live: LiveServer) -> None:
    table = live.table(players=2, rounds=1)
    c = Client(live.port)
    c.send(f"observe {table.seats[0].token}")
    assert c.rest() == ["error unknown token"]


def test_stolen_token_used_twice_is_refused_and_the_owner_plays_on(live: LiveServer) -> None:
    table = live.table(players=2, rounds=1, seed=5)
    owner = Client(live.port)
    owner.send(f"seat {table.seats[0].token}")
    assert owner.read() == f"seated table={table.id} seat=0 players=2"
    thief = Client(live.port)
    thief.send(f"seat {table.seats[0].token}")
    assert thief.rest() == [f"error seat 0 of table {table.id} is already connected"]
    rest = in_thread(play_first, owner, None)  # carries on with the handshake it was sent
    other = in_thread(play_first, Client(live.port), table.seats[1].token)
    other.result(20)
    rest.result(20)
    live.wait_over(table)
    assert table.faults == []


def test_repeated_failures_from_one_address_are_slowed(live: LiveServer,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    live.table(players=2, rounds=1)
    noted = NotedAsyncio()  # the only sleep of the server module is a wrong token's
    monkeypatch.setattr(server_module, "asyncio", noted)
    waits = []
    for n in range(4):
        c = Client(live.port)
        began = time.monotonic()
        c.send("seat " + "f" * 32)
        assert c.rest() == ["error unknown token"]
        waits.append(time.monotonic() - began)
        if n == 1:  # fail_free=2: the first two are answered at once, with no pause
            assert noted.slept == []
    assert noted.slept == [0.3, 0.6]  # then 0.3 s, doubling
    assert waits[2] >= 0.3 and waits[3] >= 0.6  # and the answers really waited


# --------------------------------------------------------------------------- hostile input


def test_garbage_before_seat_is_refused(live: LiveServer) -> None:
    c = Client(live.port)
    c.send("GET / HTTP/1.1")
    assert c.rest() == ["error expected 'seat TOKEN', 'observe TOKEN', 'admin TOKEN' or "
                        "'lobby' first"]
    c = Client(live.port)
    c.send_raw(b"\xff\xfe seat\n")
    assert c.rest()[0].startswith("error invalid-utf8")


def test_silent_and_slowloris_clients_are_dropped(live: LiveServer) -> None:
    """The 0.6 s to a whole first line count from the connection: a byte now and then
    never extends them, so the trickle is cut while it still trickles."""
    silent = Client(live.port)
    slow = Client(live.port)
    began = time.monotonic()
    trickled = 0
    for byte in b"seat " + b"f" * 200:  # a byte at a time, never a whole line: 20 s at most
        try:
            slow.send_raw(bytes([byte]))
        except OSError:  # cut meanwhile
            break
        trickled += 1
        if select.select([slow.sock], [], [], 0.1)[0]:  # the server spoke: the cut
            break
    assert trickled < 205, "the trickle kept the connection open"
    assert slow.rest(5)[0] == "error timeout: no 'seat TOKEN' line within 0.6 s"
    assert time.monotonic() - began >= 0.6  # not before the limit either
    assert silent.rest(5) == ["error timeout: no 'seat TOKEN' line within 0.6 s"]


def test_bad_seat_fields_are_refused(live: LiveServer) -> None:
    table = live.table(players=2, rounds=1)
    token = table.seats[0].token
    for extra, error in [
        ("resume=\u00b2", "error unknown field 'resume=\u00b2': expected 'seat TOKEN "
                           "[resume=SEQ]'"),
        ("resume=7", "error resume=7 is beyond the last event (0)"),
    ]:
        c = Client(live.port)
        c.send(f"seat {token} {extra}")
        assert c.rest() == [error]
    assert table.seats[0].link is None and table.seats[0].claim is None


def test_over_long_first_line_is_refused(live: LiveServer) -> None:
    c = Client(live.port)
    c.send_raw(b"seat " + b"a" * 10000 + b"\n")
    assert c.rest() == ["error flood: a line longer than 4096 bytes"]


def test_flood_and_long_lines_forfeit_a_seat_but_not_the_other_table(live: LiveServer) -> None:
    bad_table = live.table(players=2, rounds=1, seed=1)
    good_table = live.table(players=2, rounds=1, seed=2)
    good = [in_thread(play_first, Client(live.port), s.token) for s in good_table.seats]
    other = in_thread(play_first, Client(live.port), bad_table.seats[1].token)
    flooder = Client(live.port)
    play_first(flooder, bad_table.seats[0].token, until=lambda line: line.startswith("go"))
    try:
        flooder.send_raw(b"info spam\n" * 5000)
    except OSError:
        pass  # the server may close before we are done
    assert any(line.startswith("error flood") for line in flooder.rest())
    other.result(20)
    for run in good:
        run.result(20)
    live.wait_over(bad_table)
    live.wait_over(good_table)
    assert read_record(bad_table.record).header("fault", "").startswith("0 flood")
    assert read_record(good_table.record).header("termination") == "normal"

    long_table = live.table(players=2, rounds=1, seed=3)
    other = in_thread(play_first, Client(live.port), long_table.seats[1].token)
    talker = Client(live.port)
    play_first(talker, long_table.seats[0].token, until=lambda line: line.startswith("go"))
    talker.send("play " + "1" * 5000)
    assert talker.rest()[-1] == "error flood: a line longer than 4096 bytes"
    other.result(20)
    live.wait_over(long_table)
    assert read_record(long_table.record).header("termination") == "flood"


def test_illegal_and_unasked_lines_forfeit(live: LiveServer) -> None:
    table = live.table(players=2, rounds=1, seed=4)
    other = in_thread(play_first, Client(live.port), table.seats[1].token)
    c = Client(live.port)
    lines = play_first(c, table.seats[0].token, until=lambda line: line.startswith("go"))
    c.send("bid 99" if lines[-1].startswith("go bid") else "play 3333 1ba")
    assert c.rest()[-1].startswith("error illegal-move")
    other.result(20)
    live.wait_over(table)
    assert read_record(table.record).header("termination") == "illegal-move"


def test_an_answer_before_its_go_forfeits(live: LiveServer) -> None:
    table = live.table(players=2, rounds=1, seed=4)
    eager = Client(live.port)
    play_first(eager, table.seats[0].token, until=lambda line: line == "isready")
    eager.send("readyok")
    eager.send("bid 0")  # nothing asked it yet
    other = in_thread(play_first, Client(live.port), table.seats[1].token)
    assert eager.rest()[-1].startswith("error early-answer: sent 'bid 0' when nothing")
    other.result(20)
    live.wait_over(table)
    assert read_record(table.record).header("termination") == "early-answer"


def test_connection_cap_evicts_the_oldest_idle_connection(tmp_path: Path) -> None:
    with LiveServer(tmp_path, Limits(max_connections=3, auth_timeout=2.0)) as live:
        idle = [Client(live.port) for _ in range(3)]
        until(lambda: len(live.server._pending) == 3, "the server has the three, in order")
        newest = Client(live.port)
        assert idle[0].rest() == ["error too many connections; try again later"]
        newest.send("seat x")
        assert newest.rest() == ["error unknown token"]
        assert live.server.evicted == 1
        for c in idle:
            c.close()


def test_hostile_bytes_never_stop_the_server(live: LiveServer) -> None:
    payloads = [b"\x00" * 100 + b"\n", b"\n" * 20, b"seat\n", b"seat  \n", b"admin\n",
                b"seat a b c d\n", b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" * 10,
                b"observe " + "\u2028".encode() * 10 + b"\n", b"\r\n\r\n"]
    for payload in payloads:
        c = Client(live.port)
        try:
            c.send_raw(payload)
        except OSError:
            pass
        c.rest(5)
    table = live.table(players=2, rounds=1, seed=9)
    runs = [in_thread(play_first, Client(live.port), s.token) for s in table.seats]
    for run in runs:
        run.result(20)
    live.wait_over(table)
    assert read_record(table.record).header("termination") == "normal"


# --------------------------------------------------------------------------- admin


def test_admin_creates_tables(live: LiveServer) -> None:
    admin = Client(live.port)
    admin.send(f"admin {live.server.admin_token}")
    assert admin.read() == "admin ok"
    admin.send("table game=xactika players=2 rounds=1 seed=8")
    made = [admin.read() or "" for _ in range(3)]  # a line per seat, then the observer's
    assert [line.split()[:4] for line in made] == [
        ["table", "1", "seat", "0"], ["table", "1", "seat", "1"],
        ["table", "1", "observer", "token"]]
    tokens = [line.split()[-1] for line in made[:2]]
    admin.send("table players=99")
    assert (admin.read() or "").startswith("error ")
    admin.send("format c:")
    assert (admin.read() or "").startswith("error unknown admin command 'format'")
    runs = [in_thread(play_first, Client(live.port), t) for t in tokens]
    for run in runs:
        run.result(20)
    admin.send("tables")
    assert admin.read() == "table id=1 status=over seated=0/2"
    assert admin.read() == "ok"
    admin.send("quit")
    assert admin.rest() == []


def test_admin_and_lobby_commands_sent_together_are_each_answered(live: LiveServer) -> None:
    """A script pipes its commands at once: none is dropped (the session used to eat
    the line that followed each command)."""
    admin = Client(live.port)
    admin.send(f"admin {live.server.admin_token}")
    assert admin.read() == "admin ok"
    admin.send("tables\ntable players=2 rounds=1\ntables")
    got = [admin.read() for _ in range(5)]
    assert got[0] == "ok" and got[1].startswith("table 1 seat 0 token ")  # type: ignore[union-attr]
    assert got[4] == "table id=1 status=waiting seated=0/2"
    lobby = Client(live.port)
    lobby.send("lobby")
    assert lobby.read() == "lobby ok"
    lobby.send("create players=2\ncreate players=3")
    assert [lobby.read(), lobby.read()] == ["created table=2", "created table=3"]


# --------------------------------------------------------------------------- TLS


def self_signed(tmp_path: Path) -> tuple[Path, Path]:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name)
        .public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=1))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([
            x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


def test_tls_whole_game_with_a_self_signed_certificate(tmp_path: Path) -> None:
    from xactika.protocol.net.remote import client_context
    from xactika.protocol.net.server import tls_context

    cert, key = self_signed(tmp_path)
    with LiveServer(tmp_path / "records", FAST, tls_context(cert, key)) as live:
        table = live.table(players=2, rounds=1, seed=12)
        trusting = client_context(str(cert))
        with pytest.raises(ssl.SSLCertVerificationError):
            Client(live.port, client_context())  # the system's roots do not know it
        plain = Client(live.port)
        plain.send(f"seat {table.seats[0].token}")
        assert plain.rest(5) == []  # no TLS, no answer: not even an error in clear
        runs = [in_thread(play_first, Client(live.port, trusting), s.token)
                for s in table.seats]
        got = [run.result(20) for run in runs]
        live.wait_over(table)
        assert got[0][0] == f"seated table={table.id} seat=0 players=2"
        assert read_record(table.record).header("termination") == "normal"


def test_first_option_helper() -> None:
    assert first_option("go lead options=1121:1ba,2111:2ba time=5") == "play 1121 1ba"
    assert first_option("go bid options=0,1") == "bid 0"
