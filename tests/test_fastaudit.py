"""The lean audit path (protocol/trust/fastaudit.py) against the full auditor.

Its one promise: it returns the full auditor's own report, or None and the full auditor
decides. So it must never call a record clean that the full auditor does not, whatever
a forger does to the record with full knowledge of both (spec/TAMPER.md). Checked here
on seeded games of every mode and size (it must accept them, with the identical report)
and on thousands of single edits of clean records, half of them re-chained as a forger
would, so that the rules and not the hash chain must catch them.
"""

from __future__ import annotations

import io
import random
import re

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import xactika.protocol.trust.fastaudit as fastaudit
from xactika.core import Config, RandomAgent
from xactika.core.bots.agents import self_play
from xactika.core.bots.heuristic import HeuristicAgent
from xactika.core.engine.api import (
    BidMade,
    Event,
    Led,
    Played,
    PresetDeal,
    State,
    _end_of_trick,
    evolve,
    game_rules,
    legal_actions,
    replay,
    start,
    step,
)
from xactika.core.games.xactika import CALLS, DECK, XACTIKA
from xactika.frontends.records.audit import run
from xactika.protocol.records.files import bounded_lines
from xactika.protocol.records.textform import format_record
from xactika.protocol.trust.audit import INVALID, OK, LogReport, audit_lines
from xactika.protocol.trust.fastaudit import audit_data, audit_path, fast_audit
from xactika.protocol.trust.signing import Signer
from xactika.protocol.trust.tamper import commit_config, sign_record

NONCE = "0123456789abcdef0123456789abcdef"
SIGNER = Signer.generate()


def record(mode: str, players: int, rounds: int, seed: int, *, signer: Signer | None = None,
           heuristic: bool = False, commit: bool = True, sign: bool = True,
           preset: int = 0) -> bytes:
    """A whole game's record; ``preset``: that many rounds dealt from preset deals."""
    config = Config(game="xactika", mode=mode, players=players, rounds=rounds, seed=seed,
                    dealer=seed % players)
    if preset:
        deals = tuple(PresetDeal(XACTIKA.deal(config, r, 0).hands) for r in range(1, preset + 1))
        config = attrs.evolve(config, deals=deals,
                              seed=None if preset >= rounds else seed)
    if commit and config.seed is not None:
        config = commit_config(config, NONCE)
    agents = [HeuristicAgent(seed + s) if heuristic else RandomAgent(seed + s)
              for s in range(players)]
    _, events = self_play(config, agents)
    headers = [("game", "xactika"), ("mode", mode), ("players", str(players)),
               ("seats", ",".join(f"p{s}" for s in range(players)))]
    if config.seed is not None:
        headers.append(("seed", str(seed)))
    return format_record(headers, events, sign=sign, signer=signer).encode()


def full(data: bytes, strict: bool = False, trusted: frozenset = frozenset(),
         name: str = "r.log") -> LogReport:
    return audit_lines(bounded_lines(io.BytesIO(data)), name, strict=strict,
                       trusted=trusted)


def agree(data: bytes, strict: bool = False, trusted: frozenset = frozenset()) -> bool:
    """True when the lean path decided (and then said exactly what the full audit says)."""
    lean = fast_audit(data, "r.log", strict=strict, trusted=trusted)
    if lean is None:
        return False
    whole = full(data, strict, trusted)
    assert whole.status == OK, whole.problems
    assert lean == whole
    return True


# --------------------------------------------------------------------------- clean games

GAMES = [(mode, players, 1 + (players + i) % 3, 100 * players + i)
         for i, mode in enumerate(("win", "lose", "bid")) for players in range(2, 11)]


@pytest.mark.parametrize(("mode", "players", "rounds", "seed"), GAMES)
def test_clean_games_get_the_full_report(mode: str, players: int, rounds: int,
                                         seed: int) -> None:
    data = record(mode, players, rounds, seed, heuristic=seed % 2 == 0)
    assert agree(data)  # decided here, and identical to the full audit's report


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["win", "lose", "bid"]), st.integers(2, 10), st.integers(1, 3),
       st.integers(0, 2**128), st.booleans())
def test_any_seeded_game_gets_the_full_report(mode: str, players: int, rounds: int,
                                              seed: int, heuristic: bool) -> None:
    assert agree(record(mode, players, rounds, seed, heuristic=heuristic))


