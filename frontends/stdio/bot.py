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
    from xactika.core.bots.agents import make_agent
    from xactika.protocol.player.agentside import PlayerSession

    try:
        agent = make_agent(name, seed)
    except ValueError as exc:
        print(f"xactika bot: {exc}", file=sys.stderr)
        return 2
    return serve(PlayerSession(agent, name), sys.stdin.buffer, sys.stdout.buffer)
