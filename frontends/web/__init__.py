"""``xactika web``: the live table, lobby and chat (spec/WEB.md), and the replay and match
viewers (viewer.py), in the browser."""
