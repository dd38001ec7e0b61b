"""Bots far away: games per second against Celery ``--concurrency`` and the local pool's
``CARDARENA_GAMES_PER_PROCESS``, with 0, 20 and 80 ms added to every round trip to the bots.

Usage (root, the cluster's needs: deploy/README.md): sudo .venv/bin/python -m bench.bench_far_bots
[--delays 0,20,80] [--concurrency 2,8] [--games-per-process 1,4] [--games 120]

Real parts: the cluster of ``deploy.cluster`` (network namespaces: broker, store, two worker hosts,
bot host, organiser). Between the workers and the four bots of the bot host sits a delay proxy
(``deploy.cluster.delayproxy``, on the operator's side of the bridge) that holds every chunk half the
delay each way; the bots are registered at the proxy's addresses. For each delay, a Slippery Sam
season (orbits=1, tables of 3 and 4) is run on both worker hosts at each Celery ``--concurrency``
(``season run --broker``), and on the organiser host alone with the local pool (``season run
--workers 2``) at each ``CARDARENA_GAMES_PER_PROCESS``. Prints games/s (the store's clock, first
attempt's start to last attempt's end) and the time charged to a bot per decision (the referee's
``latency_ms``, mean over the season): the delay should show there in full (the link is the bot's,
rules §4.1) and nothing else should grow with it.
"""

from __future__ import annotations

import argparse
import statistics
import sys

from cli.demo import register_or_update
from deploy.cluster.delayproxy import DelayProxy
from deploy.cluster.harness import ADMIN, BOTS, Cluster, Deployment, new_workdir, start_deployment, unavailable
from league.policy import POLICY
from referee.clients import GrpcBotClient
from store import Store, open_store


def far_bots(dep: Deployment, store: Store) -> tuple[list[str], list[DelayProxy]]:
    """A delay proxy in front of each bot of the bot host, each proxied bot registered as far-NAME."""
    proxies, names = [], []
    for _bot, name, port, _seed in BOTS:
        proxy = DelayProxy((ADMIN, 0), (dep.cluster.addr("bots"), port)).start()
        endpoint = f"{ADMIN}:{proxy.port}"
        names.append(register_or_update(store, f"far-{name}", endpoint, GrpcBotClient(endpoint).describe()))
        proxies.append(proxy)
    return names, proxies


def season(dep: Deployment, store: Store, name: str, bots: list[str], games: int, local_gpp: int | None) -> tuple[float, float]:
    """Run one season; returns (games/s, mean ms charged per decision)."""
    saved, dep.bots = dep.bots, bots
    try:
        dep.season_create(name, games)
    finally:
        dep.bots = saved
    if local_gpp is None:
        runner = dep.season_run(name, stall_timeout_s=120)
        runner.process.wait(1800)
    else:
        env = {**dep.env(), "CARDARENA_GAMES_PER_PROCESS": str(local_gpp)}
        done = dep.cluster.run("organiser", [dep.cardarena("season run", {"SEASON": name, "STALL_TIMEOUT": "120"})[0],
                                             "season", "run", name, "--workers", "2"], env, timeout_s=1800)
        if done.returncode != 0:
            raise RuntimeError(done.stdout[-1500:] + done.stderr[-1500:])
    season_id = store.seasons.get_season_by_name(name).id
    spans, latencies = [], []
    for game in store.game_reads.list_games(season_id, limit=10**6):
        attempt = store.game_reads.attempts(game.id)[-1]
        spans.append((attempt.started_at, attempt.ended_at))
        record = store.replays.get_replay(game.id)
        if record is not None:
            latencies += [d.latency_ms for d in record.decisions if d.answer is not None]
    wall_s = (max(e for _, e in spans) - min(s for s, _ in spans)).total_seconds()
    return len(spans) / wall_s, statistics.fmean(latencies)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delays", default="0,20,80", help="ms added to each round trip to the bots")
    parser.add_argument("--concurrency", default="2,8", help="Celery --concurrency of each of the two workers")
    parser.add_argument("--games-per-process", default="1,4", help="CARDARENA_GAMES_PER_PROCESS of the local pool")
    parser.add_argument("--games", type=int, default=120)
    args = parser.parse_args()
    if reason := unavailable():
        raise SystemExit(f"no cluster here: {reason}")
    cluster = Cluster(new_workdir())
    proxies: list[DelayProxy] = []
    try:
        cluster.up()
        dep = start_deployment(cluster, worker_hosts=())
        store = open_store(dep.db_url, run_migrations=False, policy=POLICY)
        bots, proxies = far_bots(dep, store)
        print(f"{'delay ms':>8} {'runner':>26} {'games/s':>8} {'ms charged/decision':>20}", flush=True)
        number = 0
        for delay in [float(d) for d in args.delays.split(",")]:
            for proxy in proxies:
                proxy.delay_ms = delay
            for concurrency in [int(c) for c in args.concurrency.split(",")]:
                for proc in dep.workers.values():
                    cluster.stop(proc)
                dep.workers.clear()
                for host in ("worker-a", "worker-b"):
                    dep.start_worker(host, concurrency)
                rate, charged = season(dep, store, f"far-{number}", bots, args.games, None)
                number += 1
                print(f"{delay:>8g} {f'celery 2 x --concurrency {concurrency}':>26} {rate:>8.1f} {charged:>20.1f}",
                      flush=True)
            for proc in dep.workers.values():
                cluster.stop(proc)
            dep.workers.clear()
            for gpp in [int(g) for g in args.games_per_process.split(",")]:
                rate, charged = season(dep, store, f"far-{number}", bots, args.games, gpp)
                number += 1
                print(f"{delay:>8g} {f'pool 2 x games/process {gpp}':>26} {rate:>8.1f} {charged:>20.1f}", flush=True)
        store.close()
    finally:
        for proxy in proxies:
            proxy.stop()
        cluster.down()


if __name__ == "__main__":
    sys.exit(main())
