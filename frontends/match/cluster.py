"""``xactika match --cluster ray[=ADDRESS]``: every game a Ray task, the rest on the driver.

A task plays one game with :class:`GamePlayer` (the bots start, sandboxed as they would be
here, on the node that runs it) and returns the game as played; the driver keeps the
schedule, the table and the progress, and signs and stores each record as it arrives,
so the key never leaves it. A task is sent its own deal and its own fallback seeds, and
the settings without the match seed: a hostile bot on a worker can learn no other deal
(spec/MATCH.md, "What a bot can know"). A task whose worker or node dies is played once
more from the start; its first attempt left nothing behind, so no game counts twice.
Before the first game a check task on every node makes sure each bot's program and
folder are there (and bubblewrap, when the driver sandboxes). The tasks run through
frontends/parallel/ (RayBackend); docs/SCALE.md.
"""

from __future__ import annotations

import os
import socket
import tempfile
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import attrs

from xactika.frontends.match.game import GamePlayer, MatchSettings, Played, Runner
from xactika.frontends.match.runner import missing_program
from xactika.frontends.match.sandbox import Sandbox, bwrap_works
from xactika.frontends.match.tournament import BotSpec, GameResult, GameSpec, OneDeal
from xactika.frontends.parallel import ClusterError, RayBackend, RaySession, parse_cluster

RERUNS = 1  # a game whose worker died is played again this many times
CHECK_TIMEOUT = 120.0  # seconds for every node to answer the check task


@attrs.frozen
class Context:
    """What every task of a match needs and may know; put in Ray's object store once."""

    settings: MatchSettings  # without the match seed, from which every deal is derived
    sandbox: Sandbox
    stderr_keep: int
    cwd: str  # the driver's folder: relative bot paths mean the same on every node
    stderr_dir: str  # the driver's OUT/stderr, used where a node sees it (a shared disk)
    match: str


@attrs.frozen
class Task:
    """One game, as a task is sent it: its deal alone and its seats' fallback seeds."""

    game: GameSpec
    deal: OneDeal
    fallback: tuple[int, ...]


class TaskPlayer(GamePlayer):
    """A GamePlayer that knows one deal and the fallback seeds the driver derived."""

    def __init__(self, ctx: Context, task: Task, stderr: Path) -> None:
        super().__init__(ctx.settings, task.deal, stderr, ctx.sandbox, ctx.stderr_keep)
        self.fallback = task.fallback

    def fallback_seed(self, game: GameSpec, seat: int) -> int:
        return self.fallback[seat]


def task_for(runner: Runner, game: GameSpec) -> Task:
    """What the task that plays ``game`` is sent: nothing of the other deals."""
    return Task(game, runner.deals.only(game.deal),
                tuple(runner.fallback_seed(game, seat)
                      for seat in range(runner.settings.players)))


def play_task(ctx: Context, task: Task) -> Played:
    """One game on this node, bots started and quit here; no record, no key."""
    stderr = Path(ctx.stderr_dir)
    if not stderr.is_dir():
        stderr = Path(tempfile.gettempdir()) / "xactika-cluster" / ctx.match / "stderr"
    player = TaskPlayer(ctx, task, stderr)
    before = os.getcwd()
    os.chdir(ctx.cwd if os.path.isdir(ctx.cwd) else before)
    try:
        return player.play_game(task.game)
    finally:
        player.close_idle()  # a kept (restart=off) process lives for one task only
        player.kill_all()
        os.chdir(before)


def check_task(bots: Sequence[BotSpec], sandboxed: bool, cwd: str) -> tuple[str, list[str]]:
    """This node's name and why any bot could not start here."""
    problems: list[str] = []
    if not os.path.isdir(cwd):
        problems.append(f"no folder {cwd} (the driver's working folder)")
    else:
        os.chdir(cwd)
    for bot in bots:
        if bot.dir is not None and not os.path.isdir(bot.dir):
            problems.append(f"bot {bot.name}: no folder dir={bot.dir}")
            continue
        problem = missing_program(bot)
        if problem is not None:
            problems.append(problem)
    if sandboxed and (why := bwrap_works()) is not None:
        problems.append(f"the driver sandboxes bots with bwrap, which cannot run here: {why}")
    return socket.gethostname(), problems


