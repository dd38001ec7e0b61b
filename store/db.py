"""Engines, migrations, transactions and the store's errors.

SQLite (the default) and PostgreSQL run the same code:

- SQLite: WAL journal (readers never block the writer), ``busy_timeout`` 30 s
  (a writer waits for the lock instead of failing), foreign keys on,
  ``synchronous=NORMAL`` (durable at each checkpoint, safe in WAL). Write
  transactions start with ``BEGIN IMMEDIATE`` so that many processes writing
  queue on the lock up front rather than failing on a read-to-write upgrade.
- PostgreSQL (``postgresql+psycopg://``): READ COMMITTED; the repository's
  conditional UPDATEs and row locks give the same guarantees. A session left idle
  in a transaction, or whose client stops acknowledging what the server sends, is
  ended by the server after ``PG_IDLE_IN_TRANSACTION_S`` seconds unless the server
  (or the database) sets its own ``idle_in_transaction_session_timeout`` /
  ``tcp_user_timeout``: a worker whose host loses its network
  between two statements would otherwise hold its row locks (a season's, its
  bots') until TCP gives up, hours later, and every claim would wait behind them.

The schema is owned by Alembic: :func:`migrate` upgrades to head on the
engine's own connection, with the script location taken from this package
(so it works from an installed wheel, not only from a checkout). A store already
at head is recognised without Alembic (its ``alembic_version`` row against
:func:`known_revisions`), so a command or worker that opens one never imports it;
an empty database is made at head from the models in one step (:func:`create_at_head`).
Nothing here runs at import time.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Engine, create_engine, event, exc, inspect, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.orm import Session
from sqlalchemy.pool import StaticPool

from config import Settings

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
#: How long a SQLite writer waits for the lock before giving up (seconds).
SQLITE_BUSY_TIMEOUT_S = 30.0
#: How long to wait for a PostgreSQL server to accept a connection (seconds),
#: unless the URL says ``?connect_timeout=``.
PG_CONNECT_TIMEOUT_S = 10
#: Seconds after which PostgreSQL ends a session idle in a transaction (a worker cut off mid-transaction),
#: where the server or the database sets no such timeout of its own (``idle_in_transaction_session_timeout``).
#: No transaction of the store waits on anything but the database between its statements.
PG_IDLE_IN_TRANSACTION_S = 10
#: libpq's TCP settings on the client's side of each connection, where the URL sets none of its own: a server gone
#: silent (its host cut off) is found in about ``keepalives_idle + keepalives_interval * keepalives_count`` seconds
#: (11 s) while the client waits for an answer, and data unacknowledged for ``tcp_user_timeout`` milliseconds ends
#: the connection, so a read never waits for ever on a half-open connection. The store then reports itself
#: unavailable, which workers and drivers wait out. (The server ends the session on its side,
#: ``PG_IDLE_IN_TRANSACTION_S``; without these a pool process cut off while it waited for an answer was seen stuck
#: for minutes after the cut was restored.)
PG_CLIENT_TCP: dict[str, int] = {"keepalives": 1, "keepalives_idle": 5, "keepalives_interval": 2,
                                 "keepalives_count": 3, "tcp_user_timeout": PG_IDLE_IN_TRANSACTION_S * 1000}
#: A pooled PostgreSQL connection back in the pool for longer than this (seconds) is pinged (one round trip) before
#: it is handed out again, and replaced if the server no longer answers on it (restarted, cut off); one used more
#: recently is handed out as it is: a store that works game after game would otherwise pay a round trip per
#: transaction for a check that almost never fails. A connection broken within that second fails its first
#: statement instead, as one broken mid-transaction does (StoreUnavailable), and the pool is refilled.
PG_PING_AFTER_IDLE_S = 1.0
#: Execution option marking a connection whose transactions write.
_WRITE = "cardarena_write"
#: Key of the PostgreSQL advisory lock serialising concurrent migrations.
_MIGRATION_LOCK_KEY = 0x6361_7264  # "card"


class StoreError(Exception):
    """Base of every error the store raises on purpose. ``str(e)`` is one line for the user."""


class StoreUnavailable(StoreError):
    """The database cannot be reached or used: bad URL, missing driver, server down,
    file not openable, lock not obtained in time, or migration failure."""


class NameTaken(StoreError):
    """A bot with this name is already registered."""


class SeasonExists(StoreError):
    """A season with this name already exists."""


class NotFound(StoreError, LookupError):
    """A bot, season or game id that is not in the store."""


class InvalidRecord(StoreError, ValueError):
    """A game record that does not fit the game it is stored for."""


def describe_url(url: str | URL) -> str:
    """``url`` with its password hidden, for messages."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # only for a message
        return "<unparsable URL>"


