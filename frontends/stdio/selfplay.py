"""``xactika selfplay``: a whole game between seeded random bots, printed as events."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from xactika.core import RandomAgent, XactikaError, game_rules
from xactika.core.bots.agents import self_play
from xactika.core.engine.api import Config, Event
from xactika.core.engine.rng import fresh_seed
from xactika.frontends.cli.options import OneLineParser, lang_of
from xactika.frontends.i18n import _, error_said, using
from xactika.frontends.people.flags import (
    add_option_flags,
    counting_number,
    default_help,
    modes_help,
    option_pairs,
    whole_number,
)
from xactika.protocol.notation.text import config_from_pairs, format_event
from xactika.protocol.records.assemble import RecordFacts, record_headers
from xactika.protocol.records.textform import RecordWriter, utc_date
from xactika.protocol.trust.signing import KeyFileError, Signer, signer_for
from xactika.protocol.trust.tamper import commit_config


def build_parser() -> argparse.ArgumentParser:
    sp = OneLineParser(
        prog="xactika selfplay", description="Play a whole game between random bots."
    )
    sp.add_argument("--game", default="xactika", help="game to play (default: xactika)")
    sp.add_argument("--mode", default=None, help=modes_help())
    sp.add_argument("--players", type=counting_number, default=None,
                    help=_("number of players ({default})").format(
                        default=default_help("players")))
    sp.add_argument("--rounds", type=counting_number, default=None,
                    help=_("rounds in the game ({default})").format(
                        default=default_help("rounds")))
    add_option_flags(sp)  # each game's own settings: --target, --top, ...
    sp.add_argument("--dealer", type=whole_number, default=0, help="first dealer's seat")
    sp.add_argument("--seed", type=whole_number, default=None, help="deal seed (default: random)")
    sp.add_argument("--quiet", action="store_true", help="print the standings only")
    sp.add_argument(
        "--record", metavar="PATH", default=None,
        help="also write the game as a signed record file with a seed commitment "
        "(spec/RECORDS.md, spec/TAMPER.md)",
    )
    sp.add_argument("--key", metavar="FILE", default=None,
                    help="with --record: sign with this private key (default: the user's "
                    "key, made on first use; see xactika keygen)")
    return sp


def main(argv: Sequence[str]) -> int:
    with using(lang_of(argv, has_lang=False)):  # --help in the reader's language
        args = build_parser().parse_args(argv)
    pairs = {"game": args.game, "dealer": str(args.dealer)}
    for key in ("mode", "players", "rounds"):
        if getattr(args, key) is not None:
            pairs[key] = str(getattr(args, key))
    pairs.update(option_pairs(args))
    pairs["seed"] = str(args.seed if args.seed is not None else fresh_seed())
    try:
        config = config_from_pairs(pairs, defaults=True)
        rules = game_rules(config.game)
        rules.validate(config)
    except XactikaError as exc:
        with using(lang_of(argv, has_lang=False)):  # a setting's error as --help speaks
            print(f"xactika selfplay: {error_said(exc)}", file=sys.stderr)
        return 2
    signer = None
    if args.record is not None:
        config = commit_config(config)  # spec/TAMPER.md
        try:
            signer = signer_for(args.key)
        except (KeyFileError, OSError) as exc:
            print(f"xactika selfplay: --key: {exc}", file=sys.stderr)
            return 2
    seed = config.seed or 0
    agents = [RandomAgent(seed * 1000 + s) for s in range(config.players)]
    state, events = self_play(config, agents)
    if args.record is not None and not write_record(args.record, config, events, signer):
        return 2
    if not args.quiet:
        for event in events:
            print(format_event(event, rules))
    low = rules.low_wins(config)
    print(standings(state.totals, rules.game_winners(state), low_wins=low))
    return 0


def write_record(path: str, config: Config, events: Sequence[Event],
                 signer: Signer | None = None) -> bool:
    """Write the record; False (after a one-line error) when the file cannot be written."""
    headers = record_headers(RecordFacts(
        config, [f"random-{s}" for s in range(config.players)], date=utc_date()), events)
    try:
        with RecordWriter(path, headers, signer=signer) as writer:
            for event in events:
                writer.write(event)
    except OSError as exc:
        print(f"xactika selfplay: cannot write {path!r}: {exc.strerror}", file=sys.stderr)
        return False
    return True


def standings(totals: Sequence[int], winners: Sequence[int], *, low_wins: bool = False) -> str:
    """Best first: highest totals, or lowest where low totals win."""
    sign = 1 if low_wins else -1
    order = sorted(range(len(totals)), key=lambda s: sign * totals[s])
    lines = ["final standings:"]
    for seat in order:
        mark = "  winner" if seat in winners else ""
        lines.append(f"  seat {seat}: {totals[seat]:>4}{mark}")
    return "\n".join(lines)
