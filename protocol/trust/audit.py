"""The auditor: decide every step of a record again, check its hash chain and seed.

A record is read line by line (constant memory: the state of one round, the headers and
a bounded list of problems), every event goes through :class:`xactika.core.engine.check.LogCheck`
(the one definition of a legal log), and every problem is tied to its line.
spec/TAMPER.md says what is checked and how problems are reported.

After the first rule violation in a log, the rules stop being checked there: every later
event would be judged against a state the log never legally reached, so the reports would
be noise. The hash chain and the line syntax are still checked to the end, and the report
says how many events were left unjudged.
"""

from __future__ import annotations

import sys
from collections.abc import Collection, Iterable, Iterator
from typing import Any

import attrs

from xactika.core.engine.api import (
    Config,
    Dealt,
    Event,
    GameOver,
    GameStarted,
    RoundScored,
    TrickGame,
    game_rules,
)
from xactika.core.engine.check import LogCheck
from xactika.core.engine.errors import InvalidEvent, XactikaError
from xactika.protocol.notation.text import event_kind, parse_event
from xactika.protocol.notation.untrusted import escape
from xactika.protocol.records.files import RecordTooLarge, bounded_lines, open_regular
from xactika.protocol.records.textform import (
    BLANKS,
    MAX_LINE,
    RESULT_WORD,
    RecordError,
    parse_header,
    result_line,
    result_winners,
)
from xactika.protocol.trust.signing import (
    ID_HEADER,
    SIG_WORD,
    SIGNER_HEADER,
    KeyFileError,
    PublicKey,
    parse_public,
    parse_sig_line,
    record_message,
)
from xactika.protocol.trust.tamper import Chain, commitment_problem, is_hash, split_hash

MAX_PROBLEMS = 50  # per log; a log this broken has said all it can

OK = "ok"
UNFINISHED = "unfinished"
INVALID = "invalid"
UNREADABLE = "unreadable"
MISSING = "missing"  # a match folder's manifest that is not there (a warning; --strict fails)

# what the record's signature (spec/TAMPER.md section 6) established
VERIFIED = "verified"  # it holds, by a key the auditor trusts
UNTRUSTED = "untrusted"  # it holds, by a key the auditor did not name: signer unknown
NO_SIGNATURE = "none"
BAD_SIGNATURE = "invalid"


@attrs.frozen
class Problem:
    line: int
    reason: str


