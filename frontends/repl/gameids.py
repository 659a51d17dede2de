"""Short game ids: ``xactika play --again k3m9qz`` instead of a command carrying a 39-digit
seed that wraps at 80 columns.

An id names the flags of one game (its settings, seats and the whole seed), kept in a
local store, ``$XDG_STATE_HOME/xactika/games/ID.json`` (``~/.local/state`` without it).
The seed itself never shrinks: records and ``save`` keep it whole; the id is only a
short way to type it again on this machine. The same flags give the same id.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Sequence
from pathlib import Path

# no 0/o, 1/l/i: an id is read off a screen and typed back
ALPHABET = "23456789abcdefghjkmnpqrstuvwxyz"
SIZE = 6  # 31**6: about 887 million ids; a clash makes the newer one longer
KEPT = 500  # the newest ids kept; older ones are forgotten
_ID = re.compile(f"[{ALPHABET}]{{{SIZE},32}}")


class GameIdError(ValueError):
    """A one-line reason an id names no game here."""


def state_dir() -> Path:
    """``$XDG_STATE_HOME/xactika`` (``~/.local/state/xactika``): this machine's history."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.join("~", ".local", "state")
    return Path(base).expanduser() / "xactika"


def store() -> Path:
    return state_dir() / "games"


def _spelled(digest: bytes, size: int) -> str:
    number = int.from_bytes(digest, "big")
    out = []
    for _ in range(size):
        number, digit = divmod(number, len(ALPHABET))
        out.append(ALPHABET[digit])
    return "".join(out)


def keep(flags: Sequence[str]) -> str:
    """The id of ``flags`` (``xactika play``'s, the seed among them), kept in the store."""
    text = json.dumps({"play": list(flags)}, ensure_ascii=False)
    digest = hashlib.sha256(text.encode()).digest()
    folder = store()
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    for size in range(SIZE, 33):
        game_id = _spelled(digest, size)
        path = folder / f"{game_id}.json"
        try:
            if path.read_text(encoding="utf-8") == text:
                return game_id
            continue  # another game has this id: a longer one
        except FileNotFoundError:
            pass
        partial = folder / f".{game_id}.{os.getpid()}.tmp"
        partial.write_text(text, encoding="utf-8")
        partial.replace(path)  # whole or absent, never half a file
        _forget_old(folder)
        return game_id
    raise GameIdError("no free game id")  # 27 clashes of 256-bit hashes: never


def _forget_old(folder: Path) -> None:
    kept = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
    for path in kept[KEPT:]:
        path.unlink(missing_ok=True)


def recall(game_id: str) -> list[str]:
    """The flags kept under ``game_id``, or :class:`GameIdError` saying why there are none."""
    wanted = game_id.strip().lower()
    if not _ID.fullmatch(wanted):
        raise GameIdError(f"bad game id {game_id[:40]!r}: {SIZE} or more letters and digits, "
                          "as the end of a game printed it")
    path = store() / f"{wanted}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise GameIdError(f"no game {wanted!r} kept here (ids are kept in {store()}); "
                          ) from None
    except (OSError, ValueError) as exc:
        raise GameIdError(f"game {wanted!r} cannot be read ({path}: {exc})") from None
    flags = data.get("play") if isinstance(data, dict) else None
    if not isinstance(flags, list) or not all(isinstance(f, str) for f in flags) or \
            "--again" in flags:
        raise GameIdError(f"game {wanted!r} cannot be read ({path}: not a kept game)")
    return flags


__all__ = ["GameIdError", "keep", "recall", "state_dir", "store"]
