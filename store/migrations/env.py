"""Alembic environment of the store.

The application runs migrations through ``store.db.migrate(engine)``, which puts
its engine in ``config.attributes["engine"]``. From the alembic CLI, the URL
comes from ``-x url=...`` or the ``CARDARENA_DB_URL`` environment variable.
Migrations always run online, in one transaction, serialised between processes
(``store.db.lock_migrations``); ``render_as_batch`` lets later revisions alter
SQLite tables.
"""

from __future__ import annotations

from alembic import context

from store import db
from store.models import Base

config = context.config
target_metadata = Base.metadata


def _engine():  # type: ignore[no-untyped-def]
    engine = config.attributes.get("engine")
    if engine is not None:
        return engine, False
    url = context.get_x_argument(as_dictionary=True).get("url") or db.env_url()
    if not url:
        raise db.StoreError("no database URL: pass -x url=... or set CARDARENA_DB_URL")
    return db.create_store_engine(url), True


def run_migrations_online() -> None:
    engine, own = _engine()
    try:
        with db.migration_connection(engine) as connection:
            context.configure(
                connection=connection,
                target_metadata=target_metadata,
                render_as_batch=True,
                compare_type=True,
                # SQLite's DDL is transactional too: all pending migrations and the version
                # row commit together, so a process that waited for the write lock never
                # sees a half-migrated store (Alembic's SQLite default commits per step)
                transactional_ddl=True,
            )
            with context.begin_transaction():
                db.lock_migrations(connection)
                context.run_migrations()
    finally:
        if own:
            engine.dispose()


if context.is_offline_mode():
    raise db.StoreError("offline (--sql) migrations are not supported; run against a database")
run_migrations_online()
