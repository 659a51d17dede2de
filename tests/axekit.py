"""axe-core in the real Chromium, for the accessibility tests of every page.

axe-core comes from the npm registry (``.ci/run`` installs it into ``.axe/``;
``XACTIKA_AXE`` names another ``axe.min.js``); without it a test skips on a dev machine
and fails where CI requires the browser tests (``XACTIKA_REQUIRE_BROWSER``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from webkit import ROOT

AXE = Path(os.environ.get("XACTIKA_AXE",
                          ROOT / ".axe" / "node_modules" / "axe-core" / "axe.min.js"))


def axe_source() -> str:
    if not AXE.exists():
        message = f"no {AXE}: npm install --prefix .axe axe-core@4.14"
        if os.environ.get("XACTIKA_REQUIRE_BROWSER"):
            pytest.fail(message)
        pytest.skip(message)
    return AXE.read_text()


def violations(page: Any, source: str) -> list[str]:
    """axe-core's violations on the page as it is now, one line each (rule, impact,
    where)."""
    if not page.evaluate("() => !!window.axe"):
        page.evaluate(source)
    found: list[dict[str, Any]] = page.evaluate(
        "async () => (await axe.run(document)).violations.map(v => ({id: v.id,"
        " impact: v.impact, nodes: v.nodes.map(n => n.target.join(' '))}))")
    return [f"{v['id']} ({v['impact']}): {', '.join(v['nodes'][:6])}" for v in found]
