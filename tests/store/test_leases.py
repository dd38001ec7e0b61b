"""Leases by the database's clock, and the sweeper's void against a renewal committed meanwhile."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import timedelta

import pytest
from sqlalchemy import select, text
from sqlalchemy.orm import Session

from store import GameStatus, Store
from store.models import Game, utcnow
from store.session import db_now


def test_leases_are_set_by_the_databases_clock(store: Store, bots: list[int], make_season: Callable[..., int],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """This process's clock moved an hour ahead: the lease still runs from the database's now."""
    sid = make_season([bots[:3]])
    gid = store.seasons.next_pending(sid)[0]
    with store.engine.connect() as conn, conn.begin():
        before = db_now(Session(bind=conn))
    monkeypatch.setattr("store.models.utcnow", lambda: utcnow() + timedelta(hours=1))
    monkeypatch.setattr("store.seasons.utcnow", lambda: utcnow() + timedelta(hours=1))
    monkeypatch.setattr("store.bots.utcnow", lambda: utcnow() + timedelta(hours=1))
    claim = store.games.claim_game(gid, "w", 30)
    assert claim is not None
    assert timedelta(seconds=30) <= claim.lease_expires_at - before < timedelta(seconds=90)
    assert store.games.release_expired() == []  # an hour ahead by this clock, 30 s left by the database's


def test_a_renewal_committed_after_the_sweepers_select_keeps_the_attempt(
        store: Store, db_url: str, bots: list[int], make_season: Callable[..., int]) -> None:
    """PostgreSQL (READ COMMITTED; SQLite serialises writers, so no such race there): the sweeper
    reads an expired lease, a renewal commits before its UPDATE, and the attempt is not voided."""
    if not db_url.startswith("postgresql"):
        pytest.skip("SQLite's BEGIN IMMEDIATE serialises writers: no read-then-write race")
    sid = make_season([bots[:3]])
    gid = store.seasons.next_pending(sid)[0]
    claim = store.games.claim_game(gid, "w", 1, now=utcnow() - timedelta(seconds=60))  # expired a minute ago
    assert claim is not None
    released: list[list[int]] = []
    with store.engine.connect() as renewal:
        renewal.begin()
        # the renewal's own UPDATE (store.games.renew_lease), held uncommitted: it holds the game's row
        renewal.execute(text("UPDATE games SET lease_expires_at = now() + interval '60 seconds' "
                             "WHERE id = :id AND status = 'running' AND attempts = :a"), {"id": gid, "a": claim.attempt})
        sweeper = threading.Thread(target=lambda: released.append(store.games.release_expired()))
        sweeper.start()
        with store.engine.connect() as watch:  # until the sweeper's UPDATE waits for that row
            deadline = time.monotonic() + 60
            while not watch.execute(text(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                    "AND wait_event_type = 'Lock' AND query LIKE 'UPDATE games%'")).scalar():
                assert time.monotonic() < deadline, "the sweeper never reached its UPDATE"
                watch.rollback()
                time.sleep(0.02)
        renewal.commit()
    sweeper.join(60)
    assert released == [[]]
    with store.engine.connect() as conn:
        status, attempts = conn.execute(select(Game.status, Game.attempts).where(Game.id == gid)).one()
    assert (status, attempts) == (GameStatus.RUNNING, 1)
    assert store.games.renew_lease(gid, claim.attempt, 10)
