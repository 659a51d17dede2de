"""Tamper evidence for records: a hash chain over the lines and a commitment to the seed.

spec/TAMPER.md is the normative text; this module is its reference implementation.
The chain makes any edit, deletion, insertion or reordering of a record's lines show up
at the first line it touches. The commitment lets every seat check, once the game is
over, that the deals came from a seed fixed before the first card, without any seat
learning that seed while it could still use it.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable

import attrs

from xactika.core.engine.api import Config
from xactika.protocol.notation.text import CHAIN_PREFIX

CHAIN_DOMAIN = b"xactika-chain/1\n"
COMMIT_DOMAIN = "xactika-commit/1"
HASH_HEX = 64  # SHA-256, lower-case hex
NONCE_BYTES = 16  # 128 bits: nobody can search the nonce to open the commitment early
MIN_NONCE_HEX = 2 * NONCE_BYTES


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


def sign_lines(lines: Iterable[str]) -> list[str]:
    """Record lines (no newlines) with ``h=`` appended to each event line.

    Header lines feed the chain's start; blank and comment lines are kept but not
    chained; an event line's existing hash token is replaced.
    """
    chain = Chain()
    out = []
    for line in lines:
        text = line.strip()
        word = text.split(None, 1)[0] if text else ""
        if word == "header":
            chain.header(text)
            out.append(text)
        elif word == "event":
            body, _ = split_hash(text)
            out.append(f"{body} {CHAIN_PREFIX}{chain.link(body)}")
        else:
            out.append(line)
    return out


def sign_record(text: str) -> str:
    """A record's text with every event line signed."""
    return "".join(line + "\n" for line in sign_lines(text.splitlines()))


def is_hash(text: str) -> bool:
    return len(text) == HASH_HEX and all(c in "0123456789abcdef" for c in text)


# --------------------------------------------------------------------------- seed commitment


def commitment(game: str, seed: int, nonce: str) -> str:
    """``SHA-256("xactika-commit/1\\n<game>\\n<seed>\\n<nonce>\\n")`` in lower-case hex."""
    text = f"{COMMIT_DOMAIN}\n{game}\n{seed}\n{nonce}\n"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def new_nonce() -> str:
    return secrets.token_hex(NONCE_BYTES)


def commit_config(config: Config, nonce: str | None = None) -> Config:
    """The settings with a fresh secret nonce and the commitment to seed and nonce.

    Only seeded games commit; preset deals are chosen openly and are returned as given.
    """
    if config.seed is None:
        return config
    nonce = nonce if nonce is not None else new_nonce()
    return attrs.evolve(config, nonce=nonce, commit=commitment(config.game, config.seed, nonce))


def commitment_problem(config: Config) -> str | None:
    """Why a game-started's commitment does not hold, or None when it does (or is absent)."""
    if config.commit is None and config.nonce is None:
        return None
    if config.commit is None:
        return "game-started has a nonce= but no commit="
    if not is_hash(config.commit):
        return f"commit= must be {HASH_HEX} lower-case hex digits (SHA-256)"
    if config.seed is None:
        return "game-started commits to a seed but has no seed="
    if config.nonce is None:
        return "game-started has commit= but no nonce= to open it"
    if len(config.nonce) < MIN_NONCE_HEX:
        return (f"nonce= has {len(config.nonce)} hex digits: at least {MIN_NONCE_HEX} "
                "(128 bits) are needed, or the seed can be found by search")
    if commitment(config.game, config.seed, config.nonce) != config.commit:
        return "commit= is not SHA-256 of the game, seed and nonce: the seed was changed"
    return None
