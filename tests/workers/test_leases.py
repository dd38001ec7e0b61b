"""Leases that hold, on real Celery workers: an attempt stalled past its lease stops at its next
decision, and a call held up by the stall is withheld by its fence as it would go out (the clients'
fence, ``tests/test_fence.py``), so a bot never has more calls in flight than the capacity it declared.
The freeze falls anywhere in the game: before the fence, a check-then-send window let one call out
after the lease ran out (seen once in a CI run)."""

from __future__ import annotations

import os
import re
import signal
from pathlib import Path

import pytest

from league.competition.seasons import create_season
from league.policy import POLICY
from referee.botprocess import BotProcess, start_bot_process
from referee.games import spec
from store import GameStatus, Store, open_store
from tests.a_game import GAME, QUICK, scaled
from tests.workers.conftest import Workers, register
from tests.workers.slowbots import IN_FLIGHT_LOG_ENV
from tests.workers.test_celery_season import assert_each_game_once
from tests.workers.test_failures import Follow, owner_pid, running_owners, signal_all, wait_for


def calls(log: Path) -> list[tuple[str, int, int, int]]:
    """The counting bot's calls: (game id, seat, decision, calls in flight then)."""
    rows = []
    for line in log.read_text().splitlines():
        game, seat, decision, in_flight = line.split()
        rows.append((game, int(seat), int(decision), int(in_flight)))
    return rows


def freeze_a_running_game(store: Store, season_id: int, pids: list[int]) -> tuple[int, int]:
    """SIGSTOP one of ``pids`` while it holds a running game of the season; returns (pid, game id)."""
    def frozen() -> tuple[int, int] | None:
        busy = sorted(running_owners(store, season_id) & set(pids))
        if not busy:
            return None
        signal_all(busy, signal.SIGSTOP)
        held = {owner_pid(g.lease_owner): g.id for g in store.game_reads.list_games(season_id, status=GameStatus.RUNNING)
                if g.lease_owner and owner_pid(g.lease_owner) in busy}
        signal_all([p for p in busy if p not in held], signal.SIGCONT)
        if not held:
            return None
        pid, game_id = sorted(held.items())[0]
        signal_all([p for p in held if p != pid], signal.SIGCONT)
        return pid, game_id

    return wait_for(frozen, timeout_s=60, what="a running game to freeze")  # type: ignore[return-value]


def test_a_stalled_attempt_stops_calling_bots_when_its_game_is_played_again(
        workers: Workers, db_url: str, broker: str, sleepy_bots: list[BotProcess], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "in-flight.log"
    log.touch()
    monkeypatch.setenv(IN_FLIGHT_LOG_ENV, str(log))
    counting = start_bot_process("tests.workers.slowbots:CountsInFlight", 3, threads=8)
    try:
        store = open_store(db_url, policy=POLICY)
        names = register(store, [counting, *sleepy_bots[:2]])
        assert store.bots.get_bot_by_name(names[0]).capacity == 1  # type: ignore[union-attr]
        season_id = create_season(store, "stall", spec(GAME), names, [3], 3, 5, params=scaled(QUICK, 10))
        first, second = workers.start(concurrency=1), workers.start(concurrency=1)
        follow = Follow(store, broker, season_id)
        pid, game_id = freeze_a_running_game(store, season_id, [*first.children(), *second.children()])
        stalled = first if pid in first.children() else second
        try:
            # the lease runs out, the sweeper voids the attempt, and another attempt (at this
            # game or another, the counting bot sits at every table) calls the counting bot
            wait_for(lambda: store.game_reads.attempts(game_id)[0].outcome is not None, timeout_s=120, what="the void")
            wait_for(lambda: running_owners(store, season_id) - {pid}, timeout_s=120, what="another game running")
            seen = len(calls(log))
            wait_for(lambda: len(calls(log)) > seen, timeout_s=60, what="a call of the new attempt")
        finally:
            os.kill(pid, signal.SIGCONT)
        progress = follow.join()
    finally:
        counting.stop()
    assert_each_game_once(store, season_id, progress["total"])
    attempts = store.game_reads.attempts(game_id)
    assert [(a.outcome.value if a.outcome else None, a.detail) for a in attempts] == [
        ("voided", "lease expired"), ("done", None)], attempts
    in_flight = max(row[3] for row in calls(log))
    assert in_flight == 1, f"the capacity-1 bot had {in_flight} calls in flight"
    text = stalled.log.read_text(errors="replace")
    # stopped by the check before a decision, or (a freeze between that check and the send) by the call's fence
    assert re.search(r"stopped (before decision \d+|in decision \d+: seat \d+'s call not sent)", text), text[-3000:]
    assert "nothing stored" in text, text[-3000:]
