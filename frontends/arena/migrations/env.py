"""Alembic's entry: migrate the connection the arena hands over (store.migrate).

Alembic runs this file itself; imported any other way (a wheel check walking every
module) it does nothing.
"""

from __future__ import annotations

from alembic import context

from xactika.frontends.arena.store import METADATA


def run_migrations() -> None:
    connection = context.config.attributes["connection"]
    context.configure(connection=connection, target_metadata=METADATA,
                      render_as_batch=connection.dialect.name == "sqlite")
    with context.begin_transaction():
        context.run_migrations()


if hasattr(context, "config"):  # only while Alembic runs it
    run_migrations()
