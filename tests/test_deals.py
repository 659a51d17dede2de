"""Seeded deals: a second dealer written from spec/DEALS.md, checked against the engine
and against the worked example printed in that file."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from xactika.core import DECK, Card, Config, Dealt, start
from xactika.core.engine import rng as core_rng
from xactika.core.games.xactika import XACTIKA

DEALS_MD = Path(__file__).resolve().parent.parent / "spec" / "DEALS.md"
TWO64 = 2**64

# --------------------------------------------------------------------------- from the spec


def key_of(game: str, seed: int, round_no: int) -> bytes:
    return f"xactika-deal/v1/{game}/{seed}/{round_no}".encode("ascii")


def shake_words(key: bytes) -> Iterator[int]:
    """Section 2: 8-byte big-endian words of SHAKE-256(key), without end."""
    have = 64
    pos = 0
    while True:
        stream = hashlib.shake_256(key).digest(have)
        while pos + 8 <= have:
            yield int.from_bytes(stream[pos : pos + 8], "big")
            pos += 8
        have *= 2


def spec_shuffle(items: Sequence[Card], words: Iterator[int]) -> list[Card]:
    """Section 3, line by line."""
    a = list(items)
    for i in range(len(a) - 1, 0, -1):
        bound = i + 1
        limit = TWO64 - (TWO64 % bound)
        r = next(words)
        while r >= limit:
            r = next(words)
        j = r % bound
        a[i], a[j] = a[j], a[i]
    return a


def spec_deck() -> list[Card]:
    """Section 4, from the card index."""
    return [Card(k // 27 + 1, (k // 9) % 3 + 1, (k // 3) % 3 + 1, k % 3 + 1) for k in range(81)]


def spec_deal(seed: int, round_no: int, players: int, dealer: int
              ) -> tuple[list[list[Card]], list[Card], list[Card]]:
    """Section 5: (hands sorted, aside, the shuffled deck)."""
    a = spec_shuffle(spec_deck(), shake_words(key_of("xactika", seed, round_no)))
    hands: list[list[Card]] = [[] for _ in range(players)]
    for i in range(8 * players):
        hands[(dealer + 1 + i) % players].append(a[i])
    for hand in hands:
        hand.sort(key=lambda c: (sum(c.counts), c.balls, c.cubes, c.cones, c.stars))
    return hands, a[8 * players :], a


# --------------------------------------------------------------------------- the checks


def test_deck_order_is_as_specified() -> None:
    assert list(DECK) == spec_deck()
    assert str(DECK[0]) == "1111" and str(DECK[1]) == "1112" and str(DECK[-1]) == "3333"


def test_key_format() -> None:
    assert core_rng.deal_key("xactika", 1, 1) == b"xactika-deal/v1/xactika/1/1"
    assert core_rng.deal_key("dix", 123456, 8) == b"xactika-deal/v1/dix/123456/8"


@given(st.integers(0, 2**40), st.integers(1, 12), st.integers(2, 10), st.data())
def test_engine_deals_as_the_spec_says(seed: int, round_no: int, players: int,
                                       data: st.DataObject) -> None:
    dealer = data.draw(st.integers(0, players - 1))
    dealt = XACTIKA.deal(Config(players=players, seed=seed, dealer=dealer), round_no, dealer)
    hands, aside, _ = spec_deal(seed, round_no, players, dealer)
    assert [list(h) for h in dealt.hands if h is not None] == hands
    assert list(dealt.aside or ()) == aside


@pytest.mark.parametrize("n", [0, 1, 2, 3, 10, 53, 81, 127, 128, 129, 300])
def test_shuffle_matches_the_spec_for_any_length(n: int) -> None:
    items = [DECK[k % 81] for k in range(n)]
    for k in range(5):
        key = f"test/{n}/{k}".encode()
        assert core_rng.shuffled(items, key) == spec_shuffle(items, shake_words(key))


def test_rejected_words_are_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    """Real streams almost never hit the rejection, so feed both dealers words that do:
    2**64-1 is at or above the limit of every bound that is not a power of two."""
    source = shake_words(b"rejection")
    words = [TWO64 - 1 if k % 3 == 1 else next(source) for k in range(1000)]
    asked: list[int] = []

    def fake_draws(key: bytes, count: int) -> tuple[int, ...]:
        asked.append(count)
        return tuple(words[:count])

    monkeypatch.setattr(core_rng, "_draws", fake_draws)
    got = core_rng.shuffled(DECK, b"ignored")
    assert got == spec_shuffle(DECK, iter(words))
    assert max(asked) > 81  # the first 81 words ran out and the stream was read further
    # and the skipped words mattered: reading them as draws gives another deck
    assert got != spec_shuffle(DECK, iter([0 if w == TWO64 - 1 else w for w in words]))


def test_shuffle_is_a_permutation_and_keys_differ() -> None:
    decks = {tuple(core_rng.shuffled(DECK, key_of("xactika", 1, r))) for r in range(1, 9)}
    assert len(decks) == 8
    for deck in decks:
        assert sorted(deck, key=str) == sorted(DECK, key=str)


def test_seeded_games_repeat_exactly() -> None:
    config = Config(mode="bid", players=5, seed=77, dealer=2)
    assert start(config) == start(config)
    assert start(config)[1] != start(Config(mode="bid", players=5, seed=78, dealer=2))[1]


# --------------------------------------------------------------------------- the worked example


def example_lines() -> dict[str, list[str]]:
    """The ``text`` block of section 6, as label -> values (continued lines joined)."""
    text = DEALS_MD.read_text(encoding="utf-8")
    section = text.split("## 6. Worked example", 1)[1]
    block = section.split("```text\n", 1)[1].split("```", 1)[0]
    out: dict[str, list[str]] = {}
    for line in block.splitlines():
        label, _, value = line.partition(": ")
        out.setdefault(label, []).append(value)
    return out


def cards_of(values: list[str]) -> list[Card]:
    return [Card.parse(t) for v in values for t in v.split()]


def test_worked_example_in_the_spec_is_right() -> None:
    ex = example_lines()
    key = ex["key"][0].encode("ascii")
    assert key == core_rng.deal_key("xactika", 1, 1)
    stream = bytes.fromhex(ex["stream"][0])
    assert hashlib.shake_256(key).digest(len(stream)) == stream
    words = shake_words(key)
    for i, draw in zip((80, 79, 78), ex["draw"], strict=True):
        fields = dict(f.split("=") for f in draw.split())
        r = next(words)
        assert fields == {"i": str(i), "word": f"{r:016x}", "r": str(r), "j": str(r % (i + 1))}
    hands, aside, shuffled = spec_deal(1, 1, 4, 0)
    assert cards_of(ex["shuffled"]) == shuffled == core_rng.shuffled(DECK, key)
    assert cards_of(ex["dealt to seat 1"]) == shuffled[0:32:4]
    for seat in range(4):
        assert cards_of(ex[f"seat {seat}"]) == hands[seat]
    assert cards_of(ex["aside"]) == aside
    dealt = start(Config(mode="bid", players=4, seed=1))[1]
    assert isinstance(dealt, Dealt)
    assert [list(h or ()) for h in dealt.hands] == hands
    assert list(dealt.aside or ()) == aside


def test_selfplay_seed_1_deals_the_worked_example() -> None:
    ex = example_lines()
    from xactika.protocol.notation.text import format_event

    line = format_event(start(Config(mode="bid", players=4, seed=1))[1], XACTIKA)
    hands = "/".join(",".join(ex[f"seat {s}"][0].split()) for s in range(4))
    assert f" hands={hands} " in line

