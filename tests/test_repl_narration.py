"""Every front end says the same things: the remote REPL and ``xactika replay`` tell why
each trick was won and how each round ended, through the driver's narration, and
replay shows Dix's points, ten-tricks and stock as the table does."""

from __future__ import annotations

import io
import re
from typing import Any

from xactika.core import Config
from xactika.core.bots.agents import make_agent, self_play
from xactika.core.engine.api import (
    Bid,
    GameStarted,
    Play,
    RoundScored,
    TrickWon,
    game_rules,
    legal_actions,
    new_game,
    step,
)
from xactika.core.engine.views import visible
from xactika.frontends.people.presentation import Presentation, presentation
from xactika.frontends.records.replay import Cursor, Game, screen
from xactika.frontends.repl import render
from xactika.frontends.repl.remote import RemoteShell
from xactika.protocol.notation.text import format_event
from xactika.protocol.records.textform import format_record, read_record


class FakeServer:
    """A remote seat's connection: event lines of a finished game, then ``quit``, as a
    server ends a seat's session (the standings wait for its result or quit)."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.sent: list[str] = []

    def readline(self) -> str:
        return self.lines.pop(0) if self.lines else "quit"

    def send(self, line: str) -> None:
        self.sent.append(line)

    def close(self) -> None:
        pass


def test_the_remote_repl_says_why_each_trick_was_won() -> None:
    config = Config(mode="bid", players=4, rounds=2, seed=6)
    _, events = self_play(config, [make_agent("heuristic", s) for s in range(4)])
    seat, rules = 3, game_rules("xactika")
    seen = [visible(e, seat) for e in events]
    started = seen[0]
    assert isinstance(started, GameStarted)
    server = FakeServer([format_event(e, rules) for e in seen[1:]])
    session = RemoteShell(server, seat, started, width=80)  # type: ignore[arg-type]
    lines = "\n".join(session.advance()).splitlines()
    assert session.over
    won = [e for e in events if isinstance(e, TrickWon)]
    whys = [line for line in lines if re.match(r"^  [1-3]{4} wins: ", line)]
    assert len(whys) == len(won) == 16
    for event in won:  # right under the trick's own line
        told = lines.index(f"{render.seat_label(event.seat, session.names)} "
                           f"{'win' if event.seat == seat else 'wins'} trick {event.trick}"
                           .replace("seat 4", "you"))
        assert re.match(r"^  [1-3]{4} wins: ", lines[told + 1])
    assert sum(line.startswith(("made their bid", "missed")) for line in lines) >= 2
    assert "final standings:" in lines
    assert all(render.width(line) <= 80 for line in lines)


def dix_game() -> Game:
    config = Config(game="dix", mode="draw", players=2, rounds=1, seed=5)
    _, events = self_play(config, [make_agent("random", s, game="dix") for s in range(2)])
    text = format_record([("seats", "ann,bob")], events)
    return Game.from_record(read_record(io.StringIO(text)))


def test_replay_shows_dixs_points_ten_tricks_stock_and_why() -> None:
    g = dix_game()
    won = next(i for i, e in enumerate(g.events) if isinstance(e, TrickWon))
    text = screen(g, Cursor(won))
    assert re.search(r"^ten-tricks +\d+ +\d+$", text, re.M)
    assert re.search(r"^points +[+-]\d+ +[+-]\d+$", text, re.M)
    assert "stock: 24 cards; after each trick its winner draws first" in text
    assert re.search(r"^  \S+ wins: ", text, re.M)
    for seat in (0, 1):  # a seat's view too
        assert "ten-tricks" in screen(g, Cursor(won, seat))
    scored = next(i for i, e in enumerate(g.events) if isinstance(e, RoundScored))
    end = screen(g, Cursor(scored))
    assert re.search(r"wins the round \((more points|equal points)", end)
    assert "stock: 0 cards; no more draws" in end


class _NamedCards(Presentation):
    """A plug-in game's presentation that names its cards and no more (docs/GAMES.md)."""

    def card_name(self, card: Any) -> str:
        return f"the card {card}"


def test_the_default_follow_rule_names_what_was_led_never_a_code() -> None:
    """The base presentation's follow rule says what was led in words (by default the led
    card's name; a game with suits says its suit, as Oh Hell's does), never its code."""
    state = new_game(Config(game="ohhell", players=4, rounds=19, seed=7))
    for _ in range(10):  # bids, then the lead
        legal = legal_actions(state)
        if state.trick:
            break
        move = Bid(legal.seat, legal.bids[0]) if legal.kind == "bid" else Play(
            legal.seat, legal.cards[0])
        state, _events = step(state, move)
    led, seat = state.trick[0][1], state.to_act
    assert seat is not None and led is not None
    plain = _NamedCards("ohhell").follow_rule(state, seat)
    assert plain.led == f"the card {led}"
    assert presentation("ohhell").follow_rule(state, seat).led == {
        "S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}[str(led)[-1]]
    assert Presentation("ohhell").led_words(led) == str(led)  # nothing better to go by
