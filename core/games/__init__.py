"""The games: each one module, on the shared machinery of core.table."""
