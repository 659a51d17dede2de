"""What the machinery asks of a game (core/engine: TrickGame's hooks), and a third game.

The toy game here, Oh Hell on 52 cards with a hand size that changes every round, is one
class and nothing else: if it plays, records, audits and encodes without another module
knowing its name, adding a game stays one rules module (plus, for people, presentation).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Sequence
from typing import Any, ClassVar

import pytest

from xactika.core import (
    Config,
    ConfigError,
    Dealt,
    GameOver,
    PresetDeal,
    RandomAgent,
    RoundScored,
    State,
    TrickGame,
    game_rules,
    new_game,
    start,
)
from xactika.core.bots.agents import self_play
from xactika.core.engine import api
from xactika.core.engine.rng import deal_key, shuffled
from xactika.protocol.notation.text import event_kind, format_event, parse_event
from xactika.protocol.records.jsonl import event_from_json, event_to_json
from xactika.protocol.trust.audit import OK, audit_lines

RANKS = "23456789TJQKA"
SUITS = "SHDC"


class OhHell(TrickGame):
    """Oh Hell: round r deals r cards, the next card turned up names trumps; bid, then
    follow suit; a bid made exactly scores 10 and the tricks, anything else nothing."""

    name = "ohhell-test"
    modes = ("standard",)
    mode_names: ClassVar[dict[str, str]] = {"standard": "Oh Hell"}
    min_players = 3
    max_players = 7
    default_players = 4
    default_rounds = 5
    deck = tuple(r + s for s in SUITS for r in RANKS)
    card_type = str

    def hand_size(self, config: Config, round_no: int = 1) -> int:
        return round_no

    def deal(self, config: Config, round_no: int, dealer: int) -> Dealt:
        n, size = config.players, self.hand_size(config, round_no)
        if config.deals is not None and round_no <= len(config.deals):
            hands = config.deals[round_no - 1].hands
            rest = tuple(c for c in self.deck if not any(c in h for h in hands))
        else:
            assert config.seed is not None
            cards = shuffled(self.deck, deal_key(self.name, config.seed, round_no))
            hands = tuple(tuple(cards[(s - dealer - 1) % n : size * n : n]) for s in range(n))
            rest = tuple(cards[size * n :])
        return Dealt(0, round_no, dealer, tuple(tuple(sorted(h)) for h in hands), rest[1:],
                     rest[0])

    def has_bidding(self, config: Config) -> bool:
        return True

    def legal_bids(self, state: State) -> tuple[int, ...]:
        return tuple(range(len(state.hands[state.dealer]) + 1))

    def legal_cards(self, state: State, seat: int) -> tuple[str, ...]:
        hand: tuple[str, ...] = state.hands[seat]
        led = state.trick[0][1][1] if state.trick else None
        return tuple(c for c in hand if c[1] == led) or hand

    def trick_winner(self, state: State, plays: Sequence[tuple[int, Any]], call: Any) -> int:
        trump, led = state.turned[1], plays[0][1][1]

        def strength(card: str) -> tuple[int, int]:
            return (2 if card[1] == trump else 1 if card[1] == led else 0, RANKS.index(card[0]))

        return max(plays, key=lambda p: strength(p[1]))[0]

    def score_round(self, state: State) -> tuple[int, ...]:
        return tuple(10 + t if b == t else 0 for b, t in zip(state.bids, state.taken,
                                                             strict=True))

    def round_score_bounds(self, config: Config, round_no: int = 1) -> tuple[int, int]:
        return 0, 10 + round_no

    def parse_card(self, text: str) -> str:
        if text not in self.deck:
            raise ValueError(f"bad card {text!r}")
        return text

    def parse_call(self, text: str) -> Any:
        raise ValueError("Oh Hell has no calls")


@pytest.fixture
def ohhell(monkeypatch: pytest.MonkeyPatch) -> Iterator[TrickGame]:
    """Oh Hell registered for one test, as its module would register it."""
    game = OhHell()
    monkeypatch.setitem(api._GAMES, game.name, game)
    yield game


def _config(**kw: Any) -> Config:
    return Config(**{"game": "ohhell-test", "mode": "standard", "players": 4, "rounds": 5,
                     "seed": 11, **kw})


def test_a_third_game_plays_with_its_hand_size_changing_per_round(ohhell: TrickGame) -> None:
    config = _config()
    state, events = self_play(config, [RandomAgent(s) for s in range(4)])
    deals = [e for e in events if isinstance(e, Dealt)]
    assert [len(d.hands[0]) for d in deals] == [1, 2, 3, 4, 5]
    assert [e.round for e in events if isinstance(e, RoundScored)] == [1, 2, 3, 4, 5]
    lo, hi = ohhell.score_bounds(config)
    assert (lo, hi) == (0, 10 * 5 + 15)
    assert all(lo <= t <= hi for t in state.totals) and isinstance(events[-1], GameOver)


def test_a_third_game_records_and_audits_without_anyone_knowing_its_name(
        ohhell: TrickGame) -> None:
    _, events = self_play(_config(), [RandomAgent(s) for s in range(4)])
    lines = [format_event(e, ohhell) for e in events]
    assert [parse_event(line, ohhell) for line in lines] == events
    assert [event_from_json(json.loads(json.dumps(event_to_json(e, ohhell.name))),
                            ohhell.name) for e in events] == events
    report = audit_lines(lines, "ohhell.log")
    assert report.status == OK and report.events == len(events), report.problems
    bid = next(i for i, line in enumerate(lines) if " bid " in line)
    lines[bid] = lines[bid].replace(" bid=", " bid=9", 1)  # a bid of 9x: beyond any hand
    assert audit_lines(lines, "ohhell.log").status != OK


def test_a_third_game_encodes_for_the_bridges(ohhell: TrickGame) -> None:
    pytest.importorskip("numpy")
    from xactika.core.engine.encoding import Encoding

    enc = Encoding(_config(seed=None))
    assert (enc.hand_size, enc.tricks, enc.bids) == (5, 5, 6)


def test_preset_deals_are_checked_against_each_rounds_hand_size(ohhell: TrickGame) -> None:
    one, two = ("2S",), ("3S",)
    good = PresetDeal((one, two, ("4S",), ("5S",)))
    start(_config(seed=None, rounds=1, deals=(good,)))
    with pytest.raises(ConfigError, match="seat 0 has 1 cards, expected 2"):
        start(_config(seed=None, rounds=2, deals=(good, good)))


# --------------------------------------------------------------------------- the hooks


def test_modes_their_names_and_defaults() -> None:
    xactika, dix = game_rules("xactika"), game_rules("dix")
    assert [xactika.mode_name(m) for m in xactika.modes] == [
        "Play to Win", "Play to Lose", "Play to Bid"]
    assert dix.mode_name("draw") == "draw"
    assert (xactika.default_mode, xactika.default_players, xactika.default_rounds) == (
        "bid", 4, 8)
    assert (dix.default_mode, dix.default_players, dix.default_rounds) == ("draw", 2, 1)


@pytest.mark.parametrize(("game", "mode", "low"), [
    ("xactika", "win", False), ("xactika", "lose", True), ("xactika", "bid", False),
    ("dix", "draw", False), ("dix", "nodraw", False)])
def test_low_wins_and_the_score_bounds_hold_in_play(game: str, mode: str, low: bool) -> None:
    players = 2 if game == "dix" else 3
    config = Config(game=game, mode=mode, players=players, rounds=2, seed=0)
    rules = game_rules(config.game)
    assert rules.low_wins(config) is low
    lo, hi = rules.score_bounds(config)
    for seed in range(12):
        state, _ = self_play(Config(game=game, mode=mode, players=players, rounds=2,
                                    seed=seed), [RandomAgent(seed + s) for s in range(players)])
        assert all(lo <= t <= hi for t in state.totals)
        best = min(state.totals) if low else max(state.totals)
        assert state.totals[rules.game_winners(state)[0]] == best or game == "dix"


def test_round_bounds_are_what_a_round_can_score() -> None:
    xactika = game_rules("xactika")
    assert xactika.round_score_bounds(Config(mode="bid")) == (-8, 8)
    assert xactika.round_score_bounds(Config(mode="lose")) == (0, 8)
    assert xactika.score_bounds(Config(mode="win", rounds=3)) == (0, 24)
    dix = game_rules("dix")
    assert dix.tricks_per_round(Config(game="dix", mode="draw", players=2)) == 26
    assert dix.tricks_per_round(Config(game="dix", mode="nodraw", players=2)) == 17


def test_options_are_the_games_own_settings() -> None:
    a = Config(game="dix", mode="draw", players=2, rounds=1, seed=1, options={"target": 50})
    assert a == Config(game="dix", mode="draw", players=2, rounds=1, seed=1,
                       options=(("target", 50),))
    assert a.option("target") == 50 and Config().option("target") is None
    assert Config(options={"target": None}).options == ()
    new_game(a)
    with pytest.raises(ConfigError, match="target must be a whole number, not '50'"):
        start(Config(game="dix", mode="draw", players=2, seed=1, options={"target": "50"}))
    with pytest.raises(ConfigError, match="dix takes no setting bonus"):
        start(Config(game="dix", mode="draw", players=2, seed=1, options={"bonus": 1}))
    with pytest.raises(ConfigError, match="xactika has no target score"):
        start(Config(seed=1, options={"target": 50}))


def test_options_keep_their_place_on_the_wire() -> None:
    """``target=`` ends the game-started line, and JSONL keeps ``"target"`` after deals,
    null where unset: records read as before options were a game's own."""
    dix = game_rules("dix")
    config = Config(game="dix", mode="draw", players=2, rounds=1, seed=1, nonce="ab",
                    options={"target": 50})
    line = format_event(start(config)[0], dix)
    assert line.endswith("seed=1 nonce=ab target=50")
    assert parse_event(line).config == config
    keys = list(event_to_json(start(Config(seed=1))[0], "xactika")["config"])
    assert keys == ["game", "mode", "players", "rounds", "dealer", "seed", "deals", "target",
                    "nonce", "commit"]


def test_every_event_names_its_kind_on_its_class() -> None:
    _, events = self_play(Config(game="dix", mode="draw", players=2, seed=3),
                              [RandomAgent(1), RandomAgent(2)])
    kinds = {type(e).__name__: event_kind(e) for e in events}
    assert kinds["Drew"] == "draw" and kinds["RoundScored"] == "round-scored"
    assert all(event_kind(e) == type(e).kind for e in events)


def test_redeal_draws_only_what_the_seat_cannot_see(ohhell: TrickGame) -> None:
    from xactika.core.bots.agents import redeal

    with pytest.raises(ValueError, match="ohhell-test has no sampler of hidden cards"):
        redeal(new_game(_config()), 0, random.Random(1))
    state = new_game(Config(seed=1, players=3))
    hands, rest = redeal(state, 0, random.Random(1))
    assert hands[0] == state.hands[0] and sorted(map(str, (*hands[1], *hands[2], *rest))) == \
        sorted(map(str, (*state.hands[1], *state.hands[2], *state.aside)))
