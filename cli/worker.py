"""``cardarena worker``: a Celery worker running games (workers.tasks) from the broker."""

from __future__ import annotations

import os
from typing import Annotated

import typer

from cli.common import DbOption, db_url, err_console, fail, open_db

BrokerOption = Annotated[
    str | None,
    typer.Option("--broker", help="Celery broker URL, e.g. redis://host:6379/0. Default: $CARDARENA_BROKER_URL."),
]


def worker(
    concurrency: Annotated[int | None, typer.Option(help="Games at once: worker processes (default: one per core).",
                                                    min=1)] = None,
    broker: BrokerOption = None,
    db: DbOption = None,
    queues: Annotated[str, typer.Option(help="Queues to consume, comma-separated.")] = "cardarena.games",
    name: Annotated[str | None, typer.Option(help="Worker node name (default: cardarena-PID@HOST, unique per process).")] = None,
    loglevel: Annotated[str, typer.Option(help="Log level: DEBUG, INFO, WARNING, ERROR.")] = "INFO",
) -> None:
    """Run games from the broker on this machine until stopped (Ctrl-C or SIGTERM: warm shutdown).

    Start as many as you like, on as many machines: each game is claimed by exactly one.
    Each game runs in a pool process (one game at a time each; past the hard time limit it is
    killed and replaced), which also runs the hosted bots its games need, each in its sandbox
    (bubblewrap and cgroups: a worker that cannot run them says so when it starts). The broker keeps no copy of a game a worker has taken: the game of a
    worker killed mid-game comes back when its lease runs out, put back by `season run`.
    """
    from config import get_settings

    url = db_url(db)
    broker_url = broker or get_settings().broker_url
    if not broker_url:
        fail("no broker: pass --broker redis://host:6379/0 or set CARDARENA_BROKER_URL", 2)
    open_db(url).close()  # fail early, in one line, on a bad or unreachable store (and migrate it)
    from workers.hosted import warning

    cannot_host = warning()
    if cannot_host:  # never a fallback to running submitted code unsandboxed
        err_console.print(cannot_host, highlight=False, markup=False)
    # the worker's processes read the settings from the environment
    os.environ["CARDARENA_DB_URL"] = url
    os.environ["CARDARENA_BROKER_URL"] = broker_url
    get_settings.cache_clear()
    from workers.celery_app import configure

    app = configure(broker_url)
    # prefork: a game in a child process, which the hard time limit can kill and the worker replace,
    # requeuing its message. The solo pool hands a game over 0.4-0.7 ms faster but keeps no time
    # limit, nor does the threads pool (docs/measurements.md, "bench_celery").
    argv = ["worker", "--queues", queues, "--loglevel", loglevel, "--hostname", name or f"cardarena-{os.getpid()}@%h",
            "--pool", "prefork"]
    if concurrency:
        argv += ["--concurrency", str(concurrency)]
    app.worker_main(argv=argv)
