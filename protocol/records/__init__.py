"""Records: the text and JSONL forms of a game's log, and files read without trust."""