def sqlite_file(url: str) -> Path | None:
    """The file of a file-backed SQLite URL (``sqlite:///var/cardarena.db`` -> ``var/cardarena.db``);
    None for other databases, in-memory SQLite, ``file:`` URIs and unparsable URLs."""
    try:
        parsed = make_url(url)
    except (exc.ArgumentError, ValueError):
        return None
    database = parsed.database or ""
    if (parsed.get_backend_name() != "sqlite" or parsed.host or database in ("", ":memory:")
            or database.startswith("file:")):
        return None
    return Path(database)


def create_store_engine(url: str) -> Engine:
    """An Engine for ``url`` configured as described in the module docstring.

    Raises StoreUnavailable for a malformed URL, an unknown dialect or a driver
    that is not installed. Does not connect.
    """
    try:
        parsed = make_url(url)
        parsed.port  # a non-numeric port raises ValueError here, not later
    except (exc.ArgumentError, ValueError) as e:
        raise StoreUnavailable(f"bad database URL {url!r}: expected e.g. sqlite:///var/cardarena.db "
                               f"or postgresql+psycopg://user@host/dbname") from e
    shown = describe_url(parsed)
    kwargs: dict[str, Any] = {}
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        if parsed.host:  # sqlite://var/a.db: "var" parsed as a host, the file would be "a.db"
            raise StoreUnavailable(f"bad SQLite URL {url!r}: the path follows three slashes, "
                                   "e.g. sqlite:///var/cardarena.db (relative) or sqlite:////srv/cardarena.db (absolute)")
        database = parsed.database or ""
        memory = database in ("", ":memory:") or "mode=memory" in str(parsed)
        connect_args: dict[str, Any] = {"timeout": SQLITE_BUSY_TIMEOUT_S}
        if memory:
            connect_args["check_same_thread"] = False
            kwargs["poolclass"] = StaticPool
        elif not database.startswith("file:"):
            _make_parent_dir(database, parsed)
        kwargs["connect_args"] = connect_args
    elif backend == "postgresql":
        pg_args: dict[str, Any] = {k: v for k, v in PG_CLIENT_TCP.items() if k not in parsed.query}
        if "connect_timeout" not in parsed.query:
            pg_args["connect_timeout"] = PG_CONNECT_TIMEOUT_S
        kwargs["connect_args"] = pg_args
    try:
        engine = create_engine(parsed, **kwargs)
    except (exc.NoSuchModuleError, ImportError) as e:
        raise StoreUnavailable(f"cannot use database URL {shown}: {_one_line(e)}") from e
    except (exc.ArgumentError, TypeError, ValueError) as e:
        raise StoreUnavailable(f"bad database URL {shown}: {_one_line(e)}") from e
    if backend == "sqlite":
        _configure_sqlite(engine)
    elif backend == "postgresql":
        _configure_postgresql(engine)
    return engine


def _make_parent_dir(database: str, url: URL) -> None:
    """Create the SQLite file's directory (e.g. ``var/``) on first use."""
    try:
        Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise StoreUnavailable(f"cannot open database {describe_url(url)}: {e.strerror or e}") from e


def enable_wal(cursor: Any, budget_s: float = SQLITE_BUSY_TIMEOUT_S) -> None:
    """``PRAGMA journal_mode = WAL`` on a sqlite3 ``cursor``, tried again while the database is locked,
    backing off from 5 ms to 200 ms, for up to ``budget_s`` seconds.

    Switching a new file to WAL needs it to itself, and when several processes open a fresh store
    at once SQLite can answer "database is locked" at once, without waiting for its busy timeout
    (it refuses a lock that could deadlock); WAL is kept in the file, so once one process has
    switched, the others' next try finds it done. Raises sqlite3.OperationalError for any other
    error, or when the database stays locked for the whole budget.
    """
    deadline = time.monotonic() + budget_s
    delay = 0.005
    while True:
        try:
            cursor.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) or time.monotonic() + delay > deadline:
                raise
        time.sleep(delay)
        delay = min(2 * delay, 0.2)


