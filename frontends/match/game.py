"""One game of a match with bot processes: its settings, the game, the runner's state.

The command (``xactika match``, runner.py) schedules the games and reports; this module
plays each one on the referee loop (core/engine/referee.py), faults counted, not fatal.
"""

from __future__ import annotations

import concurrent.futures as cf
import datetime as dt
import os
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import attrs

from xactika.core.bots.agents import RandomAgent
from xactika.core.engine.api import (
    Command,
    Config,
    Event,
    GameOver,
    game_rules,
)
from xactika.core.engine.referee import Faulted, FaultPolicy, Referee, Turn, run
from xactika.core.engine.settings import Options, options_of
from xactika.core.engine.views import visible
from xactika.frontends.match.sandbox import (
    Sandbox,
)
from xactika.frontends.match.tournament import (
    BotSpec,
    DealSet,
    Fault,
    GameResult,
    GameSpec,
    MatchError,
    OneDeal,
    Reveal,
    derived_seed,
    result_from_record,
    schedule,
)
from xactika.frontends.parallel import (
    Stopped,
)
from xactika.protocol.net.remote_bots import RemotePlayer, SeatListener
from xactika.protocol.notation.text import format_event
from xactika.protocol.player.process import (
    STDERR_KEEP,
    BotCrashed,
    BotError,
    BotIllegalMove,
    BotProtocolError,
    BotTimeout,
    PlayerProcess,
)
from xactika.protocol.records.assemble import THINK, RecordFacts, record_headers
from xactika.protocol.records.textform import RecordError, format_record, read_record
from xactika.protocol.records.writing import write_record_file
from xactika.protocol.trust.audit import OK, VERIFIED
from xactika.protocol.trust.fastaudit import audit_path
from xactika.protocol.trust.manifest import (
    MANIFEST_FILE,
    ManifestWriter,
    check_manifest,
)
from xactika.protocol.trust.signing import (
    Signer,
    parse_sig_line,
    signer_for,
)
from xactika.protocol.trust.tamper import commit_config

if TYPE_CHECKING:
    pass

# a seat's player: a local process, or a bot connected from elsewhere (remote=TOKEN)
Seated = PlayerProcess | RemotePlayer

SETTINGS_FILE = "match.json"
DEALS_FILE = "deals.txt"
GAMES_FILE = "all-games.txt"  # every record of the match in one file (spec/RECORDS.md)


# --------------------------------------------------------------------------- settings


