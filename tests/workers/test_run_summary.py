"""`season run`'s last line on both runners (the local pool and Celery on a real redis-server), with a
season that has games not played (a bot down past its season's setting, rules §4.9): one vocabulary, both
read from the store, this run apart from the whole season."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from referee.botprocess import BotProcess
from tests.workers.conftest import REPO
from tests.workers.test_bots_down import bots, season  # noqa: F401  (the fixture: bots of this test alone)

SUMMARY = re.compile(r"^this run: (.*); whole season (\S+): (\d+) done, (\d+) failed, (\d+) not played, (\d+) cancelled, "
                     r"(\d+) pending, (\d+) running \(of (\d+)\)$", re.M)


@pytest.mark.parametrize("runner", ["pool", "celery"])
def test_both_runners_end_with_the_same_counts_read_from_the_store(
        runner: str, tmp_path, bots: list[BotProcess], request: pytest.FixtureRequest) -> None:  # noqa: F811
    db_url = f"sqlite:///{tmp_path / 'sum.db'}"
    store, sid, names = season(db_url, bots, "sum", 12, 2.0)
    bots[1].stop()  # down past the season's 2 s: suspended, its remaining games not played
    extra = ["--workers", "2"]
    if runner == "celery":
        broker = request.getfixturevalue("broker")
        workers = request.getfixturevalue("workers")
        workers.db_url = db_url
        workers.start(concurrency=2)
        extra = ["--broker", broker, "--stall-timeout", "60"]
    run = subprocess.run([sys.executable, "-m", "cli.main", "season", "run", "sum", "--db", db_url, *extra],
                         cwd=REPO, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    progress = store.seasons.season_progress(sid)
    assert progress["not_played"] > 0 and progress["done"] > 0
    [m] = SUMMARY.findall(run.stdout)
    this_run, name, *counts, total = m
    assert name == "sum" and [int(c) for c in counts] == [progress[k] for k in (
        "done", "failed", "not_played", "cancelled", "pending", "running")] and int(total) == progress["total"]
    # this run made every game of the season final (nothing was played before it)
    assert this_run == f"{progress['done']} done, {progress['not_played']} not played"
    assert f"{progress['not_played']} game(s) not played: a bot of their table was suspended" in run.stdout
    assert "skipped" not in run.stdout and "not_played" not in run.stdout
