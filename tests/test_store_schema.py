"""The tables the code writes are the tables the migrations make, on both databases.

The SQLAlchemy tables (arena, accounts, daily, the web's cluster) and the Alembic chain are
written by hand side by side; a column added to one and not the other would work on a
fresh test database made from the metadata and fail on a migrated one, or the reverse.
"""

from __future__ import annotations

from pathlib import Path

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

import xactika.frontends.accounts.store
import xactika.frontends.daily.store
import xactika.frontends.web.cluster  # noqa: F401  (their tables join METADATA)
from xactika.frontends.arena import store
from xactika.frontends.arena.store import METADATA


def test_the_migrated_schema_is_the_code_s(arena_db: str | None, tmp_path: Path) -> None:
    url = arena_db or store.sqlite_url(tmp_path)
    engine = store.open_store(url)
    try:
        with engine.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(conn), METADATA)
        # alembic's own bookkeeping table is not ours
        diff = [d for d in diff if not (d[0] == "remove_table" and d[1].name == "alembic_version")]
        assert diff == []
        assert len(METADATA.tables) == 16  # every store's tables were compared
    finally:
        engine.dispose()
