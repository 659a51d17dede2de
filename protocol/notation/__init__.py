"""Notation: one event as a text line, and outside text made safe to show."""
