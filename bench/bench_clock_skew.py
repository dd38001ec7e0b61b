"""A worker's clock off by a minute: how long does a season limited by a capacity-1 bot take?

Usage: python -m bench.bench_clock_skew [--skews 0,60,-60] [--games 30] [--rounds 1]

Real parts: PostgreSQL (``CARDARENA_TEST_PG_URL``, default the local server; a fresh schema per
season, dropped after), a private redis-server, two ``cardarena worker --concurrency 2``, one of them
run under libfaketime with its wall clock SKEW seconds off (monotonic clock untouched, as the clock
tests do), the four reference bots of the worker tests and a capacity-1 bot that takes 50 ms per
decision, and the ``season run`` follower in this process. Tables of 3 of the 5 bots, so games
refused for capacity are retried all through the season. Prints per season its wall time
(this process's monotonic clock) and the capacity-1 bot's longest idle gap between two of its games
(the database's clock). Expected: the same figures at every skew; before retries stopped depending on
a worker's clock (a Celery countdown is an ETA stamped by the sending worker), a skewed worker held
games it retried about a minute.
"""

from __future__ import annotations

import argparse
import tempfile
import time
import uuid
from pathlib import Path

from referee.games import spec
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from bench.scratch_db import pg_admin_url
from league.competition.seasons import create_season
from league.policy import POLICY
from referee.botprocess import start_bot_process
from store import open_store
from tests.workers.conftest import LINEUP, RedisServer, Workers, free_port_outside_the_ephemeral_range, register
from tests.workers.test_busy_retry_clock import longest_idle_s
from tests.workers.test_clocks import LIBFAKETIME, shifted
from tests.workers.test_failures import Follow


def one_season(pg_url: str, broker: str, logs: Path, bots: list, skew_s: int, games: int, number: int) -> tuple[float, float]:
    """(season wall seconds, the capacity-1 bot's longest idle seconds) with one worker ``skew_s`` off."""
    schema = f"skew_{uuid.uuid4().hex[:10]}"
    engine = create_engine(pg_url, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    url = make_url(pg_url).update_query_dict({"options": f"-csearch_path={schema}"}).render_as_string(hide_password=False)
    on_time = Workers(broker, url, logs)
    off = Workers(broker, url, logs, env=shifted(skew_s) if skew_s else {})
    try:
        store = open_store(url, policy=POLICY)
        names = register(store, bots)
        season_id = create_season(store, f"skew-{number}", spec("slippery-sam"), names, [3], games, number,
                                  params={"orbits": 1})
        on_time.start(concurrency=2)
        off.start(concurrency=2)
        started = time.monotonic()
        Follow(store, broker, season_id, lost_after_s=300).join(900)
        wall_s = time.monotonic() - started
        idle_s, _ = longest_idle_s(url, season_id, names[-1])
        store.close()
    finally:
        on_time.stop_all()
        off.stop_all()
        with engine.connect() as conn:
            conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
        engine.dispose()
    return wall_s, idle_s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skews", default="0,60,-60", help="seconds one worker's clock is off, comma-separated")
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    if not LIBFAKETIME.exists():
        raise SystemExit(f"libfaketime is not installed ({LIBFAKETIME}): apt-get install faketime")
    pg_url = pg_admin_url()
    skews = [int(s) for s in args.skews.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        redis_server = RedisServer(free_port_outside_the_ephemeral_range(), Path(tmp) / "redis.log")
        redis_server.start()
        bots = [start_bot_process(name, seed) for name, seed in LINEUP]
        bots.append(start_bot_process("tests.workers.slowbots:OneAtATime", 5, threads=1))
        try:
            print(f"{'skew s':>7} {'games':>6} {'season s':>9} {'longest idle s':>15}")
            for round_ in range(args.rounds):
                for i, skew in enumerate(skews):
                    wall_s, idle_s = one_season(pg_url, redis_server.url, Path(tmp), bots, skew, args.games,
                                                round_ * len(skews) + i)
                    print(f"{skew:>+7d} {args.games:>6} {wall_s:>9.1f} {idle_s:>15.1f}", flush=True)
        finally:
            for bot in bots:
                bot.stop()
            redis_server.stop()


if __name__ == "__main__":
    main()
