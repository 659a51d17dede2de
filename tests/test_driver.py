"""A game for people with no terminal (frontends/people): the driver and its narration.

The driver plays whole games from typed moves and returns what happened as values: no
colour, no widths, and nothing a seat may not see. What a game says is asked of its
presentation, so a third game (the toy Oh Hell of test_hooks) is taught as itself.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from test_hooks import OhHell

from xactika.core import Config, start
from xactika.core.bots.agents import make_agent
from xactika.core.engine import api as engine
from xactika.core.engine.api import Dealt, GameOver, RoundScored, TrickGame, TrickWon
from xactika.core.engine.errors import XactikaError
from xactika.core.games.dix import Drew
from xactika.frontends.people import narration, teach
from xactika.frontends.people.driver import Driver
from xactika.frontends.people.presentation import presentation
from xactika.frontends.people.seats import BOT, HUMAN, SeatSpec
from xactika.frontends.repl.render import PLAIN
from xactika.frontends.repl.shell import Shell


def table(game: str = "xactika", mode: str = "bid", players: int = 4, *, seed: int = 1,
          rounds: int = 2, bot: str = "heuristic") -> Driver:
    config = Config(game=game, mode=mode, players=players, rounds=rounds, seed=seed)
    seats = [SeatSpec(HUMAN)] + [SeatSpec(BOT, bot)] * (players - 1)
    return Driver(start(config), seats, lambda s: make_agent(bot, seed * 1000 + s, game=game),
                 make_hint=lambda s: make_agent(bot, 99, game=game))


def play_out(t: Driver) -> list[narration.Item]:
    """A whole game, the person's moves typed as the hint bot would type them."""
    items = t.run_bots()
    while not t.over:
        seat = t.human_to_act
        assert seat is not None
        found = t.hint(seat)
        assert found is not None
        items += t.move(seat, t.command_text(seat, found[0]))
    return items


def texts(items: list[narration.Item]) -> list[str]:
    return [getattr(item, "text", "") for item in items]


@pytest.mark.parametrize(("game", "mode", "players"),
                         [("xactika", "bid", 4), ("xactika", "lose", 3), ("dix", "draw", 2)])
def test_a_whole_game_is_narrated_as_values(game: str, mode: str, players: int) -> None:
    t = table(game, mode, players)
    items = play_out(t)
    told = [item.event for item in items if isinstance(item, narration.Told)]
    why = [item for item in items if isinstance(item, narration.WhyWon)]
    won = [e for e in t.events if isinstance(e, TrickWon)]
    assert [(w.trick, w.winner) for w in why] == [(e.trick, e.seat) for e in won]
    assert all(w.text.startswith(f"{dict(w.plays)[w.winner]} wins") for w in why)
    rounds = [e for e in t.events if isinstance(e, RoundScored)]
    outcomes = [item for item in items if isinstance(item, narration.RoundOutcome)]
    assert [o.scored for o in outcomes] == rounds
    assert [len(s.scored) for s in items if isinstance(s, narration.Scores)] == [1, 2]
    assert isinstance(items[-1], narration.Standings)
    assert items[-1].winners == next(e for e in t.events if isinstance(e, GameOver)).winners
    assert any(isinstance(e, GameOver) for e in told)
    if game == "dix":  # the round's winner and why, in words
        assert all(o.winner is not None and "the round" in o.text for o in outcomes)
    # plain values: the terminal's colours belong to the REPL alone
    assert not any("\x1b" in text for text in texts(items))


def test_the_narration_shows_a_seat_only_what_it_may_see() -> None:
    t = table("dix", "draw", 2)
    items = play_out(t)
    told = [item.event for item in items if isinstance(item, narration.Told)]
    deals = [e for e in told if isinstance(e, Dealt)]
    assert deals and all(e.hands[1] is None and e.aside is None for e in deals)
    draws = [e for e in told if isinstance(e, Drew)]
    assert {e.card is None for e in draws if e.seat == 1} == {True}
    assert {e.card is None for e in draws if e.seat == 0} == {False}


def test_a_bad_move_is_one_sentence_and_changes_nothing() -> None:
    t = table()
    t.run_bots()
    seat = t.human_to_act
    assert seat is not None
    before = list(t.events)
    for text in ("play 99", "bid x", "frobnicate", "bid 99"):
        with pytest.raises(XactikaError) as err:
            t.move(seat, text)
        assert "\n" not in str(err.value) and str(err.value)
        assert t.events == before


def test_the_presentation_registry_has_every_game_and_a_plain_default() -> None:
    assert type(presentation("xactika")).__name__ == "XactikaShown"
    assert type(presentation("dix")).__name__ == "DixShown"
    assert presentation("no-such-game").game == "no-such-game"


@pytest.fixture
def ohhell(monkeypatch: pytest.MonkeyPatch) -> Iterator[TrickGame]:
    game = OhHell()
    monkeypatch.setitem(engine._GAMES, game.name, game)
    yield game


def test_a_third_game_is_played_and_taught_as_itself(ohhell: TrickGame) -> None:
    """No presentation registered: the plain default, never Xactika's texts."""
    config = Config(game=ohhell.name, mode="standard", players=4, rounds=3, seed=11)
    seats = [SeatSpec(HUMAN)] + [SeatSpec(BOT, "random")] * 3
    s = Shell(start(config), seats, lambda seat: make_agent("random", seat),
                make_hint=lambda seat: make_agent("random", 50 + seat), style=PLAIN)
    shown = [s.intro(), *s.advance()]
    while not s.over:
        seat = s.human_to_act
        assert seat is not None
        shown.append(s.table(seat))
        found = s.hint(seat)
        assert found is not None
        reply = s.handle(s.command_text(seat, found[0]))
        assert reply.moved, reply.text
        shown.append(reply.text)
    shown += [s.handle(word).text for word in ("help", "rules", "scores", "last")]
    text = "\n".join(shown)
    assert "Oh Hell" in s.intro()
    for xactika_only in ("Xactika", "Play to", "call", "stars", "1323", "ten-trick"):
        assert xactika_only not in text, xactika_only
    assert "final standings" in text
    assert teach.rules_text(config).startswith("Ohhell-test (Oh Hell).")
