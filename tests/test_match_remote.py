"""``xactika match --bot name=N remote=TOKEN --listen HOST:PORT``: a bot from another
machine (here: ``xactika connect`` on 127.0.0.1) plays beside local ones."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from xactika.frontends.match import runner as match_runner
from xactika.frontends.match.tournament import MatchError, parse_bot
from xactika.protocol.net.remote_bots import SeatListener

XACTIKA = Path(sys.executable).with_name("xactika")
BOT = [sys.executable, str(Path(__file__).resolve().parent.parent / "examples" / "random_bot.py")]
TOKEN = "0123456789abcdef0123"

pytestmark = pytest.mark.skipif(not XACTIKA.exists(), reason="needs the installed command")


def match(tmp_path: Path, *bot: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [str(XACTIKA), "match", "--bot", *bot, "--bot", "random", "--deals", "1",
         "--players", "2", "--rounds", "1", "--listen", "127.0.0.1:0", "--out",
         str(tmp_path / "m"), "--progress", "none", "--json", "--sandbox", "none"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )


def port_of(proc: subprocess.Popen[str]) -> int:
    assert proc.stderr is not None
    line = proc.stderr.readline()
    found = re.search(r"xactika connect 127\.0\.0\.1:(\d+) --token", line)
    assert found, line
    return int(found.group(1))


def test_a_remote_bot_plays_a_match_beside_a_local_one(tmp_path: Path) -> None:
    runner = match(tmp_path, "name=far", f"remote={TOKEN}")
    try:
        port = port_of(runner)
        relay = subprocess.run(
            [str(XACTIKA), "connect", f"127.0.0.1:{port}", "--token", TOKEN, "--", *BOT],
            capture_output=True, text=True, timeout=60)
        out, _ = runner.communicate(timeout=60)
    finally:
        if runner.poll() is None:
            os.killpg(runner.pid, signal.SIGKILL)
            runner.wait()
    assert relay.returncode == 0, relay.stderr
    assert runner.returncode == 0
    result = json.loads(out)
    assert result["terminations"] == {"normal": 2}
    assert result["settings"]["bots"][0]["remote"] == TOKEN
    assert len(list((tmp_path / "m" / "games").glob("*.log"))) == 2


def test_a_remote_bot_that_never_comes_forfeits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """The runner in this process, so the waits for the bot are seen: each game waits the
    300 ms given for it (not a default, nor for ever), then it forfeits."""
    asked: list[float] = []  # the timeout of each wait for the bot's connection
    take = SeatListener.take

    def noted(listener: SeatListener, token: str, timeout: float) -> Any:
        asked.append(timeout)
        return take(listener, token, timeout)

    monkeypatch.setattr(SeatListener, "take", noted)
    code = match_runner.main(["--bot", "name=far", f"remote={TOKEN}", "startup=300ms", "--bot",
                        "random", "--deals", "1", "--players", "2", "--rounds", "1",
                        "--listen", "127.0.0.1:0", "--out", str(tmp_path / "m"),
                        "--progress", "none", "--json", "--sandbox", "none"])
    out = capsys.readouterr().out
    assert code == 0
    assert json.loads(out)["terminations"] == {"crash-startup": 2}
    assert asked == [0.3, 0.3], asked  # one wait a game, of the limit given
    faults = [line for path in sorted((tmp_path / "m" / "games").glob("*.log"))
              for line in path.read_text().splitlines() if line.startswith("header fault ")]
    assert len(faults) == 2 and all(
        line.endswith("remote bot 'far' did not connect within 0.3 s") for line in faults), faults


def test_remote_bot_options() -> None:
    spec = parse_bot(["name=far", f"remote={TOKEN}"])
    assert spec.remote == TOKEN and spec.cmd == () and not spec.restart
    for tokens in (["name=far", "remote=short"], ["remote=" + TOKEN],
                   ["name=far", f"remote={TOKEN}", "cmd=python3 x.py"]):
        with pytest.raises(MatchError):
            parse_bot(tokens)


HELD_BOT = """
import os, sys, time
folder, moves = sys.argv[1], 0
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "hello":
        print("hello 1 name=held", flush=True)
    elif words[0] == "isready":
        print("readyok", flush=True)
    elif words[0] == "go":
        option = dict(w.partition("=")[::2] for w in words[2:])["options"].split(",")[0]
        answer = "bid " + option if words[1] == "bid" else "play " + option.replace(":", " ")
        print(answer, flush=True)
        moves += 1
        if moves in (2, 4, 6):  # the match waits for its next answer: the test cuts now
            open(os.path.join(folder, f"held-{moves}"), "w").close()
            deadline = time.monotonic() + 60
            while not os.path.exists(os.path.join(folder, f"go-{moves}")):
                assert time.monotonic() < deadline
                time.sleep(0.01)
    elif words[0] == "quit":
        break
"""


def test_a_remote_bot_whose_connection_is_cut_resumes_and_plays_on(tmp_path: Path) -> None:
    """The network drops the remote bot three times during the match; `xactika connect`
    comes back with resume= each time and the match ends with no fault. Each cut comes
    while the match waits for the bot (it holds after its 2nd, 4th and 6th answer, until
    the test has cut and seen the relay back), never after a sleep: on a loaded machine
    sleeps cut a relay that was not back yet, or a match that was over."""
    from netkit import Proxy, until

    bot = tmp_path / "held_bot.py"
    bot.write_text(HELD_BOT)
    runner = subprocess.Popen(
        [str(XACTIKA), "match", "--bot", "name=far", f"remote={TOKEN}", "--bot", "random",
         "--deals", "2", "--players", "2", "--rounds", "2", "--listen", "127.0.0.1:0",
         "--out", str(tmp_path / "m"), "--progress", "none", "--json", "--sandbox", "none"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    proxy: Proxy | None = None
    relay: subprocess.Popen[str] | None = None
    try:
        proxy = Proxy(port_of(runner))
        relay = subprocess.Popen(
            [str(XACTIKA), "connect", f"127.0.0.1:{proxy.port}", "--token", TOKEN, "--",
             sys.executable, str(bot), str(tmp_path)],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            start_new_session=True)
        for cuts, moves in enumerate((2, 4, 6), 1):
            until((tmp_path / f"held-{moves}").exists, f"the bot's answer {moves}", 60)
            proxy.cut()
            until(lambda cuts=cuts: proxy.accepted > cuts,  # type: ignore[misc,union-attr]
                  "the relay is back", 60)
            (tmp_path / f"go-{moves}").touch()
        out, err = runner.communicate(timeout=90)
        _, relay_err = relay.communicate(timeout=30)
    finally:
        for proc in (runner, relay):
            if proc is not None and proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        if proxy is not None:
            proxy.close()
    assert runner.returncode == 0, err
    result = json.loads(out)
    assert result["terminations"] == {"normal": 4}, result["terminations"]
    assert relay.returncode == 0, relay_err
    assert "reconnected 3 times" in relay_err, relay_err
    assert proxy.accepted == 4
