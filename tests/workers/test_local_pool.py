"""The embedded local pool survives the loss of one of its processes mid-game."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from referee.botprocess import BotProcess
from tests.workers.conftest import make_season
from tests.workers.test_celery_season import assert_each_game_once
from tests.workers.test_failures import assert_rerun_soon, games_lost_by, kill_while_running
from workers.local import run_local


def pool_children() -> list[int]:
    """Pids of this process's children (the pool's processes among them)."""
    kids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == os.getpid():
            kids.append(int(stat.parent.name))
    return kids


def test_kill_9_of_a_local_pool_process_mid_game(tmp_path: Path, sleepy_bots: list[BotProcess]) -> None:
    db_url = f"sqlite:///{tmp_path / 'pool.db'}"
    store, season_id = make_season(db_url, sleepy_bots, "pool-kill", 24)
    ids = store.seasons.next_pending(season_id, 100)
    results: list[object] = []
    runner = threading.Thread(target=lambda: results.extend(run_local(db_url, ids, processes=2)), daemon=True)
    runner.start()
    pids, killed_at = kill_while_running(store, season_id, pool_children, lambda pid: [pid])
    runner.join(120)
    assert not runner.is_alive(), "the pool run did not finish"
    assert sorted(r.game_id for r in results) == sorted(ids)  # type: ignore[attr-defined]
    assert_each_game_once(store, season_id, len(ids))
    lost = games_lost_by(store, season_id, pids)
    assert 1 <= len(lost) <= 2, f"the killed process referees two games at a time, lost {lost}"
    for gid in lost:
        assert_rerun_soon(store, gid, killed_at, slots=6)  # at most 3 games handed out per process
