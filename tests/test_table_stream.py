"""The table's typed stream (issue 44): each connection is sent its events' objects
beside their lines. Every object is its line (``format_event(obj) == line`` and back),
so a narration folded from the objects is the one folded from the text; and per event
at a table of one person, three bots and a spectator, nothing in the process parses an
event line and each connection folds it once."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_conformance import EXPECTED_GAMES, Tiny

from xactika.core.engine import api
from xactika.core.engine.api import game_rules
from xactika.frontends.web import narrate, transport
from xactika.frontends.web.narrate import Narrator
from xactika.frontends.web.transport import QueueTransport, run_bot
from xactika.protocol.net import seating
from xactika.protocol.net.link import Limits, Line, Link, Typed, text
from xactika.protocol.net.server import Server
from xactika.protocol.net.table import Table, table_settings
from xactika.protocol.notation import text as notation
from xactika.protocol.player import agentside, wire
from xactika.protocol.player.agentside import SeatTracker

Sent = list[tuple[str, list[Line]]]  # (who, a message's lines), in the order sent


def _person(go: wire.Go) -> str:
    """The first option, as a page's click sends it."""
    option = go.options[0]
    if go.kind == "bid":
        return wire.format_bid(option)
    card, _, call = option.partition(":")
    return wire.format_play(card, call or None)


async def _connection(server: Server, queue: QueueTransport, first: str,
                      narrator: Narrator) -> None:
    """A page's connection (a seat's or a watcher's) as app.Connection reads it: each
    message narrated, a ``go`` answered with its first option."""
    link = Link(None, None, Limits(), "page", transport=queue)
    serving = asyncio.ensure_future(server.serve_link(link, "page"))
    queue.feed(first + "\n")
    while (lines := await queue.outgoing_lines()) is not None:
        narrator.annotate(lines)
        for line in lines:  # the table's value where it gave one (a go, an event): no parse
            match line.value if isinstance(line, Typed) else wire.read(line):
                case wire.Hello():
                    queue.feed("hello 1 name=Ann kind=human\n")
                case wire.IsReady():
                    queue.feed("readyok\n")
                case wire.Go() as go:
                    queue.feed(_person(go) + "\n")
    queue.end()
    queue.gone()
    await serving


def _play(tmp_path: Path, pairs: dict[str, str], bots: list[str], *, tutorial: bool = False
          ) -> tuple[Table, Sent, dict[str, Narrator]]:
    """A table of one person (seat 0), built-in ``bots`` in the other seats and a watcher,
    played to the end: what each connection was sent (the bots' under ``bot``), and the
    person's and the watcher's narrators."""
    writes: list[tuple[int, list[Line]]] = []  # (its transport, a message's lines)
    write_lines = QueueTransport.write_lines

    def kept(self: QueueTransport, lines: list[Line]) -> None:
        writes.append((id(self), list(lines)))
        write_lines(self, lines)

    async def run() -> tuple[Table, dict[str, Narrator], dict[int, str]]:
        server = Server(out=tmp_path)
        table = server.add_table(table_settings(pairs))

        def names() -> list[str]:
            return [s.name for s in table.seats]

        narrators = {"person": Narrator(names, tutorial=tutorial), "watcher": Narrator(names)}
        queues = {"person": QueueTransport(Limits()), "watcher": QueueTransport(Limits())}
        watcher = asyncio.ensure_future(_connection(
            server, queues["watcher"], f"observe {table.observer_token}", narrators["watcher"]))
        seated = [asyncio.ensure_future(run_bot(server.serve_link, table.seats[seat].token,
                                                agent, pairs["game"], seat, Limits()))
                  for seat, agent in enumerate(bots, start=1)]
        person = asyncio.ensure_future(_connection(
            server, queues["person"], f"seat {table.seats[0].token}", narrators["person"]))
        await asyncio.wait_for(table.over.wait(), 60)
        await asyncio.gather(person, watcher, *seated)
        await server.close()
        return table, narrators, {id(q): who for who, q in queues.items()}

    QueueTransport.write_lines = kept  # type: ignore[method-assign]
    try:
        table, narrators, who = asyncio.run(run())
    finally:
        QueueTransport.write_lines = write_lines  # type: ignore[method-assign]
    return table, [(who.get(t, f"bot{t}"), lines) for t, lines in writes], narrators


