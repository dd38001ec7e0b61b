"""A worker cut off in the middle of a transaction must not hold its row locks for hours (store.db):
PostgreSQL ends a session idle in a transaction after ``PG_IDLE_IN_TRANSACTION_S`` seconds, unless
the server or the database sets its own timeout, which is kept."""

from __future__ import annotations

import time

import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url

from store import db as store_db
from tests.store.conftest import PgDatabase


@pytest.fixture
def pg_url(pg_database: PgDatabase) -> str:
    if pg_database.url is None:
        pytest.skip(pg_database.reason)
    return pg_database.url


def show(url: str, setting: str = "idle_in_transaction_session_timeout") -> str:
    engine = store_db.create_store_engine(url)
    try:
        with engine.connect() as conn:
            return str(conn.execute(text(f"SHOW {setting}")).scalar())
    finally:
        engine.dispose()


def test_the_store_sets_a_timeout_where_the_server_has_none(pg_url: str) -> None:
    assert show(pg_url) == f"{store_db.PG_IDLE_IN_TRANSACTION_S}s"
    # a client that stops acknowledging (its host cut off while the server sends) is dropped as soon
    assert show(pg_url, "tcp_user_timeout") == f"{store_db.PG_IDLE_IN_TRANSACTION_S * 1000}"  # milliseconds


def client_tcp(url: str) -> dict[str, str]:
    """libpq's keepalive and TCP settings of a connection the store opens to ``url``, as the client holds them."""
    engine = store_db.create_store_engine(url)
    try:
        raw = engine.raw_connection()
        try:
            params = raw.driver_connection.info.get_parameters()  # type: ignore[union-attr]
        finally:
            raw.close()
        return {k: v for k, v in params.items() if k in store_db.PG_CLIENT_TCP}
    finally:
        engine.dispose()


def test_the_client_side_finds_a_silent_server_and_a_url_keeps_its_own(pg_url: str) -> None:
    """A read never waits for ever on a connection whose server went silent (a host cut off): the client's
    keepalives and TCP user timeout are set, and what the URL says of them is kept."""
    assert client_tcp(pg_url) == {k: str(v) for k, v in store_db.PG_CLIENT_TCP.items()}
    url = make_url(pg_url).update_query_dict({"keepalives_idle": "30"}).render_as_string(hide_password=False)
    assert client_tcp(url)["keepalives_idle"] == "30"


def test_a_timeout_the_server_sets_is_kept(pg_url: str) -> None:
    url = make_url(pg_url).update_query_dict({"options": "-c idle_in_transaction_session_timeout=3s"})
    assert show(url.render_as_string(hide_password=False)) == "3s"


def test_a_lock_held_by_a_session_idle_in_a_transaction_is_released(pg_url: str,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_db, "PG_IDLE_IN_TRANSACTION_S", 1)
    engine = store_db.create_store_engine(pg_url)
    try:
        with engine.connect() as setup:
            setup.execute(text("CREATE TABLE IF NOT EXISTS idle_lock_probe (id int PRIMARY KEY)"))
            setup.execute(text("INSERT INTO idle_lock_probe VALUES (1) ON CONFLICT DO NOTHING"))
            setup.commit()
        stuck = engine.connect()  # a worker that took a row lock, then lost its network
        stuck.execute(text("SELECT id FROM idle_lock_probe WHERE id = 1 FOR UPDATE"))
        time.sleep(2.5)
        with engine.connect() as other:
            other.execute(text("SET lock_timeout = '2s'"))
            assert other.execute(text("SELECT id FROM idle_lock_probe WHERE id = 1 FOR UPDATE")).scalar() == 1
            other.rollback()
        stuck.invalidate()
    finally:
        with engine.connect() as conn:
            conn.execute(text("DROP TABLE IF EXISTS idle_lock_probe"))
            conn.commit()
        engine.dispose()


def test_a_session_ended_for_idling_in_its_transaction_is_the_store_unavailable(
        pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A client cut off mid-transaction for longer than the timeout finds its session ended when the link is back:
    the error is StoreUnavailable, which the runners wait out, not a fault of the statement."""
    monkeypatch.setattr(store_db, "PG_IDLE_IN_TRANSACTION_S", 1)
    engine = store_db.create_store_engine(pg_url)
    try:
        for write in (True, False):
            with pytest.raises(store_db.StoreUnavailable, match="idle-in-transaction timeout"):
                with store_db.transaction(engine, write=write) as session:
                    session.execute(text("SELECT 1"))
                    time.sleep(1.8)
                    session.execute(text("SELECT 1"))
            with pytest.raises(store_db.StoreUnavailable, match="idle-in-transaction timeout"):
                with store_db.connection_transaction(engine, write=write) as conn:
                    conn.execute(text("SELECT 1"))
                    time.sleep(1.8)
                    conn.execute(text("SELECT 1"))
        with engine.connect() as conn:  # the pool hands out a working connection afterwards
            assert conn.execute(text("SELECT 2")).scalar() == 2
    finally:
        engine.dispose()


def test_a_statements_own_error_is_not_the_store_unavailable(pg_url: str) -> None:
    engine = store_db.create_store_engine(pg_url)
    try:
        with pytest.raises(Exception) as raised:
            with store_db.transaction(engine, write=True) as session:
                session.execute(text("SELECT 1/0"))
        assert not isinstance(raised.value, store_db.StoreUnavailable), raised.value
    finally:
        engine.dispose()
