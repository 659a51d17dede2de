"""``xactika match``: bot processes play duplicate deals; faults are counted, not fatal.

The bookkeeping (deals, schedule, counting rule, statistics) is in tournament.py, one
game with its processes in game.py (each seat a fresh process speaking the player
protocol, a faulting seat finished by seeded random legal play, every bot quit), the
terminal output in report.py; this module is the command: its options, the match
folder, the games in order or in workers, each record written atomically and pinned in
the manifest, and ``--resume``. The rules are in spec/MATCH.md.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import datetime as dt
import json
import math
import os
import shlex
import shutil
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

import attrs

from xactika.core.bots.agents import agent_names, implemented
from xactika.core.engine.api import (
    game_rules,
)
from xactika.core.engine.errors import XactikaError
from xactika.frontends.cli.options import OneLineParser, lang_of
from xactika.frontends.i18n import error_said, later, using
from xactika.frontends.match.game import GamePlayer, MatchSettings, Played, Runner
from xactika.frontends.match.report import (
    RESULTS_FILE,
    BarProgress,
    Progress,
    fault_list,
    report,
    score_line,
    sprt_note,
)
from xactika.frontends.match.sandbox import (
    UNSANDBOXED,
    Sandbox,
    SandboxError,
    add_arguments,
    describe,
    from_args,
    parse_size,
)
from xactika.frontends.match.stats import Sprt
from xactika.frontends.match.tournament import (
    BotSpec,
    DealSet,
    GameResult,
    GameSpec,
    MatchError,
    builtin_of,
    deal_differences,
    deal_notes,
    format_deal_file,
    new_match_seed,
    parse_bot,
    parse_deal_file,
    parse_seconds,
    seeded_deals,
    summarize,
)
from xactika.frontends.parallel import (
    ClusterError,
    ProcessBackend,
    import_ray,
    parse_cluster,
    reachable,
)
from xactika.frontends.people.flags import add_option_flags, option_flags
from xactika.protocol.net.remote_bots import RemotePlayer, SeatListener, remote_listener
from xactika.protocol.player.process import (
    STDERR_KEEP,
    PlayerProcess,
)
from xactika.protocol.records.games import write_games_file
from xactika.protocol.trust.manifest import (
    ManifestError,
)
from xactika.protocol.trust.signing import (
    KeyFileError,
    Signer,
    default_key_path,
    signer_for,
)

if TYPE_CHECKING:
    from xactika.frontends.match.cluster import Cluster

# a seat's player: a local process, or a bot connected from elsewhere (remote=TOKEN)
Seated = PlayerProcess | RemotePlayer

SETTINGS_FILE = "match.json"
DEALS_FILE = "deals.txt"
GAMES_FILE = "all-games.txt"  # every record of the match in one file (spec/RECORDS.md)


# --------------------------------------------------------------------------- the command


def build_parser() -> argparse.ArgumentParser:
    mp = OneLineParser(
        prog="xactika match",
        description="Play bots (player-protocol processes) against each other on duplicate "
        "deals and report their strength with intervals (95%, spec/MATCH.md).",
        epilog="example: xactika match --bot name=mine cmd=\"python3 mybot.py\" move=500ms "
        "--bot random --deals 100 --concurrency 2 --out runs/mine",
    )
    mp.add_argument("--bot", action="append", nargs="+", metavar="OPT", default=[],
                    help=later("a bot: name=N cmd=\"COMMAND ARGS\" [dir=D] [move=1s] "
                               "[startup=10s] [margin=50ms] [restart=on|off], or the name of a "
                               "built-in bot ({names}); repeat for each bot",
                               names=", ".join(agent_names())))
    mp.add_argument("--each", nargs="+", metavar="OPT", default=[],
                    help="options for every bot, e.g. --each move=200ms startup=5s")
    mp.add_argument("--gauntlet", action="store_true",
                    help="with more bots than seats, seat the first bot at every table and "
                    "the others only with it (default: every combination, a round robin)")
    mp.add_argument("--game", default=None, help="game (default: xactika)")
    mp.add_argument("--mode", default=None, help="mode (default: the game's last: bid)")
    mp.add_argument("--players", type=int, default=None, help="seats at the table")
    mp.add_argument("--rounds", type=int, default=None, help="hands a game (default: game's)")
    add_option_flags(mp)  # each game's own settings: --target, --top, ...
    mp.add_argument("--deals", type=int, default=None,
                    help="deals to play (default 10, or every deal of --deal-file)")
    src = mp.add_mutually_exclusive_group()
    src.add_argument("--seed", type=int, default=None,
                     help="match seed, to reproduce a match: the deals are as secret as it "
                     "(default: 256 random bits)")
    src.add_argument("--deal-file", default=None, help="play the deals of this file")
    mp.add_argument("--write-deals", default=None, metavar="FILE",
                    help="also write the match's deals to FILE (read back with --deal-file)")
    mp.add_argument("--concurrency", type=int, default=1, help="games at once (default 1)")
    mp.add_argument("--cluster", default=None, metavar="ray[=ADDRESS]",
                    help="play every game as a task on a Ray cluster (pip install "
                    "'xactika[ray]'); records, table and key stay here (docs/SCALE.md)")
    mp.add_argument("--out", default=None, help="output directory (default: match-<time>)")
    mp.add_argument("--resume", action="store_true",
                    help="continue the match in --out, skipping finished games whose records "
                    "audit clean under the key and the manifest (others are played again)")
    mp.add_argument("--listen", default=None, metavar="HOST:PORT",
                    help="where remote bots (--bot name=N remote=TOKEN) connect with "
                    "'xactika connect HOST:PORT --token TOKEN -- PROGRAM' (spec/SERVER.md)")
    mp.add_argument("--key", default=None, metavar="FILE",
                    help="sign records and the manifest with this private key (default: the "
                    "user's key, made on first use; see xactika keygen)")
    mp.add_argument("--sprt", default=None, metavar="A,B,D0,D1",
                    help="stop once a sequential test settles whether bot A's points/hand "
                    "exceed bot B's by D0 (H0) or D1 (H1)")
    mp.add_argument("--alpha", type=float, default=0.05, help="SPRT false-H1 rate (0.05)")
    mp.add_argument("--beta", type=float, default=0.05, help="SPRT false-H0 rate (0.05)")
    mp.add_argument("--quit-grace", default="1s", help="wait after quit before killing (1s)")
    mp.add_argument("--progress", choices=("auto", "bar", "lines", "none"), default="auto",
                    help="progress display (default: a bar on a terminal, else lines)")
    mp.add_argument("--json", action="store_true", help="print the result as JSON")
    add_arguments(mp)
    mp.add_argument("--stderr-keep", default="64K", metavar="SIZE",
                    help="keep this much of the start and of the end of each bot process's "
                    "stderr in OUT/stderr/ (default 64K); the middle is cut and counted")
    return mp


def missing_program(bot: BotSpec) -> str | None:
    """Why ``bot``'s program cannot run here (checked on every node of a cluster too)."""
    if bot.remote is not None:
        return None  # it runs on its own machine
    program = bot.cmd[0]
    if os.sep in program:
        found = os.access(os.path.join(bot.dir or ".", program), os.X_OK)
    else:
        found = shutil.which(program) is not None
    if found:
        return None
    where = ("on PATH" if os.sep not in program
             else f"in dir={bot.dir}" if bot.dir else "(or it is not executable)")
    return f"bot {bot.name}: cannot run {program!r}: no such executable {where}"