@attrs.frozen
class MatchSettings:
    """Everything that fixes a match's games; saved to match.json for --resume."""

    bots: tuple[BotSpec, ...]
    game: str
    mode: str
    players: int
    rounds: int
    deals: int
    seed: int | None  # None when the deals came from a deal file
    deal_file: str | None = None
    quit_grace: float = 1.0
    gauntlet: bool = False
    options: Options = attrs.field(default=(), converter=options_of)
    """The game's own settings (Oh Hell's ``top``): every deal is played with them."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "bots": [b.to_dict() for b in self.bots], "game": self.game, "mode": self.mode,
            "players": self.players, "rounds": self.rounds, "deals": self.deals,
            "seed": None if self.seed is None else str(self.seed),  # exact in any JSON reader
            "deal_file": self.deal_file, "quit_grace": self.quit_grace,
            "gauntlet": self.gauntlet, "options": dict(self.options),
        }

    def schedule(self) -> list[GameSpec]:
        return schedule(len(self.bots), self.players, self.deals, self.gauntlet)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> MatchSettings:
        seed = d.get("seed")
        return cls(tuple(BotSpec.from_dict(b) for b in d["bots"]), d["game"], d["mode"],
                   int(d["players"]), int(d["rounds"]), int(d["deals"]),
                   None if seed is None else int(seed),
                   d.get("deal_file"), float(d.get("quit_grace", 1.0)),
                   bool(d.get("gauntlet", False)), d.get("options") or {})


def fault_reason(exc: BotError) -> str:
    """The termination reason (spec/MATCH.md) for a client error."""
    if isinstance(exc, BotCrashed):
        return "crash-startup" if exc.startup else "crash"
    if isinstance(exc, BotTimeout):
        return "timeout-startup" if exc.startup else "timeout"
    if isinstance(exc, BotProtocolError):
        return exc.reason
    if isinstance(exc, BotIllegalMove):
        return "illegal-move"
    return "crash"


def seat_event(event: Event, seat: int) -> Event:
    """``event`` as a bot in ``seat`` is told it during a match: game-over reveals no seed.

    Every other seating of the deal is dealt from the same seed, so a bot that kept the
    seed would know every hand there; the reveal is published once the match is over
    (spec/MATCH.md, "What a bot can know"). The record keeps it.
    """
    seen = visible(event, seat)
    if isinstance(seen, GameOver) and seen.seed is not None:
        return attrs.evolve(seen, seed=None, nonce=None)
    return seen


_PASSES = visible.dispatch(object)  # what ``visible`` does with an event it never redacts
_PUBLIC: dict[type, bool] = {}  # by event type (visible's redactions are registered at import)


def public_event(event: Event) -> bool:
    """Whether every seat is told ``event`` exactly as it is (so one line serves all).

    True when ``visible`` has no redaction registered for its type, i.e. passes it
    through for every seat, and :func:`seat_event` does not strip it (game-over).
    """
    kind = type(event)
    public = _PUBLIC.get(kind)
    if public is None:
        public = _PUBLIC[kind] = (visible.dispatch(kind) is _PASSES
                                  and not issubclass(kind, GameOver))
    return public


class Aborted(Stopped):
    """The run is being stopped (Ctrl-C, SIGTERM): abandon the game, write nothing."""


# --------------------------------------------------------------------------- one game


@attrs.frozen
class RunnerCost:
    """The runner's own time per decision, as fastchess reports latency: the wall time of
    the game's loop less the time spent waiting for answers, and the CPU of the game's
    thread (the referee, the lines, the pipes), over the bots' decisions."""

    decisions: int = 0
    wall_s: float = 0.0  # the referee loop, start to game-over
    think_s: float = 0.0  # waiting for the bots' answers, from ``go`` to the answer
    cpu_s: float = 0.0  # the game's thread, in the loop

    @property
    def latency_s(self) -> float:
        return max(0.0, self.wall_s - self.think_s) / max(1, self.decisions)

    @property
    def cpu_per_decision_s(self) -> float:
        return self.cpu_s / max(1, self.decisions)

    def header(self) -> str:
        """The ``runner.cost`` header: microseconds a decision."""
        return (f"latency={self.latency_s * 1e6:.0f}us cpu={self.cpu_per_decision_s * 1e6:.0f}us "
                f"decisions={self.decisions}")


@attrs.frozen
class Played:
    """One game as played, before its record is signed and written (by the driver)."""

    config: Config
    events: tuple[Event, ...]
    result: GameResult
    started: dt.datetime
    # each event's line as the bots were sent it, where that is the record's line too
    # (a public event), None elsewhere: the record does not format those again
    lines: tuple[str | None, ...] = ()
    # per-move facts (the ms each bot's answer took), by the seq of the event it made
    moves: dict[int, dict[str, int]] = attrs.field(factory=dict)
    cost: RunnerCost = RunnerCost()  # the runner's own cost per decision (the record says it)


