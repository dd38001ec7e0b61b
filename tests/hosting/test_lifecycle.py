"""The life of a hosted bot on a worker: started when a game needs it, reused, stopped when idle, restarted
after a crash, never more copies than the machine's slots; a copy swapped for another bot is never reached.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import signal
import time
from functools import partial
from pathlib import Path

import pytest

from hosting.cgroups import Cgroup
from hosting.launch import HostingConfig
from hosting.supervisor import IDLE_CPU_SHARE, HostingError, Supervisor
from referee.clients import BotCallError, GrpcBotClient, tcp_probe
from store import Store
from tests.a_game import GAME, first_request
from tests.hosting.conftest import bot_dir, store_bot
from workers.hosted import HostedClient

PLAIN = f"from botsdk import Bot\nclass Hostile(Bot):\n    games = ({GAME!r},)\n"


class Clock:
    """A monotonic clock the test moves."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def quiet_for(cgroup: Cgroup, seconds: float, timeout_s: float = 30.0) -> None:
    """Wait until ``cgroup`` (a sandbox's) used less than ``IDLE_CPU_SHARE`` of a core over ``seconds`` of real time
    (an idle server's own wake-ups); AssertionError after ``timeout_s`` (a copy that never goes quiet would never
    count as idle)."""
    deadline = time.monotonic() + timeout_s
    used = cgroup.cpu_usage_ns() or 0
    while time.monotonic() < deadline:
        time.sleep(seconds)
        now = cgroup.cpu_usage_ns() or 0
        if now - used < IDLE_CPU_SHARE * seconds * 1e9:
            return
        used = now
    raise AssertionError(f"the copy used {IDLE_CPU_SHARE:.0%} of a core or more in every {seconds} s for {timeout_s} s")


def test_started_on_demand_reused_then_stopped_when_idle(tmp_path: Path, store: Store, config: HostingConfig) -> None:
    clock = Clock()
    sup = Supervisor(store.artifacts, config, clock=clock, reaper=False)
    try:
        sha = store_bot(store, bot_dir(tmp_path, PLAIN), config)
        assert sup.running() == {}  # nothing runs before a game needs it
        first = sup.endpoint(sha)
        sandbox = sup.running()[sha]
        assert GrpcBotClient(first).health(5.0) is None
        assert sup.endpoint(sha) == first and sup.starts == 1  # reused
        cgroup = sandbox.cgroup
        # the copy goes quiet once it answered (on a loaded machine its start's last work may take a while):
        # the supervisor's clock is the test's, but the CPU it reads is real
        quiet_for(cgroup, 0.5)
        clock.now += config.idle_s / 2
        assert sup.reap_idle() == []  # not idle long enough
        clock.now += config.idle_s / 2 + 1
        assert sup.reap_idle() == [sha]
        assert not sandbox.alive() and not cgroup.pids()
        assert tcp_probe(first, 1.0) is not None  # its socket refuses: unreachable, never another bot
        assert sup.endpoint(sha) == first and sup.starts == 2  # the same endpoint, a new copy
    finally:
        sup.close()


def test_a_decision_asked_keeps_a_copy_however_quiet(tmp_path: Path, store: Store, config: HostingConfig) -> None:
    """A game in flight whose other seats think long: each decision asked through the worker's client marks the
    copy used, so it is not stopped under the game."""
    clock = Clock()
    sup = Supervisor(store.artifacts, config, clock=clock, reaper=False)
    try:
        sha = store_bot(store, bot_dir(tmp_path, PLAIN), config)
        client = HostedClient(sup.endpoint(sha), "unary", partial(sup.touch, sha))
        quiet_for(sup.running()[sha].cgroup, 0.5)
        clock.now += config.idle_s - 1
        with contextlib.suppress(BotCallError):  # the answer does not matter: the question was asked
            client.call(first_request(), 5.0)
        clock.now += 2
        assert sup.reap_idle() == []  # idle_s + 1 since the lookup, 1 since the decision
        clock.now += config.idle_s
        assert sup.reap_idle() == [sha]
    finally:
        sup.close()


def test_a_working_copy_is_not_stopped_and_a_quiet_one_is(tmp_path: Path, store: Store, config: HostingConfig) -> None:
    """With no lookup and no decision asked for longer than ``idle_s``: a copy at work (a thread that computes, as
    in a long decision or a game of another process that borrowed it) stays, a quiet one (its server's own wake-ups
    only) is stopped. Real time passes here: the CPU the supervisor reads is real."""
    busy = PLAIN + "import threading\n\ndef spin():\n    while True:\n        pass\n\nthreading.Thread(target=spin, daemon=True).start()\n"
    clock = Clock()
    short = dataclasses.replace(config, idle_s=1.0)
    sup = Supervisor(store.artifacts, short, clock=clock, reaper=False)
    try:
        working, quiet = (store_bot(store, bot_dir(tmp_path, source), short) for source in (busy, PLAIN))
        sup.endpoint(working), sup.endpoint(quiet)
        stopped = []
        for _ in range(6):  # 3 s of both clocks, three times idle_s
            time.sleep(0.5)
            clock.now += 0.5
            stopped += sup.reap_idle()
        assert stopped == [quiet] and list(sup.running()) == [working]
    finally:
        sup.close()


