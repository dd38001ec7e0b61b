"""Fixtures: a fresh store per test on SQLite (a temp file) and on PostgreSQL.

PostgreSQL: ``CARDARENA_TEST_PG_URL`` (a SQLAlchemy URL of the maintenance
database, default ``postgresql+psycopg://postgres@127.0.0.1:5432/postgres``).
One uniquely named database is created per test session and dropped at the
end, named ``<prefix>_<pid>_<random>`` where the prefix is
``CARDARENA_TEST_PG_PREFIX`` (default ``cardarena_test``; set it to tell apart
the test databases of several users of one shared server); every test gets its own schema in it (``search_path``), so tests stay
independent without paying for a database each. When no server answers, the
PostgreSQL parameters are skipped with the reason.
"""

from __future__ import annotations

import os
import re
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from league.policy import POLICY
from referee.games import spec
from referee.record import DecisionLog, EndReason, Fault, FaultKind, GameRecord, SeatResult
from store import Claim, Store, open_store
from tests.a_game import game_without_luck, games_of

DEFAULT_PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
DEFAULT_PG_PREFIX = "cardarena_test"
BACKENDS = ["sqlite", "postgresql"]


@dataclass(frozen=True)
class PgDatabase:
    """The session's PostgreSQL database: ``url``, or None and why (for the skip)."""

    url: str | None
    reason: str = ""


def pg_database_name(prefix: str) -> str:
    """``<prefix>_<pid>_<8 hex digits>``, a fresh PostgreSQL database name for this test session.

    Raises pytest.UsageError when ``prefix`` is not a lower-case identifier of at most
    40 characters (letters, digits, ``_``, starting with a letter or ``_``)."""
    if not re.fullmatch(r"[a-z_][a-z0-9_]{0,39}", prefix):
        raise pytest.UsageError(f"CARDARENA_TEST_PG_PREFIX must be a lower-case identifier "
                                f"of at most 40 characters (a-z, 0-9, _), not {prefix!r}")
    return f"{prefix}_{os.getpid()}_{uuid.uuid4().hex[:8]}"


@pytest.fixture(scope="session")
def pg_database() -> Iterator[PgDatabase]:
    """A fresh PostgreSQL database for this session (dropped at the end), if a server answers."""
    admin_url = make_url(os.environ.get("CARDARENA_TEST_PG_URL", DEFAULT_PG_URL))
    if "connect_timeout" not in admin_url.query:
        admin_url = admin_url.update_query_dict({"connect_timeout": "3"})
    name = pg_database_name(os.environ.get("CARDARENA_TEST_PG_PREFIX", DEFAULT_PG_PREFIX))
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
    except Exception as e:  # any failure means: no PostgreSQL to test on
        admin.dispose()
        yield PgDatabase(None, f"no PostgreSQL at {admin_url.render_as_string(hide_password=True)} "
                               f"(set CARDARENA_TEST_PG_URL): {str(e).strip().splitlines()[0]}")
        return
    try:
        yield PgDatabase(admin_url.set(database=name).render_as_string(hide_password=False))
    finally:
        with admin.connect() as conn:
            if conn.dialect.server_version_info >= (13,):
                conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            else:
                conn.execute(text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = :n"),
                             {"n": name})
                conn.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
        admin.dispose()


@pytest.fixture(params=BACKENDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path, pg_database: PgDatabase) -> Iterator[str]:
    """A URL of an empty database: a SQLite file, or a fresh PostgreSQL schema."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'store.db'}"
        return
    if pg_database.url is None:
        pytest.skip(pg_database.reason)
    schema = f"t_{uuid.uuid4().hex[:12]}"
    engine = create_engine(pg_database.url, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    url = make_url(pg_database.url).update_query_dict({"options": f"-csearch_path={schema}"})
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        with engine.connect() as conn:
            conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
        engine.dispose()


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    """An opened (migrated) store on an empty database, closed at teardown."""
    st = open_store(db_url, policy=POLICY)
    yield st
    st.close()


@pytest.fixture
def bots(store: Store) -> list[int]:
    """Four registered bots, ids in name order a, b, c, d, each for :func:`~tests.a_game.game_without_luck`
    (the game of the store's tests) and, when there is one, a second game."""
    return [store.bots.register_bot(n, f"127.0.0.1:{5000 + i}", "1.0", "tests", games_of(game_without_luck()),
                               capacity=2)
            for i, n in enumerate("abcd")]


@pytest.fixture
def make_season(store: Store) -> Callable[..., int]:
    """Create a season of :func:`~tests.a_game.game_without_luck` (its short parameters,
    ``GameSpec.quick_params``): ``make_season(tables, name=..., config=...)``, ``tables`` a list of
    bot-id lists (game ``i`` gets seed ``1000 + i``), ``config`` added to the scheduler's."""
    counter = iter(range(10**6))
    game = game_without_luck()

    def make(tables: Sequence[Sequence[int]], name: str | None = None, config: dict[str, Any] | None = None) -> int:
        return store.seasons.create_season(
            name or f"season-{next(counter)}", game, quick_params(game), {"deadline_ms": 1000}, 42,
            {"table_size": len(tables[0]), "duplicate": False, **(config or {})},
            [(1000 + i, list(t)) for i, t in enumerate(tables)],
        )

    return make


def quick_params(game: str) -> dict[str, object]:
    """The short parameters of ``game`` (``GameSpec.quick_params``), as a fresh dict."""
    return dict(spec(game).quick_params)


def make_record(claim: Claim, places: Sequence[int], changes: Sequence[int] | None = None,
                faults: Sequence[int] | None = None) -> GameRecord:
    """A completed GameRecord for a claimed game with these places per seat."""
    n = len(claim.seats)
    changes = list(changes) if changes is not None else [10 * (n - 2 * p + 1) for p in places]
    faults = list(faults) if faults is not None else [0] * n
    return GameRecord(
        game=claim.game, params=claim.params, num_seats=n, seed=claim.seed,
        game_id=claim.token, reason=EndReason.COMPLETED, detail="",
        results=[SeatResult(seat=s, place=places[s], score=1000 + changes[s], change=changes[s],
                            faults=faults[s], retired=faults[s] >= 3) for s in range(n)],
        faults=[Fault(seat=s, decision=k, kind=FaultKind.TIMEOUT, detail="too slow")
                for s in range(n) for k in range(faults[s])],
        events=[{"kind": "deal", "data": {"cards": ["Ah", "6c", "Td"] * 50}, "visible_to": [0]}] * 20,
        chance=[["Ah", "Kd"], 1],
        decisions=[DecisionLog(seat=0, decision=0, event_index=1, view="CgQIARAC", answer=None,
                               action="EgA=", latency_ms=1.5, sent_at=1.7e9, time_bank_ms=9000.0,
                               fault=FaultKind.TIMEOUT)],
        started_at=1.7e9, finished_at=1.7e9 + 3,
    )


def finish(store: Store, game_id: int, places: Sequence[int], owner: str = "w", **kw: object) -> Claim:
    """Claim and finish one game with these places; returns the claim."""
    claim = store.games.claim_game(game_id, owner, 60)
    assert claim is not None
    assert store.games.finish_game(game_id, claim.attempt, make_record(claim, places, **kw))  # type: ignore[arg-type]
    return claim
