"""protocol/records sits below protocol/trust: a record is read and written, chain and
sig line included (records/seal.py), without the keys or the auditor that vouch for it,
so the two packages never import each other (issue 44)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def test_no_record_module_imports_trust() -> None:
    named = {f"{path.name}: {module}" for path in sorted((ROOT / "protocol/records").glob("*.py"))
             for module in _imports(path) if module.startswith("xactika.protocol.trust")}
    assert named == set()


def test_trust_builds_on_records() -> None:
    assert "xactika.protocol.records.seal" in _imports(ROOT / "protocol/trust/tamper.py")