class GamePlayer:
    """Plays games with bot processes; thread-safe, one call of play_game() per game.

    It holds no key and writes no record, so a cluster worker runs it as it is
    (frontends/match/cluster.py); Runner adds the records on the driver's disk.
    """

    def __init__(self, settings: MatchSettings, deals: DealSet | OneDeal, stderr_dir: Path,
                 sandbox: Sandbox | None = None, stderr_keep: int = STDERR_KEEP,
                 listener: SeatListener | None = None) -> None:
        self.settings = settings
        self.deals = deals
        self.stderr_dir = stderr_dir
        self.sandbox = sandbox or Sandbox("none")  # how bots start (frontends/match/sandbox.py)
        self.stderr_keep = stderr_keep
        self.aborted = threading.Event()
        self.listener = listener  # where remote=TOKEN bots connect (protocol/net/remote_bots.py)
        self.remote_wait: float | None = None  # for a remote bot's connection (None: startup=)
        # told each game's events and their lines (None: not public) as they happen, the
        # arena's live file (frontends/arena/live.py); None costs nothing per event
        self.watch: Callable[[Sequence[Event], Sequence[str | None]], None] | None = None
        self._live: set[Seated] = set()
        self._idle: dict[int, list[Seated]] = {}  # restart=off bots between games
        self._lock = threading.Lock()
        stderr_dir.mkdir(parents=True, exist_ok=True)

    # -- process registry: everything started is killed on abort and at exit
    def _register(self, p: Seated) -> None:
        with self._lock:
            self._live.add(p)

    def _forget(self, p: Seated) -> None:
        with self._lock:
            self._live.discard(p)

    def kill_all(self) -> None:
        with self._lock:
            live = list(self._live)
        for p in live:
            try:
                p._kill()
            except Exception:
                pass

    def _take_idle(self, bot: int) -> Seated | None:
        with self._lock:
            pool = self._idle.get(bot, [])
            while pool:
                p = pool.pop()
                if p.returncode is None:
                    return p
                self._live.discard(p)
        return None

    def _put_idle(self, bot: int, p: Seated) -> None:
        p.wipe()  # nothing a kept process wrote carries over to its next game
        with self._lock:
            self._idle.setdefault(bot, []).append(p)

    def close_idle(self) -> list[str]:
        """Quit the processes kept between games; the names of those that ignored quit."""
        with self._lock:
            idle = [(b, p) for b, pool in self._idle.items() for p in pool]
            self._idle.clear()
        ignored = []
        for _, p in idle:  # every quit sent first: the exits overlap
            p.send_quit(self.settings.quit_grace)
        for b, p in idle:
            p.quit(self.settings.quit_grace)
            self._forget(p)
            if p.killed:
                ignored.append(self.settings.bots[b].name)
        return ignored

    def fallback_seed(self, game: GameSpec, seat: int) -> int:
        """The seed of the random play that finishes a faulted seat's game (spec/MATCH.md)."""
        return derived_seed(self.settings.seed, f"fallback/{game.id}/{seat}")

    def _check(self) -> None:
        if self.aborted.is_set():
            raise Aborted

    def play_game(self, game: GameSpec) -> Played:
        """Play one game on the referee loop: seat the bots, play, quit them."""
        one = OneGame(self, game)
        try:
            one.seat_players()
            wall, cpu = time.perf_counter(), time.thread_time()
            run(one.referee, one.ask, one.tell)  # the referee loop (core/engine/referee.py)
            one.cost = RunnerCost(one.decisions, time.perf_counter() - wall, one.waited_s,
                                  time.thread_time() - cpu)
            one.quit_players()
        finally:
            one.kill_players()
        return one.played()