@pytest.mark.parametrize(("mode", "preset", "rounds"), [("bid", 2, 2), ("win", 1, 3),
                                                      ("lose", 0, 2)])
def test_preset_deals_and_uncommitted_seeds(mode: str, preset: int, rounds: int) -> None:
    data = record(mode, 3 + preset, rounds, 50 + preset, commit=False, preset=preset)
    assert agree(data)
    assert fast_audit(data, "r.log").notes[0].startswith("no commitment")
    assert fast_audit(data, "r.log", strict=True) is None  # a problem under --strict


def test_signed_records_verified_untrusted_and_strict() -> None:
    data = record("bid", 4, 3, 7, signer=SIGNER)
    trusted = frozenset({SIGNER.public})
    assert agree(data, strict=True, trusted=trusted)
    assert fast_audit(data, "r.log", strict=True, trusted=trusted).signature == "verified"
    assert agree(data)  # signer unknown: a note, not a problem
    assert fast_audit(data, "r.log", strict=True) is None  # a problem under --strict
    assert full(data, strict=True).status == INVALID
    unsigned_key = record("bid", 4, 3, 7)  # chained but no sig line
    assert agree(unsigned_key)
    assert fast_audit(unsigned_key, "r.log", strict=True, trusted=trusted) is None


def test_what_it_does_not_handle_goes_to_the_full_auditor() -> None:
    plain = record("win", 3, 1, 5, sign=False)
    assert full(plain).status == OK and fast_audit(plain, "r.log") is None
    data = record("win", 3, 1, 5)
    renamed = data.replace(b"p0,p1,p2", "ann,bé,cy".encode())  # non-ASCII: headers differ
    assert fast_audit(sign_record(renamed.decode()).encode(), "r.log") is None
    assert fast_audit(data[: len(data) // 2], "r.log") is None  # unfinished
    assert fast_audit(b"", "r.log") is None


def test_the_frontend_prints_what_the_full_auditor_prints(tmp_path, monkeypatch) -> None:
    """xactika audit's output, clean and otherwise, is the full auditor's byte for byte."""
    good = record("bid", 4, 2, 3, signer=SIGNER)
    files = {"a.log": good, "b.log": good.replace(b" bid=1 ", b" bid=2 ", 1),
             "c.log": good[: len(good) // 3], "d.log": record("lose", 5, 1, 4),
             "e.log": sign_record(good.decode().replace("p1", "bob")).encode()}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    paths = [str(tmp_path / n) for n in sorted(files)]
    key = frozenset({SIGNER.public})

    def output(strict: bool) -> tuple[str, int]:
        out = io.StringIO()
        code = run(paths, out, strict=strict, trusted=key)
        return out.getvalue(), code

    lean = [output(False), output(True)]
    monkeypatch.setattr(fastaudit, "fast_audit", lambda *a, **k: None)
    assert lean == [output(False), output(True)]
    assert lean[0][1] == 1 and "a.log: ok" in lean[0][0]


def test_big_files_stream_through_the_full_auditor(tmp_path, monkeypatch) -> None:
    data = record("win", 2, 1, 9)
    path = tmp_path / "g.log"
    path.write_bytes(data)
    assert audit_path(str(path)) == full(data, name=str(path))
    monkeypatch.setattr(fastaudit, "FAST_MAX_BYTES", 100)
    calls = []
    monkeypatch.setattr(fastaudit, "fast_audit", lambda *a, **k: calls.append(1))
    assert audit_path(str(path)) == full(data, name=str(path))
    assert not calls


# --------------------------------------------------------------------------- mutations

BASES = [record(mode, players, 2, seed, heuristic=seed % 2 == 1)
         for seed, (mode, players) in enumerate(
             [("win", 2), ("lose", 3), ("bid", 4), ("bid", 3), ("win", 5), ("bid", 2)])]
BASES.append(record("bid", 3, 1, 40, signer=SIGNER))
BASES.append(record("win", 3, 2, 41, commit=False, preset=1))  # a seed for round 2
BASES.append(record("bid", 4, 1, 42, preset=1))  # preset deals only
CARD_TEXTS = [str(c) for c in DECK]
CALL_TEXTS = [str(c) for c in CALLS]
TOKEN = re.compile(r"[^ ]+")


def _odd_value(rng: random.Random, key: str, value: str, pool: dict[str, list[str]]) -> str:
    """Another value for a field: mostly plausible ones (a forger's), some malformed."""
    roll = rng.random()
    if roll < 0.6 and pool.get(key):
        return rng.choice(pool[key])
    if roll < 0.7:
        return rng.choice(CARD_TEXTS if key in ("card", "hands", "aside") else CALL_TEXTS)
    if roll < 0.8 and value.lstrip("-").isdigit():
        return str(int(value) + rng.choice((-2, -1, 1, 2, 8)))
    return rng.choice(["0" + value, value.upper(), value + ",", "-", value[::-1], "",
                       value + "0", value.replace(",", ", "), "?"])


def mutate(data: bytes, rng: random.Random) -> bytes:
    """One random edit of a record, re-chained half the time as a forger would."""
    lines = data.decode().split("\n")
    body = [i for i, ln in enumerate(lines) if ln]
    pool: dict[str, list[str]] = {}
    for ln in lines:
        for key, _, value in (t.partition("=") for t in ln.split(" ") if "=" in t):
            pool.setdefault(key, []).append(value)
    i = rng.choice(body)
    line = lines[i]
    kind = rng.randrange(12)
    if kind <= 4:  # a field's value
        tokens = line.split(" ")
        # past the line's first word, unless an earlier edit left it alone on the line
        j = rng.randrange(1, len(tokens)) if len(tokens) > 1 else 0
        key, eq, value = tokens[j].partition("=")
        if eq:
            tokens[j] = f"{key}={_odd_value(rng, key, value, pool)}"
        else:
            tokens[j] = _odd_value(rng, "word", key, pool)
        lines[i] = " ".join(tokens)
    elif kind == 5:  # swap two tokens
        tokens = line.split(" ")
        a, b = rng.randrange(len(tokens)), rng.randrange(len(tokens))
        tokens[a], tokens[b] = tokens[b], tokens[a]
        lines[i] = " ".join(tokens)
    elif kind == 6:
        del lines[i]
    elif kind == 7:
        lines.insert(i, line)
    elif kind == 8:
        j = rng.choice(body)
        lines[i], lines[j] = lines[j], lines[i]
    elif kind == 9:  # white space and comments, which change nothing
        lines[i] = rng.choice([line + " ", "\t" + line, line + "\r", line.replace(" ", "  ", 1),
                               line.replace(" ", "\t", 1)])
        if rng.random() < 0.3:
            lines.insert(i, rng.choice(["", "# note", "#", "   "]))
    elif kind == 10:  # a hash
        h = line.rfind("h=")
        if h >= 0:
            hexes = line[h + 2:]
            k = rng.randrange(len(hexes))
            lines[i] = line[: h + 2] + hexes[:k] + rng.choice("0f8A ") + hexes[k + 1:]
    else:  # a line added
        lines.insert(i, rng.choice(["header extra x", "result seat 0 wins",
                                    "event 9 bid seat=0 bid=1", line.replace("event", "Event")]))
    text = "\n".join(lines)
    if rng.random() < 0.5:
        try:
            text = sign_record(text)  # re-chained: only the rules can catch it now
        except ValueError:
            pass  # a header among the events cannot be chained
    return text.encode()


def check_mutant(data: bytes, strict: bool) -> bool:
    trusted = frozenset({SIGNER.public})
    lean = fast_audit(data, "r.log", strict=strict, trusted=trusted)
    if lean is None:
        return False
    whole = full(data, strict, trusted)
    assert whole.status == OK, (whole.problems, data.decode())
    assert lean == whole
    return True


def test_thousands_of_single_edits_never_pass_where_the_full_audit_fails() -> None:
    rng = random.Random(2026)
    decided = changed = 0
    for n in range(3000):
        base = BASES[n % len(BASES)]
        mutant = mutate(base, rng)
        ok = check_mutant(mutant, strict=n % 3 == 0)
        decided += ok
        changed += ok and mutant != base
    # not vacuous: harmless edits (blanks, comments, a re-chained no-op) are still decided
    assert 50 < decided < 3000 and changed > 0


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, len(BASES) - 1), st.randoms(use_true_random=False),
       st.integers(1, 3))
def test_edits_chosen_by_hypothesis(base: int, rng: random.Random, edits: int) -> None:
    data = BASES[base]
    for _ in range(edits):
        data = mutate(data, rng)
    check_mutant(data, strict=False)


def test_a_card_the_seat_does_not_hold_is_left_to_the_full_audit() -> None:
    """A play changed to a card its seat was never dealt, the hash chain recomputed."""
    data = BASES[2].decode()
    deal = re.search(r" hands=(\S+)", data)
    play = re.search(r"event \d+ play seat=(\d) card=\d{4}", data)
    assert deal is not None and play is not None
    hand = deal.group(1).split("/")[int(play.group(1))].split(",")
    other = next(c for c in CARD_TEXTS if c not in hand)
    forged = sign_record(data.replace(play.group(0), play.group(0)[:-4] + other, 1)).encode()
    assert full(forged).status == INVALID
    assert fast_audit(forged, "r.log") is None
    assert audit_data(forged, "r.log") == full(forged)


# --------------------------------------------------------------------------- forgeries
# A forger who knows the rules writes one illegal action and then derives every later
# event from it as the rules would: trick winners, scores, totals, game-over, the chain.
# Only the re-decided action itself can be caught, so the lean path must catch it too.


def _illegal(state: State, kind: str, rng: random.Random) -> Event | None:
    seat, seq, n = state.to_act, state.seq + 1, state.config.players
    if seat is None:
        return None
    if state.phase == "bid":
        others = sum(b for b in state.bids if b is not None)
        if kind == "hook" and seat == state.dealer and others <= 8:
            return BidMade(seq, seat, 8 - others)
        if kind == "range":
            return BidMade(seq, seat, rng.choice((9, 10, -1)))
        return None
    hand = state.hands[seat]
    if not state.trick:
        card = rng.choice(hand)
        if kind == "call":
            return Led(seq, seat, card, rng.choice([c for c in CALLS if c not in card.calls]))
        return None
    call = state.call
    follows = [c for c in hand if c.shows(call)]
    if kind == "slough" and follows and len(follows) < len(hand):
        return Played(seq, seat, rng.choice([c for c in hand if not c.shows(call)]))
    if kind == "seat":
        waiting = [s for s in range(n) if s != seat and all(s != p for p, _ in state.trick)]
        if waiting:
            other = rng.choice(waiting)
            return Played(seq, other, rng.choice(state.hands[other]))
    return None


def forge(mode: str, players: int, seed: int, kind: str) -> bytes | None:
    """A whole game with one illegal action of ``kind``, consistently derived after it."""
    config = commit_config(Config(game="xactika", mode=mode, players=players, rounds=2,
                                  seed=seed), NONCE)
    rules = game_rules("xactika")
    rng = random.Random(seed)
    events = start(config)
    state = replay(events)
    forged = False
    skip = rng.randrange(2, 60)  # the first chance after this many events is taken
    while not state.over:
        bad = None if forged or len(events) < skip else _illegal(state, kind, rng)
        if bad is not None:
            state, new = evolve(state, bad), [bad]
            if kind == "seat":  # the rest of the trick, each seat once, in any order
                for other in rng.sample(range(players), players):
                    if all(other != p for p, _ in state.trick):
                        hand = state.hands[other]
                        card = rng.choice([c for c in hand if c.shows(state.call)] or hand)
                        state = evolve(state, Played(state.seq + 1, other, card))
                        new.append(Played(state.seq, other, card))
            state, new = _end_of_trick(state, new, rules)
            forged = True
        else:
            commands = list(legal_actions(state).commands())
            if not commands:
                return None  # the forgery left a seat with no cards: no game to write
            state, new = step(state, rng.choice(commands))
        events += new
    headers = [("game", "xactika"), ("mode", mode), ("players", str(players))]
    return format_record(headers, events).encode() if forged else None


@pytest.mark.parametrize("kind", ["hook", "range", "call", "slough", "seat"])
def test_consistent_forgeries_of_one_action_are_left_to_the_full_audit(kind: str) -> None:
    made = 0
    for seed in range(80):
        data = forge(("win", "lose", "bid")[seed % 3] if kind not in ("hook", "range")
                     else "bid", 2 + seed % 5, seed, kind)
        if data is None:
            continue
        made += 1
        assert full(data).status == INVALID
        assert fast_audit(data, "r.log") is None
    assert made >= 15
