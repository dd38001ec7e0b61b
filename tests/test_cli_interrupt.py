"""`cardarena season run` stopped by SIGTERM as by Ctrl-C: a clean exit, its running game released at once,
and a second run resuming the season with its progress counted over the whole season."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from botsdk import Bot
from league.competition.seasons import create_season
from league.policy import POLICY
from referee.bots import load_bot
from referee.games import spec
from store import open_store
from tests.a_game import GAME, SHORT, STRONG
from workers.local import INTERRUPTED

REPO = Path(__file__).parents[1]
#: Seconds a held decision waits at most (the test releases it long before).
HOLD_MAX_S = 120.0
#: Games of the season: enough that games are left to stop when the first two are done, however short a game is.
GAMES = 12


class HeldBot(Bot):
    """Plays GAME as its strong reference bot does, but while ``hold`` is set each decision waits (``waiting`` is set)."""

    name = "held"
    games = (GAME,)
    capacity = 4

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.inner = load_bot(STRONG, seed)
        self.hold = threading.Event()
        self.waiting = threading.Event()
        self.released = threading.Event()

    def decide(self, field, view, ctx):
        if self.hold.is_set():
            self.waiting.set()
            self.released.wait(HOLD_MAX_S)
        return self.inner.decide(field, view, ctx)


def _wait_for(condition, what: str, limit_s: float = 300.0) -> None:
    """Poll ``condition`` until true; fail naming ``what`` after ``limit_s`` (a bound, not a timing margin)."""
    end = time.monotonic() + limit_s
    while not condition():
        assert time.monotonic() < end, f"gave up waiting for {what}"
        time.sleep(0.05)


def test_sigterm_stops_season_run_cleanly_releases_its_game_and_the_rerun_counts_the_whole_season(
        tmp_path: Path, bot_server) -> None:
    url = f"sqlite:///{tmp_path / 'stop.db'}"
    store = open_store(url, policy=POLICY)
    held = HeldBot(1)
    endpoints = [bot_server(held), bot_server(load_bot(STRONG, 2)), bot_server(load_bot("random", 3))]
    names = ["held", "p2", "r3"]
    for name, endpoint in zip(names, endpoints, strict=True):
        store.bots.register_bot(name, endpoint, "1", "tests", [GAME], capacity=4)
    season_id = create_season(store, "stop-me", spec(GAME), names, [3], GAMES, 1, params=dict(SHORT))
    command = [sys.executable, "-m", "cli.main", "season", "run", "stop-me", "--workers", "1", "--db", url]

    first = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for(lambda: store.seasons.season_progress(season_id)["done"] >= 2, "two games done")
        held.hold.set()
        _wait_for(held.waiting.is_set, "a decision held")  # a game is being played now, and stays so
        time.sleep(0.5)  # the process's second game (games_per_process) reaches its held decision too
        running = store.seasons.season_progress(season_id)["running"]
        assert 1 <= running <= 2  # the one process referees up to two games at once
        first.send_signal(signal.SIGTERM)  # the parent only, as `kill PID` does
        out, err = first.communicate(timeout=120)
    finally:
        held.released.set()
        if first.poll() is None:
            first.kill()
    assert first.returncode == 130, (out, err)
    assert err.strip() == "", err  # the stopped line says it all: no "aborted", no traceback, no leaked-semaphore warning
    progress = store.seasons.season_progress(season_id)
    played = progress["done"] + progress["failed"]
    assert progress["running"] == 0 and progress["pending"] == GAMES - played  # released on the way out, not left running
    assert (f"stopped: {played} of {GAMES} games played ({played} done, {GAMES - played} pending); the season is paused: run "
            f"cardarena season run stop-me --db {url} again to resume it") in out
    assert out.rstrip().endswith("again to resume it")
    assert store.seasons.get_season(season_id).state == "paused"
    interrupted = [a for g in store.game_reads.list_games(season_id, limit=10) for a in store.game_reads.attempts(g.id) if a.detail == INTERRUPTED]
    assert len(interrupted) == running

    held.hold.clear()
    again = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    lines = [line for line in again.stdout.splitlines() if line.startswith("season stop-me: ")]
    assert lines[0].startswith(f"season stop-me: {played}/{GAMES} games") and lines[-1].startswith(f"season stop-me: {GAMES}/{GAMES} games")
    assert store.seasons.season_progress(season_id)["done"] == GAMES
    assert store.seasons.get_season(season_id).state == "done"
    assert "this run: " in again.stdout and f"whole season stop-me: {GAMES} done, 0 failed, 0 not played" in again.stdout
    store.close()


def test_a_game_interrupted_again_and_again_goes_back_to_pending_not_to_failed(tmp_path: Path) -> None:
    from store import MAX_ATTEMPTS
    from workers.local import release_interrupted

    store = open_store(f"sqlite:///{tmp_path / 'again.db'}", policy=POLICY)
    ids = [store.bots.register_bot(n, "127.0.0.1:1", "1", "t", [GAME]) for n in ("a", "b", "c")]
    season_id = store.seasons.create_season("again", GAME, {}, {}, 1, {}, [(5, ids)])
    (gid,) = store.seasons.next_pending(season_id)
    for attempt in range(1, MAX_ATTEMPTS + 2):
        claim = store.games.claim_game(gid, "host:1", 60)
        assert claim is not None and claim.attempt == attempt
        assert release_interrupted(store, [gid], {"someone-else:2"}) == []  # not ours: left alone
        assert release_interrupted(store, [gid], {"host:1"}) == [gid]
        assert store.game_reads.get_game(gid).status == "pending"
    assert [a.detail for a in store.game_reads.attempts(gid)] == [INTERRUPTED] * (MAX_ATTEMPTS + 1)
    store.close()


_CLEANUP_LOGS = """
import logging
from cli.common import sigterm_as_interrupt

