"""A site folder's database: accounts, sessions, ratings and rated tables.

The tables join the arena's (frontends/arena/store.py) in one SQLAlchemy MetaData and one
Alembic chain (migrations 0002, 0005 for passkeys), so SQLite (WAL) and PostgreSQL run the
same statements and two web processes on one PostgreSQL share them. A site folder is not an
arena folder: an arena is a bot ladder with a key and a database of its own, and a site
may have people and no arena (spec/WEB.md, "Accounts").

    DIR/site.json   the database URL (null: SQLite in DIR)
    DIR/site.db     the SQLite database
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from xactika.core.engine.errors import XactikaError
from xactika.frontends.arena import store
from xactika.frontends.arena.store import METADATA

accounts = sa.Table(
    "accounts", METADATA,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("name", sa.String(40), nullable=False),  # as shown at a table
    sa.Column("key", sa.String(160), nullable=False, unique=True),  # wire.name_key
    sa.Column("hash", sa.Text, nullable=False),  # Argon2id, parameters inside
    sa.Column("disabled", sa.Boolean, nullable=False),
    sa.Column("created", sa.Float, nullable=False))

sessions = sa.Table(
    "sessions", METADATA,
    sa.Column("id", sa.String(64), primary_key=True),  # sha256 of the cookie's value
    sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False,
              index=True),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("expires", sa.Float, nullable=False))

rated_games = sa.Table(
    "rated_games", METADATA,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("record", sa.Text, nullable=False, unique=True),  # relative to --out
    sa.Column("game", sa.String(40), nullable=False),
    sa.Column("mode", sa.String(40), nullable=False),
    sa.Column("seats", sa.Text, nullable=False),  # JSON: account id or bot name by seat
    sa.Column("result", sa.Text, nullable=False),  # JSON: places by seat, forfeits
    sa.Column("finished", sa.Float, nullable=False),
    sa.Column("applied", sa.Boolean, nullable=False))

ratings = sa.Table(
    "ratings", METADATA,
    sa.Column("player", sa.String(80), primary_key=True),  # "a:ID" an account, "b:NAME" a bot
    sa.Column("game", sa.String(40), primary_key=True),
    sa.Column("mode", sa.String(40), primary_key=True),
    sa.Column("rating", sa.Float, nullable=False),
    sa.Column("rd", sa.Float, nullable=False),
    sa.Column("vol", sa.Float, nullable=False),
    sa.Column("games", sa.Integer, nullable=False),
    sa.Column("updated", sa.Float, nullable=False))

rating_history = sa.Table(
    "rating_history", METADATA,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("player", sa.String(80), nullable=False, index=True),
    sa.Column("rated_game_id", sa.Integer, sa.ForeignKey("rated_games.id"), nullable=False),
    sa.Column("game", sa.String(40), nullable=False),
    sa.Column("mode", sa.String(40), nullable=False),
    sa.Column("rating", sa.Float, nullable=False),
    sa.Column("rd", sa.Float, nullable=False),
    sa.Column("vol", sa.Float, nullable=False),
    sa.Column("place", sa.Integer, nullable=False),
    sa.UniqueConstraint("player", "rated_game_id", name="one_entry_per_game"))

passkeys = sa.Table(
    "passkeys", METADATA,
    sa.Column("id", sa.String(700), primary_key=True),  # the credential id, base64url
    sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False,
              index=True),
    sa.Column("public_key", sa.LargeBinary, nullable=False),  # COSE, as registered
    sa.Column("sign_count", sa.Integer, nullable=False),  # the last the authenticator said
    sa.Column("created", sa.Float, nullable=False))

passkey_challenges = sa.Table(
    "passkey_challenges", METADATA,
    # sha256 of what it is bound to (a session's cookie, or a login's own cookie) and why
    sa.Column("binding", sa.String(80), primary_key=True),
    sa.Column("challenge", sa.String(100), nullable=False),  # base64url, used once
    sa.Column("expires", sa.Float, nullable=False))

SITE_FILE = "site.json"
DB_FILE = "site.db"


class SiteError(XactikaError):
    """A site folder that cannot be made or opened; one line saying why."""


class Site:
    """An open site folder: its database, migrated on open."""

    def __init__(self, folder: Path, engine: Engine, url: str) -> None:
        self.folder = folder
        self.engine = engine
        self.url = url

    @classmethod
    def open(cls, folder: str | os.PathLike[str], db: str | None = None,
             create: bool = False) -> Site:
        """Open DIR; with ``create``, make it first where it holds no site (``db``: its
        database URL, SQLite in DIR when None). A ``db`` given for an existing site must
        be the one it has."""
        path = Path(folder)
        settings_file = path / SITE_FILE
        if not settings_file.exists():
            if not create:
                raise SiteError(f"{path} is not a site folder: 'xactika web --site {path}' "
                                "makes one")
            if path.exists() and any(path.iterdir()):
                raise SiteError(f"{path} is not empty: a site needs a folder of its own")
            path.mkdir(parents=True, exist_ok=True, mode=0o700)
            os.chmod(path, 0o700)
            url = store.normal_url(db) if db else None
            fd = os.open(settings_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({"version": 1, "db": url}, fh)
                fh.write("\n")
        try:
            settings = json.loads(settings_file.read_text(encoding="utf-8"))
            kept = settings.get("db")
        except (OSError, ValueError, AttributeError) as exc:
            raise SiteError(f"cannot read {settings_file}: {exc}") from None
        if db and store.normal_url(db) != kept:
            raise SiteError(f"{path} keeps its accounts in another database than "
                            f"{store.safe_url(db)}")
        url = kept or f"sqlite:///{(path / DB_FILE).resolve()}"
        return cls(path, store.open_store(url), url)

    def close(self) -> None:
        self.engine.dispose()
