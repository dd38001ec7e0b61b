"""Ctrl-C on the Celery driver (``season run --broker``), with a real redis-server, real Celery worker processes
and a real SIGINT: the stopped line says what is true (read from the store), the season is shown as paused
while no runner follows it, no worker starts another of its games, the games running at the stop finish and
count, no ``cardarena: aborted`` follows, and a second run resumes and finishes the season."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import redis

from referee.botprocess import BotProcess
from tests.workers.conftest import REPO, Workers, make_season

GAMES = 24


def _wait_for(condition, what: str, limit_s: float = 120.0) -> None:
    end = time.monotonic() + limit_s
    while not condition():
        assert time.monotonic() < end, f"gave up waiting for {what}"
        time.sleep(0.05)


def test_ctrl_c_on_the_celery_driver_reports_the_truth_and_leaves_the_season_paused(
        workers: Workers, db_url: str, broker: str, sleepy_bots: list[BotProcess]) -> None:
    store, season_id = make_season(db_url, sleepy_bots, "stop-celery", GAMES, tables=(4,))
    workers.start(concurrency=2)
    command = [sys.executable, "-m", "cli.main", "season", "run", "stop-celery", "--broker", broker, "--db", db_url,
               "--window", "8", "--stall-timeout", "60"]
    driver = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for(lambda: store.seasons.season_progress(season_id)["done"] >= 2, "two games done")
        _wait_for(lambda: store.seasons.season_progress(season_id)["running"] >= 1, "a game running")
        driver.send_signal(signal.SIGINT)  # Ctrl-C
        out, err = driver.communicate(timeout=60)
    finally:
        if driver.poll() is None:
            driver.kill()
    assert driver.returncode == 130, (out, err)
    assert "aborted" not in err and "Traceback" not in err, err
    line = [x for x in out.splitlines() if x.startswith("stopped: ")]
    assert len(line) == 1 and out.rstrip().endswith("again to resume it"), out
    m = re.match(rf"stopped: (\d+) of {GAMES} games played \(.*\)(?:; (\d+) game\(s\) still running on the workers "
                 r"finish and count, no new one starts)?; the season is paused: run (.*) again to resume it$", line[0])
    assert m, line[0]
    played, running = int(m.group(1)), int(m.group(2) or 0)
    assert m.group(3) == f"cardarena season run stop-celery --db {db_url} --broker {broker}"
    assert redis.Redis.from_url(broker).llen("celery") > 0 or running > 0  # messages were still waiting at the stop

    # The games running at the stop finish and count; none other starts although its message is delivered.
    _wait_for(lambda: store.seasons.season_progress(season_id)["running"] == 0, "the running games to end")
    _wait_for(lambda: redis.Redis.from_url(broker).llen("celery") == 0, "the workers to take every waiting message")
    time.sleep(1.0)  # a game wrongly claimed now would show as running or done
    progress = store.seasons.season_progress(season_id)
    assert progress["running"] == 0
    assert progress["done"] + progress["failed"] == played + running, (progress, played, running)
    assert progress["pending"] == GAMES - played - running
    assert store.seasons.get_season(season_id).state == "paused"
    listed = subprocess.run([sys.executable, "-m", "cli.main", "season", "list", "--json", "--db", db_url], cwd=REPO,
                            capture_output=True, text=True, timeout=60)
    assert [s["status"] for s in json.loads(listed.stdout)] == ["paused"]

    again = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr + again.stdout
    assert f"whole season stop-celery: {GAMES} done, 0 failed, 0 not played, 0 cancelled, 0 pending, 0 running" in again.stdout
    assert f"this run: {GAMES - played - running} done" in again.stdout
    assert store.seasons.get_season(season_id).state == "done"
    store.close()