pool = logging.getLogger("sqlalchemy.pool.impl.QueuePool")

def log(exc, message):
    try:
        raise exc
    except BaseException:
        pool.error(message, exc_info=True)

with sigterm_as_interrupt():
    log(KeyboardInterrupt(), "Exception during reset or similar (inside)")
    log(OSError("disk full"), "Exception closing connection (inside)")
log(KeyboardInterrupt(), "Exception during reset or similar (after)")
"""


def test_a_stop_that_lands_in_a_librarys_cleanup_prints_no_traceback_but_real_errors_still_print() -> None:
    """A SIGTERM or Ctrl-C raised inside SQLAlchemy's pool cleanup is logged by it as an error with a
    traceback before it stops the command; under ``sigterm_as_interrupt`` that record is dropped,
    while any other error is still printed (run as the CLI runs: no logging configured)."""
    done = subprocess.run([sys.executable, "-c", _CLEANUP_LOGS], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "similar (inside)" not in done.stderr
    assert "Exception closing connection (inside)" in done.stderr and "disk full" in done.stderr
    assert "similar (after)" in done.stderr  # outside the block a stop's record is no longer dropped


def test_an_error_a_library_raises_as_a_stop_passes_through_it_is_the_stop(capsys) -> None:
    """SIGTERM raised in the middle of SQLAlchemy's commit came out of the store as its own AssertionError (``assert
    not self.is_active``, the KeyboardInterrupt in its context): ``ladder run`` then printed a traceback and exited
    1. Such an error is the stop: the run says how far it got and exits 130; an error with no stop behind it, or
    raised outside a stopped block, is still an error."""
    import os

    import pytest

    from cli.common import Stopped, is_stop, sigterm_as_interrupt
    from cli.progress import resumable
    from store.seasons import PROGRESS_KEYS

    def commit_interrupted() -> None:
        try:
            os.kill(os.getpid(), signal.SIGTERM)  # lands here, as it did inside the commit
            time.sleep(5)
        except KeyboardInterrupt:
            raise AssertionError  # what the library raised on its way out

    progress = {key: 0 for key in PROGRESS_KEYS} | {"done": 3, "pending": 9, "total": 12}
    with sigterm_as_interrupt(), pytest.raises(Stopped) as stopped:
        with resumable(lambda: progress, "cardarena ladder run lad", "the ladder"):
            commit_interrupted()
    assert stopped.value.code == 130
    assert "stopped: 3 of 12 games played" in capsys.readouterr().out
    with sigterm_as_interrupt(), pytest.raises(ValueError):  # no stop came: an error is an error
        with resumable(lambda: progress, "cardarena ladder run lad", "the ladder"):
            try:
                raise KeyboardInterrupt  # not a signal: no stop is recorded
            except KeyboardInterrupt:
                raise ValueError("a real error") from None
    assert not is_stop(AssertionError())
