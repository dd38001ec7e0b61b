"""Running a season's pending games with a progress bar: on the local pool, or on Celery workers."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from cli.common import console


def _bar() -> Progress:
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("games"),
                    TimeElapsedColumn(), TimeRemainingColumn(), console=console, transient=False)


def run_pending_locally(store, season_id: int, db_url: str, processes: int | None, description: str) -> Counter[str]:
    """Run every pending game of the season on the local pool, showing progress; returns outcome counts."""
    from workers.local import iter_local
    from workers.settings import get_settings
    from workers.sweeper import sweep

    sweep(store)  # games left running by a run that was killed: pending again once their lease ran out
    pending = store.next_pending(season_id, limit=10**9)
    outcomes: Counter[str] = Counter()
    with _bar() as bar:
        task = bar.add_task(description, total=len(pending))
        for result in iter_local(db_url, pending, processes, get_settings().lease_s):
            outcomes[result.outcome.value] += 1
            bar.advance(task)
    return outcomes


def follow_on_celery(store, season_id: int, broker_url: str, description: str, *, window: int = 32,
                     stall_s: float = 120.0, once_connected: Callable[[], None] | None = None) -> dict[str, int]:
    """Enqueue the season's pending games on ``broker_url`` and follow them to the end with a
    progress bar (done + failed of all games); returns the final progress.

    Raises workers.follower.BrokerUnreachable at once if the broker does not answer at the
    start, and workers.follower.SeasonStuck when nothing moved for ``stall_s`` seconds.
    """
    from workers.celery_app import configure
    from workers.follower import SeasonFollower

    follower = SeasonFollower(store, configure(broker_url), season_id, window=window, stall_s=stall_s)
    follower.check_broker()
    if once_connected is not None:  # e.g. the bots' health checks, after the broker's
        once_connected()
    first = store.season_progress(season_id)
    with _bar() as bar:
        task = bar.add_task(description, total=first["total"], completed=first["done"] + first["failed"] + first["not_played"])
        return follower.run(lambda p: bar.update(task, completed=p["done"] + p["failed"] + p["not_played"]))
