"""Bots that change behind their endpoint (served with ``start_bot_process("tests.workers.identity_bots:...")``).

Each answers as the reference ``odds`` bot, after a short sleep (so games of a bot overlap when
its capacity allows), and differs from its pair only in what its Describe declares: another
version, another capacity, or another name (another bot behind the same endpoint).
"""

from __future__ import annotations

import os
from pathlib import Path

from cardarena.v1 import bot_pb2
from tests.workers.slowbots import SleepyOdds


class VersionOne(SleepyOdds):
    """``versioned`` 1.0, capacity 4, 5 ms per decision."""

    name = "versioned"
    version = "1.0"
    capacity = 4
    sleep_s = 0.005


class VersionTwo(VersionOne):
    """The same bot, version 2.0."""

    version = "2.0"


#: The file :class:`Adjustable` reads its capacity from at every Describe (set before its process starts).
CAPACITY_FILE_ENV = "CARDARENA_TEST_CAPACITY_FILE"


class Adjustable(SleepyOdds):
    """``adjustable``, 100 ms per decision, declaring the capacity written in the file named by
    CAPACITY_FILE_ENV (its author lowers it without restarting it; served with several threads,
    so games the platform should not run at once would really overlap)."""

    name = "adjustable"
    sleep_s = 0.1

    def describe(self) -> bot_pb2.DescribeResponse:
        answer = super().describe()
        answer.capacity = int(Path(os.environ[CAPACITY_FILE_ENV]).read_text())
        return answer


class Impostor(SleepyOdds):
    """Another bot, ``impostor``, put behind a registered bot's endpoint."""

    name = "impostor"
    version = "6.6.6"
    capacity = 4
    sleep_s = 0.0
