"""A database that cannot be used gives one StoreError with a clear one-line message."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from league.policy import POLICY
from store import StoreError, StoreUnavailable, open_store


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
