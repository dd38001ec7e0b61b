"""The embedded local pool: the game service in worker processes on this machine.

The same task code as the Celery workers (:func:`workers.service.run_game`),
run by a ``multiprocessing`` pool, one process per core by default.
"""

from __future__ import annotations

import multiprocessing as mp
import os
from collections.abc import Callable, Iterable, Iterator

from workers.service import RunResult, run_game

_store = None
_lease_s = 600.0


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


def run_local(db_url: str, game_ids: Iterable[int], processes: int | None = None, lease_s: float = 600.0,
              on_result: Callable[[RunResult], None] | None = None) -> list[RunResult]:
    """Run the games on a local pool of ``processes`` worker processes; return every run's result.

    ``on_result`` is called in this process as each game finishes (progress bars).
    The store must already exist (migrated) at ``db_url``.
    """
    results = []
    for result in iter_local(db_url, game_ids, processes, lease_s):
        results.append(result)
        if on_result:
            on_result(result)
    return results


def iter_local(db_url: str, game_ids: Iterable[int], processes: int | None = None, lease_s: float = 600.0) -> Iterator[RunResult]:
    """Like :func:`run_local`, yielding each result as it comes."""
    ctx = mp.get_context("spawn")
    with ctx.Pool(processes or default_processes(), initializer=_init, initargs=(db_url, lease_s)) as pool:
        yield from pool.imap_unordered(_run, list(game_ids))
