"""What ``serve``, ``connect`` and ``lobby`` share: one-line option errors, checked
option values, and where a token comes from (never only the command line, which every
local user can read in ``ps``)."""

from __future__ import annotations

import argparse
import os
import sys

from xactika.frontends.cli.options import OneLineParser
from xactika.frontends.i18n import later
from xactika.protocol.net.clock import DEFAULT_PACE, Pace, parse_pace

__all__ = ["OneLineParser"]  # here too, where serve, connect and lobby import it from

TOKEN_ENV = "XACTIKA_TOKEN"
DEFAULT_CLOCK = "300+15"
"""A person's bank and increment (seconds) where a table's creator names none: serve's
default, and the web lobby's, so that both hosts time people alike."""
TOKEN_MAX = 200  # characters: a token file is one short line, not a file to slurp


def port_number(text: str) -> int:
    """An argparse type: a TCP port, 0 (any free one) to 65535."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number, not {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port from 0 to 65535, not {value}")
    return value


def seconds(text: str) -> float:
    """An argparse type for clocks: a finite number of seconds above 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, not {text!r}") from None
    if not 0 < value < 1e9:
        raise argparse.ArgumentTypeError(f"expected seconds above 0, not {text}")
    return value


def pace_value(text: str) -> Pace | None:
    """An argparse type: ``CARD/TRICK/ROUND`` seconds or ``off`` (protocol/net/clock.py)."""
    try:
        return parse_pace(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_pace_option(p: argparse.ArgumentParser) -> None:
    """``--pace``, as serve and the web take it: both pace their tables with people alike."""
    p.add_argument("--pace", type=pace_value, default=DEFAULT_PACE, metavar="CARD/TRICK/ROUND",
                   help=later("at a table with people: seconds before each bot's card, after "
                              "a trick and after a round, so people can follow (default "
                              "{pace}; 'off': instant). Tables of bots are never paced, and "
                              "nobody's clock runs during a pause", pace=DEFAULT_PACE.text()))


def pace_note(pace: Pace | None) -> str:
    """The start-up line's words for the pace."""
    return f"pace {pace.text()}" if pace is not None else "no pace"


def add_token_options(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--token", default=None,
                   help=later("{what} (visible to local users in ps: prefer --token-file or "
                              "${env})", what=what, env=TOKEN_ENV))
    p.add_argument("--token-file", default=None, metavar="FILE",
                   help=later("{what}: read it from the first line of FILE ('-': "
                              "standard input)", what=what))


def token_from(args: argparse.Namespace) -> str:
    """The token: ``--token``, else ``--token-file``, else $XACTIKA_TOKEN; ValueError
    (one line) when none is given or the file cannot be read."""
    if args.token is not None and args.token_file is not None:
        raise ValueError("give --token or --token-file, not both")
    if args.token is not None:
        token = args.token
    elif args.token_file is not None:
        try:
            if args.token_file == "-":
                first = sys.stdin.readline(TOKEN_MAX + 2)
            else:
                with open(args.token_file, encoding="utf-8") as file:
                    first = file.readline(TOKEN_MAX + 2)
        except (OSError, UnicodeDecodeError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise ValueError(f"cannot read the token file {args.token_file!r}: {why}") from None
        token = first.strip()
        if not token:
            raise ValueError(f"the token file {args.token_file!r} is empty")
    else:
        token = os.environ.get(TOKEN_ENV, "").strip()
        if not token:
            raise ValueError(f"no token: give --token-file FILE, ${TOKEN_ENV} or --token")
    if len(token) > TOKEN_MAX or not token.isprintable() or len(token.split()) != 1:
        raise ValueError("the token is not one word of printable characters")
    return token
