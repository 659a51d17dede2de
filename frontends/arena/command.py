"""``xactika arena``: a standing, rated ladder of bots (spec/ARENA.md).

    xactika arena init DIR [--db URL] [--ladder NAME] [--game G --mode M --players N ...]
    xactika arena ladder add DIR NAME [--game G --mode M --players N --rounds R ...]
    xactika arena add DIR NAME --owner OWNER (--builtin BOT | --remote | -- CMD ARGS...)
    xactika arena run DIR [--for SECONDS | --games N] [--concurrency K] [--listen HOST:PORT]
    xactika arena standings DIR [--ladder NAME] [--json]
    xactika arena ratings DIR --from-records [--ladder NAME] [--json]
    xactika arena retire DIR NAME / xactika arena pause DIR NAME [--resume]
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from xactika.core.engine.errors import XactikaError
from xactika.frontends.arena.store import said
from xactika.frontends.cli.options import OneLineParser, lang_of
from xactika.frontends.i18n import _, error_said, using
from xactika.frontends.match.sandbox import SandboxError, add_arguments, describe, from_args
from xactika.frontends.parallel.base import ClusterError
from xactika.frontends.people.flags import add_option_flags, option_flags
from xactika.protocol.trust.signing import KeyFileError

PROG = "xactika arena"


def _settings(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", default="xactika", help="game (default: xactika)")
    p.add_argument("--mode", default=None, help="mode (default: the game's last)")
    p.add_argument("--players", type=int, default=None, help="seats at the table")
    p.add_argument("--rounds", type=int, default=None, help="hands a game (default: game's)")
    add_option_flags(p)


def build_parser() -> argparse.ArgumentParser:
    ap = OneLineParser(prog=PROG, description="A standing, rated ladder of bots: entered "
                       "once, scheduled against everyone, rated from signed records "
                       "(spec/ARENA.md).")
    sub = ap.add_subparsers(dest="command", required=True, metavar="COMMAND")
    p = sub.add_parser("init", help="make an arena folder with its key, database and ladder")
    p.add_argument("dir", metavar="DIR")
    p.add_argument("--db", default=None, metavar="URL",
                   help="postgresql://USER@HOST/DB (default: SQLite in DIR)")
    p.add_argument("--ladder", default="main", help="the first ladder's name (main)")
    _settings(p)
    p = sub.add_parser("ladder", help="add a ladder: another game setting")
    lsub = p.add_subparsers(dest="ladder_command", required=True, metavar="add")
    p = lsub.add_parser("add", help="add a ladder")
    p.add_argument("dir", metavar="DIR")
    p.add_argument("name", metavar="NAME")
    _settings(p)
    p = sub.add_parser("add", help="enter a bot: -- CMD ARGS..., --builtin BOT or --remote")
    p.add_argument("dir", metavar="DIR")
    p.add_argument("name", metavar="NAME")
    p.add_argument("--owner", required=True, help="who enters it: one owner's bots never "
                   "share a table")
    p.add_argument("--builtin", default=None, metavar="BOT", help="a built-in bot")
    p.add_argument("--remote", action="store_true", help="a bot on its owner's machine: "
                   "prints the token for 'xactika connect' (see arena run --listen)")
    p.add_argument("--dir", dest="cwd", default=None, help="the bot's working directory")
    p = sub.add_parser("run", help="the scheduler: play games until stopped")
    p.add_argument("dir", metavar="DIR")
    limit = p.add_mutually_exclusive_group()
    limit.add_argument("--for", dest="seconds", type=float, default=None,
                       metavar="SECONDS", help="stop after this long")
    limit.add_argument("--games", type=int, default=None, help="stop after N games")
    p.add_argument("--concurrency", type=int, default=1, help="games at once (default 1)")
    p.add_argument("--cluster", default=None, metavar="ray[=ADDRESS]",
                   help="play every game as a task on a Ray cluster (pip install "
                   "'xactika[ray]'; docs/SCALE.md)")
    p.add_argument("--listen", default=None, metavar="HOST:PORT",
                   help="where remote entrants connect (xactika connect HOST:PORT "
                   "--token-file F -- PROGRAM); without it they are not scheduled")
    add_arguments(p)
    for p in (sub.add_parser("standings", help="the ratings of each ladder, from the database"),
              sub.add_parser("ratings", help="the same, recomputed from the signed records")):
        name = p.prog.rpartition(" ")[2]
        p.add_argument("dir", metavar="DIR")
        p.add_argument("--ladder", default=None, help="one ladder only")
        p.add_argument("--json", action="store_true", help="print JSON")
        if name == "ratings":
            p.add_argument("--from-records", action="store_true", required=True,
                           help="read nothing but the records (required)")
    p = sub.add_parser("retire", help="retire an entrant for good")
    p.add_argument("dir", metavar="DIR")
    p.add_argument("name", metavar="NAME")
    p = sub.add_parser("pause", help="stop scheduling an entrant (--resume: start again)")
    p.add_argument("dir", metavar="DIR")
    p.add_argument("name", metavar="NAME")
    p.add_argument("--resume", action="store_true", help="schedule it again")
    return ap


def main(argv: Sequence[str]) -> int:
    args_list = list(argv)
    cmd: list[str] | None = None
    if "--" in args_list:  # arena add ... -- CMD ARGS: the bot's own argv, untouched
        at = args_list.index("--")
        args_list, cmd = args_list[:at], args_list[at + 1:]
    with using(lang_of(args_list, has_lang=False)):
        args = build_parser().parse_args(args_list)
        if cmd is not None and args.command != "add":
            print(f"{PROG}: '--' is for 'arena add NAME --owner O -- CMD ARGS'",
                  file=sys.stderr)
            return 2
        try:
            return _run(args, cmd)
        except (XactikaError, KeyFileError, SandboxError, OSError, ValueError,
                ClusterError) as exc:
            print(f"{PROG} {args.command}: {error_said(exc)}", file=sys.stderr)
            return 2


def _run(args: argparse.Namespace, cmd: list[str] | None) -> int:
    from xactika.frontends.arena.folder import Arena

    if args.command == "init":
        arena = Arena.init(args.dir, args.db)
        try:
            info = arena.add_ladder(args.ladder, args.game, args.mode, args.players,
                                    args.rounds, _options(args))
        finally:
            arena.close()
        print(_("arena {dir}: ladder {name} ({game} {mode}, {players} players); key "
                "{key}.pub").format(dir=args.dir, key=Path(args.dir, "arena.key"),
                                    **info.to_dict()))
        return 0
    if args.command == "ratings":
        return _from_records(args)
    arena = Arena.open(args.dir)
    try:
        if args.command == "ladder":
            info = arena.add_ladder(args.name, args.game, args.mode, args.players,
                                    args.rounds, _options(args))
            print(_("ladder {name}: {game} {mode}, {players} players").format(
                **info.to_dict()))
        elif args.command == "add":
            if not args.remote and (cmd is None) == (args.builtin is None):
                raise XactikaError("give the bot as -- CMD ARGS..., as --builtin BOT or as "
                                   "--remote")
            token = arena.add_entrant(args.name, args.owner, cmd, args.cwd, args.builtin,
                                      args.remote)
            print(_("entrant {name} of {owner}: it qualifies against the house bots "
                    "first").format(name=args.name, owner=args.owner))
            if token is not None:  # the token alone on its line, for a script to take
                print(_("its token, shown this once (the arena keeps only its hash):"))
                print(token)
                print(_("keep it in a file F, then: xactika connect HOST:PORT --token-file F "
                        "-- PROGRAM"))
        elif args.command in ("retire", "pause"):
            status = {"retire": "retired",
                      "pause": "active" if getattr(args, "resume", False) else "paused"}
            arena.set_status(args.name, status[args.command])
            print(_("entrant {name}: {status}").format(name=args.name,
                                                         status=_(status[args.command])))
        elif args.command == "standings":
            from xactika.frontends.arena.standings import format_standings, standings

            infos = sorted((info for _i, info, _s, _o in arena.ladders()),
                           key=lambda i: i.name)
            _known(infos, args.ladder)
            print(format_standings(standings(infos, arena.counted(), args.ladder), args.json))
        elif args.command == "run":
            return _season(arena, args)
    finally:
        arena.close()
    return 0


def _known(infos: Sequence[object], name: str | None) -> None:
    if name is not None and name not in [getattr(i, "name", None) for i in infos]:
        raise XactikaError(f"no ladder named {name!r}")


def _options(args: argparse.Namespace) -> dict[str, object]:
    return {name: getattr(args, name) for name in option_flags()
            if getattr(args, name, None) is not None}


def _from_records(args: argparse.Namespace) -> int:
    """The standings from the records alone: no database is opened."""
    from xactika.frontends.arena.folder import ARENA_FILE, KEY_FILE, ArenaError
    from xactika.frontends.arena.records import all_games, ladder_infos
    from xactika.frontends.arena.standings import format_standings, standings
    from xactika.protocol.trust.signing import load_public_keys

    folder = Path(args.dir)
    if not (folder / ARENA_FILE).exists():
        raise ArenaError(f"{folder} is not an arena")
    key = load_public_keys(folder / f"{KEY_FILE}.pub")[0]
    infos = ladder_infos(folder)
    _known(infos, args.ladder)
    print(format_standings(standings(infos, list(all_games(folder, key)), args.ladder),
                           args.json))
    return 0


def _season(arena: object, args: argparse.Namespace) -> int:
    import sqlalchemy as sa

    from xactika.frontends.arena.folder import Arena
    from xactika.frontends.arena.play import Season, local_bots

    assert isinstance(arena, Arena)
    if args.concurrency < 1:
        raise XactikaError(f"--concurrency must be at least 1, not {args.concurrency}")
    if args.games is not None and args.games < 1:
        raise XactikaError(f"--games must be at least 1, not {args.games}")
    if args.cluster is not None and args.listen is not None:
        raise XactikaError("remote entrants connect to this machine, the games of "
                           "--cluster are played on its nodes: give --listen or --cluster")
    if args.cluster is not None:  # checked before anything is said or started
        from xactika.frontends.parallel import import_ray, parse_cluster, reachable

        import_ray()
        reachable(parse_cluster(args.cluster))
    address = None
    if args.listen is not None:  # checked before anything is said or started
        from xactika.protocol.net.remote import parse_address

        address = parse_address(args.listen, listen=True)
    # the sandbox sees nothing of the arena: its folder holds the key, seeds and records
    hidden: list[str] = [str(arena.folder.resolve())]
    box = from_args(args, hide=hidden)
    print(f"{PROG} run: {describe(box)}", file=sys.stderr, flush=True)
    listener = None
    if address is not None:
        from xactika.protocol.net.remote_bots import SeatListener

        listener = SeatListener(*address, {})
    stop = threading.Event()
    cluster = None
    concurrency = args.concurrency
    if args.cluster is not None:
        from xactika.frontends.arena.cluster import join

        cluster = join(args.cluster, local_bots(arena), box, args.concurrency, stop)
        concurrency = cluster.window(args.concurrency)
        print(f"{PROG} run: {cluster.describe()}", file=sys.stderr, flush=True)
    season = Season(arena, box, concurrency, args.games, args.seconds,
                    listener=listener, cluster=cluster, abort=stop)
    if listener is not None:
        season.know_entrants()
        where = f"{listener.address[0]}:{listener.address[1]}"
        print(_("remote entrants connect here: xactika connect {where} --token-file F -- "
                "PROGRAM").format(where=where), file=sys.stderr, flush=True)
    stopped_by: list[str] = []

    def on_signal(signum: int, frame: object) -> None:
        stopped_by.append(signal.Signals(signum).name)
        season.interrupt()

    old = {}
    if threading.current_thread() is threading.main_thread():
        old = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    began = time.monotonic()
    try:
        season.run()
    except sa.exc.SQLAlchemyError as exc:
        season.error = season.error or said(exc, arena.url)
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)
        if listener is not None:
            listener.close()
        if cluster is not None:
            cluster.close()
    took = time.monotonic() - began
    rate = season.played / took if took > 0 else 0.0
    print(_("{games} games in {seconds:.1f} s ({rate:.2f} games/s)").format(
        games=season.played, seconds=took, rate=rate))
    if season.error is not None:
        print(f"{PROG} run: {season.error}; every finished game is in its record, run "
              "again to resume", file=sys.stderr)
        return 1
    if stopped_by:
        print(_("stopped by {signal}: run again to resume").format(signal=stopped_by[0]),
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
