"""What seals a record, in the record's own format: the hash chain over its lines and the
text of its last line, ``sig`` (spec/TAMPER.md).

Record files are written and read here (``textform``, ``jsonl``) with their chain and
sig line; what vouches for them, the key that signs and the auditor that checks, is
``protocol/trust``, which builds on this and on the rest of the records package. This
module uses no key: a ``sig`` line is made by the signer handed in (:class:`RecordSigner`,
:class:`xactika.protocol.trust.signing.Signer`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Protocol

import attrs

from xactika.protocol.notation.text import CHAIN_PREFIX

CHAIN_DOMAIN = b"xactika-chain/1\n"
SIG_WORD = "sig"
ID_HEADER = "id"


# --------------------------------------------------------------------------- hash chain


def split_hash(text: str) -> tuple[str, str | None]:
    """A stripped line -> (body, recorded hash or None).

    The body is the line without its final ``h=<hex>`` token and the spaces before it:
    exactly the bytes the chain hashes.
    """
    head, sep, last = text.rpartition(" ")
    if sep and last.startswith(CHAIN_PREFIX):
        return head.rstrip(), last[len(CHAIN_PREFIX) :]
    return text, None


class Chain:
    """The running hash: headers first, then one link per event line.

    ``h_0 = SHA-256("xactika-chain/1\\n" || each header line || "\\n")`` and
    ``h_n = SHA-256(h_{n-1} || body_n)``, raw 32-byte digests, bodies in UTF-8.
    """

    __slots__ = ("_head", "_last")

    def __init__(self) -> None:
        self._head = hashlib.sha256(CHAIN_DOMAIN)
        self._last: bytes | None = None

    def header(self, line: str) -> None:
        if self._last is not None:
            raise ValueError("a header after the first event line is not part of the chain")
        self._head.update(line.encode("utf-8") + b"\n")

    def link(self, body: str) -> str:
        """Chain one event line's body; returns its hash (hex) and moves on."""
        prev = self._last if self._last is not None else self._head.digest()
        self._last = hashlib.sha256(prev + body.encode("utf-8")).digest()
        return self._last.hex()

    def resume(self, recorded: str) -> None:
        """Continue from a recorded hash (after a break, to keep checking what follows)."""
        self._last = bytes.fromhex(recorded)

    @property
    def head(self) -> str:
        """The latest hash: publish it to pin the whole record (spec/TAMPER.md)."""
        return (self._last if self._last is not None else self._head.digest()).hex()


# --------------------------------------------------------------------------- the sig line


class RecordSigner(Protocol):
    """What signs a record as it is written: a key (``protocol/trust/signing.py``)."""

    def signed_headers(self, headers: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
        """The headers naming this key and the record's identity (``id``)."""
        ...

    def sig_line(self, record_id: str, events: int, head: str) -> str:
        """``sig events=N head=<hex> ed25519=<hex>`` for this record."""
        ...


@attrs.frozen
class SigLine:
    events: int
    head: str
    signature: bytes


def parse_sig_line(text: str) -> SigLine:
    """``sig events=N head=<64 hex> ed25519=<128 hex>``; ValueError saying what is wrong."""
    words = text.split()
    if not words or words[0] != SIG_WORD:
        raise ValueError("expected a sig line")
    fields = dict(w.partition("=")[::2] for w in words[1:])
    if sorted(fields) != ["ed25519", "events", "head"] or len(words) != 4:
        raise ValueError("expected sig events=<n> head=<64 hex> ed25519=<128 hex>")
    events, head, sig = fields["events"], fields["head"], fields["ed25519"]
    if not events.isdigit() or not _hex(head, 64) or not _hex(sig, 128):
        raise ValueError("expected sig events=<n> head=<64 hex> ed25519=<128 hex>")
    return SigLine(int(events), head, bytes.fromhex(sig))


def _hex(text: str, n: int) -> bool:
    return len(text) == n and all(c in "0123456789abcdef" for c in text)
