"""The lean audit: a clean Xactika record verified on its bytes, or handed back.

``xactika audit`` spends most of its time building objects nobody reads: every event
line parsed into attrs events, each command re-decided through ``step``, which folds a
17-field state per event (bench/audit_throughput.py has the profile). This module checks
the common case, a clean Xactika record with a hash chain (seeded or with preset deals,
committed or not), with card indices and bitmasks, and compares every event line with
the exact text the rules call for (the text ``format_event`` writes).

It can only ever say "clean": :func:`fast_audit` returns the report the full auditor
(:func:`xactika.protocol.trust.audit.audit_lines`) makes, or ``None`` at the first thing it
does not expect (a record without a hash chain, Dix, JSONL, non-ASCII text, a
field written in any way but the canonical one, any rule broken, any problem at all),
and then the caller runs the full auditor, which stays the one authority for every
verdict, message and line number. Records are evidence that a forger rewrites with full
knowledge of this code (spec/TAMPER.md): accepting only canonical text means every line
accepted here parses, in the full auditor, to the event this simulator played, so the
two agree as long as the simulator keeps the rules; ``tests/test_fastaudit.py`` checks
that on seeded games and on thousands of single edits, re-chained like a forger would.

What stays shared with the full auditor, so it cannot drift: header parsing and the
header/settings comparison, the game-started settings (parsed, validated, committed),
the deals (``Xactika.deal``; only their text is written here), the signature and
result checks. What is written again here: the turn order, bids, the follow rule, trick
winners and scoring of Xactika (``core/games/xactika.py``, ``core/engine/decide.py``).
"""

from __future__ import annotations

import hashlib
import io
from binascii import hexlify
from collections.abc import Collection

from xactika.core.engine.api import Config, GameStarted, game_rules
from xactika.core.engine.errors import XactikaError
from xactika.core.games.xactika import DECK, TRICKS_PER_ROUND, XACTIKA, bid_points
from xactika.protocol.notation.text import format_event, parse_event
from xactika.protocol.records.files import bounded_lines, open_regular
from xactika.protocol.records.textform import MAX_LINE, RecordError, parse_header
from xactika.protocol.trust.audit import (
    LogReport,
    _header_problems,
    _note,
    _result,
    _signature,
    _who_played,
    audit_file,
    audit_lines,
)
from xactika.protocol.trust.signing import PublicKey
from xactika.protocol.trust.tamper import CHAIN_DOMAIN, commitment_problem

FAST_MAX_BYTES = 4 * 1024 * 1024  # larger files stream through the full auditor: flat memory
"""A 10-player, 8-round record is about 60 KB; past this the audit keeps constant memory."""

_BLANKS = b" \t\r\n"  # records.BLANKS, as bytes

# --------------------------------------------------------------------------- tables
# Cards are their index in DECK; a hand is a bitmask of indices. A call is shape*3 +
# count-1, and SHOWS[call] is the mask of the cards showing it.

_VALUE: tuple[int, ...] = tuple(c.value for c in DECK)
_SHOWS: tuple[int, ...] = tuple(
    sum(1 << i for i, c in enumerate(DECK) if c.counts[shape] == count)
    for shape in range(4) for count in (1, 2, 3)
)
_TEXT_BY_ID: dict[int, str] = {id(c): str(c) for c in DECK}
_BIT_BY_ID: dict[int, int] = {id(c): 1 << i for i, c in enumerate(DECK)}
"""A dealt card's text and bit, by identity: the deal hands out DECK's own instances,
and hashing an attrs card costs more than the rest of formatting a deal."""
_CARD: dict[bytes, int] = {str(c).encode(): i for i, c in enumerate(DECK)}
"""A play's ``card=`` text -> its index."""
_LEAD: dict[bytes, tuple[int, int]] = {
    f"{c} call={XACTIKA.format_call(call)}".encode(): (i, call.shape * 3 + call.count - 1)
    for i, c in enumerate(DECK) for call in XACTIKA.calls_for(c)
}
"""A lead's ``card=... call=...`` text -> (card, call): only the calls its card allows."""
_BID: dict[bytes, int] = {str(b).encode(): b for b in range(TRICKS_PER_ROUND + 1)}


def _ints(values: list[int]) -> bytes:
    """The INTS codec's text, for a non-empty list."""
    return ",".join(map(str, values)).encode()


def _deal(config: Config, seq: int, round_no: int, dealer: int) -> tuple[bytes, list[int]]:
    """A round's deal line, as ``format_event`` writes it, and the hands as masks.

    The deal itself is the rules' (``Xactika.deal``); only its text is written here,
    from a table: formatting 81 cards through the codec was 40% of this path's time.
    A text that ever differs from the codec's sends records to the full auditor.
    """
    dealt = XACTIKA.deal(config, round_no, dealer)
    if dealt.turned is not None or dealt.aside is None:
        raise ValueError("not a plain Xactika deal")  # never: Xactika turns no card up
    text_of, bit_of = _TEXT_BY_ID.__getitem__, _BIT_BY_ID.__getitem__  # KeyError: not DECK's
    hands = []
    masks = []
    for hand in dealt.hands:
        if not hand:
            raise ValueError("an empty hand")  # never: every seat gets eight cards
        hands.append(",".join(map(text_of, map(id, hand))))
        masks.append(sum(map(bit_of, map(id, hand))))
    aside = ",".join(map(text_of, map(id, dealt.aside))) or "-"
    text = (f"event {seq} deal round={round_no} dealer={dealer} hands={'/'.join(hands)} "
            f"aside={aside}")
    return text.encode(), masks


