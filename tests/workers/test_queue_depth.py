"""The follower's reading of the games queue's depth on a real Redis broker (no workers consume it)."""

from __future__ import annotations

from sqlalchemy import event
from sqlalchemy.engine import Engine

from referee.botprocess import BotProcess
from tests.workers.test_bots_down import bots, season  # noqa: F401 (the fixture)
from workers.celery_app import GAMES_QUEUE, configure
from workers.follower import PRIORITY_AGAIN, PRIORITY_NEW, SeasonFollower


def test_the_queue_depth_counts_the_messages_of_every_priority(bots: list[BotProcess], broker: str,  # noqa: F811
                                                              db_url: str) -> None:
    store, sid, _ = season(db_url, bots, "depth", 6, 600)
    follower = SeasonFollower(store, configure(broker), sid, stall_s=60)
    try:
        assert follower.queue_depth() == 0  # no list in Redis yet
        assert follower._send([1, 2, 3], PRIORITY_NEW) == [1, 2, 3]
        assert follower._send([4], PRIORITY_AGAIN) == [4]
        assert follower.queue_depth() == 4
        assert follower.queue_depth() == 4  # asked again on the same client
        kombu_says = follower._connection().default_channel.queue_declare(GAMES_QUEUE, passive=True).message_count
        assert kombu_says == 4
    finally:
        follower.close()
        store.close()


class Statements:
    """SQL statements run by this process while entered (a SQLAlchemy engine event)."""

    def __init__(self) -> None:
        self.count = 0

    def _seen(self, *_: object) -> None:
        self.count += 1

    def __enter__(self) -> Statements:
        event.listen(Engine, "before_cursor_execute", self._seen)
        return self

    def __exit__(self, *exc: object) -> None:
        event.remove(Engine, "before_cursor_execute", self._seen)


def test_a_tick_reads_the_store_only_once_the_queue_is_down_to_half_the_window(
        bots: list[BotProcess], broker: str, db_url: str) -> None:  # noqa: F811
    store, sid, _ = season(db_url, bots, "looks", 12, 600)
    follower = SeasonFollower(store, configure(broker), sid, window=4, stall_s=60, sweep_s=3600)
    try:
        follower.tick()  # the first tick sweeps, reads the store and fills the window
        assert (follower.stats.sent, follower.queue_depth()) == (4, 4)
        with Statements() as full:
            progress = follower.tick()
        assert full.count == 0 and follower.stats.sent == 4  # 4 waiting, more than half of 4: no look
        assert progress["pending"] == store.seasons.season_progress(sid)["pending"]  # the last look's progress
        channel = follower._connection().default_channel
        for _ in range(2):  # two messages taken, as workers take them
            assert channel.client.rpop(channel._q_for_pri(GAMES_QUEUE, PRIORITY_NEW)) is not None
        with Statements() as half:
            follower.tick()
        assert half.count > 0 and (follower.stats.sent, follower.queue_depth()) == (6, 4)  # looked, filled again
    finally:
        follower.close()
        store.close()
