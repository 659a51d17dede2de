"""``xactika play``: play at the terminal against built-in bots, bot programs or friends.

The game itself is a :class:`~xactika.frontends.repl.shell.Shell` (pure); this
module parses the flags, builds the seats and runs the read-print loop, with
prompt_toolkit on a terminal and plain line reading otherwise (pipes, CI).

Seats: ``--seat N=human[:NAME]``, ``--seat N=bot:NAME`` or ``--seat N=cmd:COMMAND``
(a program speaking the player protocol), N counted from 1 as people count seats. Unnamed
seats: seat 1 is you, the rest are
``--bots`` (heuristic when available). Two or more humans make a hot-seat game.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from xactika.core.bots.agents import Agent, agent_names, make_agent
from xactika.core.bots.levels import LEVEL_NAMES
from xactika.core.engine.api import Config, Event, game_rules, start
from xactika.core.engine.errors import XactikaError
from xactika.core.engine.rng import fresh_seed
from xactika.frontends.cli.invocation import xactika_command
from xactika.frontends.cli.options import OneLineParser, lang_of
from xactika.frontends.i18n import _, error_said, later, using
from xactika.frontends.people.driver import LoadError, load_game
from xactika.frontends.people.flags import (
    add_option_flags,
    counting_number,
    default_help,
    modes_help,
    option_pairs,
    whole_number,
)
from xactika.frontends.people.seats import seat_shown, seat_typed
from xactika.frontends.repl import render
from xactika.frontends.repl.gameids import GameIdError, keep, recall, state_dir
from xactika.frontends.repl.shell import (
    BOT,
    CMD,
    HUMAN,
    SeatSpec,
    Shell,
    parse_seat_spec,
)
from xactika.protocol.trust.tamper import commit_config

CLEAR = "\x1b[H\x1b[2J\x1b[3J"  # home, clear the screen and the scrollback
# The tutorial's deal: with 4 players, round 1 gives you two 11s (sure winners to bid on)
# and low cards to duck with: the first seed of 1..59 that does (any seed would teach).
TUTORIAL_SEED = 14


def default_bot() -> str:
    names = agent_names()
    return "heuristic" if "heuristic" in names else "random"


def history_path(flag: str | None) -> Path | None:
    """--history, else $XACTIKA_HISTORY, else $XDG_STATE_HOME/xactika/history.

    An empty value turns history off.
    """
    value = flag if flag is not None else os.environ.get("XACTIKA_HISTORY")
    if value is not None:
        return Path(value).expanduser() if value else None
    return state_dir() / "history"


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog="xactika play",
        description="Play at the terminal: you against built-in bots (Play to Bid, 8 rounds "
        "by default), bot programs, or other people at the same keyboard (hot-seat).",
        epilog=_("seat specs: human, human:NAME, bot:NAME ({bots}), cmd:'COMMAND ARGS' (a "
                 "bot program speaking the player protocol). Examples: --seat 2=bot:random "
                 "--seat 3=cmd:'python3 examples/random_bot.py'; --hot-seat 2 for two people. "
                 "In the game: '3' plays your third card, '3 st' leads it calling its stars, "
                 "'bid 2' bids, 'help' lists the commands.").format(
                     bots=", ".join(agent_names())),
    )
    p.add_argument("--game", default=None, help="game to play (default: xactika)")
    p.add_argument("--mode", default=None, help=modes_help())
    p.add_argument("--players", type=counting_number, default=None,
                   help=_("players ({default})").format(default=default_help("players")))
    p.add_argument("--rounds", type=counting_number, default=None,
                   help=_("rounds ({default})").format(default=default_help("rounds")))
    add_option_flags(p)  # each game's own settings: --target, --top, ...
    p.add_argument("--dealer", type=counting_number, default=None, metavar="N",
                   help="the first dealer's seat, counted from 1 (default 1)")
    p.add_argument("--seed", type=whole_number, default=None, help="deal seed (default: random)")
    p.add_argument("--seat", action="append", default=[], metavar="N=SPEC",
                   help="who sits at seat N, counted from 1 (repeatable); see below")
    p.add_argument("--hot-seat", type=whole_number, default=None, metavar="K",
                   help="seats 1..K are people sharing this terminal")
    p.add_argument("--bots", default=None, metavar="NAME",
                   help=_("built-in bot for the other seats (default: {bot})").format(
                       bot=default_bot()))
    p.add_argument("--level", type=int, choices=range(1, 6), default=None, metavar="1..5",
                   help=_("the other seats' strength: {levels} (3 plays like the default in "
                          "Play to Bid); per seat: --seat N=bot:strong:LEVEL").format(
                       levels=", ".join(f"{n} {name}" for n, name in LEVEL_NAMES.items())))
    p.add_argument("--hint-bot", default=None, metavar="NAME",
                   help=_("bot that answers 'hint' (default: {bot})").format(bot=default_bot()))
    p.add_argument("--load", default=None, metavar="FILE", help="continue a saved game")
    p.add_argument("--again", default=None, metavar="ID",
                   help="play a finished game's deals again: the short id its end printed "
                   "(kept in $XDG_STATE_HOME/xactika/games; later flags change it)")
    p.add_argument("--tutorial", action="store_true",
                   help=_("learn the game: a guided first round on a preset deal (seed "
                          "{seed}), then a normal game").format(seed=TUTORIAL_SEED))
    p.add_argument("--no-undo", action="store_true", help="play for real: no undo")
    p.add_argument("--auto-play", action="store_true",
                   help="play your forced moves for you (one legal choice: the last card, "
                   "the only card that follows)")
    p.add_argument("--key", default=None, metavar="FILE",
                   help="sign saved games with this private key (default: the user's key, "
                   "made on first use; see xactika keygen)")
    add_lang_option(p)
    p.add_argument("--ascii", action="store_true", help="7-bit characters only")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                   help="colours (auto: on a terminal unless NO_COLOR is set)")
    p.add_argument("--history", default=None, metavar="FILE",
                   help="input history file ('' for none; default "
                   "~/.local/state/xactika/history or $XACTIKA_HISTORY)")
    p.add_argument("--move-timeout", type=float, default=10.0, metavar="S",
                   help="seconds a bot program may think (default 10)")
    from xactika.frontends.match.sandbox import add_arguments

    add_arguments(p)  # --sandbox and the limits, for --seat N=cmd:... programs
    p.add_argument("--connect", default=None, metavar="HOST:PORT",
                   help="take a seat at an 'xactika serve' table (its token from "
                   "--token-file, $XACTIKA_TOKEN or --token)")
    from xactika.frontends.net.options import add_token_options

    add_token_options(p, later("the seat's token, for --connect"))
    p.add_argument("--name", default=None,
                   help="your name at a --connect table (default: your login name)")
    p.add_argument("--tls", action="store_true", help="--connect with TLS")
    p.add_argument("--cafile", default=None, metavar="PEM",
                   help="trust this certificate for --connect (implies --tls)")
    return p


def add_lang_option(p: argparse.ArgumentParser) -> None:
    """--lang: the language a person reads (the protocol, records and logs stay English)."""
    from xactika.frontends.i18n import languages

    p.add_argument("--lang", default=None, metavar="LANG",
                   help=_("the language of the game's texts: {langs} (default: from "
                          "LANGUAGE, LC_ALL, LC_MESSAGES or LANG, else en)").format(
                              langs=", ".join(languages())))


def chosen_lang(flag: str | None) -> str:
    """--lang's language, else the environment's; raises UsageError for a language there
    is no catalog for."""
    from xactika.frontends import i18n

    try:
        return i18n.choose(flag)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


class UsageError(Exception):
    pass


def _seat_overrides(args: argparse.Namespace, players: int) -> dict[int, SeatSpec]:
    names = agent_names()
    found: dict[int, SeatSpec] = {}
    if args.hot_seat is not None:
        if not 1 <= args.hot_seat <= players:
            raise UsageError(f"--hot-seat takes 1 to {players} people, not {args.hot_seat}")
        for s in range(args.hot_seat):
            found[s] = SeatSpec(HUMAN)
    for item in args.seat:
        number, eq, spec = item.partition("=")
        if not eq or not number.strip().isdigit():
            raise UsageError(f"bad --seat {item!r}: expected N=SPEC, e.g. 2=bot:random")
        try:
            seat = seat_typed(number, players)
        except XactikaError as exc:
            raise UsageError(f"bad --seat {item!r}: {exc}") from None
        try:
            found[seat] = parse_seat_spec(spec, names)
        except XactikaError as exc:
            raise UsageError(str(exc)) from None
    return found


DEFAULT_GAME = "xactika"  # what 'play' plays without --game


def _config(args: argparse.Namespace) -> Config:
    from xactika.protocol.notation.text import config_from_pairs

    pairs = {"game": args.game or DEFAULT_GAME}
    for key in ("mode", "players", "rounds"):
        if getattr(args, key) is not None:
            pairs[key] = str(getattr(args, key))
    if args.dealer is not None:  # typed as people count seats
        pairs["dealer"] = str(args.dealer - 1)
    pairs.update(option_pairs(args))
    seed = args.seed if args.seed is not None else (
        TUTORIAL_SEED if args.tutorial else fresh_seed())
    pairs["seed"] = str(seed)
    config = config_from_pairs(pairs, defaults=True)
    if args.dealer is not None and args.dealer > config.players:
        raise UsageError(f"--dealer is a seat from 1 to {config.players}, not {args.dealer}")
    game_rules(config.game).validate(config)
    return config


def _load(path: str) -> tuple[list[Event], list[SeatSpec] | None, str | None]:
    """The game so far, its seats and its start date."""
    try:
        loaded = load_game(path)
    except LoadError as exc:
        raise UsageError(str(exc)) from None
    seats = list(loaded.seats) if loaded.seats is not None else None
    return list(loaded.events), seats, loaded.started


def _agent_factory(
    seats: Sequence[SeatSpec], config: Config, move_timeout: float, sandbox: Any = None
) -> Callable[[int], Agent]:
    base = config.seed or 0

    def build(seat: int) -> Agent:
        spec = seats[seat]
        if spec.kind == CMD:
            from xactika.protocol.player.process import PlayerProcess, ProcessAgent

            player = PlayerProcess(spec.argv, move_timeout=move_timeout, sandbox=sandbox)
            player.start()
            return ProcessAgent(player)
        return make_agent(spec.name, base * 1000 + seat, game=config.game)

    return build


def _sandbox(args: argparse.Namespace, seats: Sequence[SeatSpec]) -> Any:
    """How ``cmd:`` seats start (frontends/match/sandbox.py); said once when unsandboxed."""
    if not any(spec.kind == CMD for spec in seats):
        return None
    from xactika.frontends.match.sandbox import SandboxError, describe, from_args
    from xactika.protocol.trust.signing import default_key_path

    # the saved game and the key that signs saves are never mounted, as in a match
    secret = [args.load, args.key or default_key_path()]
    try:
        box = from_args(args, hide=[p for p in secret if p is not None])
    except (SandboxError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    if not box.sandboxed:
        print(f"xactika play: {describe(box)}", file=sys.stderr)
    return box


def setup(args: argparse.Namespace, style: render.Style) -> Shell:
    """The session the flags ask for; raises UsageError or XactikaError."""
    if args.load is not None:
        clashing = [f"--{k}" for k in ("game", "mode", "players", "rounds", "dealer", "seed",
                                       *option_pairs(args)) if getattr(args, k) is not None]
        if clashing:
            raise UsageError(f"--load takes the settings from the file; drop {clashing[0]}")
        if args.tutorial:
            raise UsageError("--tutorial starts a new game; drop --load")
        events, saved, started = _load(args.load)
        config = events[0].config
    else:
        # a seeded game commits to its seed, revealed at game-over (spec/TAMPER.md)
        config = commit_config(_config(args))
        events = start(config)
        saved = started = None
    if args.level is not None and args.bots is not None:
        raise UsageError("--level picks the bots: drop --bots (or --level)")
    bot = args.bots or (f"strong:{args.level}" if args.level is not None else default_bot())
    names = agent_names()
    for flag, value in (("--bots", bot), ("--hint-bot", args.hint_bot)):
        if value is not None and value not in names:
            raise UsageError(f"unknown bot {value!r} for {flag}: expected one of "
                             + ", ".join(names))
    seats = saved or [SeatSpec(HUMAN)] + [SeatSpec(BOT, bot) for _ in range(config.players - 1)]
    overrides = _seat_overrides(args, config.players)
    if args.hot_seat is not None and not saved:
        seats = [SeatSpec(BOT, bot) for _ in range(config.players)]
    seats = [overrides.get(s, spec) for s, spec in enumerate(seats)]
    if not any(s.kind == HUMAN for s in seats):
        raise UsageError("no seat is human: give one with --seat N=human (or run selfplay)")
    hint = args.hint_bot or default_bot()
    base = config.seed or 0
    session = Shell(
        events, seats, _agent_factory(seats, config, args.move_timeout, _sandbox(args, seats)),
        make_hint=lambda seat: make_agent(hint, base * 1000 + 500 + seat, game=config.game),
        style=style, practice=not args.no_undo,
        show_seed=args.seed is not None or args.load is not None or args.tutorial,
        tutorial=args.tutorial, started=started,
    )
    if args.key is not None:
        from xactika.protocol.trust.signing import KeyFileError, load_signer

        try:
            load_signer(args.key)  # refused now, not at the first save
        except KeyFileError as exc:
            raise UsageError(f"--key: {exc}") from None
        session.key_file = args.key
    for seat, spec in enumerate(seats):  # a bot program names itself in its hello
        agent: Any = session.agents.get(seat)
        if spec.kind == CMD and agent is not None and hasattr(agent, "player"):
            session.names[seat] = str(agent.player.name)
    return session


# --------------------------------------------------------------------------- the loop

Reader = Callable[[str], str]  # prompt -> line; EOFError on end of input, Ctrl-C raises


class Loop:
    """The read-print loop around a session, the same with a terminal or a pipe."""

    def __init__(self, session: Shell, read: Reader, out: TextIO, *,
                 interactive: bool, clear: str = CLEAR,
                 columns: Callable[[], int] | None = None,
                 live: Callable[[], None] | None = None) -> None:
        self.session = session
        self.live = live  # started after the intro: a thread that prints what happens
        self.columns = columns or terminal_columns
        self.read = read
        self.out = out
        self.interactive = interactive
        self.clear = clear

    def write(self, text: str) -> None:
        if text:
            self.session.width = self.columns()  # a resize since the text was laid out
            self.out.write(render.fit(text, self.session.width) + "\n")
            self.out.flush()

    def ask(self, question: str) -> str:
        """Read after ``question``, its last line as the prompt: a question wider than the
        terminal (German words are longer) is wrapped between words, never mid-word."""
        *head, last = render.fit(question.rstrip(" "), self.columns()).split("\n")
        if head:
            self.out.write("\n".join(head) + "\n")
        return self.read(last + " ")

    def confirm_quit(self) -> bool:
        if self.session.over or not self.interactive:
            return True
        saved = self.session.saved
        try:
            answer = self.ask(
                _("leave this unfinished game? everything so far is saved in {path} [y/N] "
                  ).format(path=saved.path)
                if saved is not None and saved.events == len(self.session.events) else
                _("leave this unfinished game? it is not saved unless you used 'save FILE' "
                  "[y/N] "))
        except EOFError:
            return True
        except KeyboardInterrupt:
            return False
        return answer.strip().lower() in ("y", "yes", _("y"), _("yes"))

    def handover(self, seat: int, *, hide: bool = True) -> bool:
        """Hot-seat: hide the last hand and wait until the next person is at the keys."""
        s = self.session
        try:
            if hide:
                if self.interactive:
                    self.ask(_("press Enter to hide your hand and pass the terminal "))
                self.out.write(self.clear)
            self.ask(_("pass the terminal to {who}; press Enter when ready ").format(
                who=s.label(seat)))
        except EOFError:
            return False
        except KeyboardInterrupt:
            return True
        return True

    def run(self) -> int:
        s = self.session
        s.width = self.columns()
        self.write(s.intro())
        if s.over:  # a finished game was loaded
            self.write(s.scores_text())
        if self.live is not None:
            self.live()
        news = ""
        shown: int | None = None
        last_human: int | None = None
        told_over = False
        while True:
            s.width = self.columns()  # the terminal may have been resized
            if not s.over and s.human_to_act is None:  # bots to move (again, after Ctrl-C)
                try:
                    news = "\n".join(s.advance())
                except KeyboardInterrupt:
                    if self.confirm_quit():
                        return 0
                    continue
                self.write(news)
            seat = s.human_to_act
            told_over = told_over and s.over  # an undo at the end reopens the game
            if s.over and not told_over and self.live is not None:
                told_over = True  # the thread that printed the end said it
            if s.over and not told_over:
                told_over = True
                # the standings said 'again' and 'new' already, where they are offered
                self.write(s.end_words())
            if not s.over and s.human_to_act is not None:
                forced = s.play_forced()
                if forced is not None:
                    self.write(forced.text)
                    news, shown = forced.text, None
                    continue
            if seat is not None and seat != shown and self.live is None:
                if s.hot_seat and seat != last_human:
                    hide = last_human is not None
                    if not self.handover(seat, hide=hide):
                        return 0
                    if hide:
                        self.write(news)  # what happened since, all public
                    last_human = seat
                self.write(s.table(seat))
                shown = seat
            try:
                line = self.read(s.prompt())
            except KeyboardInterrupt:
                continue  # Ctrl-C clears the line, as in a shell
            except EOFError:
                if self.confirm_quit():
                    self.write("")
                    return 0
                continue
            if s.over and not line.strip():
                return 0
            try:
                reply = s.handle(line)
            except KeyboardInterrupt:  # Ctrl-C while bots thought: the game is intact
                self.write(_("interrupted"))
                continue
            except Exception as exc:  # a bug must not cost the game
                if os.environ.get("XACTIKA_DEBUG"):
                    raise
                self.write(_("internal error ({error}); please report it. 'save FILE' keeps "
                             "the game").format(error=f"{type(exc).__name__}: {exc}"))
                continue
            if reply.quit and s.next_game is not None:  # 'again' or 'new' at the end
                self.write(reply.text)
                return 0
            if reply.quit:
                if self.confirm_quit():
                    return 0
                continue
            self.write(reply.text)
            if reply.moved:
                news = reply.text
                shown = None


def ask_names(session: Shell, read: Reader) -> bool:
    """Hot-seat: ask each person without a name for one, once, before the game (so every
    prompt, line and record says who); two people are never given one name. False when
    the input ended."""
    taken = {session.names[s] for s in range(len(session.seats)) if s not in session.humans}
    for seat in session.humans:
        spec = session.seats[seat]
        name = spec.name
        while not name:
            try:
                said = read(_("name of the player at seat {seat} (Enter: {default}) ").format(
                    seat=seat_shown(seat), default=f"player{seat_shown(seat)}"))
            except (EOFError, KeyboardInterrupt):
                return False
            said = "-".join(said.replace(",", " ").split())[:24] or f"player{seat_shown(seat)}"
            if said in taken or said in ("you", "human"):
                print(_("{name} is taken: another name, please").format(name=repr(said)),
                      file=sys.stderr)
                continue
            name = said
        taken.add(name)
        session.seats[seat] = SeatSpec(HUMAN, name)
        session.names[seat] = name
    return True


def terminal_columns() -> int:
    """The terminal's width ($COLUMNS first; 80 for a pipe), at least 40."""
    import shutil

    return max(40, shutil.get_terminal_size((80, 24)).columns)


