"""The terminal REPL: the table's driver laid out for a terminal, suggestions, its shell."""
