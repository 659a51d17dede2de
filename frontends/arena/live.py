"""Watching a seating live (spec/ARENA.md, "Watching live"): the rule, the file, its reader.

A set is one deal in every seat rotation, played one after another. A seating watched
while another of the same deal is still to be played tells that deal to whoever plays
it, if they can be told anything: the author of a remote entrant, whose program runs on
the author's machine, or of a program outside the sandbox (it has the network). So a
seating may be watched only when every entrant of its set is run by the arena (a
built-in, or a program in the sandbox), or when it is the set's last (:func:`closed`).

The worker (play.py) appends a watchable seating's events to ``live/SET.txt`` in the
arena's folder as a spectator of the table server is told them (``seat_event`` as the
seat ``PUBLIC``: no hand, no seed), a line each, never fsynced (nothing acknowledged
depends on it) and flushed so that the page (which asks every second) is at most a
move or :data:`FLUSH_S` behind: each move where the moves are slow, which is when the
page would wait for the next, every FLUSH_S where they are fast (a write a move costs
the arena 5% of its games on random bots). A seating's first line names the run and
the seating, so the web (which reads the folder, as it reads the records) shows it only
while the database says that run holds the set's lease.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

import attrs

from xactika.core.engine.api import Event, game_rules
from xactika.frontends.arena.store import remote_key
from xactika.frontends.i18n import N_
from xactika.frontends.match.game import seat_event
from xactika.protocol.net.link import PUBLIC
from xactika.protocol.notation.text import format_event

LIVE_DIR = "live"  # in the arena's folder
MAX_LIVE_BYTES = 4 << 20  # a seating's file; a longer one is not read
FLUSH_S = 0.2  # a fast game's lines reach the file at most this late
SLOW_S = 0.02  # a move after a pause this long: the game is slow, each move flushed
HEAD = "live"

REMOTE = N_("an entrant of this set plays on its author's machine: the watch opens at "
            "the set's last seating")
UNSANDBOXED = N_("a program of this set plays outside the sandbox: the watch opens at "
                 "the set's last seating")
WAITING = N_("no seating of this set is on show yet")


def live_path(folder: Path, set_id: int) -> Path:
    return folder / LIVE_DIR / f"{int(set_id)}.txt"


def closed(cmds: Sequence[Any], rotation: int, rotations: int,
           sandboxed: bool | None) -> str | None:
    """Why seating ``rotation`` (0-based) of a set whose entrants have these commands
    (the entrants' ``cmd``) may not be watched live; None when it may. ``sandboxed``:
    whether the run starts programs in the sandbox (None: not known, so not)."""
    if rotation >= rotations - 1:
        return None  # no seating of the deal remains: nobody can learn from it
    if any(remote_key(c) is not None for c in cmds):
        return REMOTE
    if not sandboxed and any(isinstance(c, list) for c in cmds):
        return UNSANDBOXED
    return None


class LiveFile:
    """One seating's public events, a line each, as :class:`GamePlayer` ``watch``."""

    def __init__(self, path: Path, run_id: str, rotation: int, game: str,
                 sandboxed: bool) -> None:
        path.parent.mkdir(mode=0o700, exist_ok=True)
        self.path = path
        self.rules = game_rules(game)
        # appended to, never truncated: on ext4 a truncation costs a write-out (5 ms
        # here), an appended seating 26 us; the reader takes the last seating's lines
        self._fh: IO[str] = open(path, "a", encoding="utf-8")
        self._fh.write(f"{HEAD} run={run_id} rotation={rotation} "
                       f"sandboxed={int(sandboxed)}\n")
        self._write, self._flush = self._fh.write, self._fh.flush
        self._due = self._told = 0.0  # the next flush at the latest; the last move told

    def __call__(self, events: Sequence[Event], lines: Sequence[str | None]) -> None:
        """A public event's line is the one the bots were sent; another is formatted
        as the spectator's seat sees it (no hand; game-over without the seed)."""
        if len(lines) == 1 and lines[0] is not None:  # a move: its line, made already
            self._write(lines[0] + "\n")
        else:
            rules = self.rules
            self._write("".join(
                (text if text is not None else format_event(seat_event(e, PUBLIC), rules))
                + "\n" for e, text in zip(events, lines, strict=True)))
        now = time.monotonic()
        # a slow game's every move at once (a write is nothing beside its thinking); a
        # fast one's moves every FLUSH_S (a write a move would slow the arena by 5%)
        if now >= self._due or now - self._told >= SLOW_S:
            self._flush()
            self._due = now + FLUSH_S
        self._told = now

    def close(self) -> None:
        self._fh.close()


def remove(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass


@attrs.frozen
class Seating:
    """A live file as read: whose run wrote it, which seating, its complete lines."""

    run: str
    rotation: int
    sandboxed: bool
    lines: tuple[str, ...]


def read_live(path: Path) -> Seating | None:
    """The live file at ``path``, None where there is none (or none of ours: a link, a
    file too long, a first line not this module's)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as fh:
        data = fh.read(MAX_LIVE_BYTES + 1)
    if len(data) > MAX_LIVE_BYTES:
        return None
    text = data.decode("utf-8", "replace")
    lines = text.split("\n")[:-1]  # only complete lines: the last may be being written
    starts = [i for i, line in enumerate(lines) if line.startswith(HEAD + " ")]
    if not starts:
        return None
    lines = lines[starts[-1]:]  # the last seating written
    words = lines[0].split()
    fields = dict(w.partition("=")[::2] for w in words[1:])
    if words[:1] != [HEAD] or not fields.get("rotation", "").isdigit() \
            or "run" not in fields:
        return None
    return Seating(fields["run"], int(fields["rotation"]), fields.get("sandboxed") == "1",
                   tuple(lines[1:]))
