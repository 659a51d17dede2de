"""spec/TAMPER.md is executable: its example record and its reference verifier are run."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from xactika.protocol.trust.audit import OK, audit_lines
from xactika.protocol.trust.tamper import commitment

SPEC = Path(__file__).resolve().parent.parent / "spec" / "TAMPER.md"


def blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", SPEC.read_text(encoding="utf-8"), re.S)


def example() -> list[str]:
    (record,) = blocks("record")
    return record.splitlines()


def stated(label: str) -> str:
    text = SPEC.read_text(encoding="utf-8")
    match = re.search(label + r"\s*`([0-9a-f]{64})`", text)
    assert match, label
    return match.group(1)


def verifier() -> dict[str, Any]:
    (code,) = blocks("python")
    namespace: dict[str, Any] = {}
    exec(compile(code, str(SPEC), "exec"), namespace)
    return namespace


def test_the_example_record_audits_clean_with_the_stated_head() -> None:
    report = audit_lines(example(), "example")
    assert report.status == OK, report.problems
    assert report.signed and report.committed and report.complete
    assert report.head == stated("Its head is")


def test_the_reference_verifier_agrees_with_the_auditor() -> None:
    ns = verifier()
    lines = example()
    assert ns["chain_head"](lines) == stated("Its head is")
    commit = stated("`game-started` line,")
    assert ns["commitment"]("xactika", 42, "0123456789abcdef0123456789abcdef") == commit
    assert commitment("xactika", 42, "0123456789abcdef0123456789abcdef") == commit
    assert f"commit={commit}" in lines[6]
    # the stdlib verifier finds the same first broken line as the auditor, even for a
    # change the rules cannot see (one more space inside the line)
    for n in (6, 9, len(lines) - 1):
        changed = list(lines)
        changed[n] = changed[n].replace("event ", "event  ", 1)
        report = audit_lines(changed, "changed")
        assert ns["chain_head"](changed) == n + 1
        assert report.problems[0].line == n + 1
