"""``xactika bot NAME``: a built-in bot as a player-protocol process on stdin/stdout.

Kept light: a match starts one of these per seat and game. ``random`` answers from the
``go`` line alone (protocol/lean_player.py) and never imports the core; the other bots
import it, and the registry of bots, only once they are chosen.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, BinaryIO

from xactika.protocol.lean_player import LeanRandomSession

if TYPE_CHECKING:
    import argparse

    from xactika.protocol.player import PlayerSession


def build_parser(list_names: bool = True) -> argparse.ArgumentParser:
    """The options; ``list_names`` names every bot in the help, which loads them all."""
    import argparse

    names = "random, ..."
    if list_names:
        from xactika.core.bots.agents import agent_names

        names = ", ".join(agent_names())
    bp = argparse.ArgumentParser(
        prog="xactika bot",
        description="Run a built-in bot that speaks the player protocol (spec/PLAYER.md) "
        "on stdin/stdout.",
    )
    bp.add_argument("name", help=f"which bot: {names}")
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


def main(argv: Sequence[str]) -> int:
    help_asked = any(a in ("-h", "--help") for a in argv)
    args = build_parser(list_names=help_asked).parse_args(argv)
    if args.name == "random":  # RandomAgent's choices without the core (lean_player.py)
        session: PlayerSession | LeanRandomSession = LeanRandomSession(args.seed, args.name)
        return serve(session, sys.stdin.buffer, sys.stdout.buffer)
    from xactika.core.bots.agents import make_agent
    from xactika.protocol.player import PlayerSession

    try:
        agent = make_agent(args.name, args.seed)
    except ValueError as exc:
        print(f"xactika bot: {exc}", file=sys.stderr)
        return 2
    return serve(PlayerSession(agent, args.name), sys.stdin.buffer, sys.stdout.buffer)
