"""The embedded local pool: the game service in worker processes on this machine.

The same task code as the Celery workers (:func:`workers.service.run_game`),
run by a ``multiprocessing`` pool, one process per core by default. A game
whose bots are full (``Outcome.BUSY``) is tried again a moment later while
the pool plays other games, as the Celery task retries with a countdown.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import queue
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator

from workers.service import Outcome, RunResult, run_game

#: Seconds before a game refused for capacity is offered again.
BUSY_RETRY_S = 0.05

_store = None
_lease_s = 10.0


def _init(db_url: str, lease_s: float) -> None:
    global _store, _lease_s
    from store import open_store

    _store = open_store(db_url, run_migrations=False)
    _lease_s = lease_s


def _run(game_id: int) -> RunResult:
    assert _store is not None, "pool initializer did not run"
    return run_game(_store, game_id, _lease_s)


def default_processes() -> int:
    """One worker process per core."""
    return max(1, os.cpu_count() or 1)


def run_local(db_url: str, game_ids: Iterable[int], processes: int | None = None, lease_s: float = 10.0,
              on_result: Callable[[RunResult], None] | None = None) -> list[RunResult]:
    """Run the games on a local pool of ``processes`` worker processes; return every final result
    (one per game: busy retries are not reported).

    ``on_result`` is called in this process as each game finishes (progress bars).
    The store must already exist (migrated) at ``db_url``.
    """
    results = []
    for result in iter_local(db_url, game_ids, processes, lease_s):
        results.append(result)
        if on_result:
            on_result(result)
    return results


def iter_local(db_url: str, game_ids: Iterable[int], processes: int | None = None,
               lease_s: float = 10.0) -> Iterator[RunResult]:
    """Like :func:`run_local`, yielding each game's final result as it comes.

    At most two games per process are handed to the pool at once, so a game put
    back for capacity waits behind a short queue, not behind the whole season.
    """
    n = processes or default_processes()
    todo: deque[tuple[float, int]] = deque((0.0, gid) for gid in game_ids)
    done: queue.SimpleQueue[RunResult | BaseException] = queue.SimpleQueue()
    ctx = mp.get_context("spawn")
    with ctx.Pool(n, initializer=_init, initargs=(db_url, lease_s)) as pool:
        in_flight = 0
        while todo or in_flight:
            now = time.monotonic()
            while todo and in_flight < 2 * n and todo[0][0] <= now:
                _, gid = todo.popleft()
                pool.apply_async(_run, (gid,), callback=done.put, error_callback=done.put)
                in_flight += 1
            try:
                result = done.get(timeout=BUSY_RETRY_S if todo else None)
            except queue.Empty:
                continue
            in_flight -= 1
            if isinstance(result, BaseException):
                raise result
            if result.outcome == Outcome.BUSY:
                todo.append((time.monotonic() + BUSY_RETRY_S, result.game_id))
                continue
            yield result
