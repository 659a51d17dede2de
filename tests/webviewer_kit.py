"""A served folder for the web viewer's tests: records of both games and forms, a match."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from xactika.core import Config, RandomAgent
from xactika.core.bots.agents import self_play
from xactika.core.engine.api import Event
from xactika.protocol.records.jsonl import text_to_jsonl
from xactika.protocol.records.textform import format_record
from xactika.protocol.trust.signing import Signer, write_key
from xactika.protocol.trust.tamper import commit_config

XSS = "<img src=x onerror=alert(1)>"


def game(config: Config) -> list[Event]:
    _, events = self_play(config, [RandomAgent(s) for s in range(config.players)])
    return events


def write(path: Path, names: str, events: list[Event], signer: Signer,
          jsonl: bool = False) -> None:
    text = format_record([("seats", names)], events, signer=signer)
    path.write_text(text_to_jsonl(text.splitlines()) if jsonl else text)


def event_lines(path: Path) -> list[str]:
    """The record's event lines as the viewer shows them: without their h= tokens."""
    from xactika.protocol.records.jsonl import record_lines

    lines = [line if isinstance(line, str) else line.decode()
             for line in record_lines(path.read_text().splitlines())]
    return [line.rsplit(" h=", 1)[0] for line in lines if line.startswith("event ")]


def build(root: Path) -> tuple[Path, Path]:
    """(the served folder, the public key file); the folder holds x4.log (Xactika, 4
    seats) and x4.jsonl, dix.log and dix.jsonl, xss.log (a seat named XSS), half.log (an
    unfinished game), running/ and resumed/ (matches still being played), m1/ (a finished
    match)."""
    key = root / "referee.key"
    signer = write_key(key)
    served = root / "records"
    served.mkdir()
    x4 = game(commit_config(Config(mode="bid", players=4, rounds=2, seed=21)))
    write(served / "x4.log", "ann,bob,cy,di", x4, signer)
    write(served / "x4.jsonl", "ann,bob,cy,di", x4, signer, jsonl=True)
    dix = game(commit_config(Config(game="dix", mode="draw", players=2, rounds=1, seed=5)))
    write(served / "dix.log", "north,south", dix, signer)
    write(served / "dix.jsonl", "north,south", dix, signer, jsonl=True)
    write(served / "xss.log", f"ann,{XSS},cy,di", x4, signer)
    write(served / "half.log", "ann,bob,cy,di", x4[:30], signer)
    running = served / "running"
    (running / "games").mkdir(parents=True)
    (running / "manifest.txt").write_text("manifest 1\n")
    write(running / "games" / "g1.log", "ann,bob,cy,di", x4, signer)
    subprocess.run(
        [sys.executable, "-m", "xactika.frontends.cli", "match", "--bot", "random",
         "--bot", "heuristic", "--players", "2", "--deals", "2", "--rounds", "2",
         "--out", str(served / "m1"), "--sandbox", "none", "--key", str(key),
         "--progress", "none", "--seed", "7"],
        check=True, capture_output=True, timeout=120)
    # a finished match being extended by --resume: its manifest is newer than its results
    shutil.copytree(served / "m1", served / "resumed")
    later = (served / "resumed" / "results.json").stat().st_mtime + 5
    os.utime(served / "resumed" / "manifest.txt", (later, later))
    return served, Path(f"{key}.pub")
