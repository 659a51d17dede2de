"""``arena run``: claim a set (or schedule one), play its rotations, record, commit.

Each worker thread claims one set at a time with an atomic UPDATE and a lease, so two
runs on one database never play one set; it plays the set's rotations one after the
other with the match runner's GamePlayer (two seatings of one deal never at once), and
for each game writes the signed record first and commits the game after: a kill in
between leaves a record the next run adopts, never a game counted twice.
"""

from __future__ import annotations

import concurrent.futures as cf
import json
import os
import secrets
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
import sqlalchemy as sa

from xactika.core.engine.api import Config
from xactika.frontends.arena import live, store
from xactika.frontends.arena.folder import Arena, ArenaError
from xactika.frontends.arena.lineup import Candidate, choose, overlaps, pair
from xactika.frontends.arena.records import LadderLog, arena_headers, read_game
from xactika.frontends.arena.standings import QUALIFY_SETS, LadderInfo, ladder_table
from xactika.frontends.arena.store import remote_key
from xactika.frontends.match.game import Aborted, GamePlayer, MatchSettings, Played, Seated
from xactika.frontends.match.sandbox import Sandbox
from xactika.frontends.match.tournament import (
    BotSpec,
    GameResult,
    GameSpec,
    OneDeal,
    builtin_command,
    deal_seed,
    derived_seed,
    rotations,
)
from xactika.frontends.parallel import ClusterError, Stopped
from xactika.protocol.net.remote_bots import RemotePlayer, SeatListener

if TYPE_CHECKING:
    from xactika.frontends.arena.cluster import ArenaCluster

LEASE = 120.0  # seconds a claim holds without renewal; renewed every LEASE / 4
REMOTE_WAIT = 2.0  # seconds a set waits for a remote bot that is not connected: it forfeits
UNRATED_SIGMA = 1e9  # an entrant with no finished set is the least certain of all


class Lost(Exception):
    """This run no longer holds the set (its lease ran out): the game is not counted."""


@attrs.frozen
class Ladder:
    id: int
    info: LadderInfo
    seed: int
    options: dict[str, Any]


@attrs.frozen
class Job:
    set_id: int
    ladder: Ladder
    lineup: tuple[int, ...]
    qualifying: bool


def bot_spec(name: str, cmd: Any, cwd: str | None) -> BotSpec:
    """An entrant as the match runner starts it: a built-in is trusted and kept between
    games; a program starts fresh for every game, so no process carries one seating of a
    deal into the next (spec/MATCH.md, "What a bot can know"); a remote bot is its
    connection, kept between games (its seat's key: the hash of its token)."""
    if isinstance(cmd, dict) and "remote" in cmd:
        return BotSpec(name, (), restart=False, remote=cmd["remote"])
    if isinstance(cmd, dict):
        return BotSpec(name, builtin_command(cmd["builtin"]), restart=False)
    return BotSpec(name, tuple(cmd), cwd)


def local_bots(arena: Arena) -> list[BotSpec]:
    """The active entrants this machine starts (every one but the remote ones)."""
    e = store.entrants
    with arena.engine.connect() as conn:
        rows = conn.execute(sa.select(e).where(e.c.status == "active")).all()
    return [bot_spec(r.name, json.loads(r.cmd), r.dir) for r in rows
            if remote_key(json.loads(r.cmd)) is None]


