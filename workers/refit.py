"""The ladder's fit in a process of its own, so that a refill never waits for one (rules §5.4).

A ladder's runner (``league.competition.ladder.LadderRunner``) chooses tables from the entrants' ratings. Fitting
them again takes a few hundred milliseconds of CPU at a million games (``bench/ladder_store_scale.py``), and a
thread would hold the runner's GIL meanwhile, so :class:`ProcessRefitter` makes the fit in one spawned process
that opens the store from its URL once: each refill asks it to look (``request``; nothing is sent while it is
looking), and takes the newest fit it made (``poll``) without waiting. The fit itself, when it is due and what
it stores (the checkpoint, the rating snapshots), is ``league.competition.ladder.refit_when_due``'s, the same as
a runner without a refitter makes in its refill.

The process is started, and opens the store, when the refitter is made. A fit that fails in the process (the store
unreachable for a moment) is dropped: the runner keeps its last fit and the next request looks again. The process
is stopped by :meth:`ProcessRefitter.close`.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import time
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field

from league.competition.ladder import LadderFit, refit_when_due

log = logging.getLogger(__name__)

_stores: dict[tuple[int, str], object] = {}


def _store(db_url: str):
    """The refitter process's store at ``db_url``, opened once."""
    from league.policy import POLICY
    from store import open_store

    key = (os.getpid(), db_url)
    if key not in _stores:
        _stores[key] = open_store(db_url, run_migrations=False, policy=POLICY)
    return _stores[key]


def _quiet() -> None:
    """The process's initializer: Ctrl-C reaches the whole process group, and the runner's process stops this one
    (as the local pool's processes, ``workers.local``); interrupted here it would only print a traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _open(db_url: str) -> None:
    """In the refitter's process, as it starts: open the store (the imports and the connection are not a fit's)."""
    _store(db_url)


def _refit(db_url: str, ladder_id: int, mark: tuple[int, int] | None, refit_every: int,
           history_every: int) -> LadderFit | None:
    """In the refitter's process: the ladder's fit if it is due (``refit_when_due``)."""
    return refit_when_due(_store(db_url), ladder_id, mark, refit_every, history_every)


@dataclass
class ProcessRefitter:
    """A ``league.competition.ladder.Refitter`` that fits the ladder ``ladder_id`` of the store at ``db_url`` in a
    spawned process of its own (the module docstring): ``refit_every`` more done games call for a new fit,
    ``history_every`` more rated games for a new rating snapshot."""

    db_url: str
    ladder_id: int
    refit_every: int
    history_every: int
    #: seconds between two looks at most (a look reads one count; refills come as often as games end)
    min_interval_s: float = 0.5
    _pool: ProcessPoolExecutor | None = None
    _asked: float = -1e9
    _running: Future | None = None
    _made: list[LadderFit] = field(default_factory=list)

    def __post_init__(self) -> None:
        # the process is started, and opens the store, now: not in the refill that first asks for a fit
        self._pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                                         initializer=_quiet)
        self._running = self._pool.submit(_open, self.db_url)

    def request(self, mark: tuple[int, int] | None) -> None:
        """Ask the process to look whether a fit is due from ``mark``, unless it is looking already or looked less
        than ``min_interval_s`` ago."""
        self._collect()
        now = time.monotonic()
        if self._running is not None or self._pool is None or now - self._asked < self.min_interval_s:
            return
        self._asked = now
        self._running = self._pool.submit(_refit, self.db_url, self.ladder_id, mark, self.refit_every,
                                          self.history_every)

    def poll(self) -> LadderFit | None:
        """The newest fit made since the last poll, or None; never waits."""
        self._collect()
        made, self._made = (self._made[-1] if self._made else None), []
        return made

    def wait(self, timeout_s: float = 60.0) -> None:
        """Wait until the look asked for is over (tests, benchmarks)."""
        if self._running is not None:
            try:
                self._running.exception(timeout=timeout_s)
            finally:
                self._collect()

    def _collect(self) -> None:
        job = self._running
        if job is None or not job.done():
            return
        self._running = None
        try:
            made = job.result()
        except Exception as exc:  # the runner keeps its last fit; the next request looks again
            log.warning("the ladder's fit failed in its process (%s): the last fit is kept", exc)
            return
        if made is not None:
            self._made.append(made)

    def close(self) -> None:
        """Stop the process, once a fit under way is over (a look asked for and not started is dropped). Waiting
        matters: an executor left to stop by itself races the interpreter's exit, which then prints an ignored
        ``OSError`` from the executor's wake-up pipe."""
        pool, self._pool, self._running = self._pool, None, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
