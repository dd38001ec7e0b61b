"""Deterministic test bots that take their time (served with ``start_bot_process("tests.workers.slowbots:...")``).

They answer exactly as the reference ``odds`` bot (same seeded choices), after
a sleep, so a game lasts long enough to kill a worker in the middle of it and
a capacity-1 bot has calls that would overlap if the platform let them.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

from botsdk.bot import Context
from referee.games.slippery_sam.bots import OddsBot
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


#: Where :class:`CountsInFlight` appends a line per call (set before the bot's process starts).
IN_FLIGHT_LOG_ENV = "CARDARENA_TEST_IN_FLIGHT_LOG"


class CountsInFlight(SleepyOdds):
    """Capacity 1, 150 ms per decision, served with several threads so that calls the platform
    should not make at once really overlap: each call appends ``game_id seat decision in_flight``
    (calls in progress in this server, this one included) to the file named by IN_FLIGHT_LOG_ENV."""

    name = "counts-in-flight"
    capacity = 1
    sleep_s = 0.15

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self._lock = threading.Lock()
        self._in_flight = 0
        self._log = Path(os.environ[IN_FLIGHT_LOG_ENV])

    def slippery_sam(self, view: slippery_sam_pb2.SlipperySamView, ctx: Context) -> slippery_sam_pb2.SlipperySamAction:
        with self._lock:
            self._in_flight += 1
            with self._log.open("a") as out:
                out.write(f"{ctx.game_id} {ctx.seat} {ctx.decision} {self._in_flight}\n")
        try:
            return super().slippery_sam(view, ctx)
        finally:
            with self._lock:
                self._in_flight -= 1


class Stalls(SleepyOdds):
    """Capacity 16, 2 s per decision: calls are still in progress when a test kills the process."""

    name = "stalls"
    capacity = 16
    sleep_s = 2.0