def pipe_reader(stream: TextIO, out: TextIO) -> Reader:
    """Lines from a pipe; each is echoed after its prompt so a transcript reads well."""

    def read(prompt: str) -> str:
        line = stream.readline()
        if not line:
            raise EOFError
        out.write(prompt + line.rstrip("\n") + "\n")
        out.flush()
        return line.rstrip("\r\n")

    return read


class PromptReader:
    """A prompt_toolkit prompt with completion and a history file; ``live``, a prompt
    that follows the session as a thread changes it (what to type, the clock in the
    toolbar), redrawn four times a second."""

    def __init__(self, session: Shell, history: Path | None, *, live: bool = False,
                 **kwargs: Any) -> None:
        self.session = session
        self.live = live
        from prompt_toolkit import PromptSession
        from prompt_toolkit.history import DummyHistory, FileHistory, History, InMemoryHistory

        from xactika.frontends.repl.suggest import SuggestCompleter

        store: History = InMemoryHistory()
        if session.hot_seat:
            # Up-arrow would show the next person what the last one typed, refused
            # cards included: a hot-seat game keeps no history at all.
            store = DummyHistory()
        elif history is not None:
            try:
                history.parent.mkdir(parents=True, exist_ok=True)
                history.touch(exist_ok=True)
                store = FileHistory(str(history))
            except OSError as exc:
                print(f"xactika play: no history file ({history}: {exc.strerror}); "
                      "history kept for this game only", file=sys.stderr)
        self.prompt: PromptSession[str] = PromptSession(
            history=store, completer=SuggestCompleter(session.context),
            complete_while_typing=False, **kwargs,
        )

    def __call__(self, text: str) -> str:
        if not self.live:
            return self.prompt.prompt(text)
        session: Any = self.session
        asked = session.prompt()
        if text != asked:  # a question of the shell's own (leave? y/N)
            return self.prompt.prompt(text)
        return self.prompt.prompt(lambda: session.prompt(), refresh_interval=0.25,
                                  bottom_toolbar=lambda: session.clock_text())