class OneGame:
    """One game of :meth:`GamePlayer.play_game` while it plays: its seats' players, the
    referee, the lines and times the record keeps. A faulted seat's process is quit and
    a seeded random bot plays on for it."""

    def __init__(self, host: GamePlayer, game: GameSpec) -> None:
        self.host = host
        self.game = game
        self.started = dt.datetime.now(dt.UTC)
        # seeded deals commit to their seed, revealed at game-over (spec/TAMPER.md)
        self.config = commit_config(host.deals.with_mode(game.deal, host.settings.mode))
        self.rules = game_rules(self.config.game)
        self.bots = [host.settings.bots[b] for b in game.seats]
        # each seat's go budget (ms) and the answer time after which it is slow (s)
        self.limits = [(bot.time_ms, bot.move + bot.margin) for bot in self.bots]
        n = self.config.players
        self.players: list[Seated | None] = [None] * n
        self.errors: list[BotError | None] = [None] * n
        self.referee = Referee.new(self.config, policy=FaultPolicy.stand_in(
            lambda seat: RandomAgent(host.fallback_seed(game, seat))))
        self.events = self.referee.events
        # each event's line as the bots were sent it, where that is the record's line too
        self.lines: list[str | None] = [None] * len(self.events)
        self.moves: dict[int, dict[str, int]] = {}  # per-move facts, by the seq of its event
        self.decisions, self.waited_s = 0, 0.0  # answers had, seconds waited for them
        self.cost = RunnerCost()  # the runner's own, once the loop is over
        self.watch = host.watch
        if self.watch is not None:
            self.watch(self.events, self.lines)

    # -- the seats' players
    def seat_players(self) -> None:
        """Kept processes first, then the others started at once (a thread each); each
        told the game so far. A seat that fails to start is faulted."""
        for seat in range(len(self.players)):  # kept processes first: no thread to hand one over
            if not self.bots[seat].restart:
                self.players[seat] = self.host._take_idle(self.game.seats[seat])
        threads = [threading.Thread(target=self._start, args=(seat,))
                   for seat, p in enumerate(self.players) if p is None]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for seat, exc in enumerate(self.errors):
            if exc is not None:
                self.fault(seat, fault_reason(exc), str(exc))
        for seat, p in enumerate(self.players):
            if p is not None:
                try:
                    p.new_game(seat, [seat_event(e, seat) for e in self.events], self.rules)
                except BotError as exc:
                    self.fault(seat, fault_reason(exc), str(exc))
        self.host._check()

    def _start(self, seat: int) -> None:
        bot, host = self.bots[seat], self.host
        p: Seated
        if bot.remote is not None:
            p = RemotePlayer(host.listener, bot.remote, name=bot.name,
                             startup_timeout=bot.startup, move_timeout=bot.hard_limit)
        else:
            p = PlayerProcess(
                bot.cmd, cwd=bot.dir, stderr_path=host.stderr_dir / f"{bot.name}.txt",
                startup_timeout=bot.startup, move_timeout=bot.hard_limit, name=bot.name,
                sandbox=host.sandbox, stderr_keep=host.stderr_keep,
            )
        host._register(p)
        self.players[seat] = p
        try:
            p.start()
        except BotError as exc:
            self.errors[seat] = exc

    def quit_players(self) -> None:
        """Quit every player after the game (kept ones go back to the pool); one that
        ignores quit is faulted."""
        host, grace = self.host, self.host.settings.quit_grace
        for seat, p in enumerate(self.players):  # every quit sent first: the exits overlap
            if p is not None and self.bots[seat].restart:
                p.send_quit(grace)
        for seat, p in enumerate(self.players):
            if p is None:
                continue
            host._check()
            if not self.bots[seat].restart:
                host._put_idle(self.game.seats[seat], p)
                self.players[seat] = None
                continue
            p.quit(grace)
            host._forget(p)
            self.players[seat] = None
            if p.killed:
                self.referee.fault(seat, "ignored-quit",
                                   f"still running {grace:g} s after quit; killed")
        host._check()

    def kill_players(self) -> None:
        """Kill whatever is still running (an abort, an error)."""
        for p in self.players:
            if p is not None:
                p._kill()
                self.host._forget(p)

    def fault(self, seat: int, reason: str, detail: str) -> None:
        self.host._check()  # an error caused by our own kill on abort is not a fault
        self.referee.fault(seat, reason, detail)
        p = self.players[seat]
        self.players[seat] = None
        if p is not None:
            p.quit(0.0)
            self.host._forget(p)

    # -- the referee loop's callbacks
    def ask(self, turn: Turn) -> Command | Faulted:
        seat = turn.seat
        p, (time_ms, slow) = self.players[seat], self.limits[seat]
        assert p is not None  # a faulted seat has its stand-in
        try:
            command = p.ask(turn.legal, self.rules, time_ms)
            self.decisions += 1
            self.waited_s += p.last_think_s
        except BotError as exc:
            self.fault(seat, fault_reason(exc), str(exc))
            return Faulted(fault_reason(exc), str(exc))
        if p.last_think_s > slow:
            bot = self.bots[seat]
            detail = (f"answered after {p.last_think_s:.3f} s; the move limit is "
                      f"{bot.move:g} s (+{bot.margin:g} s margin)")
            self.fault(seat, "slow", detail)
            return Faulted("slow", detail)
        self.moves[len(self.events) + 1] = {THINK: round(p.last_think_s * 1000)}  # its seq
        return command

    def tell(self, new: list[Event]) -> None:
        # a line every seat sees alike is formatted once, here, for the bots and the
        # record; another is redacted and formatted per seat
        rules, lines = self.rules, self.lines
        texts = [format_event(event, rules) if public_event(event) else None for event in new]
        lines += texts
        public = None not in texts
        for other, q in enumerate(self.players):
            if q is None:
                continue
            try:
                if public:  # the usual move: its lines to each bot in one call
                    q.tell_lines(cast("list[str]", texts))
                    continue
                for event, text in zip(new, texts, strict=True):
                    if text is None:
                        q.tell(seat_event(event, other))
                    else:
                        q.tell(event, text)
            except BotError as exc:
                self.fault(other, fault_reason(exc), str(exc))
        if self.watch is not None and new:
            self.watch(new, self.lines[-len(new):])
        self.host._check()

    def played(self) -> Played:
        """The game as played, for its record (signed and written by the driver)."""
        over, config = self.events[-1], self.config
        faults = tuple(Fault(f.seat, f.reason, f.detail) for f in self.referee.faults)
        result = GameResult(self.game, over.totals, over.winners, self.referee.state.round,
                            faults, self.rules.low_wins(config), Reveal.of(config))
        return Played(config, tuple(self.events), result, self.started, tuple(self.lines),
                      dict(self.moves), self.cost)


