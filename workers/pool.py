"""The local pool's processes: each referees several games at once, one thread a game.

A referee spends most of a game waiting on its bots' answers (gRPC releases the
GIL while it waits), so one game per process leaves the core idle at every call;
a second game in the same process fills those gaps without a second process's
memory, store connections and bot channels. :class:`GamePool` runs ``processes``
spawned processes with ``games_per_process`` threads each. Each process has a
pipe of its own to the parent, which hands every game to a chosen process and
reads the answers from all pipes: no lock is shared between processes, so a
process killed at any moment (kill -9, out of memory) costs only its own games,
and the parent learns which ones they were at once (:meth:`GamePool.wait`
returns them) and starts a new process in its place.
"""

from __future__ import annotations

import multiprocessing as mp
import queue
import threading
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any

#: Seconds a process is given to exit after it is told to stop, before it is terminated.
STOP_S = 2.0


class GameError(RuntimeError):
    """A game's run raised in a pool process; the message carries that process's traceback."""


@dataclass(frozen=True)
class Failed:
    """The answer of a game whose run raised: its id and the pool process's traceback."""

    game_id: int
    traceback: str

    def error(self) -> GameError:
        """The error to raise in the parent."""
        return GameError(f"game {self.game_id} failed in a pool process:\n{self.traceback}")


@dataclass
class Lost:
    """The games a pool process held when it died (handed to it and not answered), and its pid."""

    pid: int | None
    game_ids: list[int]


def _child(conn: Connection, threads: int, initializer: Callable[..., None], initargs: Sequence[Any],
           run: Callable[[int], Any]) -> None:
    """A pool process: ``initializer(*initargs)``, then ``threads`` threads play the game ids that
    arrive on ``conn`` with ``run``, each answer (or a :class:`Failed`) sent back on ``conn``; a None ends it."""
    initializer(*initargs)
    games: queue.SimpleQueue[int | None] = queue.SimpleQueue()
    send_lock = threading.Lock()

    def play() -> None:
        while (gid := games.get()) is not None:
            try:
                answer: Any = run(gid)
            except BaseException:  # noqa: BLE001 - the parent decides; the thread goes on
                answer = Failed(gid, traceback.format_exc())
            with send_lock:
                conn.send(answer)

    workers = [threading.Thread(target=play, name=f"game-{i}", daemon=True) for i in range(threads)]
    for worker in workers:
        worker.start()
    try:
        while (gid := conn.recv()) is not None:
            games.put(gid)
    except EOFError:  # the parent is gone
        pass
    for _ in workers:
        games.put(None)
    for worker in workers:
        worker.join()


@dataclass
class _Process:
    process: BaseProcess
    conn: Connection
    games: set[int] = field(default_factory=set)


class GamePool:
    """``processes`` processes of ``games_per_process`` threads each, started by :meth:`start`.

    ``initializer(*initargs)`` runs once in each process (and in each process started in
    place of a dead one); ``run(game_id)`` plays a game there and returns its answer, which
    must pickle and have the ``game_id`` (a run that raises answers :class:`Failed`). A process holds at most ``games_per_process`` games plus ``queued`` waiting
    for a thread, so a process finishing a game finds the next one at hand. Not thread-safe:
    one caller drives it.
    """

    def __init__(self, processes: int, games_per_process: int, initializer: Callable[..., None],
                 initargs: Sequence[Any], run: Callable[[int], Any], queued: int = 1) -> None:
        if processes < 1 or games_per_process < 1:
            raise ValueError(f"a pool needs at least one process and one game per process, "
                             f"not {processes} and {games_per_process}")
        self._ctx = mp.get_context("spawn")
        self._threads = games_per_process
        self._limit = games_per_process + queued
        self._initializer, self._initargs, self._run = initializer, tuple(initargs), run
        self._processes: list[_Process] = []
        self._size = processes

    def start(self) -> GamePool:
        """Start the processes (a process each, spawned); returns self."""
        while len(self._processes) < self._size:
            self._processes.append(self._spawn())
        return self

    def _spawn(self) -> _Process:
        ours, theirs = self._ctx.Pipe()
        process = self._ctx.Process(target=_child, args=(theirs, self._threads, self._initializer, self._initargs, self._run),
                                    daemon=True, name="cardarena-pool")
        process.start()
        theirs.close()
        return _Process(process, ours)

    def __enter__(self) -> GamePool:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def pids(self) -> set[int]:
        """The pids of the pool's processes now."""
        return {p.process.pid for p in self._processes if p.process.pid is not None}

    def has_room(self) -> bool:
        """Whether some process can take another game now."""
        return any(len(p.games) < self._limit for p in self._processes)

    def submit(self, game_id: int) -> None:
        """Hand ``game_id`` to the process holding the fewest games. Raises RuntimeError if none has room."""
        target = min(self._processes, key=lambda p: len(p.games))
        if len(target.games) >= self._limit:
            raise RuntimeError("every pool process is full")
        target.games.add(game_id)
        try:
            target.conn.send(game_id)
        except OSError:  # it died just now: wait() reports the game lost with it
            pass

    def wait(self, timeout_s: float) -> tuple[list[Any], list[Lost]]:
        """The answers that arrive within ``timeout_s`` seconds (at least one if any comes: the
        first wakes it), and the processes found dead meanwhile with the games they held; each
        dead process is replaced by a new one at once."""
        by_conn = {p.conn: p for p in self._processes}
        answers: list[Any] = []
        lost: list[Lost] = []
        for conn in wait(list(by_conn), timeout_s):
            owner = by_conn[conn]  # type: ignore[index]
            try:
                while True:
                    answer = conn.recv()  # type: ignore[union-attr]
                    owner.games.discard(answer.game_id)
                    answers.append(answer)
                    if not conn.poll():  # type: ignore[union-attr]
                        break
            except (EOFError, OSError):
                lost.append(self._replace(owner))
        return answers, lost

    def _replace(self, dead: _Process) -> Lost:
        dead.process.join(STOP_S)
        dead.conn.close()
        self._processes[self._processes.index(dead)] = self._spawn()
        return Lost(dead.process.pid, sorted(dead.games))

    def close(self) -> None:
        """Stop every process: told to end, then terminated if still running after STOP_S seconds
        (games they still play are abandoned; their leases run out)."""
        for p in self._processes:
            try:
                p.conn.send(None)
            except OSError:
                pass
        for p in self._processes:
            p.process.join(STOP_S if not p.games else 0)
            if p.process.is_alive():
                p.process.terminate()
                p.process.join(STOP_S)
            p.conn.close()
        self._processes.clear()
