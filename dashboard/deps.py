"""FastAPI dependencies and their typed aliases (``SettingsDep``, ``StoreDep``, ``RefresherDep``).

The store is opened lazily, on the first request that needs it, once per app
and database URL (:class:`StoreHolder` on ``app.state``), and closed when the
app shuts down. Tests override :func:`get_settings` (or pass settings to
``create_app``) or :func:`get_store` itself.
"""

from __future__ import annotations

import logging
import multiprocessing
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from concurrent.futures import ProcessPoolExecutor
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Request

from config import Settings, get_settings
from league.policy import POLICY
from store import Store, open_store

T = TypeVar("T")
log = logging.getLogger("cardarena.dashboard")


class StoreHolder:
    """Stores opened on first use, one per URL, shared by the app's requests (a Store is thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stores: dict[str, Store] = {}

    def get(self, url: str, run_migrations: bool = True) -> Store:
        """The store at ``url``, opened (and migrated) on first use; raises StoreError."""
        with self._lock:
            store = self._stores.get(url)
            if store is None:
                store = self._stores[url] = open_store(url, run_migrations=run_migrations, policy=POLICY)
            return store

    def close(self) -> None:
        """Close every opened store."""
        with self._lock:
            for store in self._stores.values():
                store.close()
            self._stores.clear()


class Refresher:
    """Results derived from a season's final games (ratings fits, crosstables, rating
    histories), kept per name with the *version* of the inputs they were computed from
    (the season's count of done and failed games: final games never change).

    :meth:`get` returns the value for the current version, computing it on the spot
    when ``wait`` is true (small seasons); otherwise it starts one background
    computation and meanwhile returns the last value computed (stale-while-revalidate),
    or None before the first. Large seasons therefore never make a request wait for
    a fit over 100,000 games.
    """

    def __init__(self, size: int = 64, min_interval_s: float = 10.0) -> None:
        self._lock = threading.Lock()
        self._values: OrderedDict[Hashable, tuple[Hashable, Any]] = OrderedDict()
        self._running: set[Hashable] = set()
        self._started: dict[Hashable, float] = {}
        self._pool: ProcessPoolExecutor | None = None
        self.size = size
        self.min_interval_s = min_interval_s

    def get(self, name: Hashable, version: Hashable, compute: Callable[[], T], *, wait: bool,
            job: tuple[Callable[..., T], tuple[Any, ...]] | None = None) -> tuple[T | None, Hashable | None]:
        """``(value, the version it was computed at)``; ``(None, None)`` while the first computation runs.

        In the background, ``job`` (a picklable function and its arguments) runs in a
        separate process instead of ``compute`` (CPU-bound work must not hold this
        process's GIL); a stale value is recomputed at most every ``min_interval_s``.
        """
        with self._lock:
            entry = self._values.get(name)
            if entry is not None:
                self._values.move_to_end(name)
                if entry[0] == version:
                    return entry[1], version
        if wait:
            value = compute()
            self._put(name, version, value)
            return value, version
        self._start(name, version, compute, job, first=entry is None)
        return (entry[1], entry[0]) if entry is not None else (None, None)

    def close(self) -> None:
        """Stop the worker process (if one was started)."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

    def _process_pool(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
            return self._pool

    def wait_idle(self, timeout_s: float = 30.0) -> bool:
        """Wait until no background computation runs (tests, benchmarks); False on timeout."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            with self._lock:
                if not self._running:
                    return True
            time.sleep(0.01)
        return False

    def _put(self, name: Hashable, version: Hashable, value: Any) -> None:
        with self._lock:
            self._values[name] = (version, value)
            self._values.move_to_end(name)
            while len(self._values) > self.size:
                self._values.popitem(last=False)

    def _start(self, name: Hashable, version: Hashable, compute: Callable[[], Any],
               job: tuple[Callable[..., Any], tuple[Any, ...]] | None, first: bool) -> None:
        with self._lock:
            now = time.monotonic()
            if name in self._running or (not first and now - self._started.get(name, -1e9) < self.min_interval_s):
                return
            self._running.add(name)
            self._started[name] = now

        def run() -> None:
            try:
                if job is not None:
                    value = self._process_pool().submit(job[0], *job[1]).result()
                else:
                    value = compute()
                self._put(name, version, value)
            except Exception:  # logged; the next request tries again
                log.exception("background computation of %r failed", name)
            finally:
                with self._lock:
                    self._running.discard(name)

        threading.Thread(target=run, name=f"refresh-{name}", daemon=True).start()


SettingsDep = Annotated[Settings, Depends(get_settings)]


def get_store(request: Request, settings: SettingsDep) -> Store:
    """The app's store for the configured database URL (opened on first use)."""
    holder: StoreHolder = request.app.state.stores
    return holder.get(settings.db_url, settings.run_migrations)


def get_refresher(request: Request) -> Refresher:
    """The app's :class:`Refresher`."""
    refresher: Refresher = request.app.state.refresher
    return refresher


def get_ladder_counts(request: Request) -> Any:
    """The app's ``dashboard.ladders.FinalCounts`` (finished ladder epochs' game counts)."""
    return request.app.state.ladder_counts


StoreDep = Annotated[Store, Depends(get_store)]
RefresherDep = Annotated[Refresher, Depends(get_refresher)]
LadderCountsDep = Annotated[Any, Depends(get_ladder_counts)]
