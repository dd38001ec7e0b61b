"""A season on real Celery worker processes over a real redis-server: every game once, same standings as the pool."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from sqlalchemy import func, select

from league.competition.standings import standings_of
from referee.botprocess import BotProcess
from store import GameStatus, Store
from store.models import GameAttempt, Replay
from tests.workers.conftest import REPO, Workers, make_season
from workers.local import run_local


def standings_key(store: Store, season_id: int) -> list[tuple[object, ...]]:
    return [(r.name, r.games, r.avg_place, r.avg_change, r.faults, round(r.elo, 9)) for r in standings_of(store, season_id)]


def assert_each_game_once(store: Store, season_id: int, games: int) -> None:
    """Every scheduled game is done, with one replay and exactly one attempt that is done."""
    progress = store.seasons.season_progress(season_id)
    assert progress["done"] == games == progress["total"], progress
    done = store.game_reads.list_games(season_id, limit=10**6)
    ids = [g.id for g in done]
    assert all(g.status == GameStatus.DONE and all(s.place is not None for s in g.seats) for g in done)
    with store.engine.connect() as conn:
        replays = conn.execute(select(Replay.game_id, func.count()).where(Replay.game_id.in_(ids))
                               .group_by(Replay.game_id)).all()
        done_attempts = conn.execute(select(GameAttempt.game_id, func.count()).where(
            GameAttempt.game_id.in_(ids), GameAttempt.outcome == "done").group_by(GameAttempt.game_id)).all()
    assert sorted(replays) == [(i, 1) for i in sorted(ids)]
    assert sorted(done_attempts) == [(i, 1) for i in sorted(ids)]


def test_a_season_on_two_workers_stores_every_game_once_with_the_pools_standings(
        workers: Workers, db_url: str, broker: str, reference_bots: list[BotProcess], tmp_path: Path) -> None:
    store, season_id = make_season(db_url, reference_bots, "celery", 120)
    games = store.seasons.season_progress(season_id)["total"]
    assert games >= 100
    workers.start()
    workers.start()
    result = subprocess.run([sys.executable, "-m", "cli.main", "season", "run", "celery", "--broker", broker,
                             "--db", db_url, "--stall-timeout", "60"],
                            cwd=REPO, capture_output=True, text=True, timeout=240)
    assert result.returncode == 0, result.stderr + result.stdout
    assert f"{games} done, 0 failed" in result.stdout
    assert_each_game_once(store, season_id, games)
    owners = {a.worker for g in store.game_reads.list_games(season_id, limit=10**6) for a in store.game_reads.attempts(g.id)}
    assert len(owners) == 2, owners  # both workers played

    pool_store, pool_season = make_season(f"sqlite:///{tmp_path / 'pool.db'}", reference_bots, "pool", 120)
    run_local(f"sqlite:///{tmp_path / 'pool.db'}", pool_store.seasons.next_pending(pool_season, 10**6), processes=2)
    assert_each_game_once(pool_store, pool_season, games)
    assert standings_key(store, season_id) == standings_key(pool_store, pool_season)


def test_the_same_code_on_postgresql(pg_url: str, broker: str, redis_server: object, tmp_path: Path,
                                     reference_bots: list[BotProcess]) -> None:
    """Workers and follower on postgresql+psycopg://: every game once, the standings of a SQLite pool run."""
    pool = Workers(broker, pg_url, tmp_path)
    try:
        store, season_id = make_season(pg_url, reference_bots, "on-pg", 40)
        pool.start(concurrency=2)
        result = subprocess.run([sys.executable, "-m", "cli.main", "season", "run", "on-pg", "--broker", broker,
                                 "--db", pg_url, "--stall-timeout", "60"],
                                cwd=REPO, capture_output=True, text=True, timeout=240)
        assert result.returncode == 0, result.stderr + result.stdout
    finally:
        pool.stop_all()
    games = store.seasons.season_progress(season_id)["total"]
    assert_each_game_once(store, season_id, games)
    lite = f"sqlite:///{tmp_path / 'lite.db'}"
    lite_store, lite_season = make_season(lite, reference_bots, "on-lite", 40)
    run_local(lite, lite_store.seasons.next_pending(lite_season, 10**6), processes=2)
    assert standings_key(store, season_id) == standings_key(lite_store, lite_season)
