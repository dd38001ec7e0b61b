"""workers.pool: processes that referee several games at once, and lose only their own games when killed."""

from __future__ import annotations

import os
import signal
import time

import pytest

from tests.workers.pool_jobs import Answer, fails, nap, setup
from workers.pool import Failed, GameError, GamePool, Lost


def _collect(pool: GamePool, count: int, limit_s: float = 60.0) -> tuple[list[Answer], list[Lost]]:
    """Wait for ``count`` answers (or lost games), failing after ``limit_s`` (a bound, not a timing)."""
    answers: list[Answer] = []
    lost: list[Lost] = []
    end = time.monotonic() + limit_s
    while len(answers) + sum(len(g.game_ids) for g in lost) < count:
        assert time.monotonic() < end, f"{len(answers)} answers and {lost} lost of {count}"
        got, gone = pool.wait(1.0)
        answers += got
        lost += gone
    return answers, lost


def test_each_process_plays_its_games_at_once_on_threads_of_its_own() -> None:
    with GamePool(2, 2, setup, ("x",), nap) as pool:
        for gid in range(4):
            assert pool.has_room()
            pool.submit(gid)
        answers, lost = _collect(pool, 4)
    assert not lost
    assert sorted(a.game_id for a in answers) == [0, 1, 2, 3]
    by_pid: dict[int, list[Answer]] = {}
    for a in answers:
        by_pid.setdefault(a.pid, []).append(a)
    assert len(by_pid) == 2 and all(len(games) == 2 for games in by_pid.values())  # the fewest-held process gets it
    for pair in by_pid.values():
        first, second = sorted(pair, key=lambda a: a.began)
        assert first.thread != second.thread
        assert second.began < first.ended  # the two overlapped in one process


def test_a_process_holds_its_games_and_one_waiting_no_more() -> None:
    with GamePool(1, 2, setup, ("x",), nap) as pool:
        for gid in (1000, 1001, 1002):
            pool.submit(gid)
        assert not pool.has_room()
        with pytest.raises(RuntimeError, match="full"):
            pool.submit(1003)


def test_a_game_that_raises_answers_failed_with_the_traceback() -> None:
    with GamePool(1, 1, setup, ("x",), fails) as pool:
        pool.submit(7)
        (answer,), _ = _collect(pool, 1)
    assert isinstance(answer, Failed) and answer.game_id == 7
    error = answer.error()
    assert isinstance(error, GameError) and "ValueError: no game 7" in str(error)


def test_a_killed_process_loses_only_its_own_games_and_is_replaced() -> None:
    with GamePool(2, 1, setup, ("x",), nap) as pool:
        pool.submit(1000)  # never-ending games, one to each process (the one holding fewer)
        pool.submit(1001)
        target = sorted(pool.pids)[0]
        os.kill(target, signal.SIGKILL)
        _, gone = _collect(pool, 1)
        assert [g.pid for g in gone] == [target]
        assert len(gone[0].game_ids) == 1 and gone[0].game_ids[0] in (1000, 1001)  # its own game only
        assert target not in pool.pids and len(pool.pids) == 2  # replaced at once
        pool.submit(3)  # to the new process: the survivor still holds its game
        (after,), lost = _collect(pool, 1)
    assert not lost and after.game_id == 3 and after.pid not in (target,)
