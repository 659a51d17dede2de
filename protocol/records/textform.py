"""Record files: header lines, then the protocol's own event lines (spec/RECORDS.md).

A record is valid engine input: ``header KEY VALUE`` is an engine command and event
lines are applied and checked, so ``xactika engine < game.log`` rebuilds the game.
Reading is streaming (:func:`iter_record_lines`) so an auditor can check huge files in
constant memory; :class:`RecordWriter` flushes every line, so a killed engine loses
nothing it had announced.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import IO, Any, TextIO

import attrs

from xactika.core.engine.api import Event, GameOver, GameStarted, TrickGame, game_rules
from xactika.core.engine.errors import XactikaError
from xactika.protocol.notation.blanks import BLANKS as BLANKS
from xactika.protocol.notation.blanks import split_blanks as split_blanks
from xactika.protocol.notation.text import format_event, parse_event
from xactika.protocol.notation.untrusted import escape, is_safe
from xactika.protocol.records.seal import ID_HEADER, Chain, RecordSigner
from xactika.protocol.records.writing import DATE_FORMAT, Staged, write_record_file

RECORD_VERSION = "1"
MAX_LINE = 65536  # bytes; a preset-deal game-started line for 10 players is ~30 KB
# Every reader stops at these, and the engine refuses what would go over them, so what
# it writes it can read back (spec/RECORDS.md). No event line but game-started exceeds
# about 1 KB, so MAX_RECORD_LINES lines stay well under MAX_RECORD_BYTES.
MAX_RECORD_LINES = 100_000  # header, event and sig lines; blank and comment lines cost bytes
MAX_RECORD_BYTES = 128 * 1024 * 1024
MAX_HEADERS = 256  # header lines in one record
MAX_HEADER_BYTES = 1024 * 1024  # their keys and values together
HEADER_KEY = re.compile(r"^[a-z][a-z0-9_.-]*$")
STANDARD_KEYS = ("record", "game", "mode", "players", "seats", "seed", "deal", "date")

Headers = Mapping[str, str] | Sequence[tuple[str, str]]


class RecordError(XactikaError):
    """A record that cannot be read; the message starts ``line N:``."""

    code = "record"


@attrs.frozen
class Record:
    headers: tuple[tuple[str, str], ...]
    events: tuple[Event, ...]
    sig: str | None = None  # the closing ``sig`` line, as written (spec/TAMPER.md)
    result: str | None = None  # the ``result`` line after game-over, as written

    def header(self, key: str, default: str | None = None) -> str | None:
        """The first value of ``key``, as PGN readers look tags up."""
        for k, v in self.headers:
            if k == key:
                return v
        return default

    def __str__(self) -> str:
        """The record's text, as python-chess prints a game: what :meth:`write` saves,
        less the last newline. Event lines carry their hash-chain tokens and a finished
        game its result line; a signed record ends in its ``sig`` line as read (the
        chain is derived again, so the text reads back to this record)."""
        return format_record(self)[:-1]

    def write(self, path: str | os.PathLike[str]) -> None:
        """Save the record to ``path`` (JSONL when it ends in ``.jsonl``), atomically:
        a crash leaves either the old file or the whole new one."""
        text = format_record(self)
        if os.fspath(path).endswith(".jsonl"):
            from xactika.protocol.records.jsonl import text_to_jsonl

            text = text_to_jsonl(text.splitlines())
        write_record_file(path, text)


def _header_items(headers: Headers) -> list[tuple[str, str]]:
    items = list(headers.items()) if isinstance(headers, Mapping) else list(headers)
    for key, value in items:
        check_header(key, value)
    if not any(k == "record" for k, _ in items):
        items.insert(0, ("record", RECORD_VERSION))
    return items


def check_header(key: str, value: str) -> None:
    """Raise ValueError for a header that would not read back as written."""
    if not isinstance(key, str) or not HEADER_KEY.match(key):
        raise ValueError(
            f"bad header key {key!r}: expected a lower-case letter, then letters, digits, "
            "'_', '.' or '-'"
        )
    if not isinstance(value, str):
        raise ValueError(f"header {key}: value must be text, not {type(value).__name__}")
    if value != value.strip(BLANKS) or not is_safe(value):
        raise ValueError(
            f"header {key}: value must be one line of printable text (no control or line "
            "separator characters) without leading or trailing spaces"
        )


def format_header(key: str, value: str) -> str:
    check_header(key, value)
    return f"header {key} {value}" if value else f"header {key}"


RESULT_WORD = "result"


def utc_date(when: float | None = None) -> str:
    """A ``date`` header's value: UTC to the second in the ``Z`` form (spec/RECORDS.md)."""
    return time.strftime(DATE_FORMAT, time.gmtime(when))


