"""The ``xactika`` command: ``xactika COMMAND [ARGS...]``.

Each command lives in its own module with a ``main(argv) -> int``, imported only when
that command runs, so ``xactika engine`` never pays for prompt_toolkit.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

# name -> (module, one-line help). Add a command with one line here.
COMMANDS: dict[str, tuple[str, str]] = {
    "play": ("xactika.frontends.repl.play", "play at the terminal against bots or friends"),
    "selfplay": ("xactika.frontends.stdio.selfplay", "play a whole game between random bots"),
    "bot": ("xactika.frontends.stdio.bot", "run a built-in bot as a player-protocol process"),
    "match": ("xactika.frontends.match.runner", "play bots against each other on duplicate deals"),
    "check-bot": ("xactika.frontends.match.checkbot", "check that a bot speaks the protocol"),
    "audit": ("xactika.frontends.records.audit", "check records: legal, complete and untampered"),
    "keygen": (
        "xactika.frontends.records.keygen", "make the key that signs records and match manifests"
    ),
    "convert": ("xactika.frontends.records.convert", "convert a record between text and JSONL"),
    "replay": ("xactika.frontends.records.replay", "step through a recorded game"),
    "analyse": (
        "xactika.frontends.records.analyse", "weigh every decision of a record with the search"
    ),
    "engine": ("xactika.frontends.stdio.engine", "the referee protocol on stdin/stdout"),
    "completion": ("xactika.frontends.cli.completion", "print a bash or zsh completion script"),
    "serve": ("xactika.frontends.net.serve", "host tables for remote seats over TCP or TLS"),
    "connect": ("xactika.frontends.net.connect", "play a remote seat with a local bot program"),
    "lobby": ("xactika.frontends.net.lobby", "list, create and join a server's tables"),
    "web": ("xactika.frontends.web.serve", "play, watch and invite in the browser"),
    "arena": ("xactika.frontends.arena.command", "a standing, rated ladder of bots"),
    "account": ("xactika.frontends.accounts.command", "the web site's accounts and ratings"),
}


def _games() -> str:
    """The registered games by their titles, the default first (``Xactika, Dix and Oh Hell``)."""
    from xactika.core.engine.api import games
    from xactika.core.engine.settings import Config
    from xactika.frontends.people.presentation import names_text, presentation

    first = Config().game
    ordered = sorted(games(), key=lambda game: (game != first, game))
    return names_text([presentation(game).title() for game in ordered])


def usage() -> str:
    """The command list, in the environment's language (the texts are in the catalog)."""
    from xactika.frontends.cli.invocation import xactika_command
    from xactika.frontends.cli.options import lang_of
    from xactika.frontends.i18n import _, using

    with using(lang_of([], has_lang=False)):
        width = max(len(name) for name in COMMANDS)
        lines = [
            _("usage: ") + "xactika COMMAND [ARGS...]",
            "",
            _("An engine for trick-taking card games: {games}.").format(games=_games()),
            "",
            _("commands:"),
        ]
        lines += [f"  {name:<{width}}  {_(text)}" for name, (__, text) in COMMANDS.items()]
        lines += ["", _("Run '{command} COMMAND --help' for a command's options.").format(
            command=xactika_command())]
        return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "help"):
        print(usage())
        return 0 if args else 2
    if args[0] == "--version":
        from xactika.core import __version__

        print(f"xactika {__version__}")
        return 0
    name = args[0]
    if name not in COMMANDS:
        print(f"xactika: unknown command {name!r}\n\n{usage()}", file=sys.stderr)
        return 2
    module = importlib.import_module(COMMANDS[name][0])
    try:
        return int(module.main(args[1:]))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader went away (e.g. `| head`): exit quietly, without a traceback
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141