def test_a_crashed_bot_is_restarted_at_its_next_game(tmp_path: Path, store: Store, supervisor: Supervisor,
                                                     config: HostingConfig) -> None:
    sha = store_bot(store, bot_dir(tmp_path, PLAIN), config)
    endpoint = supervisor.endpoint(sha)
    sandbox = supervisor.running()[sha]
    for pid in sandbox.cgroup.pids():  # every process of the bot: one that exits meanwhile is gone already
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    sandbox.wait(5)
    assert GrpcBotClient(endpoint).health(2.0) is not None
    assert supervisor.endpoint(sha) == endpoint
    assert supervisor.running()[sha] is not sandbox and supervisor.starts == 2
    assert GrpcBotClient(endpoint).health(5.0) is None


def test_a_bot_that_cannot_start_says_why(tmp_path: Path, store: Store, supervisor: Supervisor,
                                          config: HostingConfig) -> None:
    sha = store_bot(store, bot_dir(tmp_path, "import sys\nprint('no luck today', file=sys.stderr)\nraise SystemExit(3)\n"),
                    config)
    with pytest.raises(HostingError, match="no luck today"):
        supervisor.endpoint(sha)
    with pytest.raises(HostingError, match="no luck today"):  # remembered for a moment: no start per lookup
        supervisor.endpoint(sha)
    assert supervisor.starts == 0 and supervisor.running() == {}


def test_never_more_copies_than_the_slots(tmp_path: Path, store: Store, config: HostingConfig) -> None:
    one = HostingConfig(config.directory, config.limits, config.tmp_bytes, config.artifact_limits,
                        config.start_timeout_s, config.idle_s, copies=1)
    sha = store_bot(store, bot_dir(tmp_path, PLAIN), config)
    first, second = Supervisor(store.artifacts, one), Supervisor(store.artifacts, one)  # two worker processes
    try:
        endpoint = first.endpoint(sha)
        borrowed = second.endpoint(sha)
        assert second.starts == 0 and second.running() == {}
        assert borrowed == endpoint  # every slot taken: it uses the running copy
        assert GrpcBotClient(borrowed).health(5.0) is None
        first.stop(sha)
        started = second.endpoint(sha)  # the slot is free again: a copy of its own
        assert second.starts == 1 and started != endpoint
    finally:
        first.close()
        second.close()


def test_the_copies_of_a_stopped_process_are_gone(tmp_path: Path, store: Store, config: HostingConfig) -> None:
    sha = store_bot(store, bot_dir(tmp_path, PLAIN), config)
    sup = Supervisor(store.artifacts, config)
    sup.endpoint(sha)
    cgroup = sup.running()[sha].cgroup
    tasks = cgroup.pids()
    sup.close()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(Path(f"/proc/{p}").exists() for p in tasks):
        time.sleep(0.05)
    assert not cgroup.pids()


def test_two_bots_of_the_same_files_never_share_a_process(tmp_path: Path, store: Store, supervisor: Supervisor,
                                                         config: HostingConfig) -> None:
    path = bot_dir(tmp_path, PLAIN)
    one, two = store_bot(store, path, config, "one"), store_bot(store, path, config, "two")
    assert one.sha256 == two.sha256 and one.bot_id != two.bot_id
    assert supervisor.endpoint(one) != supervisor.endpoint(two)
    sandboxes = supervisor.running()
    assert sandboxes[one].pid != sandboxes[two].pid and not sandboxes[one].cgroup.pids() & sandboxes[two].cgroup.pids()


def test_a_hosting_directory_the_sandbox_cannot_reach_is_one_line(tmp_path: Path, store: Store,
                                                                  config: HostingConfig) -> None:
    if os.geteuid() != 0:
        pytest.skip("only a root worker runs sandboxes as another user (nobody)")
    closed = tmp_path / "closed"
    closed.mkdir(mode=0o700)
    hidden = HostingConfig(closed / "hosting", config.limits, config.tmp_bytes, config.artifact_limits)
    sup = Supervisor(store.artifacts, hidden)
    try:
        sha = store_bot(store, bot_dir(tmp_path, PLAIN), config)
        with pytest.raises(HostingError) as refused:
            sup.endpoint(sha)
        said = str(refused.value)  # the first parent the sandbox cannot pass (pytest's own tmp root is 0700 too)
        assert "is mode 700" in said and "nobody cannot pass through" in said and "\n" not in said
    finally:
        sup.close()
