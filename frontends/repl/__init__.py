"""The terminal REPL: a pure session, rendering and suggestions, and its shell."""
