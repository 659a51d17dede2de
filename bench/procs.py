"""What the benchmarks that start servers share: a process's CPU from /proc, its live
children's, and the environment that runs another checkout's code ("before" runs)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def code_of(checkout: str | None) -> dict[str, str]:
    """The environment that runs the server on ``checkout``'s code (its core, protocol and
    frontends as the ``xactika`` package, first on PYTHONPATH); this checkout's for None."""
    if checkout is None:
        return dict(os.environ)
    shim = Path(tempfile.mkdtemp(prefix="xactika-code-")) / "xactika"
    shim.mkdir()
    for part in ("core", "protocol", "frontends"):
        (shim / part).symlink_to(Path(checkout).resolve() / part)
    return {**os.environ, "PYTHONPATH": str(shim.parent)}


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children_cpu(pid: int) -> float:
    """CPU seconds of ``pid``'s live children (the thinking process)."""
    total = 0.0
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and int(
                    (entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                total += cpu_seconds(int(entry.name))
        except (OSError, IndexError, ValueError):
            continue
    return total