class Cluster:
    """A Ray cluster joined for one match."""

    def __init__(self, session: RaySession, settings: MatchSettings, sandbox: Sandbox) -> None:
        self.session = session
        self.ray = session.ray
        self.settings = settings
        self.sandbox = sandbox
        self.cwd = os.getcwd()
        self.reruns: list[str] = []  # ids of games played again after a worker died
        self._lock = threading.Lock()

    def check_nodes(self) -> int:
        """Run the check task on every live node; ClusterError naming the first problems."""
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        nodes = [n for n in self.ray.nodes()
                 if n.get("Alive") and n.get("Resources", {}).get("CPU", 0) > 0]
        check = self.ray.remote(num_cpus=0, max_retries=0)(check_task)
        refs = [check.options(scheduling_strategy=NodeAffinitySchedulingStrategy(
                    n["NodeID"], soft=False)).remote(self.settings.bots, self.sandbox.sandboxed,
                                                     self.cwd)
                for n in nodes]
        try:
            answers = self.ray.get(refs, timeout=CHECK_TIMEOUT)
        except self.ray.exceptions.GetTimeoutError:
            raise ClusterError(f"the nodes did not answer the bot check in "
                               f"{CHECK_TIMEOUT:g} s") from None
        found = [f"node {host}: {p}" for host, problems in answers for p in problems]
        if found:
            more = f" (and {len(found) - 3} more)" if len(found) > 3 else ""
            raise ClusterError("the bots cannot start on every node of the cluster: "
                               + "; ".join(found[:3]) + more)
        return len(nodes)

    def window(self, concurrency: int) -> int:
        """Games in flight: --concurrency when given, else one a CPU of the cluster."""
        return concurrency if concurrency > 1 else self.session.cpus()

    def player(self, runner: Runner) -> Callable[[GameSpec], GameResult]:
        """A game played on the cluster and stored by ``runner`` here."""
        context = Context(
            attrs.evolve(runner.settings, seed=None), runner.sandbox, runner.stderr_keep,
            self.cwd, str(runner.stderr_dir.absolute()), runner.out.name)
        backend: RayBackend[Task, Played] = RayBackend(
            play_task, self.session, shared=context,
            options={"num_cpus": 1, "max_retries": 0}, reruns=RERUNS,
            on_rerun=self._rerun, what=lambda task: f"game {task.game.id}",
            stop=runner.aborted)

        def play(game: GameSpec) -> GameResult:
            return runner.store(game, backend.run(task_for(runner, game)))

        return play

    def _rerun(self, task: Task) -> None:
        with self._lock:
            self.reruns.append(task.game.id)

    def info(self) -> dict[str, Any]:
        return {"kind": "ray", "nodes": len([n for n in self.ray.nodes() if n.get("Alive")]),
                "cpus": self.session.cpus(), "reruns": sorted(self.reruns)}

    def close(self) -> None:
        self.session.close()


def join(text: str, settings: MatchSettings, sandbox: Sandbox, concurrency: int) -> Cluster:
    """Join (or start) the cluster --cluster names and check every node can run the bots."""
    address = parse_cluster(text)
    remote = [b.name for b in settings.bots if b.remote is not None]
    if remote:
        raise ClusterError(f"--cluster: remote=TOKEN bots ({', '.join(remote)}) connect to "
                           "this machine, not to the cluster's nodes; play them without "
                           "--cluster")
    session = RaySession(address, concurrency if concurrency > 1 else None)
    cluster = Cluster(session, settings, sandbox)
    try:
        cluster.check_nodes()
    except BaseException:
        cluster.close()
        raise
    return cluster
