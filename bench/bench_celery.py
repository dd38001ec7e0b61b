"""Seasons per second: the embedded pool against Celery workers on a Redis broker, in one run.

Usage: python -m bench.bench_celery [--games N] [--orbits K] [--runs pool1,celery1,...] [--stores S,S] [--rounds N]

One Slippery Sam season (4 reference bots as gRPC servers in their own
processes, tables of 3 and 4) is played from scratch in a fresh SQLite store
each time: on the local pool with 1 and 2 processes (one game at a time each,
as a prefork worker process plays them), then on 1 and 2
``cardarena worker --concurrency 1`` processes fed by the ``season run``
follower through a private redis-server (free port, no persistence). Workers
are started and ready before the clock starts. Prints games per second, the
2-worker/1-worker scaling ratio and Celery's extra cost per game against the
pool with the same number of processes. The pool's time includes starting
its processes (~1 s); the workers' does not. On a 2-core machine the bots, the
broker and the follower share the cores with the workers: scaling is bounded
by that, not by the workers: the run prints how busy the cores were, per group of processes
(workers, bots, Redis, the follower) and for the whole machine (other work included), the CPU
time per game of our processes (and of the Celery workers' main processes apart: the consumer and pool
parent, whose work per game is Celery's own), and the bound that CPU time puts on 2 processes (the cores the
machine's other work left, over our CPU per game). It also counts, rather than times, broker
commands per game (Redis INFO commandstats before and after) and store statements per game of the
follower (the pool's parent), counted in this process: the task's own commands are fixed per game;
the follower's (the queue depth every tick, a look at the store at least every second) grow with
the wall time a game takes. The hand-off between two games of one worker process is timed inside
the processes, from the store's own clock: from one attempt's end (its result stored) to the next
attempt's start (its claim) by the same process, a mean over the run. ``--runs`` picks some of the
four runs (A/B comparisons on a shared machine); the comparisons print for the runs made.

``--stores sqlite,postgresql`` plays each run on both stores in turn (PostgreSQL: a throwaway database on the
server of ``CARDARENA_TEST_PG_URL`` or the local one, ``bench.scratch_db``), ``--rounds`` times, and prints each
run's games per second on the second store over the first, per round: the machine's load drifts, so the ratio is
taken between seasons played one after the other.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import redis
from referee.games import spec
from sqlalchemy import event
from sqlalchemy.engine import Engine

from bench.cputime import cpu_seconds, machine_cpu_seconds, tree_cpu_seconds
from bench.scratch_db import pg_admin_url, throwaway_database
from cli.demo import register_or_update
from league.competition.seasons import create_season
from league.policy import POLICY
from referee.botprocess import BotProcess, start_bot_process
from referee.clients import GrpcBotClient
from store import Store, open_store
from workers.celery_app import configure
from workers.follower import SeasonFollower
from workers.local import run_local

LINEUP = (("odds", 0), ("random", 1), ("odds", 1), ("random", 2))
REPO = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def new_season(db_url: str, bots: list[BotProcess], games: int, orbits: int) -> int:
    store = open_store(db_url, policy=POLICY)
    names = [register_or_update(store, f"{b.name}-{i}", b.endpoint, GrpcBotClient(b.endpoint).describe())
             for i, b in enumerate(bots)]
    season_id = create_season(store, "bench", spec("slippery-sam"), names, [3, 4], games, 11, params={"orbits": orbits})
    store.close()
    return season_id


def start_worker(broker: str, db_url: str, name: str, log: Path) -> subprocess.Popen[bytes]:
    """A ``cardarena worker --concurrency 1`` in a process group of its own (stopped as one) but in this
    session: a new session is a scheduling group of its own where Linux groups by session
    (autogroup), and on a shared machine that group's share of the cores, not Celery, set the
    worker's speed (measured: 0.2 busy cores for the worker beside 1.0 for the pool's process)."""
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "cli.main", "worker", "--concurrency", "1", "--broker", broker, "--db", db_url,
             "--name", f"{name}@bench", "--loglevel", "WARNING"],
            cwd=REPO, stdout=out, stderr=subprocess.STDOUT, process_group=0)
    return process


def wait_ready(app: object, names: list[str], timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        replies = app.control.ping(timeout=0.5)  # type: ignore[attr-defined]
        if {n for r in replies for n in r} >= {f"{n}@bench" for n in names}:
            return
    raise RuntimeError(f"workers {names} not ready within {timeout_s} s")


@dataclass
class Run:
    """One season's run: games, wall seconds, milliseconds per game between the first and the last
    game stored (without start-up), and CPU seconds of the bots, of Redis, of the workers (the pool's
    processes), of this process (the follower; the pool's parent), and of the whole machine (every
    process, ours or not: the machine may be shared)."""

    games: int
    seconds: float
    steady_ms: float
    bots_cpu_s: float = 0.0
    redis_cpu_s: float = 0.0
    workers_cpu_s: float = 0.0
    driver_cpu_s: float = 0.0
    machine_cpu_s: float = 0.0
    broker_commands: dict[str, int] | None = None  # Redis commands during the run, by name
    driver_statements: int = 0  # SQL statements of this process (the follower, the pool's parent) during the run
    handoff_ms: float = 0.0  # mean ms (fastest 90%) from an attempt's end to the same process's next claim (the store's clock)
    #: of workers_cpu_s, the Celery workers' main processes (consumer, pool parent); None for the pool
    workers_main_cpu_s: float | None = None


class StatementCount:
    """SQL statements executed by this process's engines while it is entered (a SQLAlchemy event)."""

    def __init__(self) -> None:
        self.count = 0

    def _seen(self, *_: object) -> None:
        self.count += 1

    def __enter__(self) -> StatementCount:
        event.listen(Engine, "before_cursor_execute", self._seen)
        return self

    def __exit__(self, *exc: object) -> None:
        event.remove(Engine, "before_cursor_execute", self._seen)


