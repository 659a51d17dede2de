"""The lobby and watching from the terminal (issue 34): the defaults people meet."""

from __future__ import annotations

import re
from pathlib import Path

from xactika.frontends.net import serve
from xactika.frontends.net.options import DEFAULT_CLOCK
from xactika.frontends.web import weblobby

ROOT = Path(__file__).resolve().parent.parent


def test_the_web_lobby_and_serve_give_people_the_same_clock() -> None:
    """The web lobby's default clock was 300+5 where serve's is 300+15."""
    page = (ROOT / "frontends" / "web" / "templates" / "lobby.html").read_text()
    minutes = re.search(r'id="clock-min"[^>]* value="([^"]*)"', page)
    inc = re.search(r'id="clock-inc"[^>]* value="([^"]*)"', page)
    assert minutes is not None and inc is not None
    shown = f"{round(float(minutes.group(1)) * 60)}+{inc.group(1)}"
    assert shown == DEFAULT_CLOCK == "300+15"
    assert weblobby.DEFAULT_CLOCK == DEFAULT_CLOCK
    assert serve.build_parser().parse_args([]).clock.text() == DEFAULT_CLOCK


def test_serve_says_what_each_token_is_for(tmp_path: Path) -> None:
    """Issue 34: ``serve`` printed ``observer token ...`` with no hint of how to watch."""
    import subprocess
    import sys

    xactika = Path(sys.executable).with_name("xactika")
    proc = subprocess.Popen([str(xactika), "serve", "--port", "0", "--players", "2",
                             "--out", str(tmp_path / "out")], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout is not None
        lines = []
        while not (line := proc.stdout.readline()).startswith("clocks:"):
            assert line, lines
            lines.append(line.rstrip("\n"))
    finally:
        proc.kill()
        proc.wait(10)
    port = re.search(r":(\d+) ", lines[0]).group(1)  # type: ignore[union-attr]
    address = f"127.0.0.1:{port}"
    observer = next(i for i, line in enumerate(lines) if " observer token " in line)
    assert lines[observer + 1].startswith("a seat's token plays it: ")
    assert lines[observer + 1].endswith(f" play --connect {address} --token-file FILE "
                                        "(a person)")
    assert lines[observer + 2].endswith(f" connect {address} --token-file FILE -- PROGRAM "
                                        "(a bot)")
    assert lines[observer + 3].startswith("the observer token watches: ")
    assert lines[observer + 3].endswith(f" connect {address} --watch --token-file FILE")


def test_play_connect_with_the_observer_token_watches(tmp_path: Path) -> None:
    """Issue 34: ``play --connect --token OBSERVER`` said ``unknown token``."""
    import subprocess
    import sys

    xactika = Path(sys.executable).with_name("xactika")
    server = subprocess.Popen([str(xactika), "serve", "--port", "0", "--players", "2",
                               "--out", str(tmp_path / "out")], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    watcher: subprocess.Popen[str] | None = None
    try:
        assert server.stdout is not None
        lines = []
        while not (line := server.stdout.readline()).startswith("clocks:"):
            assert line, lines
            lines.append(line.rstrip("\n"))
        port = re.search(r":(\d+) ", lines[0]).group(1)  # type: ignore[union-attr]
        token = next(line.split(" observer token ")[1].split()[0]
                     for line in lines if " observer token " in line)
        watcher = subprocess.Popen(
            [str(xactika), "play", "--connect", f"127.0.0.1:{port}", "--token", token],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True)
        assert watcher.stdout is not None
        first = watcher.stdout.readline()
        assert first.startswith("watching table="), first
    finally:
        for proc in (watcher, server):
            if proc is not None:
                proc.kill()
                proc.wait(10)
    assert watcher.stderr is not None
    err = watcher.stderr.read()
    assert "unknown token" not in err and "watching the table" in err, err
