"""The faults of a bot, as the host side of the player protocol raises them (spec/PLAYER.md
section 5): one exception per kind, so harnesses and the match runner can count them."""

from __future__ import annotations

from xactika.core.engine.errors import XactikaError


class BotError(XactikaError):
    """A bot broke the protocol or died; ``startup`` tells a start-up fault from a game one."""

    code = "bot"

    def __init__(self, message: str, *, bot: str = "", startup: bool = False) -> None:
        super().__init__(message)
        self.bot = bot
        self.startup = startup


class BotCrashed(BotError):
    """The process exited (or could not be started); ``exit_code`` is None if it never ran."""

    code = "crash"

    def __init__(
        self, message: str, *, exit_code: int | None, bot: str = "", startup: bool = False
    ) -> None:
        super().__init__(message, bot=bot, startup=startup)
        self.exit_code = exit_code


class BotTimeout(BotError):
    """No answer (or no reading of its input) within the time limit."""

    code = "timeout"


class BotProtocolError(BotError):
    """A line that is not the protocol; ``reason`` is one of :data:`REASONS`."""

    code = "protocol"

    def __init__(self, message: str, *, reason: str, bot: str = "", startup: bool = False) -> None:
        super().__init__(message, bot=bot, startup=startup)
        self.reason = reason


REASONS = ("garbage", "invalid-utf8", "flood", "closed-stdout", "closed-stdin",
           "early-answer", "extra-answer")


class BotIllegalMove(BotError):
    """A well-formed ``bid``/``play`` answer that is not one of the options offered."""

    code = "illegal-move"

    def __init__(self, message: str, *, line: str, bot: str = "") -> None:
        super().__init__(message, bot=bot)
        self.line = line
