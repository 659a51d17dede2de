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
from xactika.protocol.records.seal import CHAIN_DOMAIN as CHAIN_DOMAIN
from xactika.protocol.records.seal import Chain as Chain
from xactika.protocol.records.seal import split_hash as split_hash

COMMIT_DOMAIN = "xactika-commit/1"
HASH_HEX = 64  # SHA-256, lower-case hex
NONCE_BYTES = 16  # 128 bits: nobody can search the nonce to open the commitment early
MIN_NONCE_HEX = 2 * NONCE_BYTES


# --------------------------------------------------------------------------- hash chain
# The chain is the record's format (protocol/records/seal.py); named here too, with the
# rest of tamper evidence.


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
