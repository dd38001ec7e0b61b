"""Sequential seasons end to end: `season create --until-settled` and `season run` on real bot servers,
on the local pool and on a real Celery worker; the season stops by itself once its top pair is settled."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from league.competition.schedule import build_schedule
from league.integrity import fairness
from league.policy import POLICY
from referee.botprocess import BotProcess, start_bot_process
from store import open_store
from tests.a_game import GAME, QUICK, STRONG, param_arg
from tests.workers.conftest import REPO, Workers, register

MAX_GAMES = 240


@pytest.fixture(scope="module")
def strong_and_randoms() -> Iterator[list[BotProcess]]:
    """GAME's strong reference bot and two random ones: the strong bot is far ahead, so the top pair settles quickly."""
    processes = [start_bot_process(name, seed) for name, seed in ((STRONG, 0), ("random", 1), ("random", 2))]
    yield processes
    for process in processes:
        process.stop()


def cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli.main", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=timeout, env={"COLUMNS": "250", "PATH": ""})


def create(db_url: str, processes: list[BotProcess], name: str) -> list[str]:
    store = open_store(db_url, policy=POLICY)
    names = register(store, processes, prefix=f"{name}-")
    store.close()
    result = cli("season", "create", name, "--game", GAME, "--bots", ",".join(names), "--tables", "3",
                 *param_arg(QUICK), "--seed", "11", "--until-settled", "--top", "2", "--max-games", str(MAX_GAMES),
                 "--batch", "2", "--db", db_url)
    assert result.returncode == 0, result.stderr + result.stdout
    assert "6 games pending (the first batch; until settled, at most 240 games)" in result.stdout
    return names


def assert_settled_by_itself(db_url: str, name: str, names: list[str], run_output: str) -> None:
    assert "Sequential season, settled" in run_output, run_output
    out = cli("standings", "--season", name, "--json", "--db", db_url)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    settling, progress = data["settling"], data["progress"]
    assert settling["stop"] == "settled" and len(settling["looks"]) >= 2, settling
    assert progress["pending"] == progress["running"] == 0
    assert settling["games_used"] == progress["done"] == progress["total"] < MAX_GAMES
    assert data["standings"][0]["name"] == names[0]  # the strong bot on top
    last = settling["looks"][-1]
    assert last["weakest"] >= last["threshold"] > 0 and settling["indifference"] == 50.0
    # the top pair with its verdict, in the JSON and in `season run`'s line
    assert [(p["upper_name"], p["verdict"]) for p in settling["pairs"]] == [(names[0], "higher")], settling["pairs"]
    assert f"top pairs: {names[0]} above" in run_output, run_output
    assert data["standings"][0]["p_better"] > 0.5
    # the games played are the first games of the fixed-length schedule of MAX_GAMES
    store = open_store(db_url, policy=POLICY)
    season = store.seasons.get_season_by_name(name)
    ids = [store.bots.get_bot_by_name(n).id for n in names]
    games = store.game_reads.list_games(season.id, limit=10**6)
    full = build_schedule(ids, [3], MAX_GAMES, fairness.key_from_seed(11))
    assert [(g.seed, [s.bot_id for s in g.seats]) for g in games] == [(g.seed, list(g.seats)) for g in full[:len(games)]]
    store.close()


def test_on_the_local_pool(tmp_path: Path, strong_and_randoms: list[BotProcess]) -> None:
    db_url = f"sqlite:///{tmp_path / 'seq.db'}"
    names = create(db_url, strong_and_randoms, "seq-local")
    result = cli("season", "run", "seq-local", "--workers", "2", "--db", db_url)
    assert result.returncode == 0, result.stderr + result.stdout
    assert_settled_by_itself(db_url, "seq-local", names, result.stdout)
    again = cli("season", "run", "seq-local", "--db", db_url)  # stopped: nothing more is scheduled
    assert again.returncode == 0 and "nothing to run" in again.stdout, again.stdout
    # every batch was played by the run's two pool processes (a pool of new processes for each batch spent
    # about a second of CPU a process starting them)
    engine = create_engine(db_url)
    with engine.connect() as conn:
        workers = {w for (w,) in conn.execute(text("SELECT DISTINCT worker FROM game_attempts"))}
    engine.dispose()
    assert len(workers) == 2, workers


def test_on_celery(workers: Workers, db_url: str, broker: str, strong_and_randoms: list[BotProcess]) -> None:
    names = create(db_url, strong_and_randoms, "seq-celery")
    workers.start(concurrency=2)
    result = cli("season", "run", "seq-celery", "--broker", broker, "--db", db_url, "--stall-timeout", "60")
    assert result.returncode == 0, result.stderr + result.stdout
    assert_settled_by_itself(db_url, "seq-celery", names, result.stdout)