class Runner(GamePlayer):
    """Plays the games of one match here and keeps their signed records in ``out``."""

    deals: DealSet  # the whole set, on the driver only

    def __init__(self, settings: MatchSettings, deals: DealSet, out: Path,
                 signer: Signer | None = None, sandbox: Sandbox | None = None,
                 stderr_keep: int = STDERR_KEEP, listener: SeatListener | None = None) -> None:
        super().__init__(settings, deals, out / "stderr", sandbox, stderr_keep, listener)
        self.out = out
        self.signer = signer or signer_for(None)
        self.rejected: list[str] = []  # records --resume refused, and why
        self.manifest = self._open_manifest()
        (out / "games").mkdir(parents=True, exist_ok=True)
        # records made by play() reach the disk here, in order, while the next game plays
        self._writer = cf.ThreadPoolExecutor(1, thread_name_prefix="record")
        self._writes: list[cf.Future[None]] = []
        self._writes_lock = threading.Lock()

    def play(self, game: GameSpec) -> GameResult:
        """Play a game here and store it with :meth:`store_behind`."""
        self._written(wait=False)
        return self.store_behind(game, self.play_game(game))

    def store_behind(self, game: GameSpec, played: Played) -> GameResult:
        """Make a game's record now; the writer thread writes it (fsync, manifest entry,
        rename, folder fsync) while the next game plays: three fsyncs a game are
        milliseconds no bot need wait for. A write that failed fails the next play() or
        flush_records()."""
        self._written(wait=False)
        path, text = self.make_record(game, played)
        future = self._writer.submit(self._put_record, game, path, text)
        with self._writes_lock:
            self._writes.append(future)
        return played.result

    def flush_records(self) -> None:
        """Wait until every record play() made is in place; raise the first failed write."""
        self._written(wait=True)

    def _written(self, wait: bool) -> None:
        """Raise the error of a write that failed: of any (``wait``), or of those done."""
        while True:
            with self._writes_lock:
                if not self._writes or not (wait or self._writes[0].done()):
                    return
                future = self._writes.pop(0)
            future.result()  # its OSError, raised where the game's caller sees it

    def store(self, game: GameSpec, played: Played) -> GameResult:
        """Sign and write a game's record (wherever it was played); its result."""
        self.write_record(game, played)
        return played.result

    def close(self) -> None:
        """Let the writer thread go once the records are in place (flush_records)."""
        self._writer.shutdown(wait=True)

    def _open_manifest(self) -> ManifestWriter:
        """The match's manifest, continued; one that fails its own check is set aside."""
        path = self.out / MANIFEST_FILE
        if path.exists():
            found = check_manifest(path)
            if found.problems and found.signer == self.signer.public:
                line, reason = found.problems[0]
                self.rejected.append(f"{MANIFEST_FILE}:{line}: {reason}; set aside as "
                                     f"{MANIFEST_FILE}.rejected, every game is checked "
                                     "against a new one")
                os.replace(path, path.with_name(MANIFEST_FILE + ".rejected"))
        return ManifestWriter(path, self.signer)

    def record_path(self, game: GameSpec) -> Path:
        return self.out / "games" / f"{game.id}.log"

    def write_record(self, game: GameSpec, played: Played) -> None:
        """Write the whole record to a temporary file, flush it to disk, then rename."""
        self._put_record(game, *self.make_record(game, played))

    def make_record(self, game: GameSpec, played: Played) -> tuple[Path, str]:
        """The record's path and its signed text."""
        s = self.settings
        source = os.path.basename(s.deal_file) if s.deal_file else "the match"
        own = {"match.game": str(game.index), "match.deal": str(game.deal),
               "match.table": str(game.table), "match.rotation": str(game.rotation),
               "termination": played.result.termination}
        headers = record_headers(RecordFacts(
            played.config, [s.bots[b].name for b in game.seats], date=played.started,
            event=self.out.name, deal=f"deal {game.deal} of {source}",
            extra=[*own.items(), *(("fault", f.header()) for f in played.result.faults),
                   ("runner.cost", played.cost.header())],
            moves=played.moves, record_id=self._record_id(game)), played.events)
        return self.record_path(game), format_record(headers, played.events,
                                                     signer=self.signer, lines=played.lines)

    def _put_record(self, game: GameSpec, path: Path, text: str) -> None:
        """The record on disk: a temporary file, fsynced, pinned in the manifest, renamed."""
        def pin() -> None:
            # the manifest pins the record before it appears (spec/TAMPER.md section 7): a
            # kill in between leaves an entry without its record, and --resume plays it again
            sig = parse_sig_line(text.rstrip("\n").rpartition("\n")[2])
            self.manifest.add(self._manifest_name(game), self._record_id(game), sig.events,
                              sig.head)

        write_record_file(path, text, before_rename=pin)

    def _record_id(self, game: GameSpec) -> str:
        return f"{self.manifest.match_id}/{game.id}"

    def _manifest_name(self, game: GameSpec) -> str:
        return self.record_path(game).relative_to(self.out).as_posix()

    def load(self, game: GameSpec) -> GameResult | None:
        """The result of a game already recorded in the output directory, if any."""
        path = self.record_path(game)
        if not path.exists():
            return None
        problem = self._resume_problem(game, path)
        if problem is None:
            try:
                record = read_record(path)
                names = ",".join(self.settings.bots[b].name for b in game.seats)
                if record.header("seats") != names or \
                        record.header("match.game") != str(game.index):
                    problem = f"not made by this match (seats {record.header('seats')})"
                else:
                    return result_from_record(record, game)
            except (RecordError, MatchError) as exc:
                problem = str(exc)
        # a record --resume cannot vouch for is never counted: play the game again
        name = self._manifest_name(game)
        self.rejected.append(f"{name}: {problem}; set aside as {path.name}.rejected, "
                             "playing the game again")
        os.replace(path, path.with_name(path.name + ".rejected"))
        return None

    def _resume_problem(self, game: GameSpec, path: Path) -> str | None:
        """Why a kept record is not this match's honest game: audit, key, manifest, id."""
        report = audit_path(str(path), strict=True, trusted={self.signer.public})
        if report.status != OK or report.signature != VERIFIED:
            first = report.problems[0] if report.problems else None
            return (f"fails its audit at line {first.line}: {first.reason}" if first
                    else f"fails its audit ({report.status})")
        entry = self.manifest.check.entries.get(self._manifest_name(game))
        if entry is None:
            return f"not in {MANIFEST_FILE}: the runner never finished this record"
        if entry.head != report.head:
            return f"its head differs from the one {MANIFEST_FILE} pinned: the game was replaced"
        if entry.record_id != self._record_id(game):
            return f"its id {entry.record_id!r} is not this match's game {game.id}"
        return None