def _config(game: str) -> dict[str, str]:
    """A table of the web's conformance test (test_web_conformance.py): the game's fewest
    players, its first mode, two rounds where the first hand is small, else one."""
    rules = game_rules(game)
    config = api.Config(game=game, mode=rules.default_mode, players=rules.min_players,
                        rounds=rules.default_rounds, seed=0)
    rounds = 2 if rules.hand_size(config) * rules.min_players <= 24 else 1
    return {"game": game, "players": str(rules.min_players), "rounds": str(rounds),
            "seed": "7"}


@pytest.mark.parametrize("game", [*EXPECTED_GAMES, Tiny.name])
def test_every_object_a_connection_is_sent_is_its_line(
        game: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(api._GAMES, Tiny.name, Tiny())
    pairs = _config(game)
    bots = ["heuristic"] * (int(pairs["players"]) - 1)
    table, sent, narrators = _play(tmp_path, pairs, bots, tutorial=True)
    rules = table.rules
    told = [(who, line) for who, lines in sent for line in lines if isinstance(line, Typed)]
    events = [(who, line) for who, line in told if line.event]
    assert len({who for who, _ in events}) == 2 + len(bots)  # each connection had its own
    for who, line in events:  # the object is the line, and the line the object
        assert notation.format_event(line.value, rules) == line.line, who
        assert notation.parse_event(line.line, rules) == line.value, who
    for who, line in told:
        if not line.event:  # newgame, info, result: wire's values, each its line
            assert wire.format_line(line.value) == line.line, who  # type: ignore[arg-type]
    # what a narration folded from the objects says is what it says from the text alone
    for who, narrator in narrators.items():
        again = Narrator(narrator.names, tutorial=narrator.tutorial)
        from_text = "".join(again.annotate([text(line) for line in lines])
                            for one, lines in sent if one == who)
        fresh = Narrator(narrator.names, tutorial=narrator.tutorial)
        from_objects = "".join(fresh.annotate(lines) for one, lines in sent if one == who)
        assert from_objects == from_text, who
        assert "say table " in from_objects and "say why-won " in from_objects


def _counting(monkeypatch: pytest.MonkeyPatch, module: Any, name: str,
              count: Callable[..., None]) -> None:
    real = getattr(module, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        count(*args, **kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)


def test_per_event_one_format_no_parse_and_one_fold_per_connection(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    formats: Counter[str] = Counter()
    parses: list[str] = []
    folds: Counter[tuple[int, int]] = Counter()  # (tracker, event seq)
    trackers: set[int] = set()
    _counting(monkeypatch, seating, "format_event",
              lambda event, rules: formats.update([type(event).__name__ + str(event.seq)]))
    for module in (narrate, agentside):  # every reader of an event line in the process
        _counting(monkeypatch, module, "parse_event", lambda line, *a: parses.append(line))
    for module, name in ((wire, "read"), (wire, "parse"), (transport, "read")):
        _counting(monkeypatch, module, name,
                  lambda line: parses.append(line) if line.startswith(("event ", "go ")) else None)

    def fold(self: SeatTracker, event: Any) -> None:
        trackers.add(id(self))
        folds[(id(self), event.seq)] += 1

    _counting(monkeypatch, SeatTracker, "apply", fold)
    pairs = {"game": "xactika", "players": "4", "rounds": "2", "seed": "11"}
    table, _, _ = _play(tmp_path, pairs, ["heuristic"] * 3)
    assert len(table.events) > 30
    public = [e for e in table.events if not isinstance(e, api.Dealt | api.GameStarted)]
    for event in public:  # once for the four seats, the watcher and the journal
        assert formats[type(event).__name__ + str(event.seq)] == 1, event
    for event in table.events:  # a deal (the start): one per seat, the watcher, the whole
        assert formats[type(event).__name__ + str(event.seq)] <= 4 + 1 + 1, event
    assert parses == []
    # one fold per connection: the person's and watcher's narrators, the three bots'
    assert len(trackers) == 5
    for event in table.events:
        assert sorted(folds[(t, event.seq)] for t in trackers) == [1] * 5, event
