"""``xactika bot NAME``: a built-in bot as a player-protocol process on stdin/stdout.

Kept light: a match starts one of these per seat and game. ``random`` answers from the
``go`` line alone (protocol/player/lean.py) and never imports the core; the other bots
import it, and the registry of bots, only once they are chosen.
"""

from __future__ import annotations

import sys

from xactika.protocol.player.lean import LeanRandomSession

TYPE_CHECKING = False  # as typing's, which costs 3 ms to import; mypy reads it as True
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from typing import BinaryIO

    from xactika.protocol.player.agentside import PlayerSession


def build_parser(list_names: bool = True) -> argparse.ArgumentParser:
    """The options; ``list_names`` names every bot in the help, which loads them all."""

    names = "random, ..."
    if list_names:
        from xactika.core.bots.agents import agent_names

        names = ", ".join(agent_names())
    from xactika.frontends.cli.options import OneLineParser
    from xactika.frontends.i18n import later

    bp = OneLineParser(
        prog="xactika bot",
        description="Run a built-in bot that speaks the player protocol (spec/PLAYER.md) "
        "on stdin/stdout.",
    )
    bp.add_argument("name", help=later("which bot: {names}", names=names))
    bp.add_argument("--seed", type=int, default=None, help="seed for the bot's own choices")
    return bp


def serve(session: PlayerSession | LeanRandomSession, inp: BinaryIO, out: BinaryIO) -> int:
    """Answer lines until ``quit`` or end of input; every answer is flushed at once."""
    for raw in inp:
        lines = session.feed(raw.decode("utf-8", "replace"))
        if lines:
            out.write("".join(line + "\n" for line in lines).encode("utf-8"))
            out.flush()
        if session.done:
            break
    return 0


def plain_args(argv: Sequence[str]) -> tuple[str, int | None] | None:
    """``NAME`` or ``NAME --seed N``, as a match starts a bot, read without argparse (whose
    import and set-up cost this process more than the random bot itself); None for any
    other form, which argparse then reads."""
    if len(argv) == 1 and not argv[0].startswith("-"):
        return argv[0], None
    if len(argv) == 3 and not argv[0].startswith("-") and argv[1] == "--seed":
        try:
            return argv[0], int(argv[2])
        except ValueError:
            return None
    return None


def main(argv: Sequence[str]) -> int:
    plain = plain_args(argv)
    if plain is None:
        help_asked = any(a in ("-h", "--help") for a in argv)
        args = build_parser(list_names=help_asked).parse_args(argv)
        plain = args.name, args.seed
    name, seed = plain
    if name == "random":  # RandomAgent's choices without the core (protocol/player/lean.py)
        session: PlayerSession | LeanRandomSession = LeanRandomSession(seed, name)
        return serve(session, sys.stdin.buffer, sys.stdout.buffer)
    try:
        session = honest_session(name, seed)
    except ValueError as exc:
        print(f"xactika bot: {exc}", file=sys.stderr)
        return 2
    return serve(session, sys.stdin.buffer, sys.stdout.buffer)


def honest_session(name: str, seed: int | None) -> PlayerSession:
    """Bot ``name``'s session. At a game without such a bot (a "heuristic" at a game
    with none) the random bot plays the seat: an ``info`` line says so once the game is
    known, for the host's log and ``check-bot``, rather than pass it off under the name."""
    from xactika.core.bots.agents import implemented, make_agent
    from xactika.protocol.player import wire
    from xactika.protocol.player.agentside import PlayerSession

    class Honest(PlayerSession):
        told = ""

        def feed(self, line: str) -> list[str]:
            said = super().feed(line)
            game = getattr(self.agent, "game", None)  # a ByGame learns it from game-started
            if game and game != self.told:
                self.told = game
                if not implemented(name, game):
                    said = [*said, wire.format_info(
                        f"{name} has no implementation for {game}: it plays at random")]
            return said

    return Honest(make_agent(name, seed), name)