def _configure_postgresql(engine: Engine) -> None:
    @event.listens_for(engine, "checkin")
    def _on_checkin(_dbapi_connection: Any, record: Any) -> None:
        record.info["idle_since"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _on_checkout(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        # SQLAlchemy's pool_pre_ping, for connections idle longer than PG_PING_AFTER_IDLE_S only; raising
        # DisconnectionError makes the pool drop this connection and hand out a new one
        since = record.info.get("idle_since")
        if since is not None and time.monotonic() - since < PG_PING_AFTER_IDLE_S:
            return
        try:
            alive = engine.dialect.do_ping(dbapi_connection)
        except Exception as e:
            raise exc.DisconnectionError(f"the pooled connection no longer answers: {_one_line(e)}") from e
        if not alive:
            raise exc.DisconnectionError("the pooled connection no longer answers")

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, record: Any) -> None:
        record.info["idle_since"] = time.monotonic()  # just made: no ping at its first checkout
        with dbapi_connection.cursor() as cur:
            for setting in ("idle_in_transaction_session_timeout", "tcp_user_timeout"):
                cur.execute(f"SHOW {setting}")
                if cur.fetchone()[0] in ("0", "0ms"):  # the server sets none: ours, for this session only
                    cur.execute(f"SET {setting} = '{PG_IDLE_IN_TRANSACTION_S}s'")
        dbapi_connection.commit()


def _configure_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy, not the sqlite3 module, decide when a transaction begins.
        dbapi_connection.isolation_level = None
        cur = dbapi_connection.cursor()
        try:
            cur.execute(f"PRAGMA busy_timeout = {int(SQLITE_BUSY_TIMEOUT_S * 1000)}")
            enable_wal(cur)
            cur.execute("PRAGMA synchronous = NORMAL")
            cur.execute("PRAGMA foreign_keys = ON")
        finally:
            cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get(_WRITE) else "BEGIN")


@contextmanager
def transaction(engine: Engine, *, write: bool) -> Iterator[Session]:
    """A Session in one transaction, committed on success, rolled back on error.

    ``write=True`` takes SQLite's write lock at BEGIN (``BEGIN IMMEDIATE``).
    Database errors that mean the store is unusable (connection refused or
    lost, SQLite lock timeout) are re-raised as StoreUnavailable.
    """
    with _connection(engine, write=write) as conn, Session(bind=conn, expire_on_commit=False) as session, \
            session.begin():
        yield session


@contextmanager
def connection_transaction(engine: Engine, *, write: bool) -> Iterator[Connection]:
    """:func:`transaction` on a bare Connection, for Core statements only (no ORM objects, none
    of a Session's bookkeeping): the per-game path of the game lifecycle. Raises as it does."""
    with _connection(engine, write=write) as conn, conn.begin():
        yield conn


def pipelined_reads(engine: Engine, statements: Sequence[tuple[str, Mapping[str, Any]]],
                    generic_plans: bool = False) -> list[list[tuple[Any, ...]]]:
    """PostgreSQL: read ``statements`` (SQL text with ``%(name)s`` parameters, and their parameters) in one read
    transaction sent in one round trip (psycopg's pipeline mode: BEGIN, the statements and COMMIT go out together);
    each one's rows as plain tuples, with no type processing (timestamps and statuses as the driver reads them).
    ``generic_plans``: the transaction plans each statement once for all its parameter values
    (``plan_cache_mode = force_generic_plan``, for this transaction alone): for statements whose best plan does not
    depend on their values, which the planner would otherwise plan again at every execution. Raises
    StoreUnavailable as :func:`connection_transaction` does."""
    import psycopg  # the PostgreSQL driver, only ever needed here

    with _connection(engine, write=False) as conn:
        raw = conn.connection.dbapi_connection
        try:
            with raw.pipeline():
                if generic_plans:
                    raw.execute("SET LOCAL plan_cache_mode = force_generic_plan")
                cursors = [raw.execute(sql, params) for sql, params in statements]
                raw.commit()
            return [cursor.fetchall() for cursor in cursors]
        except BaseException as e:
            conn.invalidate()  # never hand out a connection left half way through a pipeline
            if isinstance(e, (psycopg.OperationalError, psycopg.InterfaceError)):
                raise StoreUnavailable(f"database {describe_url(engine.url)} unavailable: {_one_line(e)}") from e
            raise


