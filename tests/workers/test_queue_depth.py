"""The follower's reading of the games queue's depth on a real Redis broker (no workers consume it)."""

from __future__ import annotations

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