def command_calls(client: redis.Redis) -> dict[str, int]:
    """Calls so far per Redis command (INFO commandstats), e.g. ``{"lpush": 402}``."""
    return {name.removeprefix("cmdstat_"): int(stats["calls"]) for name, stats in client.info("commandstats").items()}


def own_cpu_seconds() -> tuple[float, float]:
    """(this process, its children waited for) in CPU seconds: the pool's processes are waited for when it closes."""
    t = os.times()
    return t.user + t.system, t.children_user + t.children_system


def steady_ms_per_game(store: Store, ids: list[int]) -> float:
    """Milliseconds per game from the first game stored to the last (the store's finished_at)."""
    done = sorted(g.finished_at for g in map(store.game_reads.get_game, ids) if g is not None and g.finished_at is not None)
    return 1000 * (done[-1] - done[0]).total_seconds() / (len(done) - 1) if len(done) > 1 else 0.0


def handoff_ms(store: Store, ids: list[int]) -> float:
    """Mean milliseconds between one attempt's end and the next attempt's start in the same
    worker process (``host:pid``), by the store's clock: the hand-off between two games. The
    clock has millisecond steps, so a mean (of the fastest 90%: a game refused for capacity waits
    0.5 s) rather than a median of whole milliseconds."""
    by_worker: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for game_id in ids:
        for a in store.game_reads.attempts(game_id):
            if a.ended_at is not None:
                by_worker[a.worker].append((a.started_at.timestamp(), a.ended_at.timestamp()))
    gaps = sorted(1000 * (nxt[0] - prev[1]) for spans in by_worker.values()
                  for prev, nxt in zip(sorted(spans), sorted(spans)[1:]))
    return statistics.fmean(gaps[:max(1, len(gaps) * 9 // 10)]) if gaps else 0.0


def on_pool(db_url: str, bots: list[BotProcess], games: int, orbits: int, processes: int) -> Run:
    season_id = new_season(db_url, bots, games, orbits)
    store = open_store(db_url, policy=POLICY)
    ids = store.seasons.next_pending(season_id, 10**6)
    cpu = [sum(cpu_seconds(b.process.pid or 0) for b in bots), *own_cpu_seconds(), machine_cpu_seconds()]
    start = time.perf_counter()
    with StatementCount() as statements:
        run_local(db_url, ids, processes, games_per_process=1)  # one game at a time, as a worker process plays
    elapsed = time.perf_counter() - start
    after = [sum(cpu_seconds(b.process.pid or 0) for b in bots), *own_cpu_seconds(), machine_cpu_seconds()]
    assert store.seasons.season_progress(season_id)["done"] == len(ids)
    bots_s, driver_s, pool_s, machine_s = (a - b for a, b in zip(after, cpu))
    return Run(len(ids), elapsed, steady_ms_per_game(store, ids), bots_cpu_s=bots_s, workers_cpu_s=pool_s,
               driver_cpu_s=driver_s, machine_cpu_s=machine_s, driver_statements=statements.count,
               handoff_ms=handoff_ms(store, ids))


def on_celery(tmp: Path, db_url: str, bots: list[BotProcess], games: int, orbits: int, broker: str, n_workers: int,
              redis_pid: int) -> Run:
    season_id = new_season(db_url, bots, games, orbits)
    app = configure(broker)
    names = [f"b{n_workers}-{i}" for i in range(n_workers)]
    workers = [start_worker(broker, db_url, name, tmp / f"{name}.log") for name in names]
    try:
        wait_ready(app, names)
        store = open_store(db_url, policy=POLICY)
        ids = store.seasons.next_pending(season_id, 10**6)
        def sample() -> list[float]:
            return [sum(cpu_seconds(b.process.pid or 0) for b in bots), cpu_seconds(redis_pid),
                    sum(tree_cpu_seconds(w.pid) for w in workers), own_cpu_seconds()[0], machine_cpu_seconds(),
                    sum(cpu_seconds(w.pid) for w in workers)]

        client = redis.Redis.from_url(broker)
        calls = command_calls(client)
        cpu = sample()
        start = time.perf_counter()
        with StatementCount() as statements:
            progress = SeasonFollower(store, app, season_id, tick_s=0.05, window=16).run()
        elapsed = time.perf_counter() - start
        after = sample()
        calls = {k: n - calls.get(k, 0) for k, n in command_calls(client).items() if k != "info" and n > calls.get(k, 0)}
        client.close()
        assert progress["done"] == len(ids), progress
        *used, main_s = (a - b for a, b in zip(after, cpu))
        return Run(len(ids), elapsed, steady_ms_per_game(store, ids), *used, broker_commands=calls,
                   driver_statements=statements.count, handoff_ms=handoff_ms(store, ids), workers_main_cpu_s=main_s)
    finally:
        stop_workers(workers)


def stop_workers(workers: list[subprocess.Popen[bytes]], wait_s: float = 15.0) -> None:
    """SIGTERM each worker (a warm shutdown), then SIGKILL the process group of any still running after ``wait_s``."""
    for w in workers:
        w.send_signal(signal.SIGTERM)
    for w in workers:
        try:
            w.wait(wait_s)
        except subprocess.TimeoutExpired:
            os.killpg(w.pid, signal.SIGKILL)


RUNS = {"pool1": "pool, 1 process", "pool2": "pool, 2 processes", "celery1": "celery, 1 worker",
        "celery2": "celery, 2 workers"}


def report(rates: dict[str, Run], orbits: int) -> None:
    """Print the runs made, and the comparisons between those of them that pair up."""
    print(f"Slippery Sam, orbits={orbits}, tables of 3 and 4, {os.cpu_count()} cores")
    for label, r in rates.items():
        print(f"  {label:18s} {r.games:5d} games in {r.seconds:6.2f} s = {r.games / r.seconds:7.1f} games/s "
              f"({1000 * r.seconds / r.games:5.1f} ms/game; first to last stored: {r.steady_ms:5.1f} ms/game; "
              f"hand-off {r.handoff_ms:.2f} ms)")
    if RUNS["celery1"] in rates and RUNS["celery2"] in rates:
        c1, c2 = (rates[RUNS[k]].games / rates[RUNS[k]].seconds for k in ("celery1", "celery2"))
        print(f"  scaling, celery 2 workers / 1 worker: {c2 / c1:.2f}x")
    for n, key, pool in ((1, "celery1", "pool1"), (2, "celery2", "pool2")):
        if RUNS[key] not in rates or RUNS[pool] not in rates:
            continue
        r, p = rates[RUNS[key]], rates[RUNS[pool]]
        base = p.steady_ms
        print(f"  {RUNS[key]}: overhead per game vs the pool {1000 * (r.seconds / r.games - p.seconds / p.games):+.1f} ms; "
              f"first to last stored {r.steady_ms - base:+.1f} ms/game ({100 * (r.steady_ms - base) / base:+.1f}%); "
              f"hand-off {r.handoff_ms - p.handoff_ms:+.2f} ms")
    print(f"  cores busy during each run (CPU seconds / wall seconds, of {os.cpu_count()}):")
    for label, r in rates.items():
        ours = r.workers_cpu_s + r.bots_cpu_s + r.redis_cpu_s + r.driver_cpu_s
        print(f"    {label:18s} workers {r.workers_cpu_s / r.seconds:.2f}, bots {r.bots_cpu_s / r.seconds:.2f}, "
              f"redis {r.redis_cpu_s / r.seconds:.2f}, follower/parent {r.driver_cpu_s / r.seconds:.2f}: "
              f"ours {ours / r.seconds:.2f}; whole machine {r.machine_cpu_s / r.seconds:.2f}; "
              f"CPU per game: ours {1000 * ours / r.games:.1f} ms, workers {1000 * r.workers_cpu_s / r.games:.1f} ms"
              + ("" if r.workers_main_cpu_s is None else
                 f" (their main processes {1000 * r.workers_main_cpu_s / r.games:.2f} ms)"))
    cores = os.cpu_count() or 1
    for label, single in ((RUNS["pool2"], RUNS["pool1"]), (RUNS["celery2"], RUNS["celery1"])):
        if label not in rates or single not in rates:
            continue
        r, one = rates[label], rates[single]
        ours_s = r.workers_cpu_s + r.bots_cpu_s + r.redis_cpu_s + r.driver_cpu_s
        left = cores - max(0.0, r.machine_cpu_s - ours_s) / r.seconds  # cores the machine's other work left us
        bound_ms = 1000 * ours_s / r.games / left
        print(f"  {label}: {1000 * ours_s / r.games:.1f} ms of our CPU per game (bots {100 * r.bots_cpu_s / ours_s:.0f}%) "
              f"on the {left:.2f} of {cores} cores other work left = {bound_ms:.1f} ms/game if CPU-bound, "
              f"{1000 * one.seconds / one.games / bound_ms:.2f}x the 1-process time; measured "
              f"{1000 * r.seconds / r.games:.1f} ms/game, {one.seconds / one.games / (r.seconds / r.games):.2f}x")
    print("  counted per game (the follower's LLEN and store statements grow with the wall time per game):")
    for label, r in rates.items():
        line = f"    {label:18s} store statements of the follower/parent {r.driver_statements / r.games:5.2f}"
        if r.broker_commands is not None:
            top = sorted(r.broker_commands.items(), key=lambda kv: -kv[1])[:10]
            line += (f"; broker commands {sum(r.broker_commands.values()) / r.games:5.2f} ("
                     + ", ".join(f"{k} {n / r.games:.2f}" for k, n in top) + ")")
        print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--orbits", type=int, default=1)
    parser.add_argument("--runs", default=",".join(RUNS), help=f"runs to make, comma-separated, of {','.join(RUNS)}")
    parser.add_argument("--stores", default="sqlite",
                        help="stores, comma-separated, of sqlite,postgresql (default sqlite): with two, each run is "
                             "made on each in turn and the second's games per second are divided by the first's")
    parser.add_argument("--rounds", type=int, default=1, help="with two stores: rounds of runs on each in turn")
    args = parser.parse_args()
    runs = args.runs.split(",")
    if not set(runs) <= set(RUNS):
        parser.error(f"--runs: choose among {','.join(RUNS)}")
    stores = args.stores.split(",")
    if not stores or set(stores) - {"sqlite", "postgresql"}:
        parser.error("--stores: choose among sqlite,postgresql")
    binary = shutil.which("redis-server")
    if binary is None:
        sys.exit("redis-server is not installed (apt-get install redis-server)")
    port = free_port()
    redis_proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    broker = f"redis://127.0.0.1:{port}/0"
    bots = [start_bot_process(name, seed) for name, seed in LINEUP]
    try:
        for _ in range(100):
            try:
                redis.Redis(port=port).ping()
                break
            except redis.ConnectionError:
                time.sleep(0.05)
        ratios: dict[str, list[float]] = defaultdict(list)
        for number in range(args.rounds if len(stores) > 1 else 1):
            per_store: dict[str, dict[str, Run]] = {}
            for store_kind in stores:
                rates = per_store[store_kind] = {}
                with tempfile.TemporaryDirectory() as tmp_name, ExitStack() as scratch:
                    tmp = Path(tmp_name)
                    for key in runs:
                        n = int(key[-1])
                        db_url = (scratch.enter_context(throwaway_database(pg_admin_url(), label=f"celery_{key}"))
                                  if store_kind == "postgresql" else f"sqlite:///{tmp / f'{key}.db'}")
                        if key.startswith("pool"):
                            rates[RUNS[key]] = on_pool(db_url, bots, args.games, args.orbits, n)
                        else:
                            rates[RUNS[key]] = on_celery(tmp, db_url, bots, args.games, args.orbits, broker, n,
                                                         redis_proc.pid)
                print(f"== {store_kind}" + (f", round {number + 1}" if len(stores) > 1 else ""))
                report(rates, args.orbits)
            if len(stores) > 1:
                first, second = (per_store[k] for k in stores)
                for label in first:
                    ratios[label].append((second[label].games / second[label].seconds)
                                         / (first[label].games / first[label].seconds))
        if ratios:
            print(f"games per second, {stores[1]} / {stores[0]}, each round's runs one after the other:")
            for label, values in ratios.items():
                print(f"  {label:18s} median {statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f}): "
                      + ", ".join(f"{v:.2f}" for v in values))
    finally:
        for b in bots:
            b.stop()
        redis_proc.kill()
        redis_proc.wait()


if __name__ == "__main__":
    main()
