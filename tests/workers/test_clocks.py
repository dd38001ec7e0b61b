"""One clock: workers and the season's driver whose clocks are a minute apart (real processes under
libfaketime, on PostgreSQL) still agree on every lease, because only the database's clock sets and
compares them. Before, a follower ahead of the workers by more than two thirds of the lease voided
every game (failed after 3 attempts) and exited 0."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from referee.botprocess import BotProcess
from tests.workers.conftest import REPO, Workers, make_season
from tests.workers.test_celery_season import assert_each_game_once

#: Debian's libfaketime (apt-get install faketime).
LIBFAKETIME = Path("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1")
#: Holds the sitecustomize that lets ``time.sleep`` work under libfaketime (see there).
SITE = Path(__file__).resolve().parent / "faketime_site"


def shifted(offset_s: int) -> dict[str, str]:
    """Environment running a process with its wall clock ``offset_s`` seconds off (monotonic clock untouched)."""
    path = os.pathsep.join(p for p in (str(SITE), os.environ.get("PYTHONPATH", "")) if p)
    return {"LD_PRELOAD": str(LIBFAKETIME), "FAKETIME": f"{offset_s:+d}s", "FAKETIME_DONT_FAKE_MONOTONIC": "1",
            "PYTHONPATH": path}


def process_clock_offset(env: dict[str, str]) -> float:
    """Seconds by which a Python process started with ``env`` sees the time ahead of ours."""
    out = subprocess.run([sys.executable, "-c", "import time; print(time.time())"], env={**os.environ, **env},
                         capture_output=True, text=True, timeout=60, check=True)
    return float(out.stdout) - time.time()


@pytest.mark.parametrize(("workers_s", "driver_s"), [(-60, 60), (60, -60)])
def test_clocks_a_minute_off_either_way_do_not_fail_games(pg_url: str, broker: str, tmp_path: Path,
                                                          sleepy_bots: list[BotProcess], workers_s: int,
                                                          driver_s: int) -> None:
    if not LIBFAKETIME.exists():
        pytest.skip(f"libfaketime is not installed ({LIBFAKETIME}): apt-get install faketime")
    assert abs(process_clock_offset(shifted(driver_s)) - driver_s) < 30  # the shift takes effect
    pool = Workers(broker, pg_url, tmp_path, env=shifted(workers_s))
    try:
        store, season_id = make_season(pg_url, sleepy_bots, "skewed", 12)
        pool.start(concurrency=2)
        result = subprocess.run([sys.executable, "-m", "cli.main", "season", "run", "skewed", "--broker", broker,
                                 "--db", pg_url, "--stall-timeout", "90"], env={**os.environ, **shifted(driver_s)},
                                cwd=REPO, capture_output=True, text=True, timeout=300)
    finally:
        pool.stop_all()
    games = store.seasons.season_progress(season_id)["total"]
    assert result.returncode == 0, result.stderr[-3000:] + result.stdout[-3000:]
    assert f"{games} done, 0 failed" in result.stdout
    assert_each_game_once(store, season_id, games)
    # the workers' clocks really were off: the referee stamps a record with its process's time,
    # the store stamps the attempt with the database's
    game = store.game_reads.list_games(season_id, limit=1)[0]
    record, attempt = store.replays.get_replay(game.id), store.game_reads.attempts(game.id)[0]
    assert record is not None
    assert abs(record.started_at - attempt.started_at.timestamp() - workers_s) < 30
