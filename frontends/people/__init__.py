"""A game for people, with no terminal: the driver, its narration as values, the rules and
tutorial texts, and each game's presentation. The REPL lays it out for a terminal; a web
table can use it unchanged."""
