"""Games files: many records in one file, as cutechess's ``-pgnout`` (spec/RECORDS.md).

Each record is preceded by one separator line naming it, ``record <name>`` in the text
form or ``{"type":"record","name":"<name>"}`` in JSONL, and is otherwise kept byte for
byte, so every record in it audits (hash chain, signature, record id) exactly as its own
file does. A file is a games file when its first line that is not blank or a comment is
a separator: told apart by content, as the record forms are. Reading streams: one
record (at most its limits) is held at a time.
"""

from __future__ import annotations

import io
import json
import os
import re
from collections.abc import Iterable, Iterator
from typing import IO

import attrs

from xactika.protocol.notation.untrusted import escape, is_safe
from xactika.protocol.records.files import bounded_lines, open_regular
from xactika.protocol.records.textform import (
    BLANKS,
    MAX_LINE,
    MAX_RECORD_BYTES,
    Record,
    RecordError,
    record_from_lines,
)
from xactika.protocol.records.writing import Staged

SEPARATOR = "record"  # the text separator's word, and the JSONL separator's type
MAX_NAME = 200  # characters in a record's name
_LINE_NO = re.compile(r"^line (\d+): ")


@attrs.frozen
class Part:
    """One record of a games file: its name, its separator's line, and its bytes."""

    name: str  # as written: a reader shows it through ``escape``
    line: int  # the separator's line number; the record's line N is the file's line + N
    data: bytes
    jsonl: bool = False  # the separator's form

    def read(self) -> Record:
        """The record, its errors' ``line N`` counted in the games file."""
        try:
            return record_from_lines(bounded_lines(io.BytesIO(self.data)))
        except RecordError as exc:
            raise shifted(exc, self.line) from None


def shifted(exc: RecordError, offset: int) -> RecordError:
    """``exc`` with its ``line N:`` moved by ``offset`` lines (line 0 is the separator)."""
    text = str(exc)
    m = _LINE_NO.match(text)
    if m is None:
        return exc
    return RecordError(f"line {int(m.group(1)) + offset}: {text[m.end():]}")


def format_separator(name: str, jsonl: bool = False) -> str:
    """The line that starts record ``name``; ValueError for a name that cannot be one."""
    if not name or len(name) > MAX_NAME or not is_safe(name) or name != name.strip(BLANKS):
        raise ValueError(f"bad record name {escape(name, 80)!r}: 1 to {MAX_NAME} printable "
                         "characters, no leading or trailing blanks")
    if jsonl:
        return json.dumps({"type": SEPARATOR, "name": name}, ensure_ascii=False,
                          separators=(",", ":")) + "\n"
    return f"{SEPARATOR} {name}\n"


def separator(raw: bytes, lineno: int) -> tuple[str, bool] | None:
    """(name, is JSONL) when ``raw`` is a separator line, else None; RecordError for a
    line that starts like one but is not a good one."""
    text = raw.decode("utf-8", "replace").strip(BLANKS)
    if text.startswith("{"):
        if f'"{SEPARATOR}"' not in text:
            return None
        try:
            obj = json.loads(text)
        except ValueError:
            return None  # not JSON at all: the record's reader says so
        if not isinstance(obj, dict) or obj.get("type") != SEPARATOR:
            return None
        if set(obj) != {"type", "name"} or not isinstance(obj["name"], str):
            raise RecordError(f"line {lineno}: a record separator holds \"type\" and "
                              "\"name\" (a string), nothing else")
        name, jsonl = obj["name"], True
    else:
        word, _, rest = text.partition(" ")
        if word != SEPARATOR:
            return None
        name, jsonl = rest.strip(BLANKS), False
    try:
        format_separator(name)
    except ValueError as exc:
        raise RecordError(f"line {lineno}: {exc}") from None
    return name, jsonl


def _lines(fh: IO[bytes]) -> Iterator[bytes]:
    """Physical lines, each cut to MAX_LINE + 1 bytes (a record reader reports the cut)."""
    while True:
        raw = fh.readline(MAX_LINE + 1)
        if not raw:
            return
        yield raw
        if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
            while True:  # the rest of an over-long line: the cut part already fails
                more = fh.readline(MAX_LINE + 1)
                if not more or more.endswith(b"\n"):
                    break


