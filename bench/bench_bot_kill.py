"""A bot SIGKILLed mid-season and back a few seconds later: how many games it forfeits per kill.

Usage: python -m bench.bench_bot_kill [--backend local|celery] [--kills 5] [--games 600] [--down 3]
       python -m bench.bench_bot_kill --health-cost [--tables 2000]

Real parts throughout: four reference bots (gRPC servers in their own processes, on fixed
ports so one can be started again there), a Slippery Sam season on tables of 3 (about 0.1 s a
game) in a SQLite store, played on the local pool (2 processes, 2 games each) or on two
``cardarena worker --concurrency 2`` processes behind a private redis-server with the
``season run`` follower. While the season runs, one bot is killed ``--kills`` times
(SIGKILL), each time started again on its port ``--down`` seconds later, then left
``--up`` seconds before the next kill. After the season:

- *forfeits*: games done in which the killed bot's seat was retired (the reference bots
  never fault otherwise, rules §4.2), per kill;
- *in flight*: games running (claimed) when each kill was made, read just after it; the
  target (rules §4.9) is forfeits <= in flight;
- voided attempts and failed games (a kill must never void a game, rules §4.3).

``--health-cost`` measures the health check a worker makes before each game
(``workers.availability.HealthCache.problems`` for a table of three bots, each on its own
endpoint): asked for every game (now) against an answer reused for 3 s (before), microseconds
per table, and a table with a bot that is down.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cli.demo import register_or_update
from league.competition.seasons import create_season
from league.policy import POLICY
from referee.botprocess import BotProcess, start_bot_process
from referee.clients import GrpcBotClient
from referee.games import spec
from store import GameStatus, Store, open_store
from tests.workers.conftest import RedisServer, Workers, free_port_outside_the_ephemeral_range

#: A forfeited game started up to this long before a kill is counted as following that kill.
_GRACE = timedelta(seconds=2)
LINEUP = (("odds", 0), ("random", 1), ("odds", 1), ("random", 2))
VICTIM = 1


def start_bots() -> list[BotProcess]:
    return [start_bot_process(name, seed, port=free_port_outside_the_ephemeral_range()) for name, seed in LINEUP]


def restart(bots: list[BotProcess], i: int) -> None:
    port = int(bots[i].endpoint.rsplit(":", 1)[1])
    bots[i].stop()
    bots[i] = start_bot_process(LINEUP[i][0], LINEUP[i][1], port=port)


def season(db_url: str, bots: list[BotProcess], games: int, suspend_after_s: float) -> tuple[Store, int, list[str]]:
    store = open_store(db_url, policy=POLICY)
    names = [register_or_update(store, f"{b.name}-{i}", b.endpoint, GrpcBotClient(b.endpoint).describe())
             for i, b in enumerate(bots)]
    sid = create_season(store, "kills", spec("slippery-sam"), names, [3], games, 7, params={"orbits": 1},
                        suspend_after_s=suspend_after_s)
    return store, sid, names


def running(store: Store, sid: int) -> set[int]:
    return {g.id for g in store.game_reads.list_games(sid, status=GameStatus.RUNNING, limit=10**6)}


def kill_loop(store: Store, sid: int, bots: list[BotProcess], victim: str, args: argparse.Namespace,
              runner: threading.Thread) -> list[dict[str, object]]:
    """Kill and restart the victim ``args.kills`` times while ``runner`` plays; per kill, the games
    running just after it (with the victim at the table, and in all)."""
    kills: list[dict[str, object]] = []
    while store.seasons.season_progress(sid)["done"] < args.warmup and runner.is_alive():
        time.sleep(0.05)
    for _ in range(args.kills):
        if not runner.is_alive():
            break
        bots[VICTIM].process.kill()
        killed = time.monotonic()
        at = datetime.now(UTC)
        flying = store.game_reads.list_games(sid, status=GameStatus.RUNNING, limit=10**6)
        kills.append({"at": at, "in_flight": len(flying),
                      "with_victim": sum(victim in {s.bot_name for s in g.seats} for g in flying)})
        time.sleep(max(0.0, args.down - (time.monotonic() - killed)))
        restart(bots, VICTIM)
        time.sleep(args.up)
    return kills


def report(store: Store, sid: int, victim: str, kills: list[dict[str, object]], seconds: float) -> None:
    games = store.game_reads.list_games(sid, limit=10**6)
    forfeits = [g for g in games if g.status == GameStatus.DONE
                and any(s.bot_name == victim and s.retired for s in g.seats)]
    voided = sum(sum(1 for a in store.game_reads.attempts(g.id) if a.outcome == "voided") for g in games if g.attempts > 1)
    failed = sum(g.status == GameStatus.FAILED for g in games)
    progress = store.seasons.season_progress(sid)
    flying = [int(k["with_victim"]) for k in kills]  # type: ignore[call-overload]
    times = sorted(k["at"] for k in kills)  # type: ignore[type-var]
    late = []
    for g in forfeits:  # how long after the last kill before it the forfeited game started
        first = store.game_reads.attempts(g.id)[0].started_at
        before = [t for t in times if t <= first + _GRACE]  # type: ignore[operator]
        late.append((first - before[-1]).total_seconds() if before else float("nan"))  # type: ignore[operator]
    print(f"season: {progress['done']} done, {failed} failed, {progress['not_played']} not played of "
          f"{progress['total']} in {seconds:.1f} s; {len(kills)} kill(s) of {victim}")
    print(f"in flight at each kill (with {victim} / all): "
          + ", ".join(f"{k['with_victim']}/{k['in_flight']}" for k in kills))
    print(f"forfeits by {victim}: {len(forfeits)} ({len(forfeits) / max(1, len(kills)):.1f} per kill); "
          f"in flight with it: {sum(flying)} ({sum(flying) / max(1, len(kills)):.1f} per kill); "
          f"voided attempts: {voided}; failed games: {failed}")
    if late:
        print("each forfeited game's start after its kill, seconds (negative: before it): "
              + ", ".join(f"{x:+.3f}" for x in sorted(late)))


def run_local_kills(args: argparse.Namespace) -> None:
    from workers.local import run_local

    db = f"sqlite:///{Path(tempfile.mkdtemp(prefix='botkill-')) / 'store.db'}"
    bots = start_bots()
    try:
        store, sid, names = season(db, bots, args.games, args.suspend_after)
        ids = store.seasons.next_pending(sid, 10**6)
        started = time.monotonic()
        runner = threading.Thread(target=lambda: run_local(db, ids, processes=2), daemon=True)
        runner.start()
        kills = kill_loop(store, sid, bots, names[VICTIM], args, runner)
        runner.join()
        report(store, sid, names[VICTIM], kills, time.monotonic() - started)
    finally:
        for bot in bots:
            bot.stop()


def run_celery_kills(args: argparse.Namespace) -> None:
    from workers.celery_app import configure
    from workers.follower import SeasonFollower

    tmp = Path(tempfile.mkdtemp(prefix='botkill-'))
    db = f"sqlite:///{tmp / 'store.db'}"
    redis = RedisServer(free_port_outside_the_ephemeral_range(), tmp / "redis.log")
    redis.start()
    bots = start_bots()
    pool = Workers(redis.url, db, tmp, env={"CARDARENA_LOG_LEVEL": "WARNING"})
    try:
        store, sid, names = season(db, bots, args.games, args.suspend_after)
        for _ in range(2):
            pool.start(concurrency=2)
        follower = SeasonFollower(store, configure(redis.url), sid, stall_s=120)
        started = time.monotonic()
        runner = threading.Thread(target=follower.run, daemon=True)
        runner.start()
        kills = kill_loop(store, sid, bots, names[VICTIM], args, runner)
        runner.join()
        report(store, sid, names[VICTIM], kills, time.monotonic() - started)
    finally:
        pool.stop_all()
        redis.stop()
        for bot in bots:
            bot.stop()


def health_cost(args: argparse.Namespace) -> None:
    from store import SeatBot
    from workers.availability import HealthCache
    from workers.service import client_for

    bots = start_bots()[:3]
    try:
        table = [SeatBot(i, i + 1, b.name, b.endpoint, 4) for i, b in enumerate(bots)]
        for label, ttl in (("asked for every game", 0.0), ("reused for 3 s", 3.0)):
            cache = HealthCache(client_for, ttl_s=ttl)
            for _ in range(200):  # warm the channels
                cache.problems(table)
            times = []
            for _ in range(args.tables):
                t0 = time.perf_counter()
                assert not cache.problems(table)
                times.append((time.perf_counter() - t0) * 1e6)
            times.sort()
            print(f"health check of a table of 3, {label}: median {statistics.median(times):.0f} us, "
                  f"mean {statistics.fmean(times):.0f} us, p90 {times[int(0.9 * len(times))]:.0f} us "
                  f"({args.tables} tables)")
        bots[1].process.kill()
        bots[1].process.join(5)
        cache = HealthCache(client_for)
        times = []
        for _ in range(200):
            t0 = time.perf_counter()
            assert cache.problems(table)
            times.append((time.perf_counter() - t0) * 1e6)
        print(f"the same table with one bot killed: median {statistics.median(times):.0f} us (the check's own "
              "answer: refused)")
    finally:
        for bot in bots:
            bot.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=["local", "celery"], default="local")
    parser.add_argument("--kills", type=int, default=5)
    parser.add_argument("--games", type=int, default=600)
    parser.add_argument("--warmup", type=int, default=30, help="games done before the first kill")
    parser.add_argument("--down", type=float, default=3.0, help="seconds the bot stays down after each kill")
    parser.add_argument("--up", type=float, default=3.0, help="seconds between a restart and the next kill")
    parser.add_argument("--suspend-after", type=float, default=600.0)
    parser.add_argument("--health-cost", action="store_true", help="measure the per-game health check instead")
    parser.add_argument("--tables", type=int, default=2000, help="with --health-cost: tables checked")
    args = parser.parse_args()
    if args.health_cost:
        health_cost(args)
    elif args.backend == "local":
        run_local_kills(args)
    else:
        run_celery_kills(args)


if __name__ == "__main__":
    main()
