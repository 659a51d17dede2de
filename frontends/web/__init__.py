"""The web front end: the live table, and the replay and match viewers (viewer.py)."""