def prompt_reader(session: Shell, history: Path | None, **kwargs: Any) -> PromptReader:
    return PromptReader(session, history, **kwargs)


def choose_style(args: argparse.Namespace, out: TextIO) -> render.Style:
    if args.color == "always":
        color = True
    elif args.color == "never" or os.environ.get("NO_COLOR"):
        color = False
    else:
        color = out.isatty() and os.environ.get("TERM") != "dumb"
    return render.Style(color=color, ascii=args.ascii)


def main(argv: Sequence[str], *, stdin: TextIO | None = None,
         stdout: TextIO | None = None) -> int:
    with using(lang_of(argv)):  # --help in the language the game will speak
        args = build_parser().parse_args(argv)
    try:
        lang = chosen_lang(args.lang)
        if args.again is not None:
            args = _again(args, argv)
    except (UsageError, GameIdError) as exc:
        print(f"xactika play: {exc}", file=sys.stderr)
        return 2
    with using(lang):  # this call's context only: a caller's language is left as it was
        return _main(args, stdin=stdin, stdout=stdout)


def _again(args: argparse.Namespace, argv: Sequence[str]) -> argparse.Namespace:
    """The flags kept under ``--again ID``, then those typed with it (the later wins)."""
    for flag in ("load", "connect", "tutorial"):
        if getattr(args, flag):
            raise UsageError(f"--again plays a kept game: drop --{flag}")
    with using(lang_of(argv)):
        return build_parser().parse_args([*recall(args.again), *argv])