def settings_from_args(args: argparse.Namespace) -> tuple[MatchSettings, DealSet]:
    if not args.bot:
        raise MatchError("no bots: give --bot name=N cmd=\"COMMAND\" (or a built-in name) "
                         "once per bot")
    builtins = agent_names()
    bots = tuple(parse_bot(tokens, args.each, builtins) for tokens in args.bot)
    for bot in bots:
        problem = missing_program(bot)
        if problem is not None:
            raise MatchError(problem)
    names = [b.name for b in bots]
    dup = next((n for n in names if names.count(n) > 1), None)
    if dup is not None:
        raise MatchError(f"two bots are named {dup!r}: give each a different name=")
    quit_grace = parse_seconds(args.quit_grace, "quit grace")
    if args.deal_file is not None:
        try:
            text = Path(args.deal_file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise MatchError(f"cannot read deal file {args.deal_file!r}: {exc}") from None
        deals = parse_deal_file(text, args.deal_file)
        for key in ("game", "players", "rounds"):
            want = getattr(args, key)
            if want is not None and want != getattr(deals, key):
                raise MatchError(f"--{key} {want} differs from the deal file's "
                                 f"{key}={getattr(deals, key)}")
        filed = dict(deals.options)
        for key, want in given_options(args).items():
            if want != filed.get(key):
                raise MatchError(f"--{key} {want} differs from the deal file's "
                                 + (f"{key}={filed[key]}" if key in filed else f"(no {key}=)"))
        count = args.deals if args.deals is not None else len(deals.configs)
        if not 1 <= count <= len(deals.configs):
            raise MatchError(f"--deals {count}: the deal file has {len(deals.configs)} deals")
        deals = attrs.evolve(deals, configs=deals.configs[:count])
        rules = game_rules(deals.game)
        mode = args.mode or rules.default_mode
        settings = MatchSettings(bots, deals.game, mode, deals.players, deals.rounds, count,
                                 None, os.path.abspath(args.deal_file), quit_grace,
                                 args.gauntlet, deals.options)
    else:
        game = args.game or "xactika"
        rules = game_rules(game)
        mode = args.mode or rules.default_mode
        players = args.players or rules.default_players
        count = args.deals if args.deals is not None else 10
        if count < 1:
            raise MatchError(f"--deals must be at least 1, not {count}")
        seed = args.seed if args.seed is not None else new_match_seed()
        if seed < 0:
            raise MatchError(f"--seed must be 0 or more, not {seed}")
        options = given_options(args)
        rounds = args.rounds or rules.rounds_for(dict(options))
        settings = MatchSettings(bots, game, mode, players, rounds, count, seed, None,
                                 quit_grace, args.gauntlet, options)
        try:
            deals = seeded_deals(game, mode, players, rounds, seed, count, options)
        except XactikaError as exc:  # an option the game does not take, or a bad value
            raise MatchError(str(exc)) from None
    game_rules(settings.game).validate(deals.with_mode(1, settings.mode))
    refuse_stand_ins(bots, settings.game)
    if len(bots) < 2:  # as cutechess refuses fewer than two engines
        raise MatchError(f"one bot ({bots[0].name}): a match needs two or more, to play "
                         "each other; add another --bot (say --bot heuristic)")
    return settings, deals


def refuse_stand_ins(bots: Sequence[BotSpec], game: str) -> None:
    """A built-in bot the game has no such bot of would play at random under its name,
    and the report would rate "heuristic" what is the random bot: refused instead."""
    for bot in bots:
        name = builtin_of(bot)
        if name is not None and not implemented(name, game):
            raise MatchError(f"bot {bot.name}: {game} has no {name} bot (it would play at "
                             "random): give --bot random, or a program of your own with cmd=")


def prepare_out(args: argparse.Namespace,
                check: Callable[[MatchSettings], object] | None = None
                ) -> tuple[Path, MatchSettings, DealSet]:
    """The output directory with match.json and deals.txt, new or resumed.

    ``check`` sees the settings before anything is written: an option it refuses
    (raising) leaves no folder behind.
    """
    out = Path(args.out or dt.datetime.now().strftime("match-%Y%m%d-%H%M%S"))
    saved = out / SETTINGS_FILE
    if args.resume:
        if not saved.exists():
            raise MatchError(f"--resume: {saved} does not exist; start the match without "
                             "--resume")
        try:
            stored = MatchSettings.from_dict(json.loads(saved.read_text(encoding="utf-8")))
            deals = parse_deal_file((out / DEALS_FILE).read_text(encoding="utf-8"),
                                    str(out / DEALS_FILE), stored.mode)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise MatchError(f"--resume: cannot read {saved}: {exc}") from None
        if check is not None:
            check(stored)
        seed = stored.seed
        if args.deals is not None and seed is not None and args.deals > stored.deals:
            # more deals of the same seed: the schedule so far is unchanged, so extend it
            if (out / RESULTS_FILE).exists():
                print(f"xactika match: note: {out / RESULTS_FILE} holds this match's seed, so "
                      "whoever has read it can compute the new deals too (spec/MATCH.md, "
                      "\"What a bot can know\")", file=sys.stderr)
            stored = attrs.evolve(stored, deals=args.deals)
            _save(out, stored, seeded_deals(stored.game, stored.mode, stored.players,
                                            stored.rounds, seed, stored.deals, stored.options))
        if args.gauntlet and not stored.gauntlet:
            raise MatchError(f"--resume: {saved} is a round robin, not a --gauntlet")
        for key in ("game", "mode", "players", "rounds", "deals", "seed"):
            value = getattr(args, key)
            if value is not None and value != getattr(stored, key):
                raise MatchError(f"--resume: --{key} {value} differs from {saved} "
                                 f"({key}={getattr(stored, key)}); give only --resume --out DIR "
                                 "to continue as saved")
        kept = dict(stored.options)
        for key, value in given_options(args).items():
            if value != kept.get(key):
                raise MatchError(f"--resume: --{key} {value} differs from {saved} "
                                 f"({key}={kept.get(key, 'not set')}); give only --resume "
                                 "--out DIR to continue as saved")
        if args.bot:
            given, _ = settings_from_args(_with_seed(args, stored))
            if given.to_dict() != stored.to_dict():
                diff = next(k for k, v in given.to_dict().items() if stored.to_dict()[k] != v)
                raise MatchError(f"--resume: the options differ from {saved} in {diff!r}; "
                                 "give only --resume --out DIR to continue as saved")
        if stored.seed is not None:
            deals = seeded_deals(stored.game, stored.mode, stored.players, stored.rounds,
                                 stored.seed, stored.deals, stored.options)
        return out, stored, deals
    if saved.exists():
        raise MatchError(f"{out} already holds a match: add --resume to continue it, or choose "
                         "another --out")
    settings, deals = settings_from_args(args)
    if check is not None:
        check(settings)
    out.mkdir(parents=True, exist_ok=True)
    _save(out, settings, deals)
    return out, settings, deals


def _save(out: Path, settings: MatchSettings, deals: DealSet) -> None:
    (out / DEALS_FILE).write_text(format_deal_file(deals), encoding="utf-8")
    (out / SETTINGS_FILE).write_text(json.dumps(settings.to_dict(), indent=2) + "\n",
                                     encoding="utf-8")


def given_options(args: argparse.Namespace) -> dict[str, Any]:
    """The game's own options given as flags (``--top 3``), as their types."""
    return {name: getattr(args, name) for name in option_flags()
            if getattr(args, name, None) is not None}


def _with_seed(args: argparse.Namespace, stored: MatchSettings) -> argparse.Namespace:
    """The args with the stored seed filled in, so a random default compares equal."""
    ns = argparse.Namespace(**vars(args))
    if ns.seed is None and ns.deal_file is None:
        ns.seed = stored.seed
    return ns


def parse_sprt(text: str, names: Sequence[str], alpha: float,
               beta: float) -> tuple[int, int, Sprt]:
    parts = text.split(",")
    if len(parts) != 4:
        raise MatchError(f"bad --sprt {text!r}: expected A,B,D0,D1 (two bot names, two "
                         "points/hand differences)")
    a, b = parts[0], parts[1]
    for name in (a, b):
        if name not in names:
            raise MatchError(f"--sprt names {name!r}, not a bot: expected one of "
                             + ", ".join(names))
    if a == b:
        raise MatchError("--sprt needs two different bots")
    try:
        d0, d1 = float(parts[2]), float(parts[3])
        if not (math.isfinite(d0) and math.isfinite(d1)):
            raise ValueError("D0 and D1 must be numbers")
        if d0 >= d1:  # as fishtest's elo0 < elo1: H1 is the larger difference
            raise ValueError(f"D0 ({d0:g}) must be below D1 ({d1:g}): H1 says A beats B by "
                             "more; to test B's lead over A, give B first")
        test = Sprt(d0, d1, alpha, beta)
    except ValueError as exc:
        raise MatchError(f"bad --sprt {text!r}: {exc}") from None
    return names.index(a), names.index(b), test


def _install_signals() -> Callable[[], None]:
    """SIGTERM and SIGHUP become KeyboardInterrupt, so cleanup runs; returns an undo."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    old = {sig: signal.signal(sig, interrupt) for sig in (signal.SIGTERM, signal.SIGHUP)}

    def undo() -> None:
        for sig, handler in old.items():
            signal.signal(sig, handler)

    return undo


def _next_game(queue: list[GameSpec], inflight: Iterable[GameSpec]) -> GameSpec | None:
    """The first game in schedule order whose deal is not being played at this moment.

    Two seatings of one deal never run at once, so a bot's process in one cannot pass the
    deal's hands to its process in the other (spec/MATCH.md, "What a bot can know").
    """
    busy = {g.deal for g in inflight}
    for i, game in enumerate(queue):
        if game.deal not in busy:
            return queue.pop(i)
    return None


def game_workers(runner: Runner, workers: int) -> ProcessBackend[GameSpec, Played]:
    """``workers`` processes that play games, several at once without sharing one GIL.

    Each worker plays with its own :class:`GamePlayer` (the call a cluster task makes),
    keeps its ``restart=off`` bots between its games and quits them at close (their
    names, where they ignored quit, come back in ``finished``); the driver keeps the
    schedule, the key and the records.
    """
    player = GamePlayer(runner.settings, runner.deals, runner.stderr_dir, runner.sandbox,
                        runner.stderr_keep)
    return ProcessBackend(player.play_game, workers, stop=runner.aborted,
                          finish=player.close_idle, cleanup=player.kill_all)


def run_match(settings: MatchSettings, deals: DealSet, out: Path, concurrency: int,
              progress: Progress, sprt: tuple[int, int, Sprt] | None,
              signer: Signer | None = None, sandbox: Sandbox | None = None,
              stderr_keep: int = STDERR_KEEP,
              listener: SeatListener | None = None,
              cluster: Cluster | None = None) -> dict[str, Any]:
    runner = Runner(settings, deals, out, signer, sandbox, stderr_keep, listener)
    # each game is played here, in worker processes or on the cluster (frontends/parallel/),
    # and stored here
    play = runner.play if cluster is None else cluster.player(runner)
    workers = None
    if cluster is None and concurrency > 1 and listener is None:
        workers = backend = game_workers(runner, concurrency)

        def in_workers(game: GameSpec) -> GameResult:
            return runner.store_behind(game, backend.run(game))

        play = in_workers
    if cluster is not None:
        concurrency = cluster.window(concurrency)
    names = [b.name for b in settings.bots]
    plan = settings.schedule()
    results: dict[int, GameResult] = {}
    for game in plan:
        found = runner.load(game)
        if found is not None:
            results[game.index] = found
    resumed = len(results)
    for line in runner.rejected:
        print(f"xactika match: --resume: {line}", file=sys.stderr)
    stop_at: int | None = None
    verdict: str | None = None
    checked = 0

    def check_sprt() -> None:
        nonlocal stop_at, verdict, checked
        if sprt is None or stop_at is not None:
            return
        a, b, test = sprt
        diffs = deal_differences(results, plan, len(names), a, b)
        for m in range(max(checked, 1), len(diffs) + 1):
            v = test.decide(diffs[:m])
            if v is not None:
                stop_at, verdict = m, v
                return
        checked = len(diffs) + 1

    check_sprt()
    pending = [g for g in plan if g.index not in results]
    last_title = 0.0
    cost = 0.0
    score = score_line(summarize(results, plan, names))
    progress.done = resumed
    undo = _install_signals()
    pool = cf.ThreadPoolExecutor(max(1, concurrency), thread_name_prefix="game")
    inflight: dict[cf.Future[GameResult], GameSpec] = {}
    queue = list(pending)
    try:
        with progress:
            while True:
                while stop_at is None and len(inflight) < max(1, concurrency):
                    nxt = _next_game(queue, inflight.values())
                    if nxt is None:
                        break
                    inflight[pool.submit(play, nxt)] = nxt
                if not inflight:
                    break
                done, _ = cf.wait(inflight, timeout=0.2, return_when=cf.FIRST_COMPLETED)
                for fut in done:
                    inflight.pop(fut)
                    res = fut.result()
                    results[res.game.index] = res
                    check_sprt()
                    now = time.monotonic()
                    # the running score is a whole recount: refresh it only where it is
                    # shown, and seldom enough that it costs at most ~10% of the run
                    if progress.shows_score and (now - last_title > max(0.5, 10 * cost)
                                                 or not inflight):
                        score = score_line(summarize(results, plan, names, stop_at))
                        last_title = time.monotonic()
                        cost = last_title - now
                    progress.game(res, names, score)
    except BaseException:
        runner.aborted.set()
        runner.kill_all()
        if workers is not None:
            workers.kill()
        pool.shutdown(wait=True, cancel_futures=True)
        runner.kill_all()
        try:  # the games that finished are kept
            runner.flush_records()
        except OSError:
            pass
        raise
    finally:
        undo()
        runner.close()
    pool.shutdown(wait=True)
    runner.flush_records()
    runner.manifest.end()  # the run is over: no game of it can be missing
    runner.manifest.close()
    # every finished game's record in one file, in schedule order (spec/MATCH.md)
    write_games_file(out / GAMES_FILE, [
        (runner.record_path(g).relative_to(out).as_posix(), runner.record_path(g))
        for g in plan if g.index in results and runner.record_path(g).exists()])
    ignored_quit = runner.close_idle()
    if workers is not None:  # each worker quits its own kept bots
        workers.close()
        ignored_quit += [name for names in workers.finished for name in names]
    summary = summarize(results, plan, names, stop_at)
    terminations: dict[str, int] = {}
    for res in results.values():
        terminations[res.termination] = terminations.get(res.termination, 0) + 1
    sprt_info: dict[str, Any] | None = None
    if sprt is not None:
        a, b, test = sprt
        diffs = deal_differences(results, plan, len(names), a, b)
        used = diffs[:stop_at] if stop_at is not None else diffs
        sprt_info = {
            "a": names[a], "b": names[b], "d0": test.d0, "d1": test.d1, "alpha": test.alpha,
            "beta": test.beta, "llr": round(test.llr(used), 4),
            "bounds": [round(test.lower, 4), round(test.upper, 4)],
            "verdict": verdict, "deals": len(used), "min_deals": test.min_samples,
        }
    return {
        "settings": settings.to_dict(), "out": str(out), "resumed_games": resumed,
        "summary": summary.to_dict(), "terminations": terminations, "sprt": sprt_info,
        "ignored_quit_at_end": ignored_quit, "rejected_on_resume": list(runner.rejected),
        "signer": runner.signer.public.text,
        "sandbox": runner.sandbox.kind,
        **({} if cluster is None else {"cluster": cluster.info()}),
        "warnings": [] if runner.sandbox.sandboxed else [UNSANDBOXED],
        "notes": deal_notes(settings.bots, plan, settings.seed),
        "reveals": [r.reveal.to_dict(r.game) for _, r in sorted(results.items())
                    if r.reveal is not None],
        "faults": fault_list(results.values(), names),
        "games_file": GAMES_FILE,
        "_summary": summary,
    }


def main(argv: Sequence[str]) -> int:
    with using(lang_of(argv, has_lang=False)):  # --help in the reader's language
        args = build_parser().parse_args(argv)
    try:
        if args.concurrency < 1:
            raise MatchError(f"--concurrency must be at least 1, not {args.concurrency}")
        if args.cluster is not None:  # before the match folder is made
            address = parse_cluster(args.cluster)
            import_ray()
            reachable(address)
        signer = signer_for(args.key)  # a key it refuses leaves no match folder behind
        stderr_keep = parse_size(args.stderr_keep, "--stderr-keep") or STDERR_KEEP

        def sprt_of(st: MatchSettings) -> tuple[int, int, Sprt] | None:
            names = [b.name for b in st.bots]
            return parse_sprt(args.sprt, names, args.alpha, args.beta) if args.sprt else None

        out, settings, deals = prepare_out(args, sprt_of)  # a bad --sprt leaves no folder
        if args.write_deals:
            Path(args.write_deals).write_text(format_deal_file(deals), encoding="utf-8")
        sprt = sprt_of(settings)
        # the match folder, deal files and the signing key are never mounted in a sandbox
        secret = [out, settings.deal_file, args.write_deals, args.key or default_key_path()]
        box = from_args(args, hide=[p for p in secret if p is not None])
        listener = remote_listener(args.listen, settings.bots, stream=sys.stderr)
        cluster = None
        if args.cluster is not None:
            from xactika.frontends.match.cluster import join

            cluster = join(args.cluster, settings, box, args.concurrency)
    except (XactikaError, OSError, KeyFileError, SandboxError, ValueError,
            ClusterError) as exc:
        with using(lang_of(argv, has_lang=False)):  # a setting's error as --help speaks
            print(f"xactika match: {error_said(exc)}", file=sys.stderr)
        return 2
    total = len(settings.schedule())
    mode = args.progress
    if mode == "auto":
        mode = "bar" if sys.stdout.isatty() and not args.json else "lines"
    stream = sys.stderr if args.json else sys.stdout
    progress: Progress = (
        BarProgress(total, stream) if mode == "bar"
        else Progress(total, stream if mode == "lines" else None)
    )
    # said once, before any bot runs: loudly when the bots can read the deals
    print(f"xactika match: {describe(box)}", file=sys.stderr if box.sandboxed else stream,
          flush=True)
    try:
        result = run_match(settings, deals, out, args.concurrency, progress, sprt, signer,
                           box, stderr_keep, listener, cluster)
        if listener is not None:
            listener.close()
    except ClusterError as exc:
        print(f"xactika match: {exc}; finished games are in {out}/games, continue with "
              "--resume", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        from xactika.frontends.cli.invocation import xactika_command

        print(f"xactika match: interrupted; finished games are in {out}/games, continue "
              f"with: {xactika_command()} match --resume --out {shlex.quote(str(out))}",
              file=sys.stderr)
        return 130
    except (MatchError, ManifestError) as exc:
        print(f"xactika match: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"xactika match: {exc.strerror or exc}"
              + (f": {exc.filename}" if exc.filename else "")
              + f"; finished games are in {out}/games", file=sys.stderr)
        return 1
    finally:
        if cluster is not None:
            cluster.close()
    summary = result.pop("_summary")
    (out / RESULTS_FILE).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(report(summary, settings, result["terminations"], sprt_note(result["sprt"]),
                     result["faults"]))
        for warning in result["warnings"]:
            print(f"WARNING {warning}: the bots ran without a sandbox (--sandbox)")
        if result["ignored_quit_at_end"]:
            print("ignored quit at the end of the run (killed): "
                  + ", ".join(result["ignored_quit_at_end"]))
    return 0
