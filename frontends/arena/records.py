"""A ladder's signed records: written before the database hears of them, read back alone.

Every game's record is signed with the arena's key, pinned in the ladder's manifest
(shared by every ``arena run`` on this folder under a file lock) and renamed into
``games/`` under a name made of the game's scheduled id, so a game played again after a
kill takes no other game's name. ``arena ratings --from-records`` reads only these.
"""

from __future__ import annotations

import fcntl
import json
import os
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from xactika.frontends.arena.folder import LADDER_FILE, LADDERS, ArenaError
from xactika.frontends.arena.standings import Counted, LadderInfo
from xactika.frontends.match.game import RunnerCost
from xactika.frontends.match.tournament import GameResult, GameSpec, MatchError, result_from_record
from xactika.protocol.records.assemble import RecordFacts, record_headers
from xactika.protocol.records.textform import RecordError, format_record, read_record
from xactika.protocol.records.writing import write_record_file
from xactika.protocol.trust.audit import OK, VERIFIED
from xactika.protocol.trust.fastaudit import audit_path
from xactika.protocol.trust.manifest import MANIFEST_FILE, ManifestWriter, check_manifest
from xactika.protocol.trust.signing import PublicKey, Signer, parse_sig_line

if TYPE_CHECKING:
    from xactika.frontends.match.game import Played

LOCK_FILE = ".manifest.lock"


class LadderLog:
    """The records and manifest of one ladder, safe for threads and for processes."""

    def __init__(self, folder: Path, signer: Signer) -> None:
        self.folder = folder
        self.signer = signer
        self.manifest_path = folder / MANIFEST_FILE
        self.match_id = check_manifest(self.manifest_path).match_id or ""
        self._lock = threading.Lock()
        self._writer: ManifestWriter | None = None
        self._size = -1
        (folder / "games").mkdir(parents=True, exist_ok=True)

    def path(self, game: GameSpec) -> Path:
        return self.folder / "games" / f"{game.id}.log"

    def _locked_writer(self) -> ManifestWriter:
        """The manifest's writer, re-read when another process appended to it."""
        size = os.path.getsize(self.manifest_path)
        if self._writer is None or size != self._size:
            if self._writer is not None:
                self._writer.close()
            self._writer = ManifestWriter(self.manifest_path, self.signer)
        return self._writer

    def _append(self, line: str, *args: object) -> None:
        with self._lock, open(self.folder / LOCK_FILE, "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            writer = self._locked_writer()
            getattr(writer, line)(*args)
            self._size = os.path.getsize(self.manifest_path)

    def write(self, game: GameSpec, played: Played, seats: Sequence[str],
              headers: Sequence[tuple[str, str]]) -> Path:
        """Sign the record, fsync it, pin it in the manifest, then give it its name."""
        record_id = f"{self.match_id}/{game.id}"
        items = record_headers(RecordFacts(
            played.config, seats, event=f"arena {self.folder.name}", extra=headers,
            moves=played.moves, record_id=record_id), played.events)
        text = format_record(items, played.events, signer=self.signer, lines=played.lines)
        path = self.path(game)
        name = path.relative_to(self.folder).as_posix()

        def pin() -> None:
            sig = parse_sig_line(text.rstrip("\n").rpartition("\n")[2])
            self._append("add", name, record_id, sig.events, sig.head)

        write_record_file(path, text, before_rename=pin, replace=False)
        return path

    def end(self) -> None:
        """The end line: the run stopped, nothing it played is missing (TAMPER.md 7)."""
        self._append("end")

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()


def arena_headers(ladder: str, set_id: int, rotation: int, qualifying: bool,
                  house: Sequence[str], result: GameResult,
                  cost: RunnerCost | None = None) -> list[tuple[str, str]]:
    items = [("arena.ladder", ladder), ("arena.set", str(set_id)),
             ("match.deal", str(set_id)), ("match.rotation", str(rotation)),
             ("arena.qualifying", "yes" if qualifying else "no"),
             ("arena.house", ",".join(house)), ("termination", result.termination)]
    items += [("fault", f.header()) for f in result.faults]
    return items + ([("runner.cost", cost.header())] if cost is not None else [])


def read_game(path: Path, trusted: PublicKey) -> tuple[Counted, GameResult]:
    """A record's game, if it audits clean under the arena's key; ArenaError otherwise."""
    report = audit_path(str(path), strict=True, trusted={trusted})
    if report.status != OK or report.signature != VERIFIED:
        first = report.problems[0] if report.problems else None
        raise ArenaError(f"{path}: " + (f"line {first.line}: {first.reason}" if first
                                        else f"fails its audit ({report.status})"))
    try:
        record = read_record(path)
        seats = tuple((record.header("seats") or "").split(","))
        set_id = int(record.header("arena.set") or "")
        rotation = int(record.header("match.rotation") or "")
        spec = GameSpec(0, set_id, 0, rotation, tuple(range(len(seats))))
        result = result_from_record(record, spec)
    except (RecordError, MatchError, ValueError) as exc:
        raise ArenaError(f"{path}: not an arena game: {exc}") from None
    if path.stem != spec.id:
        raise ArenaError(f"{path}: the file of game {spec.id} under another name")
    house = frozenset(h for h in (record.header("arena.house") or "").split(",") if h)
    return Counted(record.header("arena.ladder") or "", set_id, rotation, seats,
                   record.header("arena.qualifying") == "yes", house, result.totals,
                   result.winners, result.hands, result.faults, result.low_wins), result


def ladder_infos(folder: Path) -> list[LadderInfo]:
    """The ladders of an arena folder, from their ladder.json files."""
    out = []
    for path in sorted((folder / LADDERS).glob(f"*/{LADDER_FILE}")):
        d = json.loads(path.read_text(encoding="utf-8"))
        out.append(LadderInfo(d["name"], d["game"], d["mode"], int(d["players"]),
                              int(d["rounds"])))
    return out


def all_games(folder: Path, trusted: PublicKey) -> Iterator[Counted]:
    """Every game recorded in the arena folder; a record that fails raises ArenaError."""
    for info in ladder_infos(folder):
        for path in sorted((folder / LADDERS / info.name / "games").glob("*.log")):
            game, _ = read_game(path, trusted)
            if game.ladder != info.name:
                raise ArenaError(f"{path}: a game of ladder {game.ladder!r} in {info.name!r}")
            yield game
