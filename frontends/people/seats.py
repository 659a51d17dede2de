"""Who sits at a table: people, built-in bots and bot programs, as ``--seat`` spells them.

A seat's spec is what a record keeps (``seat.N`` headers) to sit the same players again;
its name is what people read (a level's ``beginner``, not ``strong:1``).
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence

import attrs

from xactika.core.engine.errors import ParseError
from xactika.frontends.i18n import _

HUMAN = "human"
BOT = "bot"
CMD = "cmd"


@attrs.frozen
class SeatSpec:
    """Who sits at a seat: a human (with a name), a built-in bot, or a bot command."""

    kind: str
    name: str = ""
    argv: tuple[str, ...] = ()

    def text(self) -> str:
        """The spec as ``--seat`` takes it back."""
        if self.kind == HUMAN:
            return f"human:{self.name}" if self.name else "human"
        if self.kind == BOT:
            return f"bot:{self.name}"
        return "cmd:" + shlex.join(self.argv)


def seat_shown(seat: int) -> int:
    """A seat as a person reads or types it: counted from 1, as BGA and BBO count. The
    protocol, records and programs count from 0; only what people read converts."""
    return seat + 1


def seat_typed(text: str, players: int | None = None) -> int:
    """The seat a person typed (``1`` is the first seat), as the protocol counts it; a
    bad number is a :class:`ParseError` naming the seats there are."""
    last = "" if players is None else f" to {players}"
    try:
        number = int(text.strip())
    except ValueError:
        raise ParseError(f"bad seat {text.strip()[:40]!r}: a seat number, 1{last}") from None
    if number < 1 or (players is not None and number > players):
        raise ParseError(f"no seat {number}: seats are 1{last or ' and up'}")
    return number - 1


def parse_seat_spec(text: str, bot_names: Sequence[str]) -> SeatSpec:
    """``human``, ``human:NAME``, ``bot:NAME`` (or a bare bot name), ``cmd:COMMAND``."""
    kind, colon, rest = text.strip().partition(":")
    kind = kind.strip().lower()
    rest = rest.strip()
    if kind in ("human", "you", "me") and (not colon or rest):
        name = rest if colon else ""
        if any(ch.isspace() or ch == "," for ch in name):
            raise ParseError(f"bad human name {name!r}: no spaces or commas")
        return SeatSpec(HUMAN, name)
    if kind == "cmd" and colon:
        try:
            argv = tuple(shlex.split(rest))
        except ValueError as exc:
            raise ParseError(f"bad bot command {rest!r}: {exc}") from None
        if not argv:
            raise ParseError("cmd: needs a command, e.g. cmd:'python3 examples/random_bot.py'")
        return SeatSpec(CMD, argv[0].rsplit("/", 1)[-1], argv)
    name = rest if kind == "bot" and colon else (kind if not colon else "")
    if name in bot_names:
        return SeatSpec(BOT, name)
    raise ParseError(
        f"bad seat {text!r}: expected human, human:NAME, cmd:COMMAND or bot:NAME "
        f"with NAME one of {', '.join(bot_names)}"
    )


def seats_from_headers(headers: Sequence[tuple[str, str]], players: int
                       ) -> list[SeatSpec] | None:
    """The seats a saved game was played with (``seat.N`` headers), if it has them."""
    found: dict[int, str] = {}
    for key, value in headers:
        if key.startswith("seat.") and key[5:].isdigit():
            found[int(key[5:])] = value
    if sorted(found) != list(range(players)):
        return None
    from xactika.core.bots.agents import agent_names

    return [parse_seat_spec(found[s], agent_names()) for s in range(players)]


def default_names(seats: Sequence[SeatSpec], game: str) -> list[str]:
    """What each seat is called: ``you`` (``human`` when several share the keys), or the
    bot's name as people read it."""
    hot_seat = sum(1 for s in seats if s.kind == HUMAN) > 1
    names = []
    for spec in seats:
        if spec.kind == HUMAN:
            names.append(spec.name or ("human" if hot_seat else "you"))
        elif spec.kind == BOT:
            names.append(plays_as(spec.name, game))
        else:
            names.append(spec.name)
    return names


def plays_as(name: str, game: str) -> str:
    """What a bot seat really is (``agents.plays``): a bot with no implementation for
    this game (a "heuristic" seat at a game without a heuristic) plays at random, and is
    called so; a level by what plays it (Xactika's ``strong:1`` is a ``beginner``, every
    level of Dix its heuristic)."""
    from xactika.core.bots.agents import plays

    try:
        return plays(name, game)
    except ValueError:
        return name


def seats_text(seats: Sequence[SeatSpec], names: Sequence[str]) -> str:
    """``1 you, 2-7 heuristic (bot)``: a run of seats alike is written once."""
    def kind(s: int) -> str:
        spec = seats[s]
        if spec.kind == HUMAN:
            return _("you") if names[s] == "you" else names[s]
        said = {BOT: _("{name} (bot)"), CMD: _("{name} (cmd)"),
                "remote": _("{name} (remote)")}.get(spec.kind, f"{{name}} ({spec.kind})")
        return said.format(name=names[s])

    parts: list[str] = []
    s = 0
    while s < len(seats):
        end = s
        while end + 1 < len(seats) and kind(end + 1) == kind(s) and seats[s].kind != HUMAN:
            end += 1
        run = f"{seat_shown(s)}" + ("" if end == s else f"-{seat_shown(end)}")
        parts.append(f"{run} {kind(s)}")
        s = end + 1
    return ", ".join(parts)


__all__ = ["BOT", "CMD", "HUMAN", "SeatSpec", "default_names", "parse_seat_spec", "plays_as",
           "seat_shown", "seat_typed", "seats_from_headers", "seats_text"]
