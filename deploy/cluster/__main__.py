"""``python -m deploy.cluster up [--games N] [--keep]``: build the cluster, start the deploy guide on it,
play a season, print its audit, and tear everything down (after Ctrl-C with ``--keep``). Needs root."""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading

from deploy.cluster.audit import Audit
from deploy.cluster.harness import Cluster, new_workdir, start_deployment, unavailable
from league.policy import POLICY
from store import open_store


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m deploy.cluster", description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=["up"])
    parser.add_argument("--games", type=int, default=60, help="games of the season played (0: none)")
    parser.add_argument("--keep", action="store_true", help="keep the cluster running until Ctrl-C")
    args = parser.parse_args(argv)
    if reason := unavailable():
        print(f"no cluster here: {reason}", file=sys.stderr)
        return 1
    cluster = Cluster(new_workdir())
    try:
        cluster.up()
        dep = start_deployment(cluster)
        print(f"cluster up: logs in {cluster.workdir}")
        for name, host in cluster.hosts.items():
            print(f"  {name:<10} {host.addr:<12} nsenter --net=/run/netns/{host.netns} ...")
        print(f"  CARDARENA_DB_URL={dep.db_url}\n  CARDARENA_BROKER_URL={dep.broker_url}")
        if args.games:
            dep.season_create("cluster", args.games)
            runner = dep.season_run("cluster")
            runner.process.wait()
            print(runner.log.read_text(errors="replace"))
            store = open_store(dep.db_url, run_migrations=False, policy=POLICY)
            audit = Audit.of(store, store.seasons.get_season_by_name("cluster").id)
            print(json.dumps(audit.row()))
            for problem in audit.problems():
                print(f"problem: {problem}")
            store.close()
        if args.keep:
            print("running; Ctrl-C tears it down")
            stop = threading.Event()
            signal.signal(signal.SIGINT, lambda *_: stop.set())
            stop.wait()
        return 0
    finally:
        cluster.down()


if __name__ == "__main__":
    sys.exit(main())
