"""The arena: a standing, rated ladder of bots on a database (spec/ARENA.md)."""