class Unreadable(Exception):
    """Input that is not a record at all: the log is reported unreadable (exit 2)."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(reason)
        self.line = line
        self.reason = reason


@attrs.define
class LogReport:
    """Everything the auditor found in one log."""

    file: str
    status: str = OK
    problems: list[Problem] = attrs.Factory(list)
    notes: list[str] = attrs.Factory(list)
    events: int = 0
    unjudged: int = 0  # events after the first rule violation
    rounds: int = 0
    lines: int = 0
    game: str | None = None
    mode: str | None = None
    players: int | None = None
    seats: list[str] = attrs.Factory(list)
    people: set[int] = attrs.Factory(set)  # seats a person played (kinds, seat.N headers)
    forfeits: set[int] = attrs.Factory(set)  # seats that cannot win (forfeit headers)
    signed: bool = False
    committed: bool = False
    head: str | None = None
    totals: tuple[int, ...] | None = None
    winners: tuple[int, ...] | None = None
    complete: bool = False
    dropped: int = 0  # problems beyond MAX_PROBLEMS
    signature: str = NO_SIGNATURE
    signer: PublicKey | None = None
    kind: str = "record"  # or "manifest": a match folder's, not a game
    record_id: str | None = None  # the id header (protocol/trust/folders.py checks it)
    copy_of: str | None = None  # the file this record is a copy of: counted once

    def add(self, line: int, reason: str) -> None:
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(Problem(line, reason))
        else:
            self.dropped += 1

    def names(self) -> list[str]:
        n = self.players or len(self.seats)
        return [self.seats[s] if s < len(self.seats) else f"seat {s}" for s in range(n)]

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "status": self.status,
            "problems": [{"line": p.line, "reason": p.reason} for p in self.problems],
            "more_problems": self.dropped,
            "notes": list(self.notes),
            "game": self.game,
            "mode": self.mode,
            "players": self.players,
            "seats": self.names(),
            "events": self.events,
            "unjudged_events": self.unjudged,
            "rounds": self.rounds,
            "complete": self.complete,
            "signed": self.signed,
            "chained": self.signed,  # "signed" is the older name of the same fact
            "committed": self.committed,
            "head": self.head,
            "signature": self.signature,
            "signer": self.signer.text if self.signer is not None else None,
            "fingerprint": self.signer.fingerprint if self.signer is not None else None,
            "totals": list(self.totals) if self.totals is not None else None,
            "winners": list(self.winners) if self.winners is not None else None,
            "id": self.record_id,
            "copy_of": self.copy_of,
        }


# --------------------------------------------------------------------------- reading


def _decode(raw: str | bytes, lineno: int) -> str:
    if isinstance(raw, str):
        if len(raw) > MAX_LINE:
            raise Unreadable(lineno, f"line is longer than {MAX_LINE} characters")
        return raw
    if len(raw) > MAX_LINE:
        raise Unreadable(lineno, f"line is longer than {MAX_LINE} bytes")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Unreadable(
            lineno, f"invalid UTF-8 at byte {exc.start} of the line: records are UTF-8 text"
        ) from None


# --------------------------------------------------------------------------- the audit


HEADER_FIELDS = ("game", "mode", "players", "rounds", "dealer", "seed", "target", "nonce",
                 "commit")


def _header_problems(config: Config, headers: list[tuple[int, str, str]],
                     line: int) -> Iterator[tuple[int, str]]:
    """Where the headers disagree with game-started (reported at game-started's line)."""
    for hline, key, value in headers:
        if key in HEADER_FIELDS:
            actual = getattr(config, key) if hasattr(config, key) else config.option(key)
            shown = "(none)" if actual is None else str(actual)
            if value != shown:
                yield line, (f"header {key} (line {hline}) says {escape(value, 80)!r} but "
                             f"game-started says {key}={shown}")
        elif key == "seats":
            names = value.split(",")
            if len(names) != config.players:
                yield line, (f"header seats (line {hline}) names {len(names)} seats but "
                             f"game-started has players={config.players}")
        elif key == "deal" and config.deals is None:
            yield line, (f"header deal (line {hline}) says the deals were preset but "
                         "game-started has no deals=")


def _unfinished(check: LogCheck) -> str:
    state = check.state
    if state.phase == "new":
        return "unfinished: the record has no game-started event"
    where = f"round {state.round}" if state.round else "before the first deal"
    if check.pending:
        return (f"unfinished: the record ends in {where} before the {event_kind(check.pending[0])} "
                "event the rules call for")
    if state.to_act is not None:
        doing = "bid" if state.phase == "bid" else "play"
        return f"unfinished: the record ends in {where} with seat {state.to_act} to {doing}"
    return f"unfinished: the record ends in {where} without game-over"


Trusted = Collection[PublicKey]


def audit_lines(lines: Iterable[str | bytes], name: str, *, strict: bool = False,
                trusted: Trusted = ()) -> LogReport:
    """Audit one record given as lines (bytes or text, with or without line ends).

    ``trusted`` are the keys whose signature makes a record verified; with ``strict``
    a record that is not verified fails.
    """
    from xactika.protocol.records.jsonl import record_lines  # a JSONL record audits as its text

    report = LogReport(name)
    try:
        _audit(record_lines(lines), report, strict, trusted)
    except (Unreadable, RecordTooLarge) as exc:
        report.status = UNREADABLE
        report.problems.insert(0, Problem(exc.line, exc.reason))
    except RecordError as exc:  # a JSONL line that does not read
        report.status = UNREADABLE
        where, _, reason = str(exc).partition(": ")
        line = where.removeprefix("line ")
        report.problems.insert(0, Problem(int(line) if line.isdigit() else 0,
                                          reason or str(exc)))
    return report


def audit_file(path: str, *, strict: bool = False, trusted: Trusted = ()) -> LogReport:
    """Audit one record file; ``-`` reads standard input."""
    if path == "-":
        return audit_lines(bounded_lines(sys.stdin.buffer), "-", strict=strict,
                           trusted=trusted)
    try:
        fh = open_regular(path)  # a FIFO would hang the audit, a device never end
    except OSError as exc:
        report = LogReport(path, status=UNREADABLE)
        report.problems.append(Problem(0, f"cannot read {escape(path)!r}: {exc.strerror}"))
        return report
    with fh:
        return audit_lines(bounded_lines(fh), path, strict=strict, trusted=trusted)


def _audit(lines: Iterable[str | bytes], report: LogReport, strict: bool,
           trusted: Trusted = ()) -> None:
    chain = Chain()
    chain_ok = True
    check = LogCheck()
    rules_ok = True
    game: TrickGame | None = None
    headers: list[tuple[int, str, str]] = []
    first_event = 0
    last_line = 0
    sig: tuple[int, str] | None = None
    after_sig = 0  # lines after the sig line: not what was signed
    result: tuple[int, str] | None = None  # outside the chain: derived again below
    after_result = 0
    for lineno, raw in enumerate(lines, 1):
        report.lines = lineno
        # only ASCII blanks are tolerated around a line: str.strip() would also eat
        # control characters such as U+001C, which the hash chain must see
        text = _decode(raw, lineno).strip(BLANKS)
        if not text or text.startswith("#"):
            continue
        word = text.replace("\t", " ").split(" ", 1)[0]
        if sig is not None:
            if not after_sig:
                report.add(lineno, "a line after the sig line: the signature closes the "
                           "record (later lines are not reported)")
            after_sig += 1
            continue
        if word == SIG_WORD and first_event:
            sig = (lineno, text)
            continue
        if word == RESULT_WORD and first_event:
            if result is not None:
                report.add(lineno, "a second result line: a record has one")
            else:
                result = (lineno, text)
            continue
        if result is not None and not after_result:
            after_result = lineno  # reported at the result line: it is the one out of place
            report.add(result[0], f"the result line comes before line {lineno}: it follows "
                       "game-over, and only the sig line may follow it")
        if word == "header":
            if first_event:
                report.add(lineno, "header after the first event line")
                continue
            try:
                key, value = parse_header(text)
            except RecordError as exc:
                report.add(lineno, str(exc))
                continue
            headers.append((lineno, key, value))
            if key == "seats":
                report.seats = value.split(",")
            _who_played(report, key, value)
            chain.header(text)
            continue
        if word != "event":
            if not first_event and not headers:
                raise Unreadable(lineno, f"not a record: expected a header or event line, "
                                 f"not {escape(word, 40)!r}")
            report.add(lineno, f"expected a header or event line, not {escape(word, 40)!r}")
            continue
        # ---- an event line
        last_line = lineno
        report.events += 1
        body, recorded = split_hash(text)
        if not first_event:
            first_event = lineno
            report.signed = recorded is not None
        if chain_ok and (report.signed or recorded is not None):
            chain_ok = _chain_link(chain, body, recorded, lineno, report)
        if body.split(None, 3)[2:3] == [RoundScored.kind]:
            report.rounds += 1  # the record's rounds, judged or not: an invalid one has some
        if not rules_ok:
            report.unjudged += 1
            continue
        try:
            event = parse_event(body, game)
        except XactikaError as exc:
            report.add(lineno, f"unreadable event: {exc}")
            rules_ok = False
            continue
        hidden = _hidden(event)
        if hidden is not None:
            report.add(lineno, f"{hidden}: this is one seat's view of the game; only a full "
                       "record can be audited")
            rules_ok = False
            continue
        try:
            check = check.apply(event)
        except InvalidEvent as exc:
            report.add(lineno, str(exc))
            rules_ok = False
            continue
        _after(event, lineno, check, headers, report)
        if isinstance(event, GameStarted):
            game = game_rules(event.config.game)
    if not first_event:
        if not headers:
            raise Unreadable(report.lines, "not a record: no header or event lines")
        report.add(report.lines, "unfinished: the record has headers but no events")
    report.head = chain.head if report.signed and chain_ok else None
    if not report.signed and first_event:
        _note(report, first_event, strict, "unsigned: the record carries no hash chain")
    if first_event and check.state.phase != "new" and not report.committed:
        _note(report, first_event, strict, "no commitment: the deals' seed was not committed")
    if first_event:
        _signature(report, sig, headers, first_event, strict, trusted)
        if after_sig:
            report.signature = BAD_SIGNATURE  # the file is more than what was signed
    if rules_ok and first_event:
        report.complete = check.complete
        if not check.complete:  # at a result line, the record claims an end it lacks
            report.add(result[0] if result else last_line, _unfinished(check))
    if result is not None:
        _result(report, result, headers, rules_ok)
    if report.status != UNREADABLE:
        reasons = [p.reason for p in report.problems]
        if any(not r.startswith("unfinished:") for r in reasons) or report.dropped:
            report.status = INVALID
        elif reasons:
            report.status = UNFINISHED


def _signature(report: LogReport, sig: tuple[int, str] | None,
               headers: list[tuple[int, str, str]], first_event: int, strict: bool,
               trusted: Trusted) -> None:
    """Check the sig line against the head and the signer header (spec/TAMPER.md 6)."""
    report.record_id = next((v for _, k, v in headers if k == ID_HEADER), None)
    if sig is None:
        _note(report, first_event, strict, "no signature: no key vouches for this record, "
              "so anyone could have rewritten it with its chain")
        return
    line, text = sig
    report.signature = BAD_SIGNATURE
    found = {key: value for _, key, value in headers if key in (SIGNER_HEADER, ID_HEADER)}
    for name in (SIGNER_HEADER, ID_HEADER):
        lines = [hline for hline, key, _ in headers if key == name]
        if len(lines) > 1:  # readers take the first: the signed one must be unambiguous
            report.add(lines[1], f"a second {name} header: a signed record has one")
            return
    try:
        parsed = parse_sig_line(text)
        key = parse_public(found.get(SIGNER_HEADER, ""))
    except (ValueError, KeyFileError) as exc:
        where = "" if SIGNER_HEADER in found else " (the record has no signer header)"
        report.add(line, f"bad signature: {exc}{where}")
        return
    report.signer = key
    if report.head is None:
        report.add(line, "the signature cannot hold: the hash chain is broken or absent")
    elif parsed.events != report.events:
        report.add(line, f"sig says events={parsed.events} but the record has "
                   f"{report.events}: events were added or removed")
    elif parsed.head != report.head:
        report.add(line, "sig head= is not this record's head: the record was changed, or "
                   "the signature was taken from another record")
    elif not key.verify(parsed.signature, record_message(
            key.text, found.get(ID_HEADER, ""), report.events, report.head)):
        report.add(line, f"the signature does not hold for the signer {key.fingerprint}: "
                   "the record was changed or the signature was forged or moved")
    elif key in trusted:
        report.signature = VERIFIED
    else:
        report.signature = UNTRUSTED
        _note(report, line, strict, f"signer unknown: signed by {key.fingerprint}, a key "
              "not named with --key or --trusted-keys; the chain holds but is not verified")


def _result(report: LogReport, result: tuple[int, str],
            headers: list[tuple[int, str, str]], rules_ok: bool) -> None:
    """The result line must say what game-over says: it is outside the chain and the sig."""
    line, text = result
    if not rules_ok:
        return  # the events are already wrong; what they would say is unknown
    if not report.complete or report.totals is None or report.winners is None:
        report.add(line, "a result line in a record without game-over")
        return
    expected = result_line([(k, v) for _, k, v in headers], report.totals, report.winners)
    if text != expected:
        report.add(line, f"the result line says {escape(text.removeprefix('result '), 200)!r}"
                   f" but game-over says {expected.removeprefix('result ')!r}")


def _hidden(event: Event) -> str | None:
    """What a seat's view hides, where an event shows it is one."""
    if isinstance(event, Dealt) and (event.aside is None or None in event.hands):
        return "hands are hidden (?)"
    if isinstance(event, GameStarted) and event.config.seed is None \
            and event.config.deals is None:
        return "game-started has no seed= and no deals="
    return None


def _note(report: LogReport, line: int, strict: bool, text: str) -> None:
    if strict:
        report.add(line, text + " (--strict)")
    else:
        report.notes.append(text)


def _chain_link(chain: Chain, body: str, recorded: str | None, lineno: int,
                report: LogReport) -> bool:
    """Check one line's link; False (and a problem) at the first break."""
    if recorded is None:
        report.add(lineno, "hash chain broken: this event line has no h= token but the "
                   "record is signed")
        return False
    if not report.signed:
        report.add(lineno, "hash chain broken: this line has an h= token but the first "
                   "event line has none")
        return False
    expected = chain.link(body)
    if recorded == expected:
        return True
    if not is_hash(recorded):
        reason = "hash chain broken: h= must be 64 lower-case hex digits (SHA-256)"
    else:
        reason = ("hash chain broken at this line: it, or a line or header before it, was "
                  "changed, removed, added or moved")
    report.add(lineno, reason)
    return False


def _after(event: Event, lineno: int, check: LogCheck, headers: list[tuple[int, str, str]],
           report: LogReport) -> None:
    if isinstance(event, GameStarted):
        config = event.config
        report.game, report.mode, report.players = config.game, config.mode, config.players
        for line, reason in _header_problems(config, headers, lineno):
            report.add(line, reason)
        problem = commitment_problem(config)
        if problem is not None:
            report.add(lineno, problem)
        report.committed = config.commit is not None
    elif isinstance(event, RoundScored):
        report.totals = event.totals
    elif isinstance(event, GameOver):
        report.totals = event.totals
        report.winners = event.winners


# --------------------------------------------------------------------------- summary


@attrs.define
class PlayerTotals:
    """A row of the players' table: ``games`` it played (a game once, however many seats
    it held), ``seats`` those games' seats it held, ``wins`` the seats that won and
    ``points`` over all its seats."""

    games: int = 0
    seats: int = 0
    wins: int = 0
    points: int = 0


@attrs.define
class Summary:
    """Totals over many logs, kept as running sums so that auditing stays flat in memory.

    ``logs`` and the status counts are game records; a match's manifest is counted in
    ``manifests`` (and ``bad_manifests``), its problems with the rest. A player is a seat
    name from the ``seats`` header (``seat N`` without one); only clean, complete games
    count towards the players' games (a game once, however many seats the player held),
    seats, wins (its seats that won) and points (over all its seats). A copy of a record
    (``copy_of``) is a log and its problem, never a second game.
    """

    logs: int = 0
    manifests: int = 0
    bad_manifests: int = 0
    missing_manifests: int = 0
    strict_missing: int = 0
    games: int = 0
    complete: int = 0
    unfinished: int = 0
    invalid: int = 0
    unreadable: int = 0
    events: int = 0
    rounds: int = 0
    problems: int = 0
    verified: int = 0
    copies: int = 0
    players: dict[str, PlayerTotals] = attrs.Factory(dict)

    def add(self, r: LogReport) -> None:
        if r.kind == "manifest" and r.status == MISSING:
            self.missing_manifests += 1
            self.strict_missing += bool(r.problems)  # not with --manifest-gone
            self.problems += len(r.problems)
            return
        if r.kind == "manifest":
            self.manifests += 1
            self.bad_manifests += r.status != OK
            self.problems += len(r.problems) + r.dropped
            return
        self.logs += 1
        if r.copy_of is not None:
            self.copies += 1
            self.problems += len(r.problems) + r.dropped
            return
        self.games += r.game is not None
        self.complete += r.status == OK
        self.unfinished += r.status == UNFINISHED
        self.invalid += r.status == INVALID
        self.unreadable += r.status == UNREADABLE
        self.events += r.events
        self.rounds += r.rounds
        self.problems += len(r.problems) + r.dropped
        # verified means the whole record holds: a good signature over an invalid game does not
        self.verified += r.signature == VERIFIED and r.status != INVALID
        if r.status != OK or r.totals is None:
            return
        won = set(r.winners or ()) - r.forfeits
        if r.forfeits and r.winners:
            won = set(result_winners([("forfeit", str(s)) for s in r.forfeits],
                                     r.totals, r.winners))
        # a game once per player, however many seats it held; a seat that won is a win
        # of its own (a match's two processes of one bot), not one win if either won
        keys = player_keys(r)
        for name in dict.fromkeys(keys):
            self.players.setdefault(name, PlayerTotals()).games += 1
        for seat, name in enumerate(keys):
            p = self.players[name]
            p.seats += 1
            p.points += r.totals[seat] if seat < len(r.totals) else 0
            p.wins += seat in won

    @property
    def exit_code(self) -> int:
        """2 if any log is unreadable, else 1 if any has a problem, else 0."""
        if self.unreadable:
            return 2
        failed = self.bad_manifests or self.copies or self.strict_missing
        return 1 if self.logs != self.complete or failed else 0

    def to_json(self) -> dict[str, Any]:
        out = attrs.asdict(self)
        return out


def _who_played(report: LogReport, key: str, value: str) -> None:
    """People and forfeited seats, from a table server's ``kinds`` and ``forfeit``
    headers and the REPL's ``seat.N human...`` headers."""
    if key == "kinds":
        report.people |= {s for s, kind in enumerate(value.split(",")) if kind == "human"}
    elif key.startswith("seat.") and key[5:].isdigit() and value.startswith("human"):
        report.people.add(int(key[5:]))
    elif key == "forfeit" and value.isascii() and value.isdigit():
        report.forfeits.add(int(value))


def player_keys(r: LogReport) -> list[str]:
    """Each seat's row in the players' table: its name, except that a name several
    seats of one record share is one player only if none of them is a person (a bot
    may play many seats); people sharing a name (``human``, ``you``: the REPL's names
    for the nameless) are told apart by seat, ``human (seat 1)``."""
    names = r.names()
    people = r.people or {s for s, n in enumerate(names) if n in ("human", "you")}
    shared = {n for n in names if names.count(n) > 1}
    return [f"{n} (seat {s})" if n in shared and s in people else n
            for s, n in enumerate(names)]


def summarize(reports: Iterable[LogReport]) -> dict[str, Any]:
    summary = Summary()
    for r in reports:
        summary.add(r)
    return summary.to_json()


def exit_code(reports: Iterable[LogReport]) -> int:
    summary = Summary()
    for r in reports:
        summary.add(r)
    return summary.exit_code
