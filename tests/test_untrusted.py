"""The one escaper for text from outside: no control or line-separator character survives."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from xactika.protocol.notation.untrusted import escape, is_safe


def test_escapes_framing_and_terminal_controls() -> None:
    assert escape("a\x00b") == "a\\x00b"
    assert escape("\x1b[2Jok") == "\\x1b[2Jok"
    assert escape("x\u2028ok fake") == "x\\u2028ok fake"
    assert escape("\x85\x1c\x1d\x1e\x0b\x0c") == "\\x85\\x1c\\x1d\\x1e\\x0b\\x0c"
    assert escape("tab\there\r\n") == "tab\\x09here\\x0d\\x0a"
    assert escape("back\\slash") == "back\\\\slash"
    assert escape("plain text, ünïcode ♠") == "plain text, ünïcode ♠"


def test_clip() -> None:
    assert escape("abcdef", limit=3) == "abc..."


@given(st.text())
def test_escaped_text_is_one_safe_line(text: str) -> None:
    out = escape(text)
    assert is_safe(out)
    assert len(out.splitlines()) <= 1


@given(st.text(), st.text())
def test_escape_is_injective(a: str, b: str) -> None:
    if a != b:
        assert escape(a) != escape(b)
