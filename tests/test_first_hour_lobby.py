"""The lobby and watching from the terminal (issue 34): the defaults people meet."""

from __future__ import annotations

import re
from pathlib import Path

from xactika.frontends.net import serve
from xactika.frontends.net.options import DEFAULT_CLOCK
from xactika.frontends.web import desk

ROOT = Path(__file__).resolve().parent.parent


def test_the_web_lobby_and_serve_give_people_the_same_clock() -> None:
    """The web lobby's default clock was 300+5 where serve's is 300+15."""
    page = (ROOT / "frontends" / "web" / "templates" / "lobby.html").read_text()
    shown = re.search(r'id="clock" value="([^"]*)"', page)
    assert shown is not None and shown.group(1) == DEFAULT_CLOCK == "300+15"
    assert desk.DEFAULT_CLOCK == DEFAULT_CLOCK
    assert serve.build_parser().parse_args([]).clock.text() == DEFAULT_CLOCK
