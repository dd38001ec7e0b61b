"""A bot SIGKILLed mid-season and started again a few seconds later (rules §4.2, §4.9): it forfeits
at most the games it was in when it died, `season run` names it while it is down and again when
it is back, and no game is voided. Real bot processes, `cardarena season run` on the local pool
(SQLite and PostgreSQL) and on real Celery workers behind a private redis-server."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import pytest

from referee.botprocess import BotProcess, start_bot_process
from store import GameStatus, Store
from tests.workers.conftest import REPO, free_port_outside_the_ephemeral_range
from tests.workers.test_bots_down import LINEUP, restart, season

VICTIM = 1
#: Games that can be running at once: the local pool's 2 processes x 2 games each, or 2 Celery
#: workers x 2 processes. A kill can cost at most the games in play at that moment.
SLOTS = 4


@pytest.fixture
def bots() -> Iterator[list[BotProcess]]:
    """Four reference bots of this test alone, each on a fixed port (so one can be restarted there)."""
    started = [start_bot_process(name, seed, port=free_port_outside_the_ephemeral_range()) for name, seed in LINEUP]
    yield started
    for bot in started:
        bot.stop()


class Run:
    """A `cardarena season run` subprocess whose output lines are collected as they come."""

    def __init__(self, args: list[str]) -> None:
        self.lines: list[str] = []
        self._changed = threading.Condition()
        self.process = subprocess.Popen([sys.executable, "-m", "cli.main", "season", "run", *args], cwd=REPO,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            with self._changed:
                self.lines.append(line.rstrip("\n"))
                self._changed.notify_all()

    def wait_for(self, text: str, timeout_s: float = 90.0) -> str:
        """The first output line containing ``text``, waiting for it; fails with the output so far."""
        deadline = time.monotonic() + timeout_s
        with self._changed:
            while True:
                found = next((line for line in self.lines if text in line), None)
                if found is not None:
                    return found
                left = deadline - time.monotonic()
                assert left > 0 and self.process.poll() is None, \
                    f"no line with {text!r}; output:\n" + "\n".join(self.lines[-40:])
                self._changed.wait(min(left, 0.5))

    def finish(self, timeout_s: float = 300.0) -> int:
        code = self.process.wait(timeout_s)
        self._reader.join(10)
        return code

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)


def wait_until_done(store: Store, sid: int, games: int, run: Run) -> None:
    deadline = time.monotonic() + 120
    while store.seasons.season_progress(sid)["done"] < games:
        assert time.monotonic() < deadline and run.process.poll() is None, "\n".join(run.lines[-40:])
        time.sleep(0.05)


def kill_and_restart(store: Store, sid: int, bots: list[BotProcess], victim: str, run: Run) -> None:
    """Kill the victim mid-season, wait for `season run` to name it, start it again, wait for it
    to be named back."""
    wait_until_done(store, sid, 20, run)
    bots[VICTIM].process.kill()
    bots[VICTIM].process.join(10)
    down = run.wait_for(f"{victim} is down since")  # named while it is down
    assert "deferred until it answers" in down and "suspended from the season" in down and "600 s" in down
    restart(bots, VICTIM)
    run.wait_for(f"{victim} answers again")


def assert_kill_cost_at_most_the_games_in_play(store: Store, sid: int, victim: str) -> None:
    games = store.game_reads.list_games(sid, limit=10**6)
    assert [g.status for g in games] == [GameStatus.DONE] * len(games)  # none failed, none not played
    forfeits = [g for g in games if any(s.bot_name == victim and s.retired for s in g.seats)]
    print(f"{len(forfeits)} game(s) forfeited by {victim} at the kill")
    assert len(forfeits) <= SLOTS, [(g.number, g.started_at) for g in forfeits]
    assert all(g.attempts == 1 for g in games), "a kill voided a game"
    others = [s for g in games for s in g.seats if s.bot_name != victim]
    assert all(s.faults == 0 and not s.retired for s in others)  # nobody else charged for it


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_bot_killed_mid_season_on_the_local_pool_costs_at_most_the_games_it_was_in(
        tmp_path, bots: list[BotProcess], backend: str, request: pytest.FixtureRequest) -> None:
    db_url = f"sqlite:///{tmp_path / 'kill.db'}" if backend == "sqlite" else request.getfixturevalue("pg_url")
    store, sid, names = season(db_url, bots, "killed", 240, 600)
    run = Run(["killed", "--db", db_url, "--workers", "2"])
    try:
        kill_and_restart(store, sid, bots, names[VICTIM], run)
        assert run.finish() == 0, "\n".join(run.lines[-40:])
    finally:
        run.stop()
    assert_kill_cost_at_most_the_games_in_play(store, sid, names[VICTIM])


def test_a_bot_killed_mid_season_on_celery_costs_at_most_the_games_it_was_in(
        tmp_path, bots: list[BotProcess], workers, broker: str, db_url: str) -> None:  # type: ignore[no-untyped-def]
    store, sid, names = season(db_url, bots, "killed-celery", 240, 600)
    workers.start(concurrency=2)
    workers.start(concurrency=2)  # two workers of 2 processes: SLOTS games at once
    run = Run(["killed-celery", "--db", db_url, "--broker", broker])
    try:
        kill_and_restart(store, sid, bots, names[VICTIM], run)
        assert run.finish() == 0, "\n".join(run.lines[-40:])
    finally:
        run.stop()
    assert_kill_cost_at_most_the_games_in_play(store, sid, names[VICTIM])


def test_a_bot_killed_for_good_is_named_suspended_and_its_games_not_played(tmp_path, bots: list[BotProcess]) -> None:
    db_url = f"sqlite:///{tmp_path / 'gone.db'}"
    store, sid, names = season(db_url, bots, "gone", 120, 2.0)
    victim = names[VICTIM]
    run = Run(["gone", "--db", db_url, "--workers", "2"])
    try:
        wait_until_done(store, sid, 10, run)
        bots[VICTIM].process.kill()
        run.wait_for(f"{victim} is down since")
        line = run.wait_for(f"{victim} suspended from the season at ")
        assert "its remaining games are not played" in line
        assert run.finish() == 0, "\n".join(run.lines[-40:])
    finally:
        run.stop()
    games = store.game_reads.list_games(sid, limit=10**6)
    assert all(g.status in (GameStatus.DONE, GameStatus.NOT_PLAYED) for g in games)
    assert any(g.status == GameStatus.NOT_PLAYED for g in games)
    assert all(g.attempts <= 1 for g in games)
