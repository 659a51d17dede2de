"""Alembic's entry: migrate the connection the arena hands over (store.migrate)."""

from __future__ import annotations

from alembic import context

from xactika.frontends.arena.store import METADATA

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=METADATA,
                  render_as_batch=connection.dialect.name == "sqlite")
with context.begin_transaction():
    context.run_migrations()