def _word(text: str) -> str:
    """A line's first word, as the full auditor finds it."""
    return text.replace("\t", " ").split(" ", 1)[0]


def fast_audit(data: bytes, name: str, *, strict: bool = False,
               trusted: Collection[PublicKey] = ()) -> LogReport | None:
    """The full audit's report of a clean record given as its bytes, or None.

    None means "not decided here": the record may be clean in a way this path does not
    handle, or have a problem; the full auditor must audit it.
    """
    if len(data) > FAST_MAX_BYTES or not data.isascii():
        return None
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()  # the final line end closes the last line; it opens none
    if len(data) >= MAX_LINE and max(map(len, lines)) >= MAX_LINE:
        return None
    try:
        return _verify(lines, name, strict, trusted)
    except (XactikaError, ValueError, KeyError):
        return None


def _verify(lines: list[bytes], name: str, strict: bool,
            trusted: Collection[PublicKey]) -> LogReport | None:
    # ---- headers, up to the first event line
    chain = hashlib.sha256(CHAIN_DOMAIN)
    headers: list[tuple[int, str, str]] = []
    seats: list[str] = []
    at = 0
    for at, raw in enumerate(lines):
        text = raw.strip(_BLANKS)
        if not text or text[0] == 35:  # '#'
            continue
        if text.startswith(b"event "):
            break
        if not text.startswith(b"header "):
            return None
        try:
            key, value = parse_header(text.decode())
        except RecordError:
            return None
        headers.append((at + 1, key, value))
        if key == "seats":
            seats = value.split(",")
        chain.update(text + b"\n")
    else:
        return None
    first_event = at + 1

    # ---- game-started: parsed and checked by the full auditor's own functions
    # A line is its body, " h=" and the link, 64 lower-case hex digits: hexlify's. The
    # full auditor then splits it at the same place (the last blank, before "h=").
    body, _, recorded = lines[at].strip(_BLANKS).rpartition(b" h=")
    link = hashlib.sha256(chain.digest() + body).digest()
    if hexlify(link) != recorded:
        return None  # unsigned (the full auditor notes it) or a broken chain
    started = parse_event(body.decode(), None)
    if not isinstance(started, GameStarted) or started.seq != 1 \
            or format_event(started) != body.decode():
        return None
    config = started.config
    if game_rules(config.game) is not XACTIKA:
        return None  # the only game simulated here
    XACTIKA.validate(config)
    if commitment_problem(config) is not None \
            or next(_header_problems(config, headers, first_event), None) is not None:
        return None

    # ---- every other event, re-decided on masks
    n = config.players
    bidding = config.mode == "bid"
    rounds = config.rounds
    round_no = 1
    dealer = config.dealer
    deal_text, hands = _deal(config, 2, round_no, dealer)
    pending = [deal_text]  # the derived event lines the rules call for next, in order
    bids = [0] * n
    bid_count = 0
    taken = [0] * n
    totals = [0] * n
    to_act = (dealer + 1) % n  # the first bidder, and the first leader
    played = 0  # cards in the trick so far
    shows = 0  # the cards that show the lead's call, as a mask
    winner = best = 0  # the trick's winner so far and the value of its card
    tricks = 0
    seq = 2
    events = 1
    over = False
    winners: list[int] = []
    sha256, card_of, lead_of, show_masks = hashlib.sha256, _CARD.get, _LEAD.get, _SHOWS
    values = _VALUE
    start = at + 1
    for at in range(start, len(lines)):
        text = lines[at].strip(_BLANKS)
        if not text or text[0] == 35:
            continue
        body, _, recorded = text.rpartition(b" h=")
        link = sha256(link + body).digest()
        if hexlify(link) != recorded:
            return None
        events += 1
        if pending:
            if body != pending.pop(0):
                return None
            seq += 1
            if not pending and over:
                break
            continue
        if bidding and bid_count < n:
            prefix = b"event %d bid seat=%d bid=" % (seq, to_act)
            if not body.startswith(prefix):
                return None
            bid = _BID.get(body[len(prefix):])
            if bid is None:
                return None
            if to_act == dealer:
                others = sum(bids)  # the dealer bids last: every other bid is in
                if others <= TRICKS_PER_ROUND and others + bid == TRICKS_PER_ROUND:
                    return None
            bids[to_act] = bid
            bid_count += 1
            to_act = (to_act + 1) % n  # after the dealer: the first leader
            seq += 1
            continue
        if not played:
            prefix = b"event %d lead seat=%d card=" % (seq, to_act)
            if not body.startswith(prefix):
                return None
            lead = lead_of(body[len(prefix):])
            if lead is None:
                return None
            card, call = lead
            shows = show_masks[call]
            winner, best = to_act, values[card]  # a lead shows its own call (_LEAD)
        else:
            prefix = b"event %d play seat=%d card=" % (seq, to_act)
            if not body.startswith(prefix):
                return None
            found = card_of(body[len(prefix):])
            if found is None:
                return None
            card = found
            if shows >> card & 1:
                if values[card] >= best:  # of equal values the card played later wins
                    winner, best = to_act, values[card]
            elif hands[to_act] & shows:
                return None  # a slough while holding a card that follows
        bit = 1 << card
        if not hands[to_act] & bit:
            return None
        hands[to_act] ^= bit
        played += 1
        to_act = (to_act + 1) % n
        seq += 1
        if played < n:
            continue
        # ---- the trick is complete: its winner, and at the round's end the score
        played = 0
        tricks += 1
        taken[winner] += 1
        to_act = winner
        pending.append(b"event %d trick-won seat=%d trick=%d" % (seq, winner, tricks))
        if tricks < TRICKS_PER_ROUND:
            continue
        if bidding:
            points = [bid_points(b, t) for b, t in zip(bids, taken, strict=True)]
        else:
            points = list(taken)
        totals = [t + p for t, p in zip(totals, points, strict=True)]
        pending.append(b"event %d round-scored round=%d bids=%s tricks=%s points=%s totals=%s"
                       % (seq + 1, round_no, _ints(bids) if bidding else b"-", _ints(taken),
                          _ints(points), _ints(totals)))
        if round_no >= rounds:
            top = min(totals) if config.mode == "lose" else max(totals)
            winners = [s for s, t in enumerate(totals) if t == top]
            reveal = b"" if config.commit is None else (  # what a commitment opens
                b" seed=%s nonce=%s" % (str(config.seed).encode(), str(config.nonce).encode()))
            pending.append(b"event %d game-over totals=%s winners=%s%s"
                           % (seq + 2, _ints(totals), _ints(winners), reveal))
            over = True
            continue
        round_no += 1
        dealer = (dealer + 1) % n
        deal_text, hands = _deal(config, seq + 2, round_no, dealer)
        pending.append(deal_text)
        bids = [0] * n
        bid_count = 0
        taken = [0] * n
        tricks = 0
        to_act = (dealer + 1) % n
    else:
        return None  # the record ends before game-over: unfinished

    # ---- after game-over: at most a result line, then at most a sig line
    result: tuple[int, str] | None = None
    sig: tuple[int, str] | None = None
    start = at + 1
    for at in range(start, len(lines)):
        text = lines[at].strip(_BLANKS)
        if not text or text[0] == 35:
            continue
        if sig is not None:
            return None
        line = text.decode()
        word = _word(line)
        if word == "sig":
            sig = (at + 1, line)
        elif word == "result" and result is None:
            result = (at + 1, line)
        else:
            return None

    report = LogReport(name, events=events, rounds=rounds, lines=len(lines),
                       game=config.game, mode=config.mode, players=n, seats=seats,
                       signed=True, committed=config.commit is not None, head=link.hex(),
                       totals=tuple(totals), winners=tuple(winners), complete=True)
    for _, key, value in headers:
        _who_played(report, key, value)
    if config.commit is None:  # preset deals, or a seed nobody committed to
        _note(report, first_event, strict, "no commitment: the deals' seed was not committed")
    _signature(report, sig, headers, first_event, strict, trusted)
    if result is not None:
        _result(report, result, headers, True)
    if report.problems or report.dropped:
        return None
    return report


def audit_data(data: bytes, name: str, *, strict: bool = False,
               trusted: Collection[PublicKey] = ()) -> LogReport:
    """A record's report from its bytes: the lean path's, else the full auditor's."""
    report = fast_audit(data, name, strict=strict, trusted=trusted)
    if report is not None:
        return report
    return audit_lines(bounded_lines(io.BytesIO(data)), name, strict=strict, trusted=trusted)


def audit_path(path: str, *, strict: bool = False,
               trusted: Collection[PublicKey] = ()) -> LogReport:
    """:func:`xactika.protocol.trust.audit.audit_file`'s report, by the lean path when it can.

    A file over FAST_MAX_BYTES streams through the full auditor as it is, line by line.
    """
    if path == "-":
        return audit_file(path, strict=strict, trusted=trusted)
    try:
        fh = open_regular(path)
    except OSError:  # audit_file reports it in its words
        return audit_file(path, strict=strict, trusted=trusted)
    with fh:
        data = fh.read(FAST_MAX_BYTES + 1)
        if len(data) > FAST_MAX_BYTES:
            fh.seek(0)
            return audit_lines(bounded_lines(fh), path, strict=strict, trusted=trusted)
    return audit_data(data, path, strict=strict, trusted=trusted)