class ArenaPlayer(GamePlayer):
    """A worker's GamePlayer whose remote bots, between games, wait in the season's one
    pool: a remote bot has one connection, and the next set that seats it may be played
    by another worker."""

    def __init__(self, season: Season, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.season = season
        self.remote_wait = REMOTE_WAIT

    def _take_idle(self, bot: int) -> Seated | None:
        if self.settings.bots[bot].remote is None:
            return super()._take_idle(bot)
        p = self.season.remote_idle(bot)
        if p is not None:
            self._register(p)
        return p

    def _put_idle(self, bot: int, p: Seated) -> None:
        if self.settings.bots[bot].remote is None:
            super()._put_idle(bot, p)
            return
        self._forget(p)
        self.season.remote_back(bot, p)


class Season:
    """One ``arena run`` process: its id, its workers, its claims."""

    def __init__(self, arena: Arena, sandbox: Sandbox, concurrency: int,
                 games: int | None = None, seconds: float | None = None,
                 hook: Callable[[str], None] | None = None,
                 listener: SeatListener | None = None,
                 cluster: ArenaCluster | None = None,
                 abort: threading.Event | None = None) -> None:
        self.arena = arena
        self.sandbox = sandbox
        self.concurrency = concurrency
        self.limit = games
        self.deadline = None if seconds is None else time.monotonic() + seconds
        self.host = socket.gethostname()
        self.run_id = f"{self.host}:{os.getpid()}:{secrets.token_hex(4)}"
        self.stop = threading.Event()  # no new game starts
        self.abort = abort or threading.Event()  # games in flight are abandoned (a signal)
        self.played = 0
        self.started = 0
        self.error: str | None = None
        self.idle = 0
        self.hook = hook  # tests: called with "recorded" between record and commit
        self._lock = threading.Lock()
        self._logs: dict[int, LadderLog] = {}
        self._players: list[GamePlayer] = []
        self._fit_at = 0.0
        self._fit_cost = 0.0  # the last refit's thread CPU seconds
        self._sigma: dict[tuple[int, str], float] = {}
        self._overlap: dict[tuple[int, str], float] = {}  # lineup.overlaps of each entrant
        self.listener = listener  # where remote entrants connect (arena run --listen)
        self.cluster = cluster  # where the games are played (arena run --cluster ray)
        self._remote: dict[int, str] = {}  # remote entrant id -> its token's hash
        self._remote_idle: dict[int, RemotePlayer] = {}  # their players between games
        self._busy: set[int] = set()  # remote entrants in a set this run plays
        # each set's lease as this run last made it (monotonic): until when it is ours
        self._held: dict[int, float] = {}

    # -- the run
    def run(self) -> None:
        self._begin()
        workers = [threading.Thread(target=self._worker, name=f"arena-{i}")
                   for i in range(self.concurrency)]
        beat = threading.Thread(target=self._heartbeat, daemon=True)
        for t in workers:
            t.start()
        beat.start()
        try:
            while any(t.is_alive() for t in workers):
                if self.deadline is not None and time.monotonic() >= self.deadline:
                    self.stop.set()
                if self.abort.is_set():
                    self.interrupt()
                for t in workers:
                    t.join(0.2)
        except BaseException:
            self.interrupt()
            for t in workers:
                t.join()
            raise
        finally:
            self._finish()

    def interrupt(self) -> None:
        """Stop now: the games in flight are abandoned and their sets released."""
        self.stop.set()
        self.abort.set()
        with self._lock:
            players = list(self._players)
        for p in players:
            p.aborted.set()
            p.kill_all()
        with self._lock:
            idle, self._remote_idle = list(self._remote_idle.values()), {}
        for remote in idle:
            remote.kill()

    def _begin(self) -> None:
        with self.arena.engine.begin() as conn:
            conn.execute(store.runs.insert().values(id=self.run_id, host=self.host,
                                                    pid=os.getpid(), started=time.time()))
            for run in conn.execute(sa.select(store.runs.c.id, store.runs.c.pid).where(
                    store.runs.c.host == self.host, store.runs.c.stopped.is_(None),
                    store.runs.c.id != self.run_id)).all():
                if not _alive(run.pid):  # killed: its sets are free at once
                    self._release(conn, run.id)
                    conn.execute(store.runs.update().where(store.runs.c.id == run.id)
                                 .values(stopped=time.time()))

    def _finish(self) -> None:
        try:
            with self.arena.engine.begin() as conn:
                self._release(conn, self.run_id)
                conn.execute(store.runs.update().where(store.runs.c.id == self.run_id)
                             .values(stopped=time.time()))
        except sa.exc.SQLAlchemyError as exc:
            self.error = self.error or store.said(exc, self.arena.url)
        for log in self._logs.values():
            log.end()
            log.close()
        with self._lock:
            idle, self._remote_idle = list(self._remote_idle.values()), {}
        for p in idle:  # quit: a relay (xactika connect) ends with its bot
            p.quit(0.0)

    @staticmethod
    def _release(conn: sa.Connection, run_id: str) -> None:
        s = store.sets
        conn.execute(s.update().where(s.c.claimed_by == run_id, s.c.state == "claimed")
                     .values(state="open", claimed_by=None, lease_until=None))

    def _heartbeat(self) -> None:
        s = store.sets
        while not self.stop.wait(LEASE / 4):
            try:
                with self.arena.engine.begin() as conn:
                    conn.execute(s.update().where(s.c.claimed_by == self.run_id,
                                                  s.c.state == "claimed")
                                 .values(lease_until=time.time() + LEASE))
            except sa.exc.SQLAlchemyError:
                pass  # the workers see it and stop

    def _worker(self) -> None:
        players: dict[int, ArenaPlayer] = {}
        writer = cf.ThreadPoolExecutor(1, thread_name_prefix="arena-record")
        try:
            while not self.stop.is_set():
                with self._lock:  # --games N all started: nothing more to claim
                    if self.limit is not None and self.started >= self.limit:
                        self.stop.set()
                        break
                job = self._claim() or self._schedule()
                if job is None:
                    with self._lock:
                        self.idle += 1
                        # remote entrants may yet connect: a listening run waits for them
                        nothing = self.idle == self.concurrency and self.deadline is None \
                            and self.limit is not None \
                            and (self.listener is None or not self._remote)
                    if nothing:  # --games N, and nothing anyone could play
                        self.error = self.error or self._why_idle()
                        self.stop.set()
                    self.stop.wait(0.5)
                    with self._lock:
                        self.idle -= 1
                    continue
                try:
                    self._play_set(job, players, writer)
                except Lost:
                    continue  # another run took the set over: its games are its own
                finally:
                    self._unhold(job.lineup)
        except sa.exc.SQLAlchemyError as exc:
            self.error = self.error or store.said(exc, self.arena.url)
            self.interrupt()
        except (OSError, ArenaError, ClusterError) as exc:
            self.error = self.error or str(exc)
            self.interrupt()
        finally:
            writer.shutdown(wait=True)
            for p in players.values():
                p.close_idle()
                p.kill_all()

    def _why_idle(self) -> str:
        return ("nothing to play: each ladder needs as many entrants of different owners "
                "as it has seats (add some with 'arena add')")

    # -- remote entrants: scheduled only while connected here, one set at a time
    def know_entrants(self) -> None:
        """Accept every remote entrant's token now (before the listener is announced)."""
        e = store.entrants
        with self.arena.engine.connect() as conn:
            self._know_remote(conn.execute(sa.select(e.c.id, e.c.name, e.c.cmd)).all())

    def _know_remote(self, rows: Any) -> None:
        """Accept the tokens of the remote entrants (new ones too, without a restart);
        idempotent, so two workers may race here (each a dict write under the GIL)."""
        for r in rows:
            key = remote_key(json.loads(r.cmd))
            if key is not None and r.id not in self._remote:
                self._remote[r.id] = key
                if self.listener is not None:
                    self.listener.add_key(bytes.fromhex(key), key, r.name)

    def _here(self, entrant: int) -> bool:
        """Whether an entrant can be seated by this run now (caller holds the lock)."""
        key = self._remote.get(entrant)
        if key is None:
            return True
        if entrant in self._busy or self.listener is None:
            return False
        idle = self._remote_idle.get(entrant)
        if idle is not None and idle.hung_up():
            self._remote_idle.pop(entrant)
            idle.kill()
            idle = None
        return idle is not None or self.listener.waiting(key)

    def _hold(self, lineup: tuple[int, ...]) -> bool:
        """Mark a line-up's remote entrants busy, if every one is here (caller locks)."""
        if not all(self._here(i) for i in lineup):
            return False
        self._busy.update(i for i in lineup if i in self._remote)
        return True

    def _unhold(self, lineup: tuple[int, ...]) -> None:
        with self._lock:
            self._busy.difference_update(lineup)

    def remote_idle(self, entrant: int) -> RemotePlayer | None:
        with self._lock:
            p = self._remote_idle.pop(entrant, None)
        if p is not None and (p.returncode is not None or p.hung_up()):
            p.kill()
            return None
        return p

    def remote_back(self, entrant: int, p: Seated) -> None:
        assert isinstance(p, RemotePlayer)
        with self._lock:
            old = self._remote_idle.pop(entrant, None)
            self._remote_idle[entrant] = p
        if old is not None:
            old.kill()

    # -- claiming and scheduling
    def _claim(self) -> Job | None:
        s = store.sets
        now = time.time()
        free = sa.or_(s.c.state == "open", sa.and_(s.c.state == "claimed",
                                                    s.c.lease_until < now))
        with self.arena.engine.connect() as conn:
            found = conn.execute(sa.select(s.c.id, s.c.lineup).where(free).order_by(s.c.id)
                                 .limit(8)).all()
        ladders = self._ladders() if found else {}
        if found:
            self.know_entrants()
        for set_id, lineup_text in found:  # one transaction each, no other connection inside
            lineup = tuple(json.loads(lineup_text))
            with self._lock:
                if not self._hold(lineup):
                    continue  # a remote entrant of it is not connected here
            try:
                with self.arena.engine.begin() as conn:
                    got = conn.execute(s.update().where(s.c.id == set_id, free).values(
                        state="claimed", claimed_by=self.run_id, lease_until=now + LEASE))
                    row = conn.execute(sa.select(s).where(s.c.id == set_id)).one()
            except BaseException:
                self._unhold(lineup)
                raise
            if got.rowcount == 1:
                self._held[set_id] = time.monotonic() + LEASE - (time.time() - now)
                return Job(set_id, ladders[row.ladder_id], lineup, bool(row.qualifying))
            self._unhold(lineup)
        return None

    def _ladders(self) -> dict[int, Ladder]:
        return {i: Ladder(i, info, seed, options)
                for i, info, seed, options in self.arena.ladders()}

    def _schedule(self) -> Job | None:
        """A new set for the ladder with the fewest, line-up by :func:`choose`."""
        with self._lock:  # one fit at a time in this process
            return self._schedule_locked()

    def _schedule_locked(self) -> Job | None:
        s, e = store.sets, store.entrants
        ladders = self._ladders()
        with self.arena.engine.connect() as conn:
            counts: dict[int, int] = dict(conn.execute(
                sa.select(s.c.ladder_id, sa.func.count()).group_by(s.c.ladder_id)).all())
            people = conn.execute(sa.select(e).where(e.c.status == "active")).all()
        self._know_remote(people)
        people = [p for p in people if self._here(p.id)]
        with self.arena.engine.connect() as conn:
            lineups = conn.execute(sa.select(s.c.ladder_id, s.c.lineup, s.c.qualifying)
                                   ).all()
        self._refit(ladders)
        for lad in sorted(ladders.values(), key=lambda lad: (counts.get(lad.id, 0), lad.id)):
            together: dict[tuple[int, int], int] = {}
            qualifying: dict[int, int] = {}
            in_sets: dict[int, int] = {}
            for row in lineups:
                if row.ladder_id != lad.id:
                    continue
                ids = json.loads(row.lineup)
                for i in ids:
                    in_sets[i] = in_sets.get(i, 0) + 1
                if row.qualifying:
                    qualifying[ids[0]] = qualifying.get(ids[0], 0) + 1
                for i, a in enumerate(ids):
                    for b in ids[i + 1:]:
                        together[pair(a, b)] = together.get(pair(a, b), 0) + 1
            candidates = [
                Candidate(p.id, p.name, p.owner, bool(p.house),
                          self._sigma.get((lad.id, p.name), UNRATED_SIGMA),
                          in_sets.get(p.id, 0), qualifying.get(p.id, 0),
                          self._overlap.get((lad.id, p.name), 1.0))
                for p in people]
            choice = choose(candidates, lad.info.players, QUALIFY_SETS, together)
            if choice is None or not self._hold(choice.lineup):
                continue
            renewed = time.monotonic() + LEASE
            try:
                with self.arena.engine.begin() as conn:
                    set_id = conn.execute(s.insert().values(
                        ladder_id=lad.id, lineup=json.dumps(list(choice.lineup)),
                        qualifying=choice.qualifying, state="claimed", claimed_by=self.run_id,
                        lease_until=time.time() + LEASE, created=time.time())
                        .returning(s.c.id)).scalar_one()
            except BaseException:
                self._busy.difference_update(choice.lineup)
                raise
            self._held[set_id] = renewed
            return Job(set_id, lad, choice.lineup, choice.qualifying)
        return None

    def _refit(self, ladders: dict[int, Ladder]) -> None:
        """The current intervals, at most every two seconds and at most 2% of the time
        (they guide, not decide): the fit over a long season's games holds the
        interpreter that the games' threads answer their bots with."""
        if time.monotonic() - self._fit_at < max(2.0, 50 * self._fit_cost):
            return
        began = time.thread_time()
        counted = self.arena.counted()
        self._sigma, self._overlap = {}, {}
        for lad in ladders.values():
            rows = ladder_table(lad.info, counted)["entrants"]
            for row in rows:
                self._sigma[(lad.id, row["name"])] = row["sigma"]
            rated = [(r["name"], r["mu"], r["sigma"]) for r in rows if r["status"] != "house"]
            for name, value in overlaps(rated).items():
                self._overlap[(lad.id, name)] = value
        self._fit_at = time.monotonic()
        self._fit_cost = time.thread_time() - began

    # -- playing
    def _log(self, ladder: Ladder) -> LadderLog:
        with self._lock:
            log = self._logs.get(ladder.id)
            if log is None:
                log = self._logs[ladder.id] = LadderLog(
                    self.arena.ladder_dir(ladder.info.name), self.arena.signer)
            return log

    def _play_set(self, job: Job, players: dict[int, ArenaPlayer],
                  writer: cf.ThreadPoolExecutor) -> None:
        e, g = store.entrants, store.games
        with self.arena.engine.connect() as conn:
            people = {r.id: r for r in conn.execute(sa.select(e).where(
                e.c.id.in_(job.lineup)))}
            done = set(conn.execute(sa.select(g.c.rotation).where(g.c.set_id == job.set_id)
                                    ).scalars())
        lad = job.ladder
        top = max(job.lineup)
        bots = [BotSpec(f"_{i}", ("true",)) for i in range(top + 1)]
        for i, r in people.items():
            bots[i] = bot_spec(r.name, json.loads(r.cmd), r.dir)
        info = lad.info
        settings = MatchSettings(tuple(bots), info.game, info.mode, info.players,
                                 info.rounds, 1, lad.seed, options=lad.options)
        config = Config(game=info.game, mode=info.mode, players=info.players,
                        rounds=info.rounds, seed=deal_seed(lad.seed, job.set_id),
                        options=lad.options)
        player = players.get(lad.id)
        log = self._log(lad)
        if player is None:
            player = players[lad.id] = ArenaPlayer(
                self, settings, OneDeal(job.set_id, config), log.folder / "stderr",
                self.sandbox, listener=self.listener)
            with self._lock:
                self._players.append(player)
        player.settings = settings
        player.deals = OneDeal(job.set_id, config)
        house = [people[i].name for i in job.lineup if people[i].house]
        # a remote bot's memory is its owner's: no seating of a set it is in may deal a
        # deal it has seen, so such a set deals each rotation its own (spec/ARENA.md)
        remote = any(i in self._remote for i in job.lineup)
        cmds = [json.loads(people[i].cmd) for i in job.lineup]
        seatings = rotations(job.lineup)
        watched = live.live_path(self.arena.folder, job.set_id)  # written only if watchable
        wrote = False
        pending: cf.Future[None] | None = None  # the last game's record and commit
        try:
            for rotation, seats in enumerate(seatings):
                if rotation in done:
                    continue
                if not self._take_game():
                    return
                if remote:
                    player.deals = OneDeal(job.set_id, attrs.evolve(
                        config, seed=derived_seed(lad.seed, f"deal/{job.set_id}/{rotation}")))
                game = GameSpec(job.set_id, job.set_id, 0, rotation, seats)
                names = [bots[i].name for i in seats]
                path = log.path(game)
                if path.exists():  # a run killed after the record, before the commit
                    if pending is not None:  # the set's commits one after another
                        pending.result()
                        pending = None
                    _, result = read_game(path, self.arena.signer.public)
                    self._commit(job, game, path, result)
                    continue
                self._renew(job)
                sandboxed = self.sandbox.sandboxed
                watch = None
                if self.cluster is None and live.closed(cmds, rotation, len(seatings),
                                                        sandboxed) is None:
                    watch = live.LiveFile(watched, self.run_id, rotation, info.game, sandboxed)
                    wrote = True
                player.watch = watch
                try:
                    played = (player.play_game(game) if self.cluster is None
                              else self.cluster.play(player, game, player.deals, info.name))
                except (Aborted, Stopped):
                    return
                finally:
                    player.watch = None
                    if watch is not None:
                        watch.close()
                if pending is not None:  # one game's record and commit behind at most
                    pending.result()
                headers = arena_headers(info.name, job.set_id, rotation, job.qualifying,
                                        house, played.result, played.cost)
                pending = writer.submit(self._store, job, game, log, names, headers, played)
        finally:
            if pending is not None:
                pending.result()  # a finished game is kept, whatever stopped the set
            if wrote:  # the set is left: nothing of it is on show (removed off the game's path)
                writer.submit(live.remove, watched)

    def _store(self, job: Job, game: GameSpec, log: LadderLog, names: list[str],
               headers: list[tuple[str, str]], played: Played) -> None:
        """A played game's record, then its commit (in the worker's writer thread, while
        the set's next game plays): the record durable first, as a kill needs."""
        self._renew(job)  # still ours: only then may the record take the name
        path = log.write(game, played, names, headers)
        if self.hook is not None:
            self.hook("recorded")
        self._commit(job, game, path, played.result)

    def _take_game(self) -> bool:
        with self._lock:
            if self.stop.is_set() or (self.limit is not None and self.started >= self.limit):
                self.stop.set()
                return False
            self.started += 1
            return True

    def _renew(self, job: Job) -> None:
        """Make sure the set is still ours: by the database, unless this run renewed its
        lease less than LEASE / 2 ago (nobody can take a lease before it runs out), so
        most games cost no renewal and its fsync."""
        if self._held.get(job.set_id, 0.0) - time.monotonic() > LEASE / 2:
            return
        s = store.sets
        renewed = time.monotonic() + LEASE
        with self.arena.engine.begin() as conn:
            got = conn.execute(s.update().where(s.c.id == job.set_id,
                                                s.c.claimed_by == self.run_id,
                                                s.c.state == "claimed")
                               .values(lease_until=time.time() + LEASE))
            if got.rowcount != 1:
                raise Lost(job.set_id)
        self._held[job.set_id] = renewed

    def _commit(self, job: Job, game: GameSpec, path: Path, result: GameResult) -> None:
        s, g = store.sets, store.games
        res = {"totals": list(result.totals), "winners": list(result.winners),
               "hands": result.hands, "low_wins": result.low_wins,
               "faults": [[f.seat, f.reason, f.detail] for f in result.faults]}
        renewed = time.monotonic() + LEASE
        with self.arena.engine.begin() as conn:
            got = conn.execute(s.update().where(s.c.id == job.set_id,
                                                s.c.claimed_by == self.run_id)
                               .values(lease_until=time.time() + LEASE))
            if got.rowcount != 1:
                raise Lost(job.set_id)
            conn.execute(g.insert().values(
                set_id=job.set_id, rotation=game.rotation, seats=json.dumps(list(game.seats)),
                record=path.relative_to(self.arena.folder).as_posix(),
                result=json.dumps(res), finished=time.time()))
            finished = conn.execute(sa.select(sa.func.count()).select_from(g).where(
                g.c.set_id == job.set_id)).scalar_one()
            if finished == len(rotations(job.lineup)):
                conn.execute(s.update().where(s.c.id == job.set_id).values(
                    state="done", claimed_by=None, lease_until=None))
        self._held[job.set_id] = renewed
        with self._lock:
            self.played += 1


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
