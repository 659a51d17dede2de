"""Thin programs over the core and protocol: the CLI, REPL, replay, audit, matches."""
