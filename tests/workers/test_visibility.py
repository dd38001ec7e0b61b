"""A game that outlives the broker's visibility timeout is delivered once: the games app keeps no
copy of a delivered message in Redis (no acknowledgement emulation, workers/celery_app.py), so
kombu has nothing to deliver again, even with a visibility timeout of 2 s restored every second
and games of a few seconds."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import redis

from league.competition.seasons import create_season
from league.policy import POLICY
from referee.botprocess import start_bot_process
from referee.games import spec
from store import open_store
from tests.a_game import GAME, QUICK, scaled
from tests.workers.conftest import REPO, register
from tests.workers.test_celery_season import assert_each_game_once
from tests.workers.test_failures import Follow, wait_for


def test_a_game_longer_than_the_visibility_timeout_is_delivered_once(db_url: str, broker: str, tmp_path: Path,
                                                                  sleepy_bots: list) -> None:
    slow = start_bot_process("tests.workers.slowbots:OneAtATime", 8, threads=1)  # 50 ms a decision
    logs = [tmp_path / f"v{i}.log" for i in range(2)]
    workers: list[subprocess.Popen[bytes]] = []
    try:
        store = open_store(db_url, policy=POLICY)
        names = register(store, [slow, *sleepy_bots[:2]])
        season_id = create_season(store, "outlived", spec(GAME), names, [3], 3, 9, params=scaled(QUICK, 10))
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
        follow = Follow(store, broker, season_id)
        wait_for(lambda: store.seasons.season_progress(season_id)["running"] > 0, what="a game running")
        time.sleep(3)  # past the visibility timeout, with a game running
        copies = redis.Redis.from_url(broker).keys("unacked*")
        progress = follow.join(300)
    finally:
        for process in workers:
            os.killpg(process.pid, 9)
            process.wait(10)
        slow.stop()
    assert_each_game_once(store, season_id, progress["total"])
    attempts = {g.number: len(store.game_reads.attempts(g.id)) for g in store.game_reads.list_games(season_id)}
    assert set(attempts.values()) == {1}, attempts  # no game played twice
    assert copies == [], copies  # no message kept in the broker while its game runs
    text = "".join(log.read_text(errors="replace") for log in logs)
    runs = re.findall(r"Task cardarena\.run_game\[([0-9a-f-]+)\] succeeded in [\d.]+s: '(\w+)'", text)
    # no message delivered twice (a game waiting long in the queue may be sent again by the
    # follower as lost, a message of its own, which the claim then skips), each game played once
    assert len({task for task, _ in runs}) == len(runs), runs
    assert [outcome for _, outcome in runs].count("done") == progress["total"], runs
