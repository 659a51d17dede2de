"""Games played in worker processes on this machine: ``--concurrency N`` beyond one.

In threads, the runner's own work (refereeing, formatting lines, reading answers) holds
the GIL, so two games at once ran no faster than one (issue 15). Each worker process has
its own :class:`GamePlayer` and plays whole games with it, the same call a cluster task
makes (frontends/match/cluster.py); the driver keeps the schedule, the key and the
records, storing each game as it comes back. A worker keeps its ``restart=off`` bots
between its games and quits them when the match ends.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import pickle
import queue
import signal
from multiprocessing.connection import Connection
from typing import Any

from xactika.frontends.match.runner import Aborted, GamePlayer, Runner
from xactika.frontends.match.tournament import GameResult, GameSpec

POLL = 0.25  # seconds between looks at the abort flag while a worker plays


def _serve(conn: Connection, player: GamePlayer) -> None:
    """A worker's loop: ("play", game) -> Played, ("close", None) -> ignored quits."""
    def stop(signum: int, frame: object) -> None:
        player.kill_all()
        os._exit(1)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the driver decides; it stops us
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    while True:
        try:
            op, arg = conn.recv()
        except EOFError:  # the driver is gone
            op, arg = "close", None
        try:
            if op == "play":
                answer: Any = ("ok", player.play_game(arg))
            else:
                answer = ("ok", player.close_idle())
        except Exception as exc:  # the driver raises it where the game was asked for
            answer = ("error", _portable(exc))
        if op != "play":
            player.kill_all()
        try:
            conn.send(answer)
        except OSError:
            pass
        if op != "play":
            return


def _portable(exc: Exception) -> Exception:
    """``exc`` if it survives pickling (some take keyword-only arguments), else its words."""
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:
        return RuntimeError(f"{type(exc).__name__}: {exc}")
    return exc


class Workers:
    """``workers`` processes, forked now, each playing one game at a time."""

    def __init__(self, runner: Runner, workers: int) -> None:
        self.runner = runner
        self._idle: queue.SimpleQueue[tuple[mp.process.BaseProcess, Connection]] = \
            queue.SimpleQueue()
        self._all: list[tuple[mp.process.BaseProcess, Connection]] = []
        ctx = mp.get_context("fork")  # no re-import, no pickled settings: starts in ms
        player = GamePlayer(runner.settings, runner.deals, runner.stderr_dir, runner.sandbox,
                            runner.stderr_keep)
        for _ in range(workers):
            ours, theirs = ctx.Pipe()
            proc = ctx.Process(target=_serve, args=(theirs, player), daemon=True)
            proc.start()
            theirs.close()
            self._all.append((proc, ours))
            self._idle.put((proc, ours))

    def play(self, game: GameSpec) -> GameResult:
        """Play ``game`` in an idle worker and store its record here (written behind)."""
        proc, conn = self._idle.get()
        try:
            conn.send(("play", game))
            while not conn.poll(POLL):
                if self.runner.aborted.is_set():
                    raise Aborted
                if not proc.is_alive():
                    raise RuntimeError(f"the worker playing game {game.id} died "
                                       f"(exit code {proc.exitcode})")
            status, value = conn.recv()
        finally:
            self._idle.put((proc, conn))
        if status == "error":
            raise value
        return self.runner.store_behind(game, value)

    def close(self) -> list[str]:
        """Quit every worker's kept bots; the names of those that ignored quit."""
        ignored: list[str] = []
        for proc, conn in self._all:
            try:
                conn.send(("close", None))
                status, value = conn.recv()
                if status == "ok":
                    ignored += value
            except (OSError, EOFError):
                pass
            proc.join(5.0)
        self.kill()
        return ignored

    def kill(self) -> None:
        """Stop every worker now; each kills its bots' process groups on the way out."""
        for proc, _ in self._all:
            if proc.is_alive():
                proc.terminate()
        for proc, conn in self._all:
            proc.join(5.0)
            if proc.is_alive():
                proc.kill()
                proc.join()
            conn.close()
