"""What every command shares: one-line errors, the store, the console."""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, NoReturn

import typer
from rich.console import Console

from league.policy import POLICY


# Piped output (logs, CI) gets room for the standings table instead of Rich's 80 columns.
_PIPED_WIDTH = None if sys.stdout.isatty() or os.environ.get("COLUMNS") else 200
console = Console(soft_wrap=True, width=_PIPED_WIDTH)
err_console = Console(stderr=True, soft_wrap=True)

DbOption = Annotated[
    str | None,
    typer.Option("--db", help="Store URL (SQLAlchemy), e.g. sqlite:///cardarena.db or postgresql+psycopg://user@host/db. "
                 "Default: $CARDARENA_DB_URL, else sqlite:///var/cardarena.db."),
]


#: Set by Ctrl-C or SIGTERM within :func:`sigterm_as_interrupt`, cleared when the block is entered.
_stop = threading.Event()


def raise_if_stopped() -> None:
    """Raise KeyboardInterrupt if Ctrl-C or SIGTERM came within :func:`sigterm_as_interrupt`. A run's loops call
    it between games: the KeyboardInterrupt a signal raises where the main thread happens to be is lost when that
    is a garbage collector's callback (Python prints "Exception ignored in" and goes on; SQLAlchemy has such
    callbacks), and the command would then play on."""
    if _stop.is_set():
        raise KeyboardInterrupt


def is_stop(exc: BaseException) -> bool:
    """Whether ``exc`` is how a stop (Ctrl-C, SIGTERM within :func:`sigterm_as_interrupt`) reached the command: the
    KeyboardInterrupt itself, or, once a stop came, an error a library raised while that KeyboardInterrupt passed
    through its code (one with the KeyboardInterrupt in its context chain: SQLAlchemy's commit, interrupted, fails
    its own ``assert not self.is_active`` on the way out). Such an error is the stop, not a fault of the command:
    the run still says how far it got and exits 130. :class:`CliError` and :class:`Stopped` are never stops."""
    if isinstance(exc, KeyboardInterrupt):
        return True
    if not _stop.is_set() or isinstance(exc, (CliError, Stopped)) or not isinstance(exc, Exception):
        return False
    seen, hops = exc.__context__, 0
    while seen is not None and hops < 20:
        if isinstance(seen, KeyboardInterrupt):
            return True
        seen, hops = seen.__context__, hops + 1
    return False


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM stops the command as Ctrl-C does (KeyboardInterrupt in the main
    thread): worker pools are shut down and running games released, instead of a hard exit. Both are also
    remembered, for :func:`raise_if_stopped`. Servers that handle SIGTERM themselves (uvicorn, Celery,
    ``bot serve``) replace it while they run."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: object) -> None:
        _stop.set()
        raise KeyboardInterrupt

    quiet = _StopIsNotAnError()
    handlers = [logging.lastResort, *logging.getLogger().handlers]
    for handler in handlers:
        if handler is not None:
            handler.addFilter(quiet)
    _stop.clear()
    previous = signal.signal(signal.SIGTERM, interrupt)
    previous_int = signal.getsignal(signal.SIGINT)
    if previous_int is signal.default_int_handler:  # not where Ctrl-C is ignored or handled otherwise
        signal.signal(signal.SIGINT, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
        if previous_int is signal.default_int_handler:
            signal.signal(signal.SIGINT, previous_int)
        for handler in handlers:
            if handler is not None:
                handler.removeFilter(quiet)


class _StopIsNotAnError(logging.Filter):
    """Drops log records of a stop: a KeyboardInterrupt (Ctrl-C, or SIGTERM above) can land inside
    a library's cleanup code, which logs it as an error with a traceback (SQLAlchemy's pool logs
    "Exception during reset or similar") before passing it on. The command still stops and says so."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[0] if record.exc_info else None
        return not (exc is not None and issubclass(exc, KeyboardInterrupt))


class CliError(Exception):
    """An error the user can fix; printed as one line, exit status 1 (2 for usage errors)."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


def fail(message: str, code: int = 1) -> NoReturn:
    """Stop the command with a one-line error (exit status ``code``)."""
    raise CliError(message, code)


class Stopped(Exception):
    """The command was stopped (Ctrl-C, SIGTERM) and has said so and how to go on: exit ``code``
    (130) with nothing more printed."""

    def __init__(self, code: int = 130) -> None:
        super().__init__("stopped")
        self.code = code


def no_season(name: str, db: str | None, store=None) -> NoReturn:  # store: store.Store | None
    """Fail naming the store that was searched, since the usual cause is a missing --db, and the
    seasons of ``store`` whose names are close to ``name`` (a typo)."""
    from league.names import did_you_mean
    from store.db import describe_url

    hint = did_you_mean(name, [s.name for s in store.seasons.list_seasons()]) if store is not None else ""
    fail(f"no season named {name!r} in {describe_url(db_url(db))}{hint} (see: cardarena season list --db URL)")


def counts_text(progress: dict[str, int], *, all_counts: bool = False) -> str:
    """``"137 done, 1 failed, 162 not played"``: the counts of ``progress`` in the order of
    ``store.PROGRESS_KEYS``, zeros left out unless ``all_counts`` (``"0 games"`` when all are zero)."""
    from store import PROGRESS_KEYS

    parts = [f"{progress.get(k, 0)} {k.replace('_', ' ')}" for k in PROGRESS_KEYS if all_counts or progress.get(k, 0)]
    return ", ".join(parts) or "0 games"


def db_url(option: str | None) -> str:
    """The store URL: the --db option, else $CARDARENA_DB_URL, else the default."""
    from config import get_settings

    return option or get_settings().db_url


def open_db(option: str | None, *, existing: bool = False, read_only: bool = False):  # -> store.repo.Store
    """Open (and migrate) the store; a bad URL or unreachable database becomes one CliError line.

    ``existing``: for commands that need what is stored already (season create/run, and the
    read-only ones), a SQLite file that does not exist is an error naming it, instead of a new
    empty store there, and a database that is not a cardarena store (another file, an empty
    database) is one line saying so, instead of an attempt to migrate it. ``read_only`` (season
    list, standings; implies ``existing``): never migrates; a store of an older schema is one line
    naming the commands that upgrade it.
    """
    from store import StoreError, open_store
    from store.db import check_store, sqlite_file

    existing = existing or read_only
    url = db_url(option)
    path = sqlite_file(url)
    if existing and path is not None and not path.exists():
        fail(f"no store at {path}: nothing has been stored there (check --db or $CARDARENA_DB_URL; "
             "`cardarena demo` or `cardarena server` makes one)")
    try:
        if not existing:
            return open_store(url, policy=POLICY)
        store = open_store(url, run_migrations=False, policy=POLICY)
        try:
            check_store(store.engine, latest=read_only)
        except BaseException:
            store.close()
            raise
        if read_only:
            return store
        store.close()
        return open_store(url, policy=POLICY)
    except StoreError as exc:
        fail(str(exc))
