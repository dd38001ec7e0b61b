"""Recovery after kill -9: how long after a worker is killed mid-game its game starts again.

Usage: python -m bench.bench_recovery [--trials 10] [--games 96] [--window 32]

Real parts throughout: a private redis-server (free port, no persistence), two ``cardarena
worker --concurrency 2`` processes on a SQLite store, four bots that take 20 ms per decision
(``tests.workers.slowbots:SleepyOdds``, gRPC servers in their own processes) and the ``season
run`` follower (``workers.follower.SeasonFollower``, default tick) with a broker queue of
``--window`` games. Each trial schedules a fresh season, follows it, SIGKILLs a process while it
plays a game (frozen first, so the game cannot finish in between) and follows the season to the
end; the delay is from the kill to the start of the killed game's next attempt (store times). The
trials alternate between the Celery main process (its pool children die with it; the worker is
started again for the next trial) and one pool child (Celery replaces it). Prints each delay
and, per kind, the median and the maximum. The bound is the lease (``CARDARENA_LEASE_S``, 10 s:
the game's last renewal was up to a third of it before the kill) plus a sweep tick and the wait
for a free worker process.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from league.competition.seasons import create_season
from league.policy import POLICY
from referee.botprocess import start_bot_process
from referee.games import spec
from store import open_store
from tests.workers.conftest import RedisServer, Worker, Workers, free_port_outside_the_ephemeral_range, register
from tests.workers.test_failures import Follow, games_lost_by, kill_while_running


def trial(workers: Workers, victim: Worker, main: bool, db_url: str, names: list[str], number: int,
          games: int, window: int, broker: str) -> list[float]:
    """One season with one kill; the delays (seconds) of the games the kill lost."""
    store = open_store(db_url, run_migrations=False, policy=POLICY)
    season_id = create_season(store, f"recovery-{number}", spec("slippery-sam"), names, [3, 4], games, number,
                              params={"orbits": 1})
    follow = Follow(store, broker, season_id, window=window)
    if main:
        pids, killed_at = kill_while_running(store, season_id, victim.children,
                                             lambda _: [victim.pid, *victim.children()])
    else:
        pids, killed_at = kill_while_running(store, season_id, victim.children, lambda pid: [pid])
    progress = follow.join(600)
    assert progress["done"] == progress["total"], progress
    delays = []
    for game_id in games_lost_by(store, season_id, pids):
        attempts = store.game_reads.attempts(game_id)
        delays.append((attempts[-1].started_at - killed_at).total_seconds())
    store.close()
    return delays


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=10, help="trials of each kind (main process, pool child)")
    parser.add_argument("--games", type=int, default=96, help="games per trial's season")
    parser.add_argument("--window", type=int, default=32, help="the follower's broker queue")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        redis_server = RedisServer(free_port_outside_the_ephemeral_range(), tmp / "redis.log")
        redis_server.start()
        bots = [start_bot_process("tests.workers.slowbots:SleepyOdds", seed) for seed in range(4)]
        db_url = f"sqlite:///{tmp / 'recovery.db'}"
        store = open_store(db_url, policy=POLICY)
        names = register(store, bots)
        store.close()
        workers = Workers(redis_server.url, db_url, tmp)
        try:
            victim, _other = workers.start(concurrency=2), workers.start(concurrency=2)
            results: dict[str, list[float]] = {"main process": [], "pool child": []}
            for number in range(2 * args.trials):
                main_kill = number % 2 == 0
                kind = "main process" if main_kill else "pool child"
                delays = trial(workers, victim, main_kill, db_url, names, number, args.games, args.window,
                               redis_server.url)
                results[kind] += delays
                print(f"trial {number + 1:2d}, kill -9 of a {kind}: game(s) re-run after "
                      + ", ".join(f"{d:.1f} s" for d in delays), flush=True)
                if main_kill:
                    victim.stop()
                    victim = workers.start(concurrency=2)
        finally:
            workers.stop_all()
            for bot in bots:
                bot.stop()
            redis_server.stop()
    print(f"kill -9 recovery, lease 10 s, window {args.window}, {args.games}-game seasons, 2 workers x 2 processes:")
    for kind, delays in results.items():
        print(f"  {kind:12s}: {len(delays)} killed game(s), re-run after median {statistics.median(delays):.1f} s, "
              f"max {max(delays):.1f} s")


if __name__ == "__main__":
    main()
