"""The ladder's tests use the store's fixtures: a fresh store on SQLite and on PostgreSQL, four bots."""

from tests.store.conftest import bots, db_url, pg_database, store  # noqa: F401 -- fixtures
