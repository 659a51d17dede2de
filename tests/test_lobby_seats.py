"""Issue 41: the terminal lobby keeps a token per seat (server, table and seat), not per
server: a second ``join`` from one account (two people at one machine) overwrote the
first, and ``rematch`` then used the wrong seat's token; its errors named no seat."""

from __future__ import annotations

from pathlib import Path

from netkit import Client, LiveServer, in_thread, play_first
from test_lobby_cli import lobby

from xactika.frontends.net.lobby import kept_seats, seat_file


def test_two_seats_at_one_machine_keep_their_own_tokens(tmp_path: Path) -> None:
    with LiveServer(tmp_path) as live:
        where = f"127.0.0.1:{live.port}"
        assert lobby(live.port, "create", "players=2", "rounds=1").returncode == 0
        ann = lobby(live.port, "join", "1", "--name", "ann")
        bob = lobby(live.port, "join", "1", "--name", "bob")
        assert ann.returncode == 0 and bob.returncode == 0
        tokens = [ann.stdout.split()[5], bob.stdout.split()[5]]
        assert [p.read_text().strip() for _t, _s, p in kept_seats(where)] == tokens
        assert seat_file(where, 1, 0).read_text().strip() == tokens[0]
        early = lobby(live.port, "rematch", "1", "--seat", "1")  # as people count seats
        assert early.returncode == 1
        assert early.stderr.strip() == "xactika lobby: table 1 seat 1: table 1 is not over yet"
        runs = [in_thread(play_first, Client(live.port), t) for t in tokens]
        for run in runs:
            assert run.result(20)[-1] == "quit"
        live.wait_over(live.server.tables[0])
        first = lobby(live.port, "rematch", "1", "--seat", "1")
        assert first.returncode == 0, first.stderr
        assert first.stdout.startswith("table 2 seat 1: token ")
        second = lobby(live.port, "rematch", "--seat", "2")  # the one kept second seat
        assert second.returncode == 0, second.stderr
        assert second.stdout.startswith("table 2 seat 2: token ")
        assert [(t, s) for t, s, _p in kept_seats(where)] == [(2, 0), (2, 1)]
        nothing = lobby(live.port, "leave", "7")
        assert nothing.returncode == 2 and "kept for table 7" in nothing.stderr
