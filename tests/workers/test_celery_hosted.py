"""Hosted bots on Celery: a season of submitted bots played by two real ``cardarena worker`` processes over a
real redis-server; each worker starts the hosted bots its games need, from the store, in its sandbox."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from arena.registry import Registry, RegistryConfig
from hosting.launch import HostingConfig
from league.policy import POLICY
from league.competition.standings import standings_of
from store import open_store
from tests.a_game import GAME
from tests.hosting.conftest import config, hosting_root  # noqa: F401  (the sandbox's fixtures)
from tests.workers.conftest import REPO, Workers
from tests.workers.test_celery_season import assert_each_game_once

EXAMPLE = REPO / "examples" / "python"


def test_a_season_of_hosted_bots_on_two_celery_workers(workers: Workers, db_url: str, broker: str,
                                                       config: HostingConfig, tmp_path: Path) -> None:  # noqa: F811
    store = open_store(db_url, policy=POLICY)
    registry = Registry(store, RegistryConfig.from_settings(), hosting=config)
    names = [f"hosted-{k}" for k in range(3)]
    for name in names:
        registry.submit(name, [GAME], EXAMPLE)
    subprocess.run([sys.executable, "-m", "cli.main", "season", "create", "celery-hosted", "--game", GAME,
                    "--bots", ",".join(names), "--tables", "3", "--games", "30", "--db", db_url],
                   cwd=REPO, check=True, capture_output=True)
    season = store.seasons.get_season_by_name("celery-hosted")
    workers.start()
    workers.start()
    result = subprocess.run([sys.executable, "-m", "cli.main", "season", "run", "celery-hosted", "--broker", broker,
                             "--db", db_url, "--stall-timeout", "120"],
                            cwd=REPO, capture_output=True, text=True, timeout=400)
    assert result.returncode == 0, result.stderr + result.stdout
    assert_each_game_once(store, season.id, 30)
    owners = {a.worker for g in store.game_reads.list_games(season.id, limit=100) for a in store.game_reads.attempts(g.id)}
    assert len(owners) >= 2, owners  # both workers ran hosted bots
    assert all(r.faults == 0 and r.games == 30 for r in standings_of(store, season.id))
    store.close()