@contextmanager
def _connection(engine: Engine, *, write: bool) -> Iterator[Connection]:
    """A pooled connection (``write``: SQLite's ``BEGIN IMMEDIATE`` at its transaction's start);
    database errors that mean the store is unusable, raised in the ``with`` body too, are
    re-raised as StoreUnavailable."""
    try:
        with engine.connect() as conn:
            if write:
                conn.execution_options(**{_WRITE: True})
            yield conn
    except (exc.OperationalError, exc.InterfaceError) as e:
        raise StoreUnavailable(f"database {describe_url(engine.url)} unavailable: {_one_line(e)}") from e
    except exc.DBAPIError as e:
        if not session_ended(e):
            raise
        raise StoreUnavailable(f"database {describe_url(engine.url)} unavailable: {_one_line(e)}") from e


#: PostgreSQL's codes for a session the server ended, which the driver does not report as a lost connection:
#: 25P03, a session idle in a transaction past its timeout (``PG_IDLE_IN_TRANSACTION_S``: a client cut off from
#: the server mid-transaction meets it when the link is back); 57P01 to 57P03, the server shutting down or
#: starting.
_SESSION_ENDED = frozenset({"25P03", "57P01", "57P02", "57P03"})


def session_ended(e: exc.DBAPIError) -> bool:
    """Whether the database error ``e`` means the server ended the session (the store is unusable until a new
    connection is made), rather than a fault of the statement."""
    return bool(e.connection_invalidated) or getattr(e.orig, "sqlstate", None) in _SESSION_ENDED


def known_revisions() -> tuple[str, ...]:
    """This package's migration revisions, oldest first: each ``migrations/versions/NNNN_name.py`` declares
    revision ``"NNNN"`` with the one before it as its ``down_revision`` (a linear history; a test checks this
    against Alembic's own reading of the scripts). Read from the file names, without importing Alembic."""
    versions = MIGRATIONS_DIR / "versions"
    return tuple(sorted(p.name[:4] for p in versions.glob("[0-9][0-9][0-9][0-9]_*.py")))


def stored_revision(conn: Connection) -> str | None:
    """The Alembic revision the database of ``conn`` is at (its ``alembic_version`` row), or None when it has
    none (an empty database, or another application's). Raises SQLAlchemy's errors for an unreachable or
    unreadable database."""
    if not inspect(conn).has_table("alembic_version"):
        return None
    return conn.execute(text("SELECT version_num FROM alembic_version")).scalar()


def alembic_config(engine: Engine | None = None) -> Config:
    """An Alembic Config for this package's migrations.

    With ``engine``, migrations run on it (``config.attributes["engine"]``);
    without, ``env.py`` takes the URL from ``-x url=...`` or ``CARDARENA_DB_URL``
    (for ``alembic -c store/migrations/alembic.ini ...`` from a checkout).
    """
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    if engine is not None:
        cfg.attributes["engine"] = engine
    return cfg


def migrate(engine: Engine, revision: str = "head", *, chain: bool = False) -> None:
    """Upgrade the database to ``revision``; safe when several processes do it at once
    (SQLite: ``BEGIN IMMEDIATE``; PostgreSQL: an advisory lock).

    An empty database bound for head is made at head at once (:func:`create_at_head`: the models' schema and
    head's ``alembic_version`` row, in one transaction), as Alembic's documentation advises for a new database,
    rather than by running every revision since the first; ``chain``: run every revision even so (the tests that
    the revisions build the models' schema). Raises StoreUnavailable if the database cannot be reached or a
    migration fails.
    """
    try:
        if revision == "head":
            with engine.connect() as conn:
                if stored_revision(conn) == known_revisions()[-1]:
                    return  # at head already: nothing to run, Alembic not needed
            if not chain and create_at_head(engine):
                return
        from alembic import command

        command.upgrade(alembic_config(engine), revision)
    except (exc.OperationalError, exc.InterfaceError) as e:
        raise StoreUnavailable(f"cannot open database {describe_url(engine.url)}: {_one_line(e)}") from e
    except exc.SQLAlchemyError as e:
        raise StoreUnavailable(f"migrating {describe_url(engine.url)} failed: {_one_line(e)}") from e


