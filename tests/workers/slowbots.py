"""Deterministic test bots that take their time (served with ``start_bot_process("tests.workers.slowbots:...")``).

They answer exactly as the reference ``odds`` bot (same seeded choices), after
a sleep, so a game lasts long enough to kill a worker in the middle of it and
a capacity-1 bot has calls that would overlap if the platform let them.
"""

from __future__ import annotations

import time

from botsdk.bot import Context
from botsdk.bots.slippery_sam import OddsBot
from cardarena.v1 import slippery_sam_pb2


class SleepyOdds(OddsBot):
    """The odds bot, 20 ms per decision, capacity 4."""

    name = "sleepy-odds"
    capacity = 4
    sleep_s = 0.02

    def slippery_sam(self, view: slippery_sam_pb2.SlipperySamView, ctx: Context) -> slippery_sam_pb2.SlipperySamAction:
        time.sleep(self.sleep_s)
        return super().slippery_sam(view, ctx)


class OneAtATime(SleepyOdds):
    """Capacity 1, 50 ms per decision: served with one thread, concurrent games would queue on it."""

    name = "one-at-a-time"
    capacity = 1
    sleep_s = 0.05
