"""``xactika bot NAME``: a built-in bot as a player-protocol process on stdin/stdout.

Kept light: no prompt_toolkit on this path, so a match pays little to start each bot.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import BinaryIO

from xactika.core.bots.agents import agent_names, make_agent
from xactika.protocol.player import PlayerSession


def build_parser() -> argparse.ArgumentParser:
    bp = argparse.ArgumentParser(
        prog="xactika bot",
        description="Run a built-in bot that speaks the player protocol (spec/PLAYER.md) "
        "on stdin/stdout.",
    )
    bp.add_argument("name", help=f"which bot: {', '.join(agent_names())}")
    bp.add_argument("--seed", type=int, default=None, help="seed for the bot's own choices")
    return bp


def serve(session: PlayerSession, inp: BinaryIO, out: BinaryIO) -> int:
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
    args = build_parser().parse_args(argv)
    try:
        agent = make_agent(args.name, args.seed)
    except ValueError as exc:
        print(f"xactika bot: {exc}", file=sys.stderr)
        return 2
    return serve(PlayerSession(agent, args.name), sys.stdin.buffer, sys.stdout.buffer)
