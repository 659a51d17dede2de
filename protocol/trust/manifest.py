"""A match's signed manifest: every game's record head, appended as the game finishes.

A signed record proves who wrote it, but not that it belongs to the match, nor that no
game was deleted, added or replaced. The manifest does, like a transparency log's signed
tree heads: each line names one record file and its head and is signed by the runner's
key, bound to the match's identity and the line's place. spec/TAMPER.md section 7.

    manifest 1 match=<id> signer=ed25519:<hex> sig=<hex>
    game n=1 file=games/d0001-t1-r1.log id=<record id> events=370 head=<hex> sig=<hex>
    end entries=1 sig=<hex>

An entry for a file that already has one supersedes it (``--resume`` re-played it); an
``end`` line is written when a run finishes, so a manifest whose last line is not the
``end`` of all its entries belongs to a match that is still running or was cut.
"""

from __future__ import annotations

import os
import secrets
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import IO

import attrs

from xactika.protocol.notation.untrusted import escape
from xactika.protocol.trust.signing import (
    KeyFileError,
    PublicKey,
    Signer,
    fields_of,
    manifest_message,
    open_plain_file,
    parse_public,
)
from xactika.protocol.trust.tamper import is_hash

MANIFEST_FILE = "manifest.txt"
MANIFEST_VERSION = "1"
MAX_MANIFEST_LINE = 4096


class ManifestError(ValueError):
    """A manifest the runner cannot extend; one line saying why."""


@attrs.frozen
class Entry:
    line: int
    n: int
    file: str
    record_id: str
    events: int
    head: str


@attrs.define
class ManifestCheck:
    """What a manifest says, and every problem with it, by line."""

    path: str
    match_id: str | None = None
    signer: PublicKey | None = None
    entries: dict[str, Entry] = attrs.Factory(dict)  # file -> its latest entry
    count: int = 0  # entries, superseded ones included
    ended: bool = False  # the last line is the end of every entry
    replaced: dict[str, int] = attrs.Factory(dict)  # file -> entries of it superseded
    problems: list[tuple[int, str]] = attrs.Factory(list)

    @property
    def intact(self) -> bool:
        return not self.problems and self.signer is not None


def _split_sig(text: str) -> tuple[str, bytes | None]:
    body, _, last = text.rpartition(" ")
    if not last.startswith("sig="):
        return text, None
    try:
        sig = bytes.fromhex(last[4:])
    except ValueError:
        return body, None
    return body, sig if len(sig) == 64 else None


def check_manifest(path: str | os.PathLike[str]) -> ManifestCheck:
    """Read and verify a manifest against its own signer (trust is the caller's call)."""
    name = os.fspath(path)
    result = ManifestCheck(name)
    try:
        fh = open_plain_file(path)
    except OSError as exc:
        result.problems.append((0, f"cannot read the manifest: {exc.strerror}"))
        return result
    with fh:
        _check_lines(fh, result)
    return result


def _check_lines(fh: IO[bytes], result: ManifestCheck) -> None:
    last_kind = ""
    for number, raw in enumerate(iter(lambda: fh.readline(MAX_MANIFEST_LINE + 1), b""), 1):
        if len(raw) > MAX_MANIFEST_LINE:
            result.problems.append((number, f"line longer than {MAX_MANIFEST_LINE} bytes"))
            return
        try:
            text = raw.decode("utf-8").strip(" \t\r\n")
        except UnicodeDecodeError:
            result.problems.append((number, "not UTF-8"))
            return
        if not text:
            continue
        body, sig = _split_sig(text)
        words = body.split(" ")
        f = fields_of(words[1:])
        if number == 1:
            if words[0] != "manifest" or len(words) < 2 or words[1] != MANIFEST_VERSION:
                result.problems.append((1, "not a manifest: expected 'manifest 1 match=... "
                                           "signer=...'"))
                return
            try:
                result.signer = parse_public(f.get("signer", ""))
            except KeyFileError as exc:
                result.problems.append((1, f"bad signer: {exc}"))
                return
            result.match_id = f.get("match", "")
        elif words[0] not in ("game", "end"):
            result.problems.append((number, f"expected a game or end line, not {words[0][:20]!r}"))
            continue
        assert result.signer is not None and result.match_id is not None
        if sig is None or not result.signer.verify(sig, manifest_message(result.match_id, body)):
            result.problems.append((number, "signature does not hold: the line was changed, "
                                            "moved from another match, or not written by the "
                                            "manifest's signer"))
            last_kind = "bad"
            continue
        last_kind = words[0]
        if words[0] == "game":
            _entry(number, f, result)
        elif words[0] == "end" and f.get("entries") != str(result.count):
            result.problems.append((number, f"end says entries={f.get('entries')} but "
                                            f"{result.count} precede it"))
    result.ended = last_kind == "end"
    if result.signer is None and not result.problems:
        result.problems.append((0, "empty manifest"))


