"""spec/TAMPER.md sections 6 and 7 are executable: the signed example verifies under its
stated key, through the auditor and through the document's own verifier."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from xactika.protocol.trust.audit import OK, UNTRUSTED, VERIFIED, audit_lines
from xactika.protocol.trust.signing import parse_public

SPEC = Path(__file__).resolve().parent.parent / "spec" / "TAMPER.md"
KEY = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"  # RFC 8032 test 1


def block(kind: str) -> str:
    (found,) = re.findall(rf"```{kind}\n(.*?)```", SPEC.read_text(encoding="utf-8"), re.S)
    return str(found)


def verifier() -> dict[str, Any]:
    namespace: dict[str, Any] = {}
    for kind in ("python", "python3"):  # section 5's chain_head, then section 6's check
        exec(compile(block(kind), str(SPEC), "exec"), namespace)
    return namespace


def test_the_signed_example_is_verified_under_the_stated_key() -> None:
    text = SPEC.read_text(encoding="utf-8")
    assert f"`ed25519:{KEY}`" in text
    lines = block("signed-record").splitlines()
    report = audit_lines(lines, "example", strict=True, trusted={parse_public(KEY)})
    assert report.status == OK and report.signature == VERIFIED, report.problems
    assert f"`{report.signer.fingerprint}`" in text if report.signer else False
    plain = audit_lines(lines, "example")
    assert plain.status == OK and plain.signature == UNTRUSTED  # no key named: not verified


def test_the_documents_verifier_agrees_with_the_auditor() -> None:
    ns = verifier()
    lines = block("signed-record").splitlines()
    assert ns["verified"](lines, KEY)
    assert not ns["verified"](lines, "00" * 32)
    for n in (7, 9, len(lines) - 2):  # a header, an event, game-over
        changed = list(lines)
        changed[n] = changed[n].replace(" ", "  ", 1)
        assert not ns["verified"](changed, KEY)
        assert audit_lines(changed, "c", trusted={parse_public(KEY)}).status != OK
