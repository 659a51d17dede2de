"""What every bot side of the player protocol does alike, sans-I/O: ``feed(line) -> lines``.

:class:`BotSide` reads a line, answers ``hello`` and ``isready``, notes ``quit`` and the
seat of ``newgame``, and turns a line it cannot follow into an ``info`` line, never an
exception. Its subclasses decide the rest: ``PlayerSession`` (agentside.py) folds the
events for any core agent, ``LeanRandomSession`` (lean.py) answers from the ``go`` line
alone. Standard library only (with wire.py), so the lean bot still starts without the core.
"""

from __future__ import annotations

from xactika.protocol.player import wire


class BotSide:
    """One bot's side of a session; subclasses give ``_on_newgame``, ``_on_event`` and
    ``_on_go`` their meaning. A handler returns the lines to answer."""

    ERRORS: tuple[type[Exception], ...] = (ValueError, KeyError, IndexError)
    """What a handler may raise on a line it cannot follow: answered with an ``info``."""

    def __init__(self, name: str) -> None:
        self.name = wire.bot_name(name)
        self.done = False  # set by quit

    def feed(self, line: str) -> list[str]:
        return self.take(wire.read(line), line)

    def take(self, message: wire.Msg, line: str) -> list[str]:
        """A line already read (an in-process host gives its value: never parsed again)."""
        try:
            match message:
                case wire.Hello() | wire.Malformed(wanted=wire.Hello):
                    return [wire.hello_answer(self.name)]  # whatever version it says
                case wire.IsReady():
                    return [wire.READYOK]
                case wire.Quit():
                    self.done = True
                    return []
                case wire.NewGame():
                    return self._on_newgame(message)
                case wire.EventLine():
                    return self._on_event(message)
                case wire.Go():
                    return self._on_go(message)
                case wire.Malformed(word, why=why, wanted=wire.NewGame | wire.EventLine
                                    | wire.Go):
                    return self._malformed(message, word, why)
                case wire.Info() | wire.Other(""):
                    return []  # an info line is a note for people (PLAYER.md): never answered
                case wire.Other(word) if word.startswith("#"):
                    return []  # a comment (not in PLAYER.md; always ignored)
        except self.ERRORS as exc:
            return [_cannot(wire.first_word(line), str(exc))]
        return [wire.format_info(f"ignoring unknown command {wire.first_word(line)!r}")]

    def _malformed(self, line: wire.Malformed, word: str, why: str) -> list[str]:
        """A newgame, event or go line that does not read."""
        return [_cannot(word, why)]

    def _on_newgame(self, newgame: wire.NewGame) -> list[str]:
        raise NotImplementedError

    def _on_event(self, event: wire.EventLine) -> list[str]:
        raise NotImplementedError

    def _on_go(self, go: wire.Go) -> list[str]:
        raise NotImplementedError


def _cannot(word: str, why: str) -> str:
    return wire.format_info(f"cannot follow {word}: {why}")


EVENT_BEFORE_NEWGAME = wire.format_info("event before newgame: ignored")
GO_TOO_EARLY = "go before newgame and game-started"
