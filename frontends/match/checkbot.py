"""``xactika check-bot -- CMD...``: does a bot speak the player protocol? One line per check.

In the spirit of fastchess's compliance mode: the bot is run through the handshake,
``isready``, whole games in every mode of every game at several table sizes, a lead that
needs a call, bidding as the dealer under the hook, and ``quit``. The other seats are
played in process by seeded random agents. Each check prints PASS or FAIL with what the
bot sent and what spec/PLAYER.md expects; the exit code is 1 if any check failed.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from typing import Any

from xactika.core.bots.agents import RandomAgent
from xactika.core.engine.api import (
    Bid,
    Command,
    Config,
    Event,
    Legal,
    TrickGame,
    game_rules,
    games,
)
from xactika.core.engine.errors import XactikaError
from xactika.core.engine.referee import Faulted, FaultPolicy, Referee, Turn, run
from xactika.core.engine.views import visible
from xactika.frontends.cli.options import OneLineParser
from xactika.frontends.i18n import later
from xactika.frontends.match.tournament import MatchError, parse_seconds
from xactika.protocol.player.process import BotError, PlayerProcess


class Checker:
    """Runs the checks against one bot command, restarting it after a failure."""

    def __init__(self, argv: Sequence[str], *, move: float, startup: float, rounds: int | None,
                 out: Callable[[str], None], verbose: bool = False,
                 only: Sequence[str] | None = None) -> None:
        self.argv = list(argv)
        self.games = tuple(only) if only else games()
        self.move = move
        self.startup = startup
        self.rounds = rounds
        self.out = out
        self.verbose = verbose
        self.player: PlayerProcess | None = None
        self.last_sent = ""  # the last line the bot sent
        self.received: list[str] = []  # every line since the last spawn
        self.last_answer = ""  # the last answer to a go
        self.failures = 0
        self.passes = 0
        self._stderr = tempfile.NamedTemporaryFile(
            prefix="xactika-check-bot-", suffix=".stderr", delete=False
        )

    # -- reporting
    def result(self, ok: bool, check: str, text: str) -> None:
        if ok:
            self.passes += 1
        else:
            self.failures += 1
        self.out(f"{'PASS' if ok else 'FAIL'} {check}: {text}")

    def _hook(self, direction: str, line: str) -> None:
        if direction == "<":
            self.last_sent = line
            self.received.append(line)
        if self.verbose:
            self.out(f"    {direction} {line}")

    def sent(self) -> str:
        return repr(self.last_sent) if self.last_sent else "nothing"

    # -- the process
    def spawn(self) -> PlayerProcess:
        self.last_sent = ""
        self.received = []
        p = PlayerProcess(self.argv, stderr_path=self._stderr.name,
                          startup_timeout=self.startup, move_timeout=self.move + 0.05,
                          on_line=self._hook)
        self.player = p
        return p

    def running(self) -> PlayerProcess | None:
        """The started bot, starting it again if a failed check killed it."""
        p = self.player
        if p is not None and p.started and p.returncode is None:
            return p
        p = self.spawn()
        try:
            p.start()
        except BotError as exc:
            self.result(False, "restart", f"{exc}")
            self.player = None
            return None
        return p

    def close(self) -> None:
        if self.player is not None:
            self.player._kill()
        self._stderr.close()
        os.unlink(self._stderr.name)

    # -- the checks
    def check_handshake(self) -> bool:
        p = self.spawn()
        try:
            p.start()
        except BotError as exc:
            self.result(False, "handshake",
                        f"{exc}; expected 'hello 1 name=<name>' then 'readyok' within "
                        f"{self.startup:g} s")
            return False
        hello = repr(self.received[0]) if self.received else "nothing"
        self.result(True, "handshake",
                    f"'hello 1' answered with {hello} (expected 'hello 1 name=<name>'); "
                    f"bot calls itself {p.name!r}")
        return True

    def check_isready(self) -> None:
        p = self.running()
        if p is None:
            return
        try:
            t0 = time.monotonic()
            for _ in range(3):
                p.isready(self.startup)
            ms = (time.monotonic() - t0) / 3 * 1000
        except BotError as exc:
            self.result(False, "isready", f"{exc}; expected 'readyok' to every 'isready'")
            return
        self.result(True, "isready", f"answered {self.sent()} 3 times, {ms:.1f} ms each")

    def play_game(self, config: Config, seat: int, script: Callable[..., Command | None]
                  | None = None, watch: Callable[[Legal, Command], None] | None = None) -> str:
        """Play one game with the bot at ``seat``; returns "" or what went wrong."""
        p = self.running()
        if p is None:
            return "the bot is not running"
        rules = game_rules(config.game)
        others = RandomAgent(config.seed)
        # the first problem ends the game: it is what the check reports
        referee = Referee.new(config, policy=FaultPolicy.abort())
        time_ms = max(1, round(self.move * 1000))

        def ask(turn: Turn) -> Command | Faulted:
            if turn.seat != seat:
                chosen = script(turn.state, turn.legal) if script is not None else None
                return chosen or others.choose(turn.view, turn.legal)
            try:
                command = p.ask(turn.legal, rules, time_ms)
            except BotError as exc:
                return Faulted(_reason(exc), str(exc))
            self.last_answer = self.last_sent
            if p.last_think_s > self.move:
                return Faulted("slow", f"answered {self.sent()} after {p.last_think_s:.2f} s; "
                               f"expected an answer within time={time_ms} ms")
            if watch is not None:
                watch(turn.legal, command)
            return command

        def tell(new: list[Event]) -> None:
            try:
                for event in new:
                    p.tell(visible(event, seat))
            except BotError as exc:
                referee.fault(seat, _reason(exc), str(exc))

        try:
            p.new_game(seat, [visible(e, seat) for e in referee.events], rules)
            run(referee, ask, tell)  # the referee loop (core/engine/referee.py)
            if referee.aborted is not None:
                return referee.aborted.detail
            p.isready(self.startup)
        except BotError as exc:
            return str(exc)
        return ""

    def check_games(self) -> None:
        for name in self.games:
            rules = game_rules(name)
            counts = sorted({rules.min_players, min(4, rules.max_players), rules.max_players})
            for mode in rules.modes:
                for players in counts:
                    seat = players - 1 if players > 2 else 1
                    config = Config(game=name, mode=mode, players=players,
                                    rounds=self.rounds or rules.default_rounds,
                                    seed=1000 + players)
                    moves = [0]

                    def count(legal: Legal, command: Command, moves: list[int] = moves) -> None:
                        moves[0] += 1

                    problem = self.play_game(config, seat, watch=count)
                    what = f"game {name} mode={mode} players={players} seat={seat}"
                    if problem:
                        self.result(False, what, f"{problem}; expected a legal option for every "
                                    "'go', no answer to 'newgame'/'event' lines")
                    else:
                        self.result(True, what, f"{moves[0]} legal answers, the last "
                                    f"{self.last_answer!r}")

    def check_call(self) -> None:
        """A lead in a game with calls must name the call: ``play <card> <call>``."""
        for name in self.games:
            rules = game_rules(name)
            if not _has_calls(rules):
                continue
            mode = "win" if "win" in rules.modes else rules.modes[0]
            # seat 1 leads the first trick when seat 0 deals
            config = Config(game=name, mode=mode, players=3, rounds=1, seed=7)
            leads: list[str] = []

            def watch(legal: Legal, command: Command, leads: list[str] = leads) -> None:
                if legal.kind == "lead":
                    leads.append(self.last_sent)

            problem = self.play_game(config, 1, watch=watch)
            what = f"lead with a call ({name})"
            if problem:
                self.result(False, what, f"{problem}; expected 'play <card> <call>', e.g. "
                            "'play 1323 2st', for 'go lead options=<card>:<call>,...'")
            elif not leads:
                self.result(False, what, "the bot never led; cannot check")
            else:
                self.result(True, what, f"answered 'go lead' with {leads[0]!r} (expected "
                            "'play <card> <call>')")

    def check_hook(self) -> None:
        """The dealer bids last and may not bring the bids to exactly the tricks."""
        for name in self.games:
            rules = game_rules(name)
            if "bid" not in rules.modes:
                continue
            players = 4
            dealer = players - 1
            config = Config(game=name, mode="bid", players=players, rounds=1, seed=11,
                            dealer=dealer)
            offered: list[tuple[tuple[int, ...], str]] = []

            def others_bid(state: Any, legal: Legal) -> Command | None:
                # the others bid 1, 2, 2: the hook then forbids the dealer 3
                if legal.kind == "bid" and legal.seat is not None:
                    want = (1, 2, 2)[legal.seat]
                    return Bid(legal.seat, want) if want in legal.bids else None
                return None

            def watch(legal: Legal, command: Command,
                      offered: list[tuple[tuple[int, ...], str]] = offered) -> None:
                if legal.kind == "bid":
                    offered.append((legal.bids, self.last_sent))

            problem = self.play_game(config, dealer, script=others_bid, watch=watch)
            what = f"dealer under the hook ({name})"
            if problem:
                self.result(False, what, f"{problem}; expected one of the offered bids (the "
                            "dealer's forbidden bid is left out of options=)")
            elif not offered:
                self.result(False, what, "the bot was never asked to bid; cannot check")
            else:
                bids, line = offered[0]
                missing = [b for b in range(9) if b not in bids]
                self.result(True, what, f"offered bids {','.join(map(str, bids))} (not "
                            f"{','.join(map(str, missing))}); bot sent {line!r}")

    def check_quit(self, grace: float = 1.0) -> None:
        p = self.running()
        if p is None:
            return
        t0 = time.monotonic()
        code = p.quit(grace)
        took = time.monotonic() - t0
        if p.killed:
            self.result(False, "quit", f"still running {grace:g} s after 'quit' (killed); "
                        "expected the bot to exit promptly")
        elif code not in (0, None):
            self.result(False, "quit", f"exited with code {code} after 'quit'; expected 0")
        else:
            self.result(True, "quit", f"exited with code {code} {took * 1000:.0f} ms after "
                        "'quit'")
        self.player = None

    def run(self) -> int:
        try:
            if self.check_handshake():
                self.check_isready()
                self.check_games()
                self.check_call()
                self.check_hook()
                self.check_quit()
        finally:
            self.close()
        verdict = "all checks passed" if not self.failures else f"{self.failures} checks failed"
        self.out(f"{verdict} ({self.passes} passed, {self.failures} failed)")
        return 0 if not self.failures else 1


def _reason(exc: BotError) -> str:
    """A fault's reason for the referee (check-bot reports the detail, not this)."""
    return str(getattr(exc, "reason", "") or type(exc).__name__)


