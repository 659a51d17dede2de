"""A table formats each public event once for every seat, the watchers and the journal
(issue 44): a table of four seats and a watcher, counted line by line; an event a view
changes (the start, a deal) is formatted once for each who sees it and the journal."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from netkit import Client, LiveServer, in_thread, play_first

from xactika.core.engine.views import visible
from xactika.protocol.net import seating
from xactika.protocol.net.journal import Journal
from xactika.protocol.net.link import PUBLIC


def test_a_public_event_is_formatted_once_for_all_who_hear_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    formatted: Counter[str] = Counter()
    real = seating.format_event

    def counting(event: Any, rules: Any) -> str:
        line = real(event, rules)
        formatted[line] += 1
        return line

    monkeypatch.setattr(seating, "format_event", counting)
    with LiveServer(tmp_path, journal=Journal.open(tmp_path)) as live:
        table = live.table(players=4, rounds=1, seed=3)
        watcher = Client(live.port)
        watcher.send(f"observe {table.observer_token}")
        assert watcher.read() == f"watching table={table.id}"
        seats = [in_thread(play_first, Client(live.port), s.token) for s in table.seats]
        live.wait_over(table)
        heard = [seat.result(30) for seat in seats]
        watched = watcher.rest()
    public = [e for e in table.events if visible(e, PUBLIC) is e]
    assert len(public) > 20  # bids, plays, tricks, the score: the game's most events
    for event in public:
        line = real(event, table.rules)
        assert formatted[line] == 1, line
        assert all(line in got for got in heard) and line in watched  # and all heard it
    for event in table.events:
        if event not in public:  # each seat's view, the watcher's, the journal's whole
            lines = {real(visible(event, s), table.rules) for s in (*range(4), PUBLIC)}
            lines.add(real(event, table.rules))
            assert sum(formatted[line] for line in lines) <= 4 + 1 + 1
    assert sum(formatted.values()) <= len(public) + 6 * (len(table.events) - len(public))