def forfeited(headers: Headers) -> set[int]:
    """The seats a record's ``forfeit`` headers name: seats that cannot win (a table
    server's seat that forfeited, or whose stand-in still played it at the end)."""
    items = list(headers.items()) if isinstance(headers, Mapping) else list(headers)
    return {int(v) for k, v in items if k == "forfeit" and v.isascii() and v.isdigit()}


def result_winners(headers: Headers, totals: Sequence[int],
                   winners: Sequence[int]) -> tuple[int, ...]:
    """Who won, for the result line and the audit's players: game-over's winners, less
    any forfeited seat; when all of them forfeited, the best total among the others
    (best as game-over's winners had it: high or low), and nobody when every seat did."""
    out = forfeited(headers)
    kept = tuple(s for s in winners if s not in out)
    if kept or not out or not winners:
        return kept
    rest = [s for s in range(len(totals)) if s not in out]
    if not rest:
        return ()
    low = totals[winners[0]] < max(totals)
    best = (min if low else max)(totals[s] for s in rest)
    return tuple(s for s in rest if totals[s] == best)


def result_line(headers: Headers, totals: Sequence[int], winners: Sequence[int]) -> str:
    """The line after game-over that says who won and the totals, in words, for grep.

    It is derived from the ``seats`` and ``forfeit`` headers and game-over, outside the
    hash chain: an auditor derives it again and reports any difference (spec/RECORDS.md).
    A forfeited seat is never named a winner (:func:`result_winners`).
    """
    items = list(headers.items()) if isinstance(headers, Mapping) else list(headers)
    seats = next((v for k, v in items if k == "seats"), "")
    names = seats.split(",") if seats else []
    if len(names) != len(totals):
        names = [f"seat {s}" for s in range(len(totals))]

    def who(s: int) -> str:
        return f"{s} ({names[s]})" if not names[s].startswith("seat ") else str(s)

    won = [who(s) for s in result_winners(items, totals, winners)]
    if not won:
        said = "nobody wins"
    elif len(won) == 1:
        said = f"seat {won[0]} wins"
    else:
        said = f"seats {', '.join(won[:-1])} and {won[-1]} share the win"
    out = sorted(s for s in forfeited(items) if s < len(totals))
    if out:
        said += "; " + ("seat " if len(out) == 1 else "seats ") + ", ".join(
            who(s) for s in out) + " forfeited"
    scores = ", ".join(f"{name} {total}" for name, total in zip(names, totals, strict=True))
    return f"{RESULT_WORD} {said}; totals: {scores}"


def format_record(headers: Headers | Record, events: Iterable[Event] = (), *,
                  sign: bool = True,
                  signer: RecordSigner | None = None,
                  lines: Sequence[str | None] = ()) -> str:
    """The record text; a ``record`` version header is put first when missing.

    With ``sign`` (the default) each event line ends in its hash-chain token
    (spec/TAMPER.md); with a ``signer`` the record also names its key and identity in
    headers and ends in the key's ``sig`` line over the head. ``lines[i]``, where given
    and not None, is ``format_event`` of event ``i`` already made by the caller (the
    match runner formats each public event once for the bots), used as it is.
    ``format_record(record)`` is the text of a :class:`Record`, its ``sig`` line kept.
    """
    if isinstance(headers, Record):
        record = headers
        if signer is None and sign and not lines and record.sig is not None:
            return format_record(record.headers, record.events) + record.sig + "\n"
        headers, events = record.headers, record.events
    items = _header_items(headers)
    if signer is not None:
        items = signer.signed_headers(items)
    out = [format_header(k, v) for k, v in items]
    chain = Chain() if sign or signer is not None else None
    for line in out:
        if chain is not None:
            chain.header(line)
    game: TrickGame | None = None
    event: Event | None = None
    made = len(lines)
    for i, event in enumerate(events):
        if isinstance(event, GameStarted):
            game = game_rules(event.config.game)
        given = lines[i] if i < made else None
        text = format_event(event, game) if given is None else given
        out.append(f"{text} h={chain.link(text)}" if chain is not None else text)
    events_written = len(out) - len(items)
    if isinstance(event, GameOver):
        out.append(result_line(items, event.totals, event.winners))
    if signer is not None and chain is not None:
        out.append(_sig_line(signer, items, events_written, chain.head))
    return "".join(line + "\n" for line in out)


