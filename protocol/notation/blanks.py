"""Words of a line: separated by ASCII spaces and tabs, and nothing else.

Python's ``str.split()`` and ``str.splitlines()`` also take NBSP, U+3000, U+2028, U+0085
and control characters for blanks or line breaks, so ``quit\u2028`` read as ``quit``
(issue 40). Every reader of our lines splits them here. Standard library only: the lean
random bot (protocol/player/lean.py) reads its lines with it before the core is loaded.
"""

from __future__ import annotations

import re

_BLANK_RUN = re.compile(r"[ \t]+")
BLANKS = " \t\r\n"  # the only characters a line may be padded with; str.strip() eats more


def split_blanks(text: str, maxsplit: int = 0) -> list[str]:
    """Words separated by runs of ASCII spaces and tabs only, as the protocol defines them.

    ``str.split()`` would also split on NBSP, U+3000, U+2028 and control characters,
    letting such characters pass unseen as separators. Like ``re.split``, a ``maxsplit``
    keeps the rest of the line, inner blanks included, as the last word.
    """
    text = text.strip(BLANKS)
    if not text:
        return []
    if "\t" not in text:  # the common case, without the regular expression (hot path)
        if maxsplit == 0:
            return [word for word in text.split(" ") if word]
        if maxsplit == 1:
            word, _, rest = text.partition(" ")
            return [word, rest.lstrip(" ")] if rest else [word]
    return _BLANK_RUN.split(text, maxsplit)
