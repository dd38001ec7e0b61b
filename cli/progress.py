"""Running a season's pending games with a progress bar."""

from __future__ import annotations

from collections import Counter

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from cli.common import console


def run_pending_locally(store, season_id: int, db_url: str, processes: int | None, description: str) -> Counter[str]:
    """Run every pending game of the season on the local pool, showing progress; returns outcome counts."""
    from workers.local import iter_local

    pending = store.next_pending(season_id, limit=10**9)
    outcomes: Counter[str] = Counter()
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("games"),
                  TimeElapsedColumn(), TimeRemainingColumn(), console=console, transient=False) as bar:
        task = bar.add_task(description, total=len(pending))
        for result in iter_local(db_url, pending, processes):
            outcomes[result.outcome.value] += 1
            bar.advance(task)
    return outcomes
