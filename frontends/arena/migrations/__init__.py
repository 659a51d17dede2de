"""The arena database's Alembic migrations, run on every start (spec/ARENA.md)."""
