"""A store blip costs no game: the database is cut behind a real TCP proxy between a Celery worker
and PostgreSQL while a game is being finished; the worker retries storing the result (with backoff,
its lease heartbeat still running) and stores it once, without playing the game again. Before, the
result's retry waited in the queue, the lease ran out, and the whole game was played again."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from referee.botprocess import BotProcess
from store import GameStatus
from tests.workers.conftest import Workers, make_season
from tests.workers.tcpproxy import TcpProxy
from tests.workers.test_celery_season import assert_each_game_once
from tests.workers.test_failures import Follow, wait_for

#: The workers' lease here: long beside a game of about a second, so that the outage (the rest of the
#: game, then until the worker's first failed store, then RETRIES_S more) stays inside it.
LEASE_S = 20
#: Seconds the store stays cut after the worker's first failed attempt to store a result.
RETRIES_S = 2.0


@pytest.fixture
def proxied(pg_url: str) -> Iterator[tuple[str, TcpProxy]]:
    """(the PostgreSQL URL through a cuttable TCP proxy, the proxy)."""
    url = make_url(pg_url)
    proxy = TcpProxy(url.host or "127.0.0.1", url.port or 5432)
    yield url.set(host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False), proxy
    proxy.close()


def test_a_result_stored_through_a_store_blip_is_stored_once_without_a_replay(
        pg_url: str, proxied: tuple[str, TcpProxy], broker: str, tmp_path: Path,
        sleepy_bots: list[BotProcess]) -> None:
    proxied_url, proxy = proxied
    pool = Workers(broker, proxied_url, tmp_path, env={"CARDARENA_LEASE_S": str(LEASE_S)})
    try:
        store, season_id = make_season(pg_url, sleepy_bots, "blip", 6)
        worker = pool.start(concurrency=1)
        follow = Follow(store, broker, season_id)  # the driver reaches the database directly
        wait_for(lambda: store.game_reads.list_games(season_id, status=GameStatus.RUNNING), what="a game running")
        proxy.cut()
        cut_at = time.monotonic()
        # until the worker says a store failed: its result (or, as before this worked, Celery's
        # retry of the task for the unavailable store)
        wait_for(lambda: any(said in worker.log.read_text(errors="replace")
                             for said in ("storing the result failed", "StoreUnavailable")),
                 timeout_s=60, what="a failed store")
        time.sleep(RETRIES_S)  # the outage goes on: the worker keeps retrying
        proxy.restore()
        outage_s = time.monotonic() - cut_at
        progress = follow.join()
    finally:
        pool.stop_all()
    assert_each_game_once(store, season_id, progress["total"])
    attempts = {g.id: store.game_reads.attempts(g.id) for g in store.game_reads.list_games(season_id, limit=100)}
    replayed = {gid: [(a.outcome, a.detail) for a in a_s] for gid, a_s in attempts.items() if len(a_s) != 1}
    assert not replayed, f"games played again: {replayed}"
    log = worker.log.read_text(errors="replace")
    assert "storing the result: the store is unavailable, again in" in log
    print(f"database cut for {outage_s:.1f} s while a game was stored: {proxy.refused} connection(s) refused, "
          f"every result stored once, no game played again")
