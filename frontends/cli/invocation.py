"""How to run ``xactika`` from here, for messages that tell the user a command to type.

After ``python3 -m venv .venv && .venv/bin/pip install .`` the command is
``.venv/bin/xactika`` and a bare ``xactika`` is "command not found" until the venv is
activated. A message saying "continue with 'xactika play --load g.rec'" must print a
command that works as written: ``xactika`` when that is what the shell finds, else the
path of this install's script, else ``python -m``.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path


def xactika_command() -> str:
    """The shortest spelling of the ``xactika`` command that runs this install."""
    script = Path(sys.executable).with_name("xactika")
    found = shutil.which("xactika")
    if found and (not script.exists() or _same(Path(found), script)):
        return "xactika"
    if script.exists():
        try:
            relative = os.path.relpath(script)
        except ValueError:  # another drive (Windows)
            relative = str(script)
        shown = relative if not relative.startswith("..") else str(script)
        return shlex.quote(shown if os.sep in shown else f".{os.sep}{shown}")
    return f"{shlex.quote(sys.executable)} -m xactika.frontends.cli"


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or a.samefile(b)
    except OSError:
        return False


__all__ = ["xactika_command"]
