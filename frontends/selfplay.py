"""``xactika selfplay``: a whole game between seeded random bots, printed as events."""

from __future__ import annotations

import argparse
import secrets
import sys
from collections.abc import Sequence

from xactika.core import RandomAgent, XactikaError, game_rules
from xactika.core.agents import self_play
from xactika.protocol.text import config_from_pairs, format_event


def whole_number(text: str) -> int:
    """An argparse type: a whole number, 0 or more, with a clear error otherwise."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected 0 or more, not {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    sp = argparse.ArgumentParser(
        prog="xactika selfplay", description="Play a whole game between random bots."
    )
    sp.add_argument("--game", default="xactika", help="game to play (default: xactika)")
    sp.add_argument("--mode", default=None, help="win, lose or bid for Xactika (default: bid)")
    sp.add_argument("--players", type=whole_number, default=None, help="number of players")
    sp.add_argument("--rounds", type=whole_number, default=None, help="rounds in the game")
    sp.add_argument("--dealer", type=whole_number, default=0, help="first dealer's seat")
    sp.add_argument("--seed", type=whole_number, default=None, help="deal seed (default: random)")
    sp.add_argument("--quiet", action="store_true", help="print the standings only")
    return sp


def main(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(argv)
    pairs = {"game": args.game, "dealer": str(args.dealer)}
    for key in ("mode", "players", "rounds"):
        if getattr(args, key) is not None:
            pairs[key] = str(getattr(args, key))
    pairs["seed"] = str(args.seed if args.seed is not None else secrets.randbelow(2**32))
    try:
        config = config_from_pairs(pairs, defaults=True)
        rules = game_rules(config.game)
        rules.validate(config)
    except XactikaError as exc:
        print(f"xactika selfplay: {exc}", file=sys.stderr)
        return 2
    seed = config.seed or 0
    agents = [RandomAgent(seed * 1000 + s) for s in range(config.players)]
    state, events = self_play(config, agents)
    if not args.quiet:
        for event in events:
            print(format_event(event, rules))
    low = config.mode == "lose"
    print(standings(state.totals, rules.winners(config, state.totals), low_wins=low))
    return 0


def standings(totals: Sequence[int], winners: Sequence[int], *, low_wins: bool = False) -> str:
    """Best first: highest totals, or lowest where low totals win."""
    sign = 1 if low_wins else -1
    order = sorted(range(len(totals)), key=lambda s: sign * totals[s])
    lines = ["final standings:"]
    for seat in order:
        mark = "  winner" if seat in winners else ""
        lines.append(f"  seat {seat}: {totals[seat]:>4}{mark}")
    return "\n".join(lines)