def create_at_head(engine: Engine) -> bool:
    """Make an empty database the store at head: every table and index of ``store.models`` and Alembic's
    ``alembic_version`` table (as Alembic makes it) holding the last of :func:`known_revisions`, in one transaction
    under the migrations' lock, so a process waiting for it never sees half a schema. Returns False, changing
    nothing, when the database holds any table (another process made the store meanwhile, or an older store to
    upgrade: :func:`migrate` hands both to Alembic). That the revisions build this same schema is checked by the
    tests (``tests/store/test_migrations.py``). Raises SQLAlchemy's errors."""
    from sqlalchemy import Column, MetaData, PrimaryKeyConstraint, String, Table

    from store.models import Base

    version = Table("alembic_version", MetaData(), Column("version_num", String(32), nullable=False),
                    PrimaryKeyConstraint("version_num", name="alembic_version_pkc"))
    with migration_connection(engine) as conn, conn.begin():
        lock_migrations(conn)
        if inspect(conn).get_table_names():
            return False
        Base.metadata.create_all(conn, checkfirst=False)  # empty: no table to look for first
        version.create(conn, checkfirst=False)
        conn.execute(version.insert().values(version_num=known_revisions()[-1]))
    return True


def migration_connection(engine: Engine) -> Connection:
    """A connection for Alembic's ``env.py``: its transaction takes the write lock."""
    return engine.connect().execution_options(**{_WRITE: True})


def lock_migrations(conn: Connection) -> None:
    """Serialise concurrent migrations (PostgreSQL advisory lock, released at commit)."""
    if conn.dialect.name == "postgresql":
        conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({_MIGRATION_LOCK_KEY})")


def _one_line(e: BaseException) -> str:
    """The first line of a driver error, without SQLAlchemy's background link."""
    orig = getattr(e, "orig", None)
    text = str(orig if orig is not None else e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def env_url() -> str | None:
    """The database URL from ``CARDARENA_DB_URL`` (``config.Settings.db_url``), if set (for the alembic CLI)."""
    settings = Settings()
    return settings.db_url if "db_url" in settings.model_fields_set else None


def check_store(engine: Engine, *, latest: bool) -> None:
    """Raise StoreUnavailable (one line naming the database) unless it holds a cardarena store:
    the Alembic revision of this package's migrations. ``latest``: also at the newest revision
    (read-only commands, which never migrate). An empty database is not a store either.

    Reads only; raises StoreUnavailable as well when the database cannot be reached.
    """
    shown = describe_url(engine.url)
    try:
        with engine.connect() as conn:
            current = stored_revision(conn)
    except (exc.OperationalError, exc.InterfaceError) as e:
        if "not a database" in str(e):
            raise StoreUnavailable(f"{shown} is not a cardarena store: {_one_line(e)}") from e
        raise StoreUnavailable(f"cannot open database {shown}: {_one_line(e)}") from e
    except exc.SQLAlchemyError as e:
        raise StoreUnavailable(f"{shown} is not a cardarena store: {_one_line(e)}") from e
    if current is None:
        raise StoreUnavailable(f"{shown} is not a cardarena store (no cardarena schema in it)")
    known = known_revisions()
    if current not in known:
        raise StoreUnavailable(f"{shown} is not a cardarena store of this version (schema revision {current!r} "
                               "is unknown here: a newer cardarena, or another application's database)")
    head = known[-1]
    if latest and current != head:
        raise StoreUnavailable(f"the store {shown} has an older schema (revision {current}, this cardarena needs "
                               f"{head}); reading commands do not change it: `cardarena season run`, `cardarena "
                               "server` or `cardarena demo` on it upgrade it")