def _main(args: argparse.Namespace, *, stdin: TextIO | None, stdout: TextIO | None) -> int:
    inp = stdin or sys.stdin
    out = stdout or sys.stdout
    style = choose_style(args, out)
    if args.connect is not None:  # a remote seat: the server has the game
        from xactika.frontends.repl.remote import play_remote

        return play_remote(args, inp, out, style)
    while True:  # one game, or more while the person asks for 'again' or 'new'
        try:
            session = setup(args, style)
        except (UsageError, XactikaError, ValueError) as exc:
            print(f"xactika play: {error_said(exc)}", file=sys.stderr)
            return 2
        session.autoplay = args.auto_play
        session.again = again_command(args, session)
        try:
            interactive = inp.isatty() and out.isatty()
            read: Reader
            if interactive:
                read = prompt_reader(session, history_path(args.history))
            else:
                read = pipe_reader(inp, out)
            if session.hot_seat and args.load is None and not ask_names(session, read):
                return 0
            code = Loop(session, read, out, interactive=interactive,
                         clear=CLEAR if out.isatty() else "\n" * 3).run()
        finally:
            session.close()
        if session.next_game is None:
            return code
        args = next_game_args(args, session)


def _seat_flags(session: Shell) -> list[str]:
    """The seats as flags that seat them again: ``--bots NAME`` for the usual table (you,
    then one bot everywhere else), else ``--seat N=SPEC`` each."""
    seats = session.seats
    first, rest = seats[0], seats[1:]
    if first.kind == HUMAN and not first.name and rest and all(
            s.kind == BOT and s.name == rest[0].name for s in rest):
        return [] if rest[0].name == default_bot() else ["--bots", rest[0].name]
    people = [s for s, spec in enumerate(seats) if spec.kind == HUMAN]
    bots = seats[len(people):]
    if len(people) >= 2 and people == list(range(len(people))) and all(
            s.kind == BOT and s.name == bots[0].name for s in bots):  # hot-seat, named
        flags = ["--hot-seat", str(len(people))]
        flags += ["--bots", bots[0].name] if bots and bots[0].name != default_bot() else []
        return flags + [flag for s in people if seats[s].name
                        for flag in ("--seat", f"{seat_shown(s)}={seats[s].text()}")]
    return [flag for s, spec in enumerate(seats)
            for flag in ("--seat", f"{seat_shown(s)}={spec.text()}")]


