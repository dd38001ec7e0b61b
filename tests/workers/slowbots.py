"""Deterministic test bots that take their time (served with ``start_bot_process("tests.workers.slowbots:...")``).

In every game they answer exactly as that game's strong reference bot (``Conformance.strong_bot``, same
seed, same seeded choices), after a sleep, so a game lasts long enough to kill a worker in the middle of it
and a capacity-1 bot has calls that would overlap if the platform let them.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

from typing import Any

from google.protobuf.message import Message

from botsdk.bot import Bot, Context
from cardarena import games as protocol_games
from referee.bots import load_bot
from referee.games import games
from referee.games.conformance import conformance


class SleepyOdds(Bot):
    """Every game's strong reference bot (the first game's is ``odds``), 20 ms per decision, capacity 4."""

    name = "sleepy-odds"
    version = "1.0.0"
    author = "cardarena"
    capacity = 4
    sleep_s = 0.02

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self.games = tuple(games())
        self._strong = {g: load_bot(conformance(g).strong_bot, seed) for g in self.games}

    def decide(self, field: str, view: Message, ctx: Context) -> Any:
        """The game's strong bot's answer to ``view``, after :attr:`sleep_s` seconds."""
        time.sleep(self.sleep_s)
        return self.strong(field, view, ctx)

    def strong(self, field: str, view: Message, ctx: Context) -> Any:
        """The answer of the strong bot of the game whose protocol field is ``field``, at once."""
        return self._strong[protocol_games.name_of(field)].decide(field, view, ctx)


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

    def decide(self, field: str, view: Message, ctx: Context) -> Any:
        """Logs the call, then answers as :class:`SleepyOdds`."""
        with self._lock:
            self._in_flight += 1
            with self._log.open("a") as out:
                out.write(f"{ctx.game_id} {ctx.seat} {ctx.decision} {self._in_flight}\n")
        try:
            return super().decide(field, view, ctx)
        finally:
            with self._lock:
                self._in_flight -= 1


class Stalls(SleepyOdds):
    """Capacity 16, 2 s per decision: calls are still in progress when a test kills the process."""

    name = "stalls"
    capacity = 16
    sleep_s = 2.0
