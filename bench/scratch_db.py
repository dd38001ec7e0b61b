"""A throwaway PostgreSQL database for the benches that time the store on PostgreSQL.

The server is the one the tests use: ``--pg-url`` where a bench takes it, else ``CARDARENA_TEST_PG_URL``, else the
local server at 127.0.0.1:5432 (trust auth). The database is named ``<prefix>_<label>_<pid>_<random>`` (prefix
``CARDARENA_TEST_PG_PREFIX``, default ``cardarena_bench``) and dropped at the end unless kept.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

#: The server's maintenance database when neither ``--pg-url`` nor ``CARDARENA_TEST_PG_URL`` names one.
DEFAULT_PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"


def pg_admin_url() -> str:
    """The maintenance database's URL: ``CARDARENA_TEST_PG_URL`` or :data:`DEFAULT_PG_URL`."""
    return os.environ.get("CARDARENA_TEST_PG_URL", DEFAULT_PG_URL)


@contextmanager
def throwaway_database(admin_url: str, keep: bool = False, label: str = "scale") -> Iterator[str]:
    """Create a fresh database on the server of ``admin_url`` (a SQLAlchemy URL of its maintenance database) and
    yield its URL; dropped at the end (sessions still open are ended) unless ``keep``, when its name is printed.
    Raises SQLAlchemy's OperationalError when the server cannot be reached."""
    url = make_url(admin_url)
    prefix = os.environ.get("CARDARENA_TEST_PG_PREFIX", "cardarena_bench")
    name = f"{prefix}_{label}_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    admin = create_engine(url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield url.set(database=name).render_as_string(hide_password=False)
    finally:
        if keep:
            print(f"kept database {name}")
        else:
            with admin.connect() as conn:
                conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()
