"""The arena's database: SQLAlchemy Core tables, one engine per URL, migrated on start.

SQLite (WAL) in the arena folder by default, PostgreSQL where several hosts share an
arena; the same statements run on both (spec/ARENA.md, "The database"). The database
is a cache of the signed records: the games are committed only after their record is
on disk, and ``arena ratings --from-records`` recomputes everything without it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from xactika.core.engine.errors import XactikaError

METADATA = sa.MetaData()

meta = sa.Table(
    "meta", METADATA,
    sa.Column("key", sa.String(64), primary_key=True),
    sa.Column("value", sa.Text, nullable=False))

ladders = sa.Table(
    "ladders", METADATA,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("name", sa.String(40), nullable=False, unique=True),
    sa.Column("game", sa.String(40), nullable=False),
    sa.Column("mode", sa.String(40), nullable=False),
    sa.Column("players", sa.Integer, nullable=False),
    sa.Column("rounds", sa.Integer, nullable=False),
    sa.Column("options", sa.Text, nullable=False),  # JSON: the game's own settings
    sa.Column("seed", sa.Text, nullable=False),  # secret: every deal of the ladder's
    sa.Column("created", sa.Float, nullable=False))

entrants = sa.Table(
    "entrants", METADATA,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("name", sa.String(40), nullable=False, unique=True),
    sa.Column("skeleton", sa.String(40), nullable=False, unique=True),  # look-alikes
    sa.Column("owner", sa.String(40), nullable=False, index=True),
    sa.Column("cmd", sa.Text, nullable=False),  # JSON: the argv
    sa.Column("dir", sa.Text, nullable=True),
    sa.Column("house", sa.Boolean, nullable=False),  # a built-in bot for qualifying
    sa.Column("status", sa.String(16), nullable=False),  # active, paused, retired
    sa.Column("created", sa.Float, nullable=False))

sets = sa.Table(
    "sets", METADATA,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("ladder_id", sa.Integer, sa.ForeignKey("ladders.id"), nullable=False),
    sa.Column("lineup", sa.Text, nullable=False),  # JSON: entrant ids, rotation 0's seats
    sa.Column("qualifying", sa.Boolean, nullable=False),
    sa.Column("state", sa.String(16), nullable=False, index=True),  # open, claimed, done
    sa.Column("claimed_by", sa.String(120), nullable=True),  # a run's id
    sa.Column("lease_until", sa.Float, nullable=True),
    sa.Column("created", sa.Float, nullable=False))

games = sa.Table(
    "games", METADATA,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("set_id", sa.Integer, sa.ForeignKey("sets.id"), nullable=False),
    sa.Column("rotation", sa.Integer, nullable=False),
    sa.Column("seats", sa.Text, nullable=False),  # JSON: entrant ids by seat
    sa.Column("record", sa.Text, nullable=False),  # the record's path in the arena folder
    sa.Column("result", sa.Text, nullable=False),  # JSON: totals, winners, hands, faults
    sa.Column("finished", sa.Float, nullable=False),
    sa.UniqueConstraint("set_id", "rotation", name="one_game_per_rotation"))

runs = sa.Table(
    "runs", METADATA,
    sa.Column("id", sa.String(120), primary_key=True),
    sa.Column("host", sa.String(255), nullable=False),
    sa.Column("pid", sa.Integer, nullable=False),
    sa.Column("started", sa.Float, nullable=False),
    sa.Column("stopped", sa.Float, nullable=True))

DB_FILE = "arena.db"
SCHEMA_HEAD = "0005"  # the newest migration (migrations/versions/)


class StoreError(XactikaError):
    """The database cannot be reached or used; one line saying why."""


def remote_key(cmd: Any) -> str | None:
    """The token hash of a remote entrant's command (the entrants' ``cmd``, read from its
    JSON), None for any other entrant: a built-in is ``{"builtin": BOT}``, a program a list."""
    return cmd.get("remote") if isinstance(cmd, dict) else None


def sqlite_url(folder: str | os.PathLike[str]) -> str:
    return f"sqlite:///{Path(folder, DB_FILE).resolve()}"


def normal_url(url: str) -> str:
    """``postgresql://`` means psycopg 3 (the ``postgres`` extra), not psycopg2."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix):]
    return url


def connect(url: str) -> Engine:
    """An engine for ``url``; SQLite in WAL mode with writers serialised (BEGIN IMMEDIATE)."""
    url = normal_url(url)
    if not url.startswith(("sqlite:///", "postgresql+psycopg://")):
        raise StoreError(f"unsupported database {url.split(':', 1)[0]!r}: expected a "
                         "sqlite:/// path or postgresql://USER@HOST/DB")
    try:
        if url.startswith("sqlite"):
            engine = sa.create_engine(url, connect_args={"timeout": 60})
            _serialised_sqlite(engine)
        else:
            engine = sa.create_engine(url, pool_pre_ping=True)
    except (ImportError, sa.exc.ArgumentError) as exc:
        raise StoreError(f"cannot use {safe_url(url)}: {exc} (for PostgreSQL: pip install "
                         "'xactika[postgres]')") from None
    return engine


def _serialised_sqlite(engine: Engine) -> None:
    """WAL (readers never wait for the writer) and BEGIN IMMEDIATE: a claim is atomic."""

    @sa.event.listens_for(engine, "connect")
    def on_connect(dbapi: Any, record: Any) -> None:
        dbapi.isolation_level = None  # the driver's own BEGIN is off: ours below
        cur = dbapi.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=FULL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.close()

    @sa.event.listens_for(engine, "begin")
    def on_begin(conn: Connection) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE")


def safe_url(url: str) -> str:
    """The URL without its password, for messages."""
    try:
        return sa.engine.make_url(url).render_as_string(hide_password=True)
    except sa.exc.ArgumentError:
        return "the database"


def migrate(engine: Engine) -> None:
    """Bring the schema to the newest version (Alembic, migrations/), once at a time."""
    from alembic import command
    from alembic.config import Config as AlembicConfig

    cfg = AlembicConfig()
    cfg.set_main_option("script_location", str(Path(__file__).with_name("migrations")))
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":  # two runs starting at once migrate once
            conn.execute(sa.text("SELECT pg_advisory_xact_lock(4242424242)"))
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")


def schema_version(engine: Engine) -> str | None:
    with engine.connect() as conn:
        if not sa.inspect(conn).has_table("alembic_version"):
            return None
        return conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalar()


def open_store(url: str) -> Engine:
    """Connect and migrate; a database that cannot be reached is one StoreError line."""
    engine = connect(url)
    try:
        migrate(engine)
    except sa.exc.SQLAlchemyError as exc:
        engine.dispose()
        raise StoreError(said(exc, url)) from None
    return engine


def said(exc: BaseException, url: str) -> str:
    """One line for a database error: where, and the driver's first line."""
    orig = getattr(exc, "orig", None) or exc
    first = (str(orig).strip().splitlines() or [type(orig).__name__])[0]
    return f"database {safe_url(normal_url(url))}: {first}"
