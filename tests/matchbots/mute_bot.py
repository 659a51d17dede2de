#!/usr/bin/env python3
"""A bot that starts but never says a word: the runner's start-up limit must catch it."""

import sys

for _line in sys.stdin:
    pass
