"""Programs on standard input and output: a built-in bot, the engine, selfplay."""
