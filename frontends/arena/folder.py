"""An arena folder: its settings file, its key, its database and its ladders' records.

    DIR/arena.json        the database URL (SQLite in DIR when none was given)
    DIR/arena.key[.pub]   the key that signs every record and manifest
    DIR/arena.db          the SQLite database (WAL)
    DIR/ladders/NAME/     a match folder per ladder: ladder.json, manifest.txt, games/
"""

from __future__ import annotations

import json
import os
import re
import secrets
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from xactika.core.bots.agents import agent_names
from xactika.core.engine.api import Config, game_rules
from xactika.core.engine.errors import XactikaError
from xactika.frontends.arena import store
from xactika.frontends.arena.standings import Counted, LadderInfo
from xactika.frontends.match.tournament import (
    NAME,
    Fault,
    new_match_seed,
)
from xactika.protocol.net.link import token_key
from xactika.protocol.player import wire
from xactika.protocol.trust.manifest import MANIFEST_FILE, ManifestWriter
from xactika.protocol.trust.signing import Signer, load_signer, write_key

ARENA_FILE = "arena.json"
KEY_FILE = "arena.key"
LADDERS = "ladders"
LADDER_FILE = "ladder.json"
MAX_PER_OWNER = 8  # active entrants of one owner: no one floods the schedule
HOUSE = ("random", "heuristic", "strong:1", "strong:2", "strong:3")  # qualifying opponents
HOUSE_PREFIX = "house-"


class ArenaError(XactikaError):
    """Bad input to an arena command; one line saying why."""


def skeleton(name: str) -> str:
    """What a name looks like: case, width, separators and 0/o, 1/l/i folded together."""
    key = wire.name_key(name)
    return re.sub(r"[-_.+]", "", key.translate(str.maketrans("01i|", "olll")))


def house_name(agent: str) -> str:
    return HOUSE_PREFIX + agent.replace(":", "")