def _has_calls(rules: TrickGame) -> bool:
    try:
        card = rules.parse_card("1111")
    except XactikaError:
        return False
    return any(c is not None for c in rules.calls_for(card))


def build_parser() -> argparse.ArgumentParser:
    cp = OneLineParser(
        prog="xactika check-bot",
        description="Check that a bot speaks the player protocol (spec/PLAYER.md): handshake, "
        "isready, games in every mode and several table sizes, a lead with a call, the "
        "dealer's hook, quit.",
        epilog="example: xactika check-bot -- python3 examples/random_bot.py",
    )
    cp.add_argument("--move", default="2s", help="time allowed per answer (default 2s)")
    cp.add_argument("--startup", default="10s", help="time allowed to start (default 10s)")
    cp.add_argument("--rounds", type=int, default=None,
                    help="hands per game check (default: the game's full length)")
    cp.add_argument("--game", action="append", default=None, metavar="GAME",
                    help=later("check only this game (repeatable; default all: {names})",
                               names=", ".join(games())))
    cp.add_argument("--verbose", "-v", action="store_true", help="print every protocol line")
    cp.add_argument("cmd", nargs=argparse.REMAINDER, help="-- then the bot's command line")
    return cp


def main(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(argv)
    cmd = list(args.cmd)
    if cmd and cmd[0] == "--":
        cmd = cmd[1:]
    if len(cmd) == 1 and " " in cmd[0]:
        cmd = shlex.split(cmd[0])
    if not cmd:
        from xactika.frontends.cli.invocation import xactika_command

        print("xactika check-bot: no bot command: expected "
              f"{xactika_command()} check-bot -- CMD [ARGS...]",
              file=sys.stderr)
        return 2
    try:
        move = parse_seconds(args.move, "--move")
        startup = parse_seconds(args.startup, "--startup")
    except MatchError as exc:
        print(f"xactika check-bot: {exc}", file=sys.stderr)
        return 2
    if args.rounds is not None and args.rounds < 1:
        print(f"xactika check-bot: --rounds must be at least 1, not {args.rounds}",
              file=sys.stderr)
        return 2
    for name in args.game or ():
        if name not in games():
            print(f"xactika check-bot: unknown game {name!r}: expected one of "
                  f"{', '.join(games())}", file=sys.stderr)
            return 2
    checker = Checker(cmd, move=move, startup=startup, rounds=args.rounds,
                      out=lambda line: print(line, flush=True), verbose=args.verbose,
                      only=args.game)
    return checker.run()
