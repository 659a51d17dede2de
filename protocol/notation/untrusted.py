"""Text from outside (a bot's output, a header value, a file name) made safe to show or store.

A bot is arbitrary code: whatever it writes may end up in a record's header, a results
table or a terminal. Control characters, NUL, ESC sequences and the Unicode line
separators (U+0085, U+2028, U+2029, and \\x1c-\\x1e, which ``str.splitlines`` also splits
on) would break line framing or drive the terminal, so every one of them is escaped.
"""

from __future__ import annotations

import unicodedata

# Line breaks that Python's str.splitlines() honours besides \n and \r.
_LINE_BREAKS = frozenset("\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")


def unsafe_char(ch: str) -> bool:
    """True for a character that may not appear raw in a line of ours."""
    if ch in _LINE_BREAKS:
        return True
    cat = unicodedata.category(ch)
    # Cc: C0/C1 controls (NUL, ESC, DEL...). Cf: format characters (bidi overrides, zero
    # width) that reorder or hide text on a terminal. Cs/Co/Cn: surrogates, private use and
    # unassigned, which a terminal cannot show faithfully.
    return cat in ("Cc", "Cf", "Cs", "Co", "Cn") or cat in ("Zl", "Zp")


def escape(text: str, limit: int | None = None) -> str:
    """One printable line: unsafe characters as \\xNN / \\uNNNN, optionally clipped.

    The backslash itself is escaped too, so the result maps back to one input only.
    """
    if text.isascii() and text.isprintable() and "\\" not in text:  # most text: as it is
        return text if limit is None or len(text) <= limit else text[:limit] + "..."
    out: list[str] = []
    for ch in text:
        if ch == "\\":
            out.append("\\\\")
        elif unsafe_char(ch):
            n = ord(ch)
            out.append(f"\\x{n:02x}" if n < 0x100 else f"\\u{n:04x}" if n < 0x10000
                       else f"\\U{n:08x}")
        else:
            out.append(ch)
    result = "".join(out)
    if limit is not None and len(result) > limit:
        result = result[:limit] + "..."
    return result


def is_safe(text: str) -> bool:
    """True when ``text`` has no character that :func:`escape` would change but ``\\``."""
    if text.isascii() and text.isprintable():  # the fast path: nearly all text
        return True
    return not any(unsafe_char(ch) for ch in text)