class Arena:
    """An open arena: its folder, signer and database (migrated on open)."""

    def __init__(self, folder: Path, engine: Engine, signer: Signer, url: str) -> None:
        self.folder = folder
        self.engine = engine
        self.signer = signer
        self.url = url

    # -- making and opening
    @classmethod
    def init(cls, folder: str | os.PathLike[str], db: str | None) -> Arena:
        path = Path(folder)
        if (path / ARENA_FILE).exists():
            raise ArenaError(f"{path} already holds an arena")
        if path.exists() and any(path.iterdir()):
            raise ArenaError(f"{path} is not empty: an arena needs a folder of its own")
        url = store.normal_url(db) if db else None
        engine = store.open_store(url) if url else None
        if engine is not None:
            with engine.connect() as conn:
                if conn.execute(sa.select(store.ladders.c.id).limit(1)).first() is not None:
                    engine.dispose()
                    raise ArenaError(f"{store.safe_url(url or '')} already holds an arena: "
                                     "give each arena a database of its own")
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(path, 0o700)  # the key, the seeds and the records are the arena's alone
        if engine is None:
            engine = store.open_store(store.sqlite_url(path))
        signer = write_key(path / KEY_FILE)
        fd = os.open(path / ARENA_FILE, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:  # a URL may hold a password
            json.dump({"version": 1, "db": url}, fh)
            fh.write("\n")
        (path / LADDERS).mkdir()
        return cls(path, engine, signer, url or store.sqlite_url(path))

    @classmethod
    def open(cls, folder: str | os.PathLike[str]) -> Arena:
        path = Path(folder)
        try:
            settings = json.loads((path / ARENA_FILE).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ArenaError(f"{path} is not an arena: make one with "
                             "'xactika arena init DIR'") from None
        except (OSError, ValueError) as exc:
            raise ArenaError(f"cannot read {path / ARENA_FILE}: {exc}") from None
        url = settings.get("db") or store.sqlite_url(path)
        signer = load_signer(path / KEY_FILE)
        return cls(path, store.open_store(url), signer, url)

    def close(self) -> None:
        self.engine.dispose()

    # -- ladders
    def ladder_dir(self, name: str) -> Path:
        return self.folder / LADDERS / name

    def add_ladder(self, name: str, game: str, mode: str | None, players: int | None,
                   rounds: int | None, options: dict[str, Any]) -> LadderInfo:
        check_name(name, "ladder")
        rules = game_rules(game)
        info = LadderInfo(name, game, mode or rules.default_mode,
                          players or rules.default_players, rounds or rules.default_rounds)
        rules.validate(Config(game=info.game, mode=info.mode, players=info.players,
                              rounds=info.rounds, seed=1, options=options))
        if info.players - 1 > len(HOUSE):
            raise ArenaError(f"{info.players} players: the house has {len(HOUSE)} bots to "
                             "qualify against")
        with self.engine.begin() as conn:
            if conn.execute(sa.select(store.ladders.c.id).where(
                    store.ladders.c.name == name)).first() is not None:
                raise ArenaError(f"a ladder named {name!r} exists")
            conn.execute(store.ladders.insert().values(
                name=name, game=info.game, mode=info.mode, players=info.players,
                rounds=info.rounds, options=json.dumps(options, sort_keys=True),
                seed=str(new_match_seed()), created=time.time()))
            for agent in HOUSE[:info.players - 1]:
                self._add_house(conn, agent)
        folder = self.ladder_dir(name)
        (folder / "games").mkdir(parents=True, exist_ok=True)
        (folder / LADDER_FILE).write_text(json.dumps(info.to_dict(), indent=2) + "\n",
                                          encoding="utf-8")
        if not (folder / MANIFEST_FILE).exists():
            ManifestWriter(folder / MANIFEST_FILE, self.signer).close()
        return info

    def _add_house(self, conn: sa.Connection, agent: str) -> None:
        name = house_name(agent)
        if conn.execute(sa.select(store.entrants.c.id).where(
                store.entrants.c.name == name)).first() is None:
            conn.execute(store.entrants.insert().values(
                name=name, skeleton=skeleton(name), owner=name,
                cmd=json.dumps({"builtin": agent}), dir=None, house=True,
                status="active", created=time.time()))

    def ladders(self) -> list[tuple[int, LadderInfo, int, dict[str, Any]]]:
        """(id, settings, seed, options) of every ladder, oldest first."""
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(store.ladders).order_by(store.ladders.c.id)).all()
        return [(r.id, LadderInfo(r.name, r.game, r.mode, r.players, r.rounds), int(r.seed),
                 json.loads(r.options)) for r in rows]

    # -- entrants
    def add_entrant(self, name: str, owner: str, cmd: Sequence[str] | None, cwd: str | None,
                    builtin: str | None = None, remote: bool = False) -> str | None:
        """An entrant: a program (``cmd``, run in the sandbox), a built-in bot, or a remote
        bot (``remote``): then its new token, returned once; the database keeps only the
        token's hash, so whoever reads the database cannot take the seat."""
        token = None
        check_name(name, "entrant")
        check_name(owner, "owner")
        if name.startswith(HOUSE_PREFIX) or owner.startswith(HOUSE_PREFIX):
            raise ArenaError(f"names starting {HOUSE_PREFIX!r} are the house bots'")
        if remote:
            if builtin is not None or cmd or cwd:
                raise ArenaError("a remote entrant runs on its owner's machine: give "
                                 "--remote alone, no --builtin, --dir or command")
            token = secrets.token_urlsafe(24)
            argv: Any = {"remote": token_key(token).hex()}
        elif builtin is not None:
            if builtin not in agent_names():
                raise ArenaError(f"no built-in bot {builtin!r}: expected one of "
                                 + ", ".join(agent_names()))
            argv = {"builtin": builtin}
        elif not cmd:
            raise ArenaError("no command: give it after '--', e.g. -- python3 mybot.py")
        else:
            from xactika.frontends.match.runner import missing_program
            from xactika.frontends.match.tournament import BotSpec

            problem = missing_program(BotSpec(name, tuple(cmd), cwd))
            if problem is not None:
                raise ArenaError(problem)
            argv = list(cmd)
        with self.engine.begin() as conn:
            e = store.entrants
            look = skeleton(name)
            for other, other_skel in conn.execute(sa.select(e.c.name, e.c.skeleton)):
                if other == name:
                    raise ArenaError(f"an entrant named {name!r} exists (retired names "
                                     "stay taken)")
                if other_skel == look:
                    raise ArenaError(f"{name!r} looks like the entrant {other!r}: choose a "
                                     "name no one can mistake for another")
            count = conn.execute(sa.select(sa.func.count()).select_from(e).where(
                e.c.owner == owner, e.c.status != "retired")).scalar_one()
            if count >= MAX_PER_OWNER:
                raise ArenaError(f"owner {owner!r} has {count} entrants, the most one owner "
                                 f"may have ({MAX_PER_OWNER}): retire one first")
            conn.execute(e.insert().values(
                name=name, skeleton=look, owner=owner, cmd=json.dumps(argv),
                dir=os.path.abspath(cwd) if cwd else None, house=False, status="active",
                created=time.time()))
        return token

    def set_status(self, name: str, status: str) -> None:
        """``active``, ``paused`` or ``retired``: a retired entrant stays retired."""
        with self.engine.begin() as conn:
            e = store.entrants
            row = conn.execute(sa.select(e.c.status, e.c.house).where(e.c.name == name)).first()
            if row is None:
                raise ArenaError(f"no entrant named {name!r}")
            if row.house:
                raise ArenaError(f"{name!r} is a house bot: the arena keeps it")
            if row.status == "retired":
                raise ArenaError(f"{name!r} is retired: a retired entrant stays retired")
            conn.execute(e.update().where(e.c.name == name).values(status=status))

    # -- results
    def counted(self) -> list[Counted]:
        """Every finished game in the database."""
        g, s, lad, e = store.games, store.sets, store.ladders, store.entrants
        with self.engine.connect() as conn:
            names = {r.id: (r.name, r.house) for r in conn.execute(
                sa.select(e.c.id, e.c.name, e.c.house))}
            rows = conn.execute(
                sa.select(g.c.set_id, g.c.rotation, g.c.seats, g.c.result, s.c.qualifying,
                          lad.c.name.label("ladder"))
                .join(s, s.c.id == g.c.set_id).join(lad, lad.c.id == s.c.ladder_id)).all()
        out = []
        for r in rows:
            ids = json.loads(r.seats)
            res = json.loads(r.result)
            seats = tuple(names[i][0] for i in ids)
            out.append(Counted(
                r.ladder, r.set_id, r.rotation, seats, bool(r.qualifying),
                frozenset(names[i][0] for i in ids if names[i][1]), tuple(res["totals"]),
                tuple(res["winners"]), int(res["hands"]),
                tuple(Fault(int(f[0]), f[1], f[2]) for f in res["faults"]),
                bool(res["low_wins"])))
        return out


def check_name(name: str, what: str) -> None:
    if not NAME.match(name):
        raise ArenaError(f"bad {what} name {name!r}: use 1-40 letters, digits and . _ + -")
