"""The ``python`` code block under a README heading, for tests that run the README."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def readme_block(heading: str) -> str:
    """The first ```python block after ``## heading`` (and before the next heading)."""
    text = README.read_text(encoding="utf-8")
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    section = text[start : end if end != -1 else len(text)]
    found = re.search(r"```python\n(.*?)```", section, re.S)
    if found is None:
        raise AssertionError(f"README section {heading!r} has no python block")
    return found.group(1)
