"""The store's shared handle: one Engine, read and write transactions, the database's clock.

Every area of the store (bots, seasons, the game lifecycle, replays, read
models) is a class over one :class:`Database`; each of their methods runs in
one transaction of it and returns plain frozen dataclasses, never ORM objects.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from typing import Any, cast

from sqlalchemy import Connection, CursorResult, Engine, func, select, text
from sqlalchemy.orm import Session

from store.db import StoreError, connection_transaction, pipelined_reads, transaction


class Database:
    """One Engine and its transactions (``store.db.transaction``), shared by the store's areas."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def read(self) -> AbstractContextManager[Session]:
        """A read transaction."""
        return transaction(self.engine, write=False)

    def write(self) -> AbstractContextManager[Session]:
        """A write transaction (SQLite: ``BEGIN IMMEDIATE``)."""
        return transaction(self.engine, write=True)

    def read_rows(self) -> AbstractContextManager[Connection]:
        """A read transaction on a bare Connection (Core statements, no ORM objects)."""
        return connection_transaction(self.engine, write=False)

    def pipelined_reads(self, statements: Sequence[tuple[str, Mapping[str, Any]]],
                        generic_plans: bool = False) -> list[list[tuple[Any, ...]]]:
        """PostgreSQL: reads sent in one round trip (``store.db.pipelined_reads``)."""
        return pipelined_reads(self.engine, statements, generic_plans)

    def write_rows(self) -> AbstractContextManager[Connection]:
        """A write transaction on a bare Connection (SQLite: ``BEGIN IMMEDIATE``)."""
        return connection_transaction(self.engine, write=True)

    def close(self) -> None:
        """Close the engine's pooled connections."""
        self.engine.dispose()


#: The database's clock per dialect, built once (``db_now`` runs in every transaction that moves a game).
_SQLITE_NOW = text("SELECT strftime('%Y-%m-%d %H:%M:%f', 'now')")
_POSTGRESQL_NOW = select(func.now())


def db_now(s: Session | Connection) -> datetime:
    """The database's clock, timezone-aware UTC, read in the transaction of ``s`` (a Session or a Connection).

    PostgreSQL: ``now()`` (the transaction's start); SQLite: ``strftime('%f', 'now')``
    (milliseconds; SQLite runs in the caller's process, on the one machine that holds
    the file, so its clock is that machine's). Every lease is set and compared by this
    clock, so a worker or sweeper whose own clock is off never decides a lease.
    Raises StoreError if the database gives something that is not a timestamp.
    """
    dialect = s.dialect if isinstance(s, Connection) else s.get_bind().dialect
    if dialect.name == "sqlite":
        stamp = s.scalar(_SQLITE_NOW)
        return datetime.fromisoformat(str(stamp)).replace(tzinfo=UTC)
    value = s.scalar(_POSTGRESQL_NOW)
    if not isinstance(value, datetime):
        raise StoreError(f"the database's clock gave {value!r}, not a timestamp")
    return value.astimezone(UTC)


def updated_rows(s: Session, stmt: Any) -> int:
    """Execute an UPDATE without touching loaded objects; the number of rows it changed."""
    result = s.execute(stmt.execution_options(synchronize_session=False))
    return int(cast(CursorResult[Any], result).rowcount)
