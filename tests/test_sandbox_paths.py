"""A bot named by a relative path starts in the sandbox as it does without one.

Inside bubblewrap the bot starts in its private directory (the runner's working
directory is not bound), so ``python3 examples/random_bot.py`` once failed to start:
``can't open file '/tmp/examples/random_bot.py'``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from xactika.frontends.match import sandbox
from xactika.frontends.match.sandbox import absolute_argv, bwrap_works

BWRAP = pytest.mark.skipif(bwrap_works() is not None, reason=f"no sandbox: {bwrap_works()}")


def test_files_a_command_names_are_made_absolute(tmp_path: Path) -> None:
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "b.py").write_text("", encoding="utf-8")
    (tmp_path / "w.bin").write_text("", encoding="utf-8")
    argv = ["python3", "bots/b.py", "--weights=w.bin", "-v", "7", "missing.py"]
    assert absolute_argv(argv, str(tmp_path)) == [
        "python3", str(tmp_path / "bots" / "b.py"), f"--weights={tmp_path / 'w.bin'}", "-v",
        "7", "missing.py"]


@BWRAP
@pytest.mark.parametrize("kind", ["none", "bwrap"])
def test_a_relative_script_runs_in_either_mode(tmp_path: Path, kind: str,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "say.py").write_text("print('ok from the bot')\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    launch = sandbox.choose(kind).launch([sys.executable, "bots/say.py"])
    try:
        done = subprocess.run(launch.argv, cwd=launch.cwd, env=launch.env,
                              preexec_fn=launch.preexec, capture_output=True, text=True,
                              timeout=30, check=False)
    finally:
        launch.close()
    assert done.returncode == 0, done.stderr
    assert done.stdout == "ok from the bot\n"
