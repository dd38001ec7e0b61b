"""The test databases' name prefix on a shared PostgreSQL server (``CARDARENA_TEST_PG_PREFIX``)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.store.conftest import DEFAULT_PG_PREFIX, pg_database_name

ROOT = Path(__file__).resolve().parents[2]


def test_name_starts_with_the_prefix_and_is_fresh() -> None:
    first, second = pg_database_name("alice_ci"), pg_database_name("alice_ci")
    assert re.fullmatch(rf"alice_ci_{os.getpid()}_[0-9a-f]{{8}}", first)
    assert first != second
    assert pg_database_name(DEFAULT_PG_PREFIX).startswith("cardarena_test_")


@pytest.mark.parametrize("prefix", ["", "Bob", "1abc", "a-b", "x; DROP DATABASE postgres", "a" * 41])
def test_a_prefix_that_is_no_identifier_is_refused(prefix: str) -> None:
    with pytest.raises(pytest.UsageError, match="CARDARENA_TEST_PG_PREFIX"):
        pg_database_name(prefix)


def test_the_session_database_carries_the_prefix(pg_database) -> None:  # type: ignore[no-untyped-def]
    """The prefix set in the environment names the database the store tests run on."""
    if pg_database.url is None:
        pytest.skip(pg_database.reason)
    code = ("import os, sys; sys.path.insert(0, '.');"
            "from tests.store.conftest import pg_database_name;"
            "print(pg_database_name(os.environ['CARDARENA_TEST_PG_PREFIX']))")
    env = {**os.environ, "CARDARENA_TEST_PG_PREFIX": "team_b"}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    assert out.stdout.startswith("team_b_")
    prefix = os.environ.get("CARDARENA_TEST_PG_PREFIX", DEFAULT_PG_PREFIX)
    assert pg_database.url.rsplit("/", 1)[1].split("?")[0].startswith(f"{prefix}_")