def _sig_line(signer: RecordSigner, items: Sequence[tuple[str, str]], events: int,
              head: str) -> str:
    record_id = next((v for k, v in items if k == ID_HEADER), "")
    return signer.sig_line(record_id, events, head)


def parse_header(line: str) -> tuple[str, str]:
    """``header KEY VALUE`` -> (key, value); the value is the rest of the line."""
    parts = split_blanks(line, 2)
    if not parts or parts[0] != "header":
        raise RecordError("expected a header line: header KEY VALUE")
    if len(parts) < 2:
        raise RecordError("header line lacks its key: expected header KEY VALUE")
    key = parts[1]
    value = parts[2].strip(BLANKS) if len(parts) > 2 else ""
    if not HEADER_KEY.match(key):
        raise RecordError(
            f"bad header key {escape(key, 40)!r}: expected a lower-case letter, then letters, "
            "digits, '_', '.' or '-'"
        )
    if not is_safe(value):
        raise RecordError(
            f"header {key}: the value holds a control or line separator character "
            f"({escape(value, 60)}): header values are printable text on one line"
        )
    return key, value


def decode_line(raw: str | bytes, lineno: int) -> str:
    """One line as text; RecordError naming the line if too long or not UTF-8."""
    if isinstance(raw, bytes):
        if len(raw) > MAX_LINE:
            raise RecordError(f"line {lineno}: line is longer than {MAX_LINE} bytes")
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise RecordError(
                f"line {lineno}: invalid UTF-8 at byte {exc.start}: records are UTF-8 text"
            ) from None
    if len(raw) > MAX_LINE:
        raise RecordError(f"line {lineno}: line is longer than {MAX_LINE} characters")
    return raw


def iter_record_lines(lines: Iterable[str | bytes]) -> Iterator[tuple[int, str, Any]]:
    """Stream a record: ``(lineno, "header", (key, value))`` or ``(lineno, "event", e)``.

    A finished record's ``result`` line comes as ``(lineno, "result", text)`` and a
    signed record's last line as ``(lineno, "sig", text)``; nothing may follow it. Blank
    lines and ``#`` comments are skipped. Raises RecordError naming the line on the
    first line that cannot be read. Only syntax is checked here: whether the events
    follow the rules is the engine's and the auditor's business.
    """
    game: TrickGame | None = None
    seen_event = over = seen_result = False
    seen_sig = False
    headers = header_bytes = items = 0
    for lineno, raw in enumerate(lines, 1):
        text = decode_line(raw, lineno).strip(BLANKS)
        if not text or text.startswith("#"):
            continue
        items += 1
        if items > MAX_RECORD_LINES:
            raise RecordError(f"line {lineno}: a record holds at most {MAX_RECORD_LINES} "
                              "header and event lines")
        word = split_blanks(text, 1)[0]
        if seen_sig:
            raise RecordError(f"line {lineno}: nothing may follow the record's sig line")
        if word == "sig":
            if not seen_event:
                raise RecordError(f"line {lineno}: a sig line before the first event")
            seen_sig = True
            yield lineno, "sig", text
            continue
        if seen_result:
            raise RecordError(f"line {lineno}: only a sig line may follow the result line")
        if word == RESULT_WORD:
            if not over:
                raise RecordError(f"line {lineno}: a result line before game-over")
            if not is_safe(text):
                raise RecordError(f"line {lineno}: the result line holds a control or line "
                                  "separator character")
            seen_result = True
            yield lineno, RESULT_WORD, text
            continue
        if word == "header":
            if seen_event:
                raise RecordError(f"line {lineno}: header after the first event")
            try:
                key, value = parse_header(text)
            except RecordError as exc:
                raise RecordError(f"line {lineno}: {exc}") from None
            headers += 1
            header_bytes += len(key) + len(value)
            if headers > MAX_HEADERS or header_bytes > MAX_HEADER_BYTES:
                raise RecordError(f"line {lineno}: a record holds at most {MAX_HEADERS} "
                                  f"header lines of {MAX_HEADER_BYTES} bytes in all")
            yield lineno, "header", (key, value)
            continue
        if word == "record":  # a games file's separator (spec/RECORDS.md)
            raise RecordError(f"line {lineno}: a games file, several records in one: read "
                              "one record of it (xactika replay --record N), or audit or "
                              "convert it whole")
        if word != "event":
            raise RecordError(
                f"line {lineno}: expected a header or event line, not {escape(word, 40)!r}"
            )
        try:
            event = parse_event(text, game)
        except XactikaError as exc:
            raise RecordError(f"line {lineno}: {exc}") from None
        if isinstance(event, GameStarted):
            if seen_event:
                raise RecordError(f"line {lineno}: a second game-started; one game per record")
            try:
                game = game_rules(event.config.game)
            except XactikaError as exc:
                raise RecordError(f"line {lineno}: {exc}") from None
        elif not seen_event:
            raise RecordError(f"line {lineno}: the first event must be game-started")
        seen_event = True
        over = isinstance(event, GameOver)
        yield lineno, "event", event