def _settings_flags(config: Config) -> list[str]:
    """The flags that give ``config``'s settings, those the defaults give left out (the
    command stays short enough to read)."""
    from xactika.protocol.notation.text import config_from_pairs

    options = {key: str(value) for key, value in config.options}
    # the defaults for these options and players (Oh Hell's rounds follow its top)
    base = config_from_pairs({"game": config.game, "players": str(config.players), **options},
                             defaults=True)
    flags = [] if config.game == DEFAULT_GAME else ["--game", config.game]
    keys = ("mode", "players", "dealer") if config.option("target") is not None else (
        "mode", "players", "rounds", "dealer")
    defaults = config_from_pairs({"game": config.game}, defaults=True)
    flags += [flag for key in keys
              if getattr(config, key) != getattr(base if key == "rounds" else defaults, key)
              for flag in (f"--{key}", str(seat_shown(config.dealer) if key == "dealer"
                                           else getattr(config, key)))]
    # every option the game was given (each game's own: Dix's target, Oh Hell's top...)
    flags += [flag for key, value in options.items() for flag in (f"--{key}", value)]
    return flags


def again_command(args: argparse.Namespace, session: Shell) -> str | None:
    """The shell command that plays this game's deals again with the same seats (None
    for deals fixed by hand, which no seed gives)."""
    config = session.config
    if config.seed is None:
        return None
    flags = [*_settings_flags(config), *_seat_flags(session), "--seed", str(config.seed)]
    flags += ["--no-undo"] if not session.practice and not session.hot_seat else []
    flags += ["--auto-play"] if session.autoplay else []
    try:  # a short id for the whole seed, where this machine can keep one
        return " ".join([xactika_command(), "play", "--again", keep(flags)])
    except OSError:
        return " ".join([xactika_command(), "play", *map(shlex.quote, flags)])


def next_game_args(args: argparse.Namespace, session: Shell) -> argparse.Namespace:
    """The flags of the next game: this one's settings and seats, its seed for 'again'
    or a fresh one for 'new' (a loaded game's too; the tutorial is not repeated)."""
    config = session.config
    ns = build_parser().parse_args([*_settings_flags(config), *_seat_flags(session)])
    ns.seed = config.seed if session.next_game == "same" else None
    for kept in ("no_undo", "auto_play", "hint_bot", "key", "ascii", "color", "history",
                 "move_timeout", "lang"):
        setattr(ns, kept, getattr(args, kept))
    ns.sandbox = getattr(args, "sandbox", None)
    return ns