def _entry(number: int, f: dict[str, str], result: ManifestCheck) -> None:
    n, events, head = f.get("n", ""), f.get("events", ""), f.get("head", "")
    if n != str(result.count + 1):
        result.problems.append((number, f"entry n={n}, expected n={result.count + 1}: an "
                                        "entry before it was removed or moved"))
    result.count += 1
    if not events.isdigit() or not is_hash(head) or not f.get("file"):
        result.problems.append((number, "expected game n=N file=F id=I events=N head=H"))
        return
    if f["file"] in result.entries:
        result.replaced[f["file"]] = result.replaced.get(f["file"], 0) + 1
    result.entries[f["file"]] = Entry(number, result.count, f["file"], f.get("id", ""),
                                      int(events), head)


class ManifestWriter:
    """Appends signed lines, each flushed to disk, safe to call from many threads."""

    def __init__(self, path: str | os.PathLike[str], signer: Signer) -> None:
        self.path = Path(path)
        self.signer = signer
        self._lock = threading.Lock()
        if self.path.exists():
            found = check_manifest(self.path)
            if found.signer is None:
                raise ManifestError(f"{self.path}: {found.problems[0][1]}")
            if found.signer != signer.public:
                raise ManifestError(
                    f"{self.path} is signed by {found.signer.fingerprint}, not by this key "
                    f"({signer.public.fingerprint}): continue with the key that started it")
            self.check = found
            self.match_id = found.match_id or ""
            self.count = found.count
            self._fh: IO[str] = open(self.path, "a", encoding="utf-8", newline="\n")
        else:
            self.match_id = secrets.token_hex(16)
            self.count = 0
            self.check = ManifestCheck(str(self.path), self.match_id, signer.public)
            self._fh = open(self.path, "x", encoding="utf-8", newline="\n")
            self._line(f"manifest {MANIFEST_VERSION} match={self.match_id} "
                       f"signer={signer.public.text}")

    def _line(self, body: str) -> None:
        sig = self.signer.sign(manifest_message(self.match_id, body)).hex()
        self._fh.write(f"{body} sig={sig}\n")
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def add(self, file: str, record_id: str, events: int, head: str) -> None:
        with self._lock:
            self.count += 1
            self._line(f"game n={self.count} file={file} id={record_id} events={events} "
                       f"head={head}")

    def end(self) -> None:
        with self._lock:
            self._line(f"end entries={self.count}")

    def close(self) -> None:
        self._fh.close()


def compare(check: ManifestCheck, heads: Iterable[tuple[str, str | None]]
            ) -> list[tuple[int, str]]:
    """Problems between a manifest and the records found: (file relative to the match, head).

    A record without an entry was added, an entry without a record was deleted, a head
    that differs was replaced (or its record no longer audits clean: head None).
    """
    problems = []
    seen = set()
    for name, head in heads:
        seen.add(name)
        entry = check.entries.get(name)
        file = escape(name, 200)  # the attacker's text: never raw on a terminal
        if entry is None:
            problems.append((0, f"{file}: not in the manifest: a game was added"))
        elif head is None:
            problems.append((entry.line, f"{file}: its chain does not hold, so it cannot be "
                                         "the game the manifest lists"))
        elif head != entry.head:
            problems.append((entry.line, f"{file}: head {head[:16]}... differs from the "
                                         f"manifest's {entry.head[:16]}...: the game was "
                                         "replaced"))
    for name, entry in sorted(check.entries.items()):
        if name not in seen:
            problems.append((entry.line, f"{escape(name, 200)}: listed in the manifest but "
                                         "missing: a game was deleted"))
    if not check.ended and not check.problems:
        problems.append((0, "no end line after the last entry: the match did not finish, or "
                            "its last entries (and games) were cut"))
    return problems
