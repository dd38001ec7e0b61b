"""A game refused for capacity waits on the receiving worker's own monotonic clock, not on an ETA
stamped by the sending worker's wall clock: with one of two workers a minute off (real processes
under libfaketime, on PostgreSQL), a capacity-1 bot is never left idle for long while its games wait.

Before, the retry was a Celery countdown, which Celery turns into an ETA from the sending worker's
clock: a worker 60 s ahead made the other hold such games about 60 s (seasons limited by a
capacity-1 bot took 74-95 s instead of 44-53 s)."""

from __future__ import annotations

from pathlib import Path

import pytest

from league.competition.seasons import create_season
from league.policy import POLICY
from referee.botprocess import BotProcess, start_bot_process
from referee.games import spec
from store import open_store
from tests.a_game import GAME, QUICK
from tests.workers.conftest import Workers, register
from tests.workers.test_celery_season import assert_each_game_once
from tests.workers.test_clocks import LIBFAKETIME, process_clock_offset, shifted
from tests.workers.test_failures import Follow

#: The longest a capacity-1 bot may sit idle while one of its games is pending and retried: a
#: correctness bound (a retry a minute late is a bug), far above the half second a retry waits.
MAX_IDLE_S = 20.0
#: Seconds two attempts' database times may seem to overlap without overlapping (see longest_idle_s): a claim's
#: stamp is its transaction's start, and on a loaded 2-core machine a claim's transaction was seen to start 0.13 s
#: before the previous game's result was stored. Two games really played at once overlap by most of a game (about
#: half a second here).
OVERLAP_SLACK_S = 0.3


def longest_idle_s(db_url: str, season_id: int, bot: str) -> tuple[float, int]:
    """The longest gap (seconds) between the end of one of ``bot``'s games and the start of its next,
    and the number of its games; asserts its games never overlap and no seat faulted. The times are
    the attempts' (the database's clock): the records' are each worker's own, a minute apart here."""
    store = open_store(db_url, policy=POLICY)
    spans = []
    for game in store.game_reads.list_games(season_id, limit=10**6):
        record = store.replays.get_replay(game.id)
        assert record is not None and record.faults == [], (game.number, record and record.faults)
        if any(s.bot_name == bot for s in game.seats):
            attempt = store.game_reads.attempts(game.id)[-1]
            assert attempt.ended_at is not None, game.number
            spans.append((attempt.started_at, attempt.ended_at))
    spans.sort()
    for (a0, a1), (b0, b1) in zip(spans, spans[1:]):  # PostgreSQL's now() is its transaction's start: a claim
        # begun while the last result's transaction ran may stamp a time a little before that result's
        assert (a1 - b0).total_seconds() < OVERLAP_SLACK_S, f"two games of {bot} overlap: {a0}-{a1} and {b0}-{b1}"
    gaps = [(b0 - a1).total_seconds() for (_, a1), (b0, _) in zip(spans, spans[1:])]
    return max(gaps, default=0.0), len(spans)


@pytest.mark.parametrize("skew_s", [60, -60])
def test_a_worker_a_minute_off_does_not_hold_games_refused_for_capacity(
        pg_url: str, broker: str, tmp_path: Path, reference_bots: list[BotProcess], skew_s: int) -> None:
    if not LIBFAKETIME.exists():
        pytest.skip(f"libfaketime is not installed ({LIBFAKETIME}): apt-get install faketime")
    assert abs(process_clock_offset(shifted(skew_s)) - skew_s) < 30  # the shift takes effect
    slow = start_bot_process("tests.workers.slowbots:OneAtATime", 5, threads=1)
    on_time = Workers(broker, pg_url, tmp_path / "on-time")
    off = Workers(broker, pg_url, tmp_path / "off", env=shifted(skew_s))
    (tmp_path / "on-time").mkdir()
    (tmp_path / "off").mkdir()
    try:
        store = open_store(pg_url, policy=POLICY)
        names = register(store, [*reference_bots, slow])
        assert store.bots.get_bot_by_name(names[4]).capacity == 1
        season_id = create_season(store, "busy-skew", spec(GAME), names, [3], 30, 3, params=dict(QUICK))
        on_time.start(concurrency=2)
        off.start(concurrency=2)
        # lost_after_s out of the way: a held retry is not rescued by the follower sending its game again
        progress = Follow(store, broker, season_id, lost_after_s=300).join()
    finally:
        on_time.stop_all()
        off.stop_all()
        slow.stop()
    assert_each_game_once(store, season_id, progress["total"])
    idle_s, games = longest_idle_s(pg_url, season_id, names[4])
    assert games >= 10
    assert idle_s < MAX_IDLE_S, f"{names[4]} sat idle {idle_s:.1f} s between two of its {games} games"
