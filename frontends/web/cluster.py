"""Several ``xactika web`` processes behind one proxy, on one database (spec/WEB.md,
"Past one process"): each lists the others' lobby tables beside its own.

A table lives in one process (its seats, its bots, its clock are that process's memory);
each process numbers its tables K mod N (``--shard K/N``, Server.shard), so numbers never
collide and the proxy sends a table's pages, requests and WebSocket (``/ws?table=N``) to
the process that holds it. What is shared goes through the database: the daily deal
(frontends/daily), and here the lobby's list: every :data:`PUBLISH` seconds a process
writes what ``/api/tables`` shows of its own tables (``WebHosted.public``: never a token)
and reads the others' that are fresh.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from collections.abc import Callable
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from xactika.frontends.arena.store import METADATA

log = logging.getLogger(__name__)

PUBLISH = 2.0  # seconds between two writes of a process's tables
STALE = 15.0  # seconds after which a process's rows are no longer listed (it is gone)

web_tables = sa.Table(
    "web_tables", METADATA,
    sa.Column("number", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("process", sa.String(64), nullable=False),
    sa.Column("public", sa.Text, nullable=False),  # JSON: the lobby's entry
    sa.Column("updated", sa.Float, nullable=False))


class Cluster:
    """This process's place among the web processes on one database."""

    def __init__(self, engine: Engine, clock: Callable[[], float] = time.time) -> None:
        self.engine = engine
        self.process = secrets.token_hex(8)
        self.clock = clock
        self.wake = asyncio.Event()  # a table made or changed: publish now

    def publish(self, tables: list[dict[str, Any]]) -> None:
        """This process's tables as they are now, in place of what it wrote before."""
        now = self.clock()
        with self.engine.begin() as conn:
            conn.execute(web_tables.delete().where(web_tables.c.process == self.process))
            mine = {t["id"] for t in tables}
            if mine:  # a number once another's (a process gone, its rows stale) is ours now
                conn.execute(web_tables.delete().where(web_tables.c.number.in_(mine)))
                conn.execute(web_tables.insert(), [
                    {"number": t["id"], "process": self.process, "public": json.dumps(t),
                     "updated": now} for t in tables])

    def others(self) -> list[dict[str, Any]]:
        """The other processes' tables, from those that published lately."""
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(web_tables.c.public).where(
                web_tables.c.process != self.process,
                web_tables.c.updated > self.clock() - STALE)
                .order_by(web_tables.c.number)).all()
        return [json.loads(r.public) for r in rows]

    async def run(self, listed: Callable[[], list[dict[str, Any]]]) -> None:
        """Publish ``listed()`` every :data:`PUBLISH` seconds (sooner when woken) until
        cancelled; a database that fails is logged and tried again."""
        while True:
            try:
                await asyncio.to_thread(self.publish, listed())
            except sa.exc.SQLAlchemyError as exc:
                log.warning("cannot publish this process's tables: %s", exc)
            self.wake.clear()
            try:
                await asyncio.wait_for(self.wake.wait(), PUBLISH)
            except TimeoutError:
                pass

    def leave(self) -> None:
        with self.engine.begin() as conn:
            conn.execute(web_tables.delete().where(web_tables.c.process == self.process))
