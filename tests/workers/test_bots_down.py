"""No rated game against a bot that is down (rules §4.9): real bot processes on 127.0.0.1, the
local pool and `cardarena season run`, real SQLite and PostgreSQL stores."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import pytest

from cli.demo import register_or_update
from league.competition.seasons import create_season
from league.competition.standings import standings_of
from league.policy import POLICY
from referee.botprocess import BotProcess, start_bot_process
from referee.clients import GrpcBotClient
from referee.games import spec
from store import GameStatus, Store, open_store
from tests.a_game import GAME, QUICK, STRONG
from tests.workers.conftest import REPO, free_port_outside_the_ephemeral_range
from workers.local import run_local
from workers.service import Outcome

LINEUP = ((STRONG, 0), ("random", 1), (STRONG, 1), ("random", 2))


@pytest.fixture
def bots() -> Iterator[list[BotProcess]]:
    """Four reference bots of this test alone, each on a fixed port (so one can be restarted there)."""
    started = [start_bot_process(name, seed, port=free_port_outside_the_ephemeral_range()) for name, seed in LINEUP]
    yield started
    for bot in started:
        bot.stop()


def season(db_url: str, bots: list[BotProcess], name: str, games: int, suspend_after_s: float) -> tuple[Store, int, list[str]]:
    store = open_store(db_url, policy=POLICY)
    names = [register_or_update(store, f"{b.name}-{i}", b.endpoint, GrpcBotClient(b.endpoint).describe())
             for i, b in enumerate(bots)]
    sid = create_season(store, name, spec(GAME), names, [3], games, 7, params=dict(QUICK),
                        suspend_after_s=suspend_after_s)
    return store, sid, names


def restart(bots: list[BotProcess], i: int) -> None:
    port = int(bots[i].endpoint.rsplit(":", 1)[1])
    bots[i] = start_bot_process(LINEUP[i][0], LINEUP[i][1], port=port)


def seated(store: Store, sid: int, bot_name: str, status: GameStatus) -> list[int]:
    return [g.id for g in store.game_reads.list_games(sid, status=status, limit=1000) if bot_name in {s.bot_name for s in g.seats}]


def test_a_season_whose_bots_are_all_down_plays_nothing_and_names_them(tmp_path, bots: list[BotProcess]) -> None:
    db_url = f"sqlite:///{tmp_path / 'down.db'}"
    store, sid, names = season(db_url, bots, "all-down", 8, 600)
    for bot in bots:
        bot.stop()
    run = subprocess.run([sys.executable, "-m", "cli.main", "season", "run", "all-down", "--db", db_url, "--workers", "1"],
                         cwd=REPO, capture_output=True, text=True, timeout=120)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "nothing can be played" in run.stderr
    for name in names:
        assert f"not answering: {name} at " in run.stderr
    progress = store.seasons.season_progress(sid)
    assert progress["pending"] == progress["total"] and progress["done"] == 0
    assert store.seasons.pending_deferrals(sid) == {} and all(g.attempts == 0 for g in store.game_reads.list_games(sid, limit=100))


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_bot_down_longer_than_the_setting_is_suspended_and_the_rest_is_played(
        tmp_path, bots: list[BotProcess], backend: str, request: pytest.FixtureRequest) -> None:
    db_url = f"sqlite:///{tmp_path / 'susp.db'}" if backend == "sqlite" else request.getfixturevalue("pg_url")
    store, sid, names = season(db_url, bots, "one-down", 12, 2.0)
    down = names[1]
    bots[1].stop()
    ids = store.seasons.next_pending(sid, 100)
    results = run_local(db_url, ids, processes=2)
    assert sorted(r.game_id for r in results) == sorted(ids)  # every game reported once
    games = store.game_reads.list_games(sid, limit=100)
    not_played = [g for g in games if g.status == GameStatus.NOT_PLAYED]
    done = [g for g in games if g.status == GameStatus.DONE]
    assert len(not_played) + len(done) == len(games) and not_played and done
    assert all(down in {s.bot_name for s in g.seats} and f"{down} suspended from the season" in (g.detail or "")
               for g in not_played)
    assert all(down not in {s.bot_name for s in g.seats} for g in done)  # never played against it
    assert all(g.attempts == 0 for g in not_played) and all(g.attempts == 1 for g in done)
    assert all(s.faults == 0 for g in done for s in g.seats)
    rows = {r.name: r for r in standings_of(store, sid)}
    assert rows[down].suspended and rows[down].games == 0
    assert store.bots.get_bot_by_name(down).id not in store.season_reads.ratings(sid)  # type: ignore[union-attr]
    assert {r.outcome for r in results} <= {Outcome.DONE, Outcome.NOT_PLAYED, Outcome.SKIPPED}
    assert store.seasons.get_season(sid).status == "done"  # type: ignore[union-attr]


def test_a_bot_restarted_within_the_setting_plays_all_its_games(tmp_path, bots: list[BotProcess]) -> None:
    db_url = f"sqlite:///{tmp_path / 'back.db'}"
    store, sid, names = season(db_url, bots, "comes-back", 12, 600)
    bots[2].stop()
    ids = store.seasons.next_pending(sid, 100)
    results: list = []
    runner = threading.Thread(target=lambda: results.extend(run_local(db_url, ids, processes=2)), daemon=True)
    runner.start()
    deadline = time.monotonic() + 60
    while not seated(store, sid, names[2], GameStatus.PENDING) or not store.seasons.pending_deferrals(sid):
        assert time.monotonic() < deadline, "no game was deferred"
        time.sleep(0.1)
    restart(bots, 2)
    runner.join(180)
    assert not runner.is_alive(), "the season did not finish"
    games = store.game_reads.list_games(sid, limit=100)
    assert [g.status for g in games] == [GameStatus.DONE] * len(games)  # none lost, none not played
    assert all(g.attempts == 1 for g in games)  # deferrals are not attempts: each game played once
    assert sorted(r.game_id for r in results) == sorted(ids) and len(results) == len(ids)
    assert all(s.faults == 0 for g in games for s in g.seats)  # never charged for being down
    rated = standings_of(store, sid)
    assert sum(r.games for r in rated) == sum(len(g.seats) for g in games)  # each seat rated once
    [status] = store.seasons.season_availability(sid)
    assert status.name == names[2] and status.unavailable_since is None and status.suspended_at is None


def test_on_celery_a_deferred_game_is_sent_again_and_played_once(
        tmp_path, bots: list[BotProcess], workers, broker: str, db_url: str) -> None:  # type: ignore[no-untyped-def]
    from workers.celery_app import configure
    from workers.follower import SeasonFollower
    from tests.workers.test_celery_season import assert_each_game_once

    store, sid, names = season(db_url, bots, "celery-back", 12, 600)
    bots[0].stop()
    worker = workers.start()
    follower = SeasonFollower(store, configure(broker), sid, stall_s=60)
    done: list[dict[str, int]] = []
    runner = threading.Thread(target=lambda: done.append(follower.run()), daemon=True)
    runner.start()
    deadline = time.monotonic() + 60
    while len(store.seasons.pending_deferrals(sid)) < 2:
        assert time.monotonic() < deadline, "no game was deferred"
        time.sleep(0.1)
    restart(bots, 0)
    runner.join(180)
    assert not runner.is_alive() and done, "the season did not finish"
    assert_each_game_once(store, sid, store.seasons.season_progress(sid)["total"])
    assert follower.stats.resent_used >= 2  # the deferred games were sent again
    log = worker.log.read_text(errors="replace")
    assert "deferred: " in log and "deferred deferred" not in log, log[-3000:]  # said once in the worker's log
    assert all(s.faults == 0 for g in store.game_reads.list_games(sid, limit=100) for s in g.seats)