def split_games(fh: IO[bytes]) -> Iterator[Part]:
    """The records of a games file, in order; RecordError for a line before the first
    separator that is not blank or a comment. A record past its byte limit is kept only
    up to it (its reader then stops there, as on a file of its own)."""
    name: str | None = None
    start = 0
    jsonl = False
    buf = bytearray()
    full = False
    lineno = 0
    for raw in _lines(fh):
        lineno += 1
        found = separator(raw, lineno) if len(raw) <= MAX_LINE else None
        if found is not None:
            if name is not None:
                yield Part(name, start, bytes(buf), jsonl)
            (name, jsonl), start = found, lineno
            buf.clear()
            full = False
            continue
        if name is None:
            text = raw.decode("utf-8", "replace").strip(BLANKS)
            if text and not text.startswith("#"):
                raise RecordError(f"line {lineno}: a games file starts each record with "
                                  f"a '{SEPARATOR} NAME' line, not {escape(text, 40)!r}")
            continue
        if not full:
            buf += raw
            full = len(buf) > MAX_RECORD_BYTES
    if name is None:
        raise RecordError(f"line {lineno}: no '{SEPARATOR} NAME' line: not a games file")
    yield Part(name, start, bytes(buf), jsonl)


def is_games_file(path: str | os.PathLike[str]) -> bool:
    """Whether the file's first line that is not blank or a comment is a separator."""
    try:
        with open_regular(path) as fh:
            for raw in _lines(fh):
                text = raw.decode("utf-8", "replace").strip(BLANKS)
                if not text or text.startswith("#"):
                    continue
                try:
                    return len(raw) <= MAX_LINE and separator(raw, 1) is not None
                except RecordError:
                    return True  # a bad separator: a games file, reported as such
    except OSError:
        return False
    return False


def read_games(path: str | os.PathLike[str]) -> Iterator[Part]:
    """The parts of the games file at ``path``; RecordError (line 0) when unreadable."""
    try:
        fh = open_regular(path)
    except OSError as exc:
        raise RecordError(f"line 0: cannot read {os.fspath(path)!r}: {exc.strerror}") from None
    with fh:
        yield from split_games(fh)


def find_part(path: str | os.PathLike[str], which: str) -> Part:
    """The record named ``which``, or numbered so (from 1), of a games file."""
    names: list[str] = []
    for n, part in enumerate(read_games(path), 1):
        if which in (part.name, str(n)):
            return part
        names.append(part.name)
    if not names:
        raise RecordError("line 0: the games file holds no record")
    raise RecordError(f"line 0: no record {escape(which, 80)!r}: give a number from 1 to "
                      f"{len(names)} or a name, e.g. {escape(names[0], 80)!r}")


def games_text(records: Iterable[tuple[str, str]], jsonl: bool = False) -> str:
    """A games file's text from (name, record text) pairs."""
    return "".join(format_separator(name, jsonl) + text + ("" if text.endswith("\n") else "\n")
                   for name, text in records)


def write_games_file(path: str | os.PathLike[str],
                     records: Iterable[tuple[str, str | os.PathLike[str]]]) -> int:
    """Copy record files, each after its separator, into one games file; how many.

    Byte for byte, one record in memory at a time, through the one atomic writer
    (protocol/records/writing.py): a reader never sees half a games file.
    """
    staged = Staged(path)
    count = 0
    try:
        out = staged.file.buffer  # the records' bytes as they are
        for name, file in records:
            with open_regular(file) as fh:
                data = fh.read(MAX_RECORD_BYTES + 1)
            out.write(format_separator(name).encode("utf-8"))
            out.write(data if data.endswith(b"\n") or not data else data + b"\n")
            count += 1
        staged.publish()
    except BaseException:
        staged.abandon()
        raise
    staged.file.close()
    return count
