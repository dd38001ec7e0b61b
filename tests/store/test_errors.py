"""A database that cannot be used gives one StoreError with a clear one-line message."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.pool import NullPool

from league.policy import POLICY
from store import Store, StoreError, StoreUnavailable, open_store
from store import db as store_db


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unreachable_postgresql() -> None:
    url = f"postgresql+psycopg://someone:secret@127.0.0.1:{_closed_port()}/nothing?connect_timeout=2"
    with pytest.raises(StoreUnavailable) as err:
        open_store(url, policy=POLICY)
    msg = str(err.value)
    assert isinstance(err.value, StoreError)
    assert "\n" not in msg
    assert msg.startswith("cannot open database postgresql+psycopg://someone:***@127.0.0.1:")
    assert "secret" not in msg
    assert "refused" in msg.lower() or "failed" in msg.lower()


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("not a url", "bad database URL 'not a url'"),
        ("nosuchdb://x/y", "cannot use database URL nosuchdb://x/y"),
        ("postgresql+nosuchdriver://u@h/db", "cannot use database URL postgresql+nosuchdriver://u@h/db"),
    ],
)
def test_bad_urls(url: str, expected: str) -> None:
    with pytest.raises(StoreUnavailable) as err:
        open_store(url, policy=POLICY)
    assert str(err.value).startswith(expected)
    assert "\n" not in str(err.value)


def test_sqlite_file_that_cannot_be_opened(tmp_path: Path) -> None:
    (tmp_path / "a_file").write_text("not a directory")
    with pytest.raises(StoreUnavailable) as err:
        open_store(f"sqlite:///{tmp_path / 'a_file' / 'x.db'}", policy=POLICY)
    assert str(err.value).startswith("cannot open database sqlite:///")
    assert "\n" not in str(err.value)


def test_sqlite_file_that_is_not_a_database(tmp_path: Path) -> None:
    (tmp_path / "junk.db").write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreUnavailable) as err:
        open_store(f"sqlite:///{tmp_path / 'junk.db'}", policy=POLICY)
    assert "not a database" in str(err.value)


def _end_pooled_session(store: Store, url: str) -> None:
    """Use the store once, then have the server end its pooled connection's session (as a restart would)."""
    with store.db.read_rows() as conn:
        pid = conn.execute(text("SELECT pg_backend_pid()")).scalar_one()
    other = create_engine(url, poolclass=NullPool)
    with other.begin() as conn:
        assert conn.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid}).scalar_one()
    other.dispose()


def test_a_connection_idle_past_the_ping_age_is_checked_and_replaced(db_url: str,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """PostgreSQL: a pooled connection back in the pool longer than ``PG_PING_AFTER_IDLE_S`` is pinged before it
    is used, and one whose session the server ended is replaced without an error; one used within that time is
    handed out unpinged, and its first statement fails as StoreUnavailable (reads sent in one round trip too), after
    which the pool works again."""
    if not db_url.startswith("postgresql"):
        pytest.skip("SQLite has no connection to lose")
    store = open_store(db_url, policy=POLICY)
    try:
        monkeypatch.setattr(store_db, "PG_PING_AFTER_IDLE_S", 0.0)
        for _ in range(2):
            _end_pooled_session(store, db_url)
            assert store.bots.list_bots() == []  # pinged, found dead, replaced
        monkeypatch.setattr(store_db, "PG_PING_AFTER_IDLE_S", 3600.0)
        _end_pooled_session(store, db_url)
        with pytest.raises(StoreUnavailable):
            store.bots.list_bots()
        assert store.bots.list_bots() == []
        _end_pooled_session(store, db_url)  # reads sent in one round trip fail the same way, and leave no trace
        with pytest.raises(StoreUnavailable):
            store.db.pipelined_reads([("SELECT 1", {})])
        assert store.db.pipelined_reads([("SELECT 1", {}), ("SELECT %(x)s::int", {"x": 2})]) == [[(1,)], [(2,)]]
    finally:
        store.close()
