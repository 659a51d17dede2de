"""The daily deal's tests: a site database, a clock the test moves, a web app over both,
and a seat played over the WebSocket through Starlette's TestClient."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from sqlalchemy.engine import Engine

from xactika.frontends.arena.store import open_store, sqlite_url
from xactika.frontends.daily import store as _tables  # noqa: F401  (the daily's tables)
from xactika.frontends.daily.deals import DailySettings
from xactika.frontends.daily.service import Daily

ORIGIN = {"origin": "http://127.0.0.1"}
TINY = DailySettings(deals=3, bots=("random",) * 3, par=("random", "cheater"))
"""Three deals, random bots, a random 'strong' par: a day's par in a fraction of a second."""


class Clock:
    def __init__(self, at: dt.datetime) -> None:
        self.at = at

    def __call__(self) -> dt.datetime:
        return self.at


def engine_for(folder: Path, url: str | None) -> Engine:
    return open_store(url or sqlite_url(folder))


def daily_for(engine: Engine, clock: Clock, settings: DailySettings = TINY) -> Daily:
    return Daily(engine, settings, now=clock)


def first_option(go: str) -> str:
    words = go.split()
    option = dict(w.partition("=")[::2] for w in words[2:])["options"].split(",")[0]
    return f"bid {option}" if words[1] == "bid" else "play " + option.replace(":", " ")


def play_seat(client: Any, token: str, stop: str | None = None) -> list[str]:
    """Take the seat and answer first options until the server says ``quit`` (or until a
    line starting with ``stop``, left unanswered); every line seen."""
    seen: list[str] = []
    with client.websocket_connect("ws://127.0.0.1/ws", headers=ORIGIN) as ws:
        ws.send_text(f"seat {token}")
        while True:
            for line in ws.receive_text().split("\n"):
                seen.append(line)
                if stop is not None and line.startswith(stop):
                    return seen
                word = line.split(" ", 1)[0]
                if word == "hello":
                    ws.send_text("hello 1 name=Web kind=human")
                elif word == "isready":
                    ws.send_text("readyok")
                elif word == "go":
                    ws.send_text(first_option(line))
                elif word == "quit":
                    return seen


class Browser:
    """One browser's cookies over a shared TestClient (one app, one event loop, so the
    tables of one are the tables of all): each call carries this browser's jar."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.jar: dict[str, str] = {}
        self.app: Any = None  # the WebApp, where a test looks inside

    def _call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        self.client.cookies.clear()
        for key, value in self.jar.items():
            self.client.cookies.set(key, value, domain="127.0.0.1")
        try:
            return getattr(self.client, method)(*args, **kwargs)
        finally:
            self.jar = {c.name: c.value for c in self.client.cookies.jar if c.value}

    def get(self, *args: Any, **kwargs: Any) -> Any:
        return self._call("get", *args, **kwargs)

    def post(self, *args: Any, **kwargs: Any) -> Any:
        return self._call("post", *args, **kwargs)

    def websocket_connect(self, *args: Any, **kwargs: Any) -> Any:
        return self._call("websocket_connect", *args, **kwargs)
