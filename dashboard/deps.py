"""FastAPI dependencies and their typed aliases (``SettingsDep``, ``StoreDep``, ``CacheDep``).

The store is opened lazily, on the first request that needs it, once per app
and database URL (:class:`StoreHolder` on ``app.state``), and closed when the
app shuts down. Tests override :func:`get_settings` (or pass settings to
``create_app``) or :func:`get_store` itself.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Request

from dashboard.settings import DashboardSettings, get_settings
from store import Store, open_store

T = TypeVar("T")


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
                store = self._stores[url] = open_store(url, run_migrations=run_migrations)
            return store

    def close(self) -> None:
        """Close every opened store."""
        with self._lock:
            for store in self._stores.values():
                store.close()
            self._stores.clear()


class ResultCache:
    """A small thread-safe LRU of computed results (crosstables, rating histories).

    Keys include what the result depends on (a season's count of final games),
    so a stale entry is never served: final games never change.
    """

    def __init__(self, size: int = 32) -> None:
        self._lock = threading.Lock()
        self._items: OrderedDict[Hashable, Any] = OrderedDict()
        self.size = size

    def get(self, key: Hashable, compute: Callable[[], T]) -> T:
        """The cached value of ``key``, computing (outside the lock) and storing it if missing."""
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]  # type: ignore[no-any-return]
        value = compute()
        with self._lock:
            self._items[key] = value
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return value


SettingsDep = Annotated[DashboardSettings, Depends(get_settings)]


def get_store(request: Request, settings: SettingsDep) -> Store:
    """The app's store for the configured database URL (opened on first use)."""
    holder: StoreHolder = request.app.state.stores
    return holder.get(settings.db_url, settings.run_migrations)


def get_cache(request: Request) -> ResultCache:
    """The app's result cache."""
    cache: ResultCache = request.app.state.cache
    return cache


StoreDep = Annotated[Store, Depends(get_store)]
CacheDep = Annotated[ResultCache, Depends(get_cache)]
