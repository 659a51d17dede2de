"""What every bot side of the player protocol does alike, sans-I/O: ``feed(line) -> lines``.

:class:`BotSide` reads a line, answers ``hello`` and ``isready``, notes ``quit`` and the
seat of ``newgame``, and turns a line it cannot follow into an ``info`` line, never an
exception. Its subclasses decide the rest: ``PlayerSession`` (agentside.py) folds the
events for any core agent, ``LeanRandomSession`` (lean.py) answers from the ``go`` line
alone. Standard library only (with wire.py), so the lean bot still starts without the core.
"""

from __future__ import annotations

from xactika.protocol.player import wire

TYPE_CHECKING = False  # as typing's, which the lean bot does not load; mypy reads True
if TYPE_CHECKING:
    from collections.abc import Callable


class BotSide:
    """One bot's side of a session; subclasses give ``_on_newgame``, ``_on_event`` and
    ``_on_go`` their meaning. A handler returns the lines to answer."""

    ERRORS: tuple[type[Exception], ...] = (ValueError, KeyError, IndexError)
    """What a handler may raise on a line it cannot follow: answered with an ``info``."""

    def __init__(self, name: str) -> None:
        self.name = wire.bot_name(name)
        self.done = False  # set by quit
        self._handlers: dict[str, Callable[[str, list[str]], list[str]]] = {
            "hello": self._on_hello, "isready": self._on_isready, "quit": self._on_quit,
            "newgame": self._on_newgame, "event": self._on_event, "go": self._on_go,
        }

    def feed(self, line: str) -> list[str]:
        words = line.split()
        if not words or words[0].startswith("#") or words[0] == "info":
            return []  # an info line is a note for people (PLAYER.md): never answered
        handler = self._handlers.get(words[0])
        if handler is None:
            return [wire.format_info(f"ignoring unknown command {words[0]!r}")]
        try:
            return handler(line, words)
        except self.ERRORS as exc:
            return [wire.format_info(f"cannot follow {words[0]}: {exc}")]

    def _on_hello(self, line: str, words: list[str]) -> list[str]:
        return [wire.hello_answer(self.name)]

    def _on_isready(self, line: str, words: list[str]) -> list[str]:
        return [wire.READYOK]

    def _on_quit(self, line: str, words: list[str]) -> list[str]:
        self.done = True
        return []

    def _on_newgame(self, line: str, words: list[str]) -> list[str]:
        raise NotImplementedError

    def _on_event(self, line: str, words: list[str]) -> list[str]:
        raise NotImplementedError

    def _on_go(self, line: str, words: list[str]) -> list[str]:
        raise NotImplementedError


EVENT_BEFORE_NEWGAME = wire.format_info("event before newgame: ignored")
GO_TOO_EARLY = "go before newgame and game-started"
