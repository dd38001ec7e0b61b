"""A game that outlives the broker's visibility timeout: its message is delivered again, to a
worker whose claim finds the game running under a live lease and does nothing (workers/celery_app.py
says so). Real Celery workers with a 2 s visibility timeout, games of a few seconds."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

from referee.botprocess import start_bot_process
from league.policy import POLICY
from league.seasons import create_season
from store import open_store
from tests.workers.conftest import REPO, register
from tests.workers.test_celery_season import assert_each_game_once
from tests.workers.test_failures import Follow


def test_a_game_longer_than_the_visibility_timeout_is_played_once(db_url: str, broker: str, tmp_path: Path,
                                                                  sleepy_bots: list) -> None:
    slow = start_bot_process("tests.workers.slowbots:OneAtATime", 8, threads=1)  # 50 ms a decision
    logs = [tmp_path / f"v{i}.log" for i in range(2)]
    workers: list[subprocess.Popen[bytes]] = []
    try:
        store = open_store(db_url, policy=POLICY)
        names = register(store, [slow, *sleepy_bots[:2]])
        season_id = create_season(store, "outlived", "slippery-sam", names, [3], 3, 9, params={"orbits": 10})
        env = {**os.environ, "CARDARENA_DB_URL": db_url, "CARDARENA_LEASE_S": "10"}
        for i, log in enumerate(logs):
            with log.open("wb") as out:
                workers.append(subprocess.Popen(
                    [sys.executable, "-m", "tests.workers.short_visibility", broker, f"v{i}-{os.getpid()}@test"],
                    cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True))
        deadline = time.monotonic() + 60
        while not all(b" ready." in log.read_bytes() for log in logs):
            assert time.monotonic() < deadline, "the workers did not start"
            time.sleep(0.1)
        progress = Follow(store, broker, season_id).join(300)
    finally:
        for process in workers:
            os.killpg(process.pid, 9)
            process.wait(10)
        slow.stop()
    assert_each_game_once(store, season_id, progress["total"])
    attempts = {g.number: len(store.attempts(g.id)) for g in store.list_games(season_id)}
    assert set(attempts.values()) == {1}, attempts  # no game played twice
    text = "".join(log.read_text(errors="replace") for log in logs)
    outcomes: dict[str, set[str]] = {}
    for task, outcome in re.findall(r"Task cardarena\.run_game\[([0-9a-f-]+)\] succeeded in [\d.]+s: '(\w+)'", text):
        outcomes.setdefault(task, set()).add(outcome)
    # one message delivered twice: once played and stored, once skipped by the claim
    assert any(seen == {"done", "skipped"} for seen in outcomes.values()), outcomes
