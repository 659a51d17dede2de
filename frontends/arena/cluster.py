"""``arena run --cluster ray[=ADDRESS]``: each game a Ray task, as ``match --cluster ray``.

The scheduler, the claims, the records and the key stay with ``arena run``; a task is
sent what a match's task is sent (frontends/match/cluster.py): its one deal, its seats'
fallback seeds and the line-up's settings without the ladder's seed, so a bot on a node
learns no other deal. A task starts its bots and quits them (no process is kept between
tasks); a task whose worker died is played once more, its first try leaving nothing.
Remote entrants connect to ``arena run``'s own machine and are not scheduled here.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence

import attrs

from xactika.frontends.i18n import ngettext
from xactika.frontends.match.cluster import RERUNS, Cluster, Context, Task, play_task
from xactika.frontends.match.game import GamePlayer, MatchSettings, Played
from xactika.frontends.match.sandbox import Sandbox
from xactika.frontends.match.tournament import BotSpec, GameSpec, OneDeal
from xactika.frontends.parallel import ClusterError, RayBackend, RaySession, parse_cluster


def play_job(job: tuple[Context, Task]) -> Played:
    """One arena game on a node: a match task, its context sent with it (each set has
    its own line-up, so no context is shared between tasks)."""
    return play_task(*job)


class ArenaCluster:
    """The Ray cluster one ``arena run`` plays its games on."""

    def __init__(self, session: RaySession, sandbox: Sandbox, stop: threading.Event) -> None:
        self.session = session
        self.sandbox = sandbox
        self.cwd = os.getcwd()
        self.backend: RayBackend[tuple[Context, Task], Played] = RayBackend(
            play_job, session, options={"num_cpus": 1, "max_retries": 0}, reruns=RERUNS,
            what=lambda job: f"game {job[1].game.id}", stop=stop)

    def play(self, player: GamePlayer, game: GameSpec, deal: OneDeal, ladder: str) -> Played:
        """``player.play_game(game)``, played by a task on the cluster."""
        settings = attrs.evolve(player.settings, seed=None)  # no deal but its own
        context = Context(settings, self.sandbox, player.stderr_keep, self.cwd,
                          str(player.stderr_dir.absolute()), f"arena-{ladder}")
        task = Task(game, deal, tuple(player.fallback_seed(game, seat)
                                      for seat in range(settings.players)))
        return self.backend.run((context, task))

    def window(self, concurrency: int) -> int:
        """Games in flight: --concurrency when given, else one a CPU of the cluster."""
        return concurrency if concurrency > 1 else self.session.cpus()

    def describe(self) -> str:
        nodes = len([n for n in self.session.ray.nodes() if n.get("Alive")])
        return ngettext("on Ray: {n} node, {cpus} CPUs", "on Ray: {n} nodes, {cpus} CPUs",
                        nodes).format(n=nodes, cpus=self.session.cpus())

    def close(self) -> None:
        self.session.close()


def join(text: str, bots: Sequence[BotSpec], sandbox: Sandbox, concurrency: int,
         stop: threading.Event) -> ArenaCluster:
    """Join (or start) the cluster and check that every node can start every entrant
    (its program, its folder, bubblewrap where the arena sandboxes)."""
    address = parse_cluster(text)
    session = RaySession(address, concurrency if concurrency > 1 else None)
    try:
        check = MatchSettings(tuple(bots), "xactika", "bid", 2, 1, 1, None)
        Cluster(session, check, sandbox).check_nodes()
        return ArenaCluster(session, sandbox, stop)
    except BaseException:
        session.close()
        raise


__all__ = ["ArenaCluster", "ClusterError", "join", "play_job"]
