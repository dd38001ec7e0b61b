"""Bot servers in child processes: started on a CPU of their own when asked, and answering there."""

from __future__ import annotations

import os

import pytest

from referee.botprocess import start_bot_process
from referee.clients import GrpcBotClient


def _threads_affinity(pid: int) -> set[frozenset[int]]:
    """The CPU sets of every thread of process ``pid``."""
    return {frozenset(os.sched_getaffinity(int(tid))) for tid in os.listdir(f"/proc/{pid}/task")}


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="CPU affinity is a Linux call")
def test_a_bot_process_on_one_cpu_runs_every_thread_there() -> None:
    cpu = max(os.sched_getaffinity(0))
    bot = start_bot_process("random", 0, cpu=cpu)
    try:
        assert GrpcBotClient(bot.endpoint).describe().name == "random"
        assert bot.process.pid is not None
        assert _threads_affinity(bot.process.pid) == {frozenset({cpu})}
    finally:
        bot.stop()


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="CPU affinity is a Linux call")
def test_a_cpu_the_machine_lacks_fails_the_start() -> None:
    with pytest.raises(RuntimeError, match="failed to start"):
        start_bot_process("random", 0, cpu=4096)


def test_without_a_cpu_the_process_keeps_the_parents_cpus() -> None:
    bot = start_bot_process("random", 0)
    try:
        assert bot.process.pid is not None
        assert _threads_affinity(bot.process.pid) == {frozenset(os.sched_getaffinity(0))}
    finally:
        bot.stop()
