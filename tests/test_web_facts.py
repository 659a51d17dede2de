"""The table's facts the page draws from (frontends/web/facts.py): at every step of whole
games, for a seat and for a spectator, ``say table`` says the true turn, kind of move,
hand sizes and stock, and the seat's own hand only to that seat."""

from __future__ import annotations

import random
from typing import Any

import pytest

from xactika.core.engine.api import (
    PHASE_BID,
    Bid,
    Config,
    Play,
    game_rules,
    legal_actions,
    new_game,
    start,
    step,
)
from xactika.core.engine.views import visible
from xactika.frontends.web.facts import PageFacts, all_games
from xactika.protocol.player.agentside import SeatTracker


def _fields(line: str) -> dict[str, str]:
    return dict(w.split("=", 1) for w in line.split()[2:])


def _moves(config: Config, seed: int) -> list[tuple[object, list[object]]]:
    """(state before, events) for each step of a random game."""
    rng = random.Random(seed)
    out: list[tuple[object, list[object]]] = [(None, start(config))]
    state = new_game(config)
    while not state.over:
        legal = legal_actions(state)
        if state.phase == PHASE_BID:
            command: object = Bid(state.to_act, rng.choice(legal.bids))
        else:
            card = rng.choice(legal.cards)
            command = Play(state.to_act, card, rng.choice(legal.calls(card)))
        state, events = step(state, command)
        out.append((state, events))
    return out


@pytest.mark.parametrize(("game", "mode", "players"),
                         [("xactika", "bid", 4), ("dix", "draw", 2), ("xactika", "win", 10)])
def test_the_facts_are_the_games_at_every_step(game: str, mode: str, players: int) -> None:
    config = Config(game=game, mode=mode, players=players, rounds=2, seed=3)
    for seat in (0, -1):
        facts, tracker = PageFacts(), SeatTracker(seat)  # one fold, the facts read it
        f: dict[str, str] = {}
        for state, events in _moves(config, 5):
            for event in events:
                tracker.apply(visible(event, seat))
                for line in facts.after(tracker, config):
                    f = {k: v for k, v in f.items() if k.startswith("hand-")} | _fields(line)
            if state is None:
                continue
            turn = state.to_act if not state.over and state.to_act is not None else None
            assert f["turn"] == ("-" if turn is None else str(turn))
            assert f["sizes"] == ",".join(str(len(h)) for h in state.hands)
            stock = str(len(state.aside)) if mode == "draw" else "-"
            assert f["stock"] == stock
            assert f["trump"] != "-" if game == "dix" else f["trump"] == "-"
            assert ("hand-value" in f or "hand-suit" in f) == (seat >= 0)
            if seat >= 0:  # the hand as the seat holds it (said again when it changed)
                own = f.get("hand-value") or f["hand-suit"]
                cards = [] if own == "-" else own.split(",")
                assert sorted(cards) == sorted(str(c) for c in state.hands[seat])
            # what the page draws without folding: the round, dealer, bids, taken, totals,
            # the trick and its call, each the game's own
            assert f["round"] == str(state.round) and f["dealer"] == str(state.dealer)
            assert f["taken"] == ",".join(map(str, state.taken))
            assert f["totals"] == ",".join(map(str, state.totals))
            bids = ",".join("-" if b is None else str(b) for b in state.bids)
            rules = game_rules(game)
            assert f.get("bids") == (bids if rules.has_bidding(config) else None)
            assert f.get("trick", "") == ",".join(f"{s}:{c}" for s, c in state.trick)
            assert f.get("call") == (None if state.call is None
                                     else rules.format_call(state.call))


def test_every_game_says_its_facts() -> None:
    found = {g["name"]: g for g in all_games()}
    assert found["dix"]["players"]["max"] == 2 and found["xactika"]["players"]["max"] == 10
    # levels are offered as what plays them, one bot named once
    levels = {name: [(lv["id"], lv["name"]) for lv in g["levels"]] for name, g in found.items()}
    assert levels["xactika"] == [("1", "beginner"), ("2", "casual"), ("3", "heuristic"),
                                 ("4", "good"), ("5", "strong")]
    assert levels["dix"] == [("3", "heuristic")]
    assert levels["ohhell"] == [("3", "strong")]


def test_a_presentation_without_spoken_names_still_explains(monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    """A game's presentation written before cards were spoken (``why_won`` without
    ``spoken``) still gets its why-line on the page, with the cards' text."""
    from xactika.frontends.people import narration
    from xactika.frontends.people import presentation as shown_games
    from xactika.frontends.people.presentation import Presentation

    class Old(Presentation):
        def why_won(self, plays: Any, call: Any, winner: int, turned: Any,
                    names: Any) -> str:
            return f"{dict(plays)[winner]} wins, said the old way"

    config = Config(game="xactika", mode="win", players=2, rounds=1, seed=3)
    events = [e for _, step_events in _moves(config, 1) for e in step_events]
    won = next(i for i, e in enumerate(events) if type(e).__name__ == "TrickWon")
    spoken = narration.why_won(config, events, won, ["a", "b"], spoken=True).text
    assert spoken.startswith("the ") and " wins" in spoken
    presentation = shown_games.presentation("xactika")  # registers the games' own
    monkeypatch.setitem(shown_games._PRESENTATIONS, "xactika", Old("xactika"))
    text = narration.why_won(config, events, won, ["a", "b"], spoken=True).text
    assert text.endswith(" wins, said the old way")
    assert presentation is not shown_games.presentation("xactika")
