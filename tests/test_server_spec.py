"""The executable spec: every transcript in spec/SERVER.md runs against a live server.

A block tagged ```` ```transcript players=.. seed=.. bots=.. ```` gets a fresh server on
127.0.0.1 with one table of those settings; the seats named in ``bots=`` are played by
the spec's first-option bot; the block is then played as one client: ``> `` lines are
sent, other lines must match what the server sends (``<hex>``, ``<any>``, ``...`` and
the ``~`` directives as the spec explains them; ``$NAME`` tokens the server hands out
are captured and used later).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from netkit import Client, LiveServer, in_thread, play_first, until

from xactika.protocol.net.server import people_settings
from xactika.protocol.net.table import table_settings

SPEC = Path(__file__).resolve().parent.parent / "spec" / "SERVER.md"
BLOCK = re.compile(r"^```transcript (.*?)\n(.*?)^```$", re.S | re.M)
HOLES = {re.escape("<hex>"): "[0-9a-f]+", re.escape("<any>"): ".*",
         re.escape("<ms>"): "[0-9]+"}


def blocks() -> list[tuple[dict[str, str], str]]:
    found = BLOCK.findall(SPEC.read_text(encoding="utf-8"))
    return [(dict(w.split("=", 1) for w in info.split()), body) for info, body in found]


def pattern(line: str, tokens: dict[str, str]) -> re.Pattern[str]:
    """A server line as a regex: holes, known tokens, and new ``$NAME`` tokens captured."""
    text = re.escape(line)
    for hole, regex in HOLES.items():
        text = text.replace(hole, regex)

    def token(match: re.Match[str]) -> str:
        name = match.group(1)
        known = tokens.get("$" + name)
        return re.escape(known) if known is not None else f"(?P<{name}>[0-9a-f]+)"

    return re.compile(re.sub(r"\\\$([A-Z0-9]+)", token, text))


def test_the_spec_has_transcripts() -> None:
    assert len(blocks()) >= 9


@pytest.mark.parametrize("settings,body", blocks(),
                         ids=[f"block{i}" for i in range(len(blocks()))])
def test_transcript(settings: dict[str, str], body: str, tmp_path: Path) -> None:
    settings = dict(settings)
    bots = [int(s) for s in settings.pop("bots", "").split(",") if s]
    people = people_settings(settings)  # clock=, on-timeout=, level=
    with LiveServer(tmp_path) as live:
        table = live.table(table_settings(settings, grace=5.0, **people))
        tokens = {"$ADMIN": live.server.admin_token, "$OBSERVER": table.observer_token}
        tokens |= {f"$SEAT{n}": s.token for n, s in enumerate(table.seats)}
        runs = [in_thread(play_first, Client(live.port), table.seats[b].token) for b in bots]
        until(lambda: all(table.seats[b].name for b in bots),  # their names are told
              "the bots have said who they are")
        client = Client(live.port, timeout=10)
        skipping, last = False, ""
        for number, line in enumerate(body.splitlines(), 1):
            where = f"transcript line {number}: {line!r}"
            closed, last = last == "~ closed", line
            if line.startswith("> "):
                text = line[2:]
                for name, token in tokens.items():
                    text = text.replace(name, token)
                client.send(text)
            elif line == "~ reconnect":
                before = len(live.server._links)
                client.close()
                if not closed:  # the server sees the drop first, as it would
                    until(lambda n=before: len(live.server._links) < n,  # type: ignore[misc]
                          "the server sees the drop")
                client = Client(live.port, timeout=10)
            elif line == "~ over":
                live.wait_over(table)
            elif line == "~ closed":
                assert client.read(10) is None, where
            elif line == "...":
                skipping = True
            else:
                want = pattern(line, tokens)
                while True:
                    got = client.read(10)
                    assert got is not None, f"{where}: the server closed the connection"
                    if (found := want.fullmatch(got)) is not None:
                        tokens |= {"$" + k: v for k, v in found.groupdict().items()}
                        break
                    assert skipping, f"{where}: the server sent {got!r}"
                skipping = False
        client.close()
    for run in runs:
        run.result(20)
