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
result checks. The rules on masks (turn order, bids, the follow rule, trick winners and
scoring) are the game's lean copy beside it, :class:`LeanGame`
(``core/games/xactika/lean.py``); this module is the record's side: its bytes, the hash
chain and the exact text of every line.
"""

from __future__ import annotations

import hashlib
import io
from binascii import hexlify
from collections.abc import Collection

from xactika.core.engine.api import Config, GameStarted, game_rules
from xactika.core.engine.errors import XactikaError
from xactika.core.games.xactika import TRICKS_PER_ROUND, XACTIKA
from xactika.core.games.xactika.lean import BID, LEAD, Derived, LeanGame
from xactika.core.games.xactika.tables import CALL_INDEX, CARDS
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
# A move's text -> the game's card and call indices (core/games/xactika/tables.py).

_TEXT_BY_ID: dict[int, str] = {id(c): str(c) for c in CARDS}
"""A dealt card's text, by identity: the deal hands out DECK's own instances, and hashing
an attrs card costs more than the rest of formatting a deal."""
_CARD: dict[bytes, int] = {str(c).encode(): i for i, c in enumerate(CARDS)}
"""A play's ``card=`` text -> its index."""
_LEAD: dict[bytes, tuple[int, int]] = {
    f"{c} call={XACTIKA.format_call(call)}".encode(): (i, CALL_INDEX[call])
    for i, c in enumerate(CARDS) for call in XACTIKA.calls_for(c)
}
"""A lead's ``card=... call=...`` text -> (card, call): only the calls its card allows."""
_BID: dict[bytes, int] = {str(b).encode(): b for b in range(TRICKS_PER_ROUND + 1)}


def _ints(values: list[int]) -> bytes:
    """The INTS codec's text, for a non-empty list."""
    return ",".join(map(str, values)).encode()


def _derived(event: Derived, seq: int, config: Config) -> bytes:
    """An event the rules derived (:class:`LeanGame`), as ``format_event`` writes it.

    A deal's text is written here from a table: formatting 81 cards through the codec was
    40% of this path's time. A text that ever differs from the codec's sends records to
    the full auditor.
    """
    kind = event[0]
    if kind == "trick-won":
        return b"event %d trick-won seat=%d trick=%d" % (seq, event[1], event[2])
    if kind == "round-scored":
        _, round_no, bids, taken, points, totals = event
        return (b"event %d round-scored round=%d bids=%s tricks=%s points=%s totals=%s"
                % (seq, round_no, b"-" if bids is None else _ints(bids), _ints(taken),
                   _ints(points), _ints(totals)))
    if kind == "game-over":
        reveal = b"" if config.commit is None else (  # what a commitment opens
            b" seed=%s nonce=%s" % (str(config.seed).encode(), str(config.nonce).encode()))
        return b"event %d game-over totals=%s winners=%s%s" % (
            seq, _ints(event[1]), _ints(event[2]), reveal)
    _, round_no, dealer, dealt = event
    text_of = _TEXT_BY_ID.__getitem__  # KeyError: not DECK's own cards
    hands = []
    for hand in dealt.hands:
        if not hand:
            raise ValueError("an empty hand")  # never: every seat gets eight cards
        hands.append(",".join(map(text_of, map(id, hand))))
    aside = ",".join(map(text_of, map(id, dealt.aside))) or "-"
    text = (f"event {seq} deal round={round_no} dealer={dealer} hands={'/'.join(hands)} "
            f"aside={aside}")
    return text.encode()


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

    # ---- every other event, re-decided on masks by the game's lean rules
    game = LeanGame(config)
    seq = 2
    pending = [_derived(game.derived.pop(), seq, config)]  # the lines the rules call for next
    events = 1
    sha256, card_of, lead_of, bid_of = hashlib.sha256, _CARD.get, _LEAD.get, _BID.get
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
            if not pending and game.over:
                break
            continue
        wants = game.wants
        if wants == BID:
            prefix = b"event %d bid seat=%d bid=" % (seq, game.to_act)
            if not body.startswith(prefix):
                return None
            bid = bid_of(body[len(prefix):])
            if bid is None or not game.bid(bid):
                return None
        elif wants == LEAD:
            prefix = b"event %d lead seat=%d card=" % (seq, game.to_act)
            if not body.startswith(prefix):
                return None
            lead = lead_of(body[len(prefix):])
            if lead is None or not game.lead(*lead):
                return None
        else:
            prefix = b"event %d play seat=%d card=" % (seq, game.to_act)
            if not body.startswith(prefix):
                return None
            card = card_of(body[len(prefix):])
            if card is None or not game.play(card):
                return None
        seq += 1
        if game.derived:
            pending.extend(_derived(e, seq + i, config) for i, e in enumerate(game.derived))
            game.derived.clear()
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

    report = LogReport(name, events=events, rounds=config.rounds, lines=len(lines),
                       game=config.game, mode=config.mode, players=config.players,
                       seats=seats, signed=True, committed=config.commit is not None,
                       head=link.hex(), totals=tuple(game.totals),
                       winners=tuple(game.winners), complete=True)
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
