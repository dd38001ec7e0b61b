"""A store blip at the end of a game: does it cost the game? The database is cut for a while.

Usage: python -m bench.bench_store_blip [--outages 5,20] [--games 24]

Real parts: PostgreSQL (``CARDARENA_TEST_PG_URL``, default the local server; a fresh schema
per run, dropped after), a private redis-server, one ``cardarena worker --concurrency 2``
reaching the database through a TCP proxy (``tests.workers.tcpproxy``), four bots that take 20 ms
per decision, and the ``season run`` follower reaching the database directly. For each outage of
D seconds: a fresh season, and once a game is running the proxy drops every connection and
refuses new ones for D s, then forwards again. Prints, per outage, the games whose result was
stored through it without being played again and the games played again (an attempt voided as
"lease expired"). Expected: an outage shorter than the lease (``CARDARENA_LEASE_S``, 10 s) costs
no game; a longer one costs the games that were running (their leases ran out).
"""

from __future__ import annotations

import argparse
import tempfile
import time
import uuid
from pathlib import Path

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from bench.scratch_db import pg_admin_url
from league.policy import POLICY
from referee.botprocess import start_bot_process
from store import GameStatus, open_store
from tests.workers.conftest import RedisServer, Workers, free_port_outside_the_ephemeral_range, make_season
from tests.workers.tcpproxy import TcpProxy
from tests.workers.test_failures import Follow, wait_for


def one_outage(outage_s: float, number: int, pg_url: str, proxied_url: str, proxy: TcpProxy, workers: Workers,
               bots: list, games: int) -> tuple[int, list[int]]:
    """(games stored, ids of games played again) for one season with one outage of ``outage_s``."""
    store, season_id = make_season(pg_url, bots, f"blip-{number}", games)
    follow = Follow(store, workers.broker, season_id)
    wait_for(lambda: store.game_reads.list_games(season_id, status=GameStatus.RUNNING), what="a game running")
    proxy.cut()
    time.sleep(outage_s)
    proxy.restore()
    progress = follow.join(600)
    replayed = [g.number for g in store.game_reads.list_games(season_id, limit=10**6) if len(store.game_reads.attempts(g.id)) > 1]
    store.close()
    return progress["done"], replayed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--outages", default="5,20", help="outage lengths in seconds, comma-separated")
    parser.add_argument("--games", type=int, default=24, help="games per season")
    args = parser.parse_args()
    admin_url = pg_admin_url()
    schema = f"blip_{uuid.uuid4().hex[:10]}"
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    pg = make_url(admin_url).update_query_dict({"options": f"-csearch_path={schema}"})
    pg_url = pg.render_as_string(hide_password=False)
    proxy = TcpProxy(pg.host or "127.0.0.1", pg.port or 5432)
    proxied_url = pg.set(host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False)
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        redis_server = RedisServer(free_port_outside_the_ephemeral_range(), tmp / "redis.log")
        redis_server.start()
        bots = [start_bot_process("tests.workers.slowbots:SleepyOdds", seed) for seed in range(4)]
        open_store(pg_url, policy=POLICY).close()  # migrate, directly
        workers = Workers(redis_server.url, proxied_url, tmp)
        results = []
        try:
            workers.start(concurrency=2)
            for number, outage in enumerate(float(x) for x in args.outages.split(",")):
                done, replayed = one_outage(outage, number, pg_url, proxied_url, proxy, workers, bots, args.games)
                results.append((outage, done, replayed))
                print(f"database cut for {outage:.0f} s: {done} games done, "
                      f"{len(replayed)} played again {replayed or ''}", flush=True)
        finally:
            workers.stop_all()
            for bot in bots:
                bot.stop()
            redis_server.stop()
            proxy.close()
            with admin.connect() as conn:
                conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
            admin.dispose()


if __name__ == "__main__":
    main()