def read_record(source: str | os.PathLike[str] | TextIO) -> Record:
    """Read a whole record, text or JSONL, from a path (str or PathLike) or a text stream."""
    if isinstance(source, str | os.PathLike):
        from xactika.protocol.records.files import bounded_lines, open_regular

        try:
            with open_regular(source) as fh:
                return record_from_lines(bounded_lines(fh))
        except OSError as exc:
            name = os.fspath(source)
            raise RecordError(f"line 0: cannot read {name!r}: {exc.strerror}") from None
    return record_from_lines(source)


def record_from_lines(lines: Iterable[str | bytes]) -> Record:
    """A whole record, text or JSONL, from its lines (bounded by the caller)."""
    from xactika.protocol.records.jsonl import record_lines

    headers: list[tuple[str, str]] = []
    events: list[Event] = []
    sig: list[str] = []
    result: list[str] = []
    for _, kind, value in iter_record_lines(record_lines(lines)):
        {"header": headers, "event": events, "sig": sig, RESULT_WORD: result}[kind].append(
            value)
    if not events:
        raise RecordError("line 0: no events: a record needs at least game-started")
    return Record(tuple(headers), tuple(events), sig[0] if sig else None,
                  result[0] if result else None)


class RecordWriter:
    """Writes a record line by line, flushing each, so a crash loses no event.

    Headers are written at once. With ``fsync`` each line also reaches the disk, which
    survives power loss as well as ``kill -9``. With a ``signer`` the record ends in its
    ``sig`` line as soon as game-over is written (or when it is closed before that).

    A file already at ``path`` is never truncated in place: the headers and ``events``
    (the game so far) go to a temporary file beside it, which is forced to disk and then
    renamed over it, and the folder is forced too; a crash at any moment leaves either
    the old record or the whole new one. With ``dir_fd``, ``path`` is a name in that
    folder (see protocol/records/files.py).
    """

    def __init__(self, path: str | os.PathLike[str], headers: Headers,
                 events: Iterable[Event] = (), *, fsync: bool = False, sign: bool = True,
                 signer: RecordSigner | None = None, dir_fd: int | None = None) -> None:
        items = _header_items(headers)
        if signer is not None:
            items = signer.signed_headers(items)
        self.path = os.fspath(path)
        self.fsync = fsync
        self.signer = signer
        self._items = items
        self._events = 0
        self._game: TrickGame | None = None
        self._chain = Chain() if sign or signer is not None else None  # spec/TAMPER.md
        # staged beside the record and renamed over it (protocol/records/writing.py)
        self._staged = Staged(self.path, dir_fd=dir_fd, mode=0o600)
        self._fh: IO[str] | None = self._staged.file
        try:
            for key, value in items:
                self._line(format_header(key, value))
                if self._chain is not None:
                    self._chain.header(format_header(key, value))
            for event in events:
                self.write(event)
            self._staged.publish()
        except BaseException:
            self._fh = None
            self._staged.abandon()
            raise

    def _line(self, line: str) -> None:
        if self._fh is None:
            raise ValueError("the record is closed")
        self._fh.write(line + "\n")
        self._fh.flush()
        if self.fsync and self._staged.published:  # while staging, publish forces it once
            os.fsync(self._fh.fileno())

    def write(self, event: Event) -> None:
        if isinstance(event, GameStarted):
            self._game = game_rules(event.config.game)
        line = format_event(event, self._game)
        if self._chain is not None:
            line = f"{line} h={self._chain.link(line)}"
        self._line(line)
        self._events += 1
        if isinstance(event, GameOver):
            self._line(result_line(self._items, event.totals, event.winners))
            self._seal()

    def _seal(self) -> None:
        """Write the sig line; the record is complete and takes no more lines."""
        if self.signer is not None and self._chain is not None and self._events:
            self._line(_sig_line(self.signer, self._items, self._events, self._chain.head))
            self.signer = None
            self.close()

    def close(self) -> None:
        if self._fh is not None and self.signer is not None and self._events:
            self._seal()
            return
        if self._fh is not None:
            self._staged.publish()  # sealed before the game so far was all written
            self._fh.close()
            self._fh = None

    @property
    def closed(self) -> bool:
        return self._fh is None

    def __enter__(self) -> RecordWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
