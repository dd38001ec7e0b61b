"""Where a worker makes its sandboxes' cgroups and what it writes there, on cgroup v2 and v1.

The kernel's own behaviour (limits, kills) is tested by the attacks (``test_exhausting``, ``test_escaping``) on this
machine's hierarchy; here a hierarchy laid out in files checks which files each version writes, so the v2 limits,
which a machine whose memory, cpu and pids controllers sit in cgroup v1 cannot set, are checked too, and the v2 kill
and CPU accounting run for real on the kernel's unified hierarchy where the machine has one.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hosting.cgroups import PARENT, Cgroup, CgroupUnavailable, ResourceLimits, hierarchy

LIMITS = ResourceLimits(memory_bytes=256 << 20, cpus=1.5, pids=64)


def test_v2_enables_the_controllers_below_the_workers_cgroup_and_writes_every_limit(tmp_path: Path) -> None:
    (tmp_path / "cgroup.controllers").write_text("cpuset cpu io memory pids\n")
    own = tmp_path / "system.slice" / "cardarena.service"
    own.mkdir(parents=True)
    (own / "cgroup.controllers").write_text("cpu io memory pids\n")
    (own / "cgroup.subtree_control").write_text("io\n")
    found = hierarchy(tmp_path, "0::/system.slice/cardarena.service\n")
    assert found.version == 2 and found.parents == {"": own / PARENT}
    assert (own / "cgroup.subtree_control").read_text() == "+cpu +memory +pids"
    group = found.create("7-1-bot3", LIMITS)
    d = own / PARENT / "7-1-bot3"
    assert (d / "memory.max").read_text() == str(256 << 20)
    assert (d / "cpu.max").read_text() == "150000 100000" and (d / "cpu.weight").read_text() == "100"
    assert (d / "pids.max").read_text() == "64"
    assert group.dirs == {"": d}


def test_v2_without_the_controllers_delegated_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "cgroup.controllers").write_text("cpu memory pids\n")
    own = tmp_path / "user.slice"
    own.mkdir()
    (own / "cgroup.controllers").write_text("memory\n")
    with pytest.raises(CgroupUnavailable, match="cpu, pids are not delegated"):
        hierarchy(tmp_path, "0::/user.slice\n")


def test_v1_uses_each_controllers_own_path(tmp_path: Path) -> None:
    for controller in ("memory", "cpu", "pids", "freezer"):
        (tmp_path / controller).mkdir()
    (tmp_path / "memory" / "process_api" / "abc").mkdir(parents=True)  # the worker's own memory cgroup
    own = "4:memory:/process_api/abc\n3:pids:/\n2:freezer:/\n1:cpu:/\n0::/\n"
    found = hierarchy(tmp_path, own)
    assert found.version == 1
    assert found.parents["memory"] == tmp_path / "memory" / "process_api" / "abc" / PARENT
    assert found.parents["cpu"] == tmp_path / "cpu" / PARENT and "freezer" in found.parents
    group = found.create("9-2-bot1", LIMITS)
    assert (group.dirs["cpu"] / "cpu.cfs_quota_us").read_text() == "150000"
    assert (group.dirs["memory"] / "memory.limit_in_bytes").read_text() == str(256 << 20)


def test_no_cgroups_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(CgroupUnavailable, match="no cgroup memory, cpu, pids controller"):
        hierarchy(tmp_path, "0::/\n")


def _unified_hierarchy() -> Path | None:
    """A writable cgroup v2 hierarchy of this machine: ``/sys/fs/cgroup`` itself, or the unified one of a hybrid
    layout (``/sys/fs/cgroup/unified``); None where there is none."""
    for root in (Path("/sys/fs/cgroup"), Path("/sys/fs/cgroup/unified")):
        if (root / "cgroup.controllers").exists() and os.access(root, os.W_OK):
            return root
    return None


def test_v2_kills_every_process_of_a_real_cgroup_even_a_daemon_that_left_its_session() -> None:
    """The v2 path on the kernel's own hierarchy (where this machine has one: its unified hierarchy holds no
    memory, cpu or pids controller, so the limits stay tested on files above and by the attacks on v1): a bot's
    process that forks children and a daemon that double-forks into a session of its own, all in the cgroup;
    ``Cgroup.kill`` (``cgroup.kill``) leaves none of them, and the cgroup's CPU time is read from ``cpu.stat``."""
    root = _unified_hierarchy()
    if root is None:
        pytest.skip("no writable cgroup v2 hierarchy on this machine")
    d = root / f"cardarena-test-{os.getpid()}"
    d.mkdir()
    group = Cgroup(2, {"": d})
    script = ("import os, sys, time\n"
              "sys.stdin.readline()\n"  # wait until the test has put this process in the cgroup
              "for _ in range(3):\n"
              "    if os.fork() == 0:\n"
              "        time.sleep(600)\n"
              "middle = os.fork()\n"  # a daemon: a session of its own, its parent gone (and reaped)
              "if middle == 0:\n"
              "    os.setsid()\n"
              "    if os.fork() == 0:\n"
              "        time.sleep(600)\n"
              "    os._exit(0)\n"
              "os.waitpid(middle, 0)\n"
              "print('forked', flush=True)\n"
              "x = 0\n"
              "for i in range(3_000_000):\n"  # some CPU time for cpu.stat
              "    x += i\n"
              "time.sleep(600)\n")
    proc = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        group.add(proc.pid)
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
        assert proc.stdout.readline().strip() == "forked"
        deadline = time.monotonic() + 10
        # the bot, 3 children and the daemon: 5 once the daemon's first parent has exited
        while len(group.pids()) != 5 and time.monotonic() < deadline:
            time.sleep(0.01)
        members = group.pids()
        assert len(members) == 5 and proc.pid in members
        time.sleep(0.3)
        usage = group.cpu_usage_ns()
        assert usage is not None and usage > 0
        assert group.kill(timeout_s=5)
        assert group.pids() == set()
        for pid in members:  # gone, or a zombie its parent has not reaped yet
            try:
                assert Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
            except FileNotFoundError:
                pass
    finally:
        group.kill(timeout_s=5)
        proc.wait(timeout=10)
        group.remove()
    assert not d.exists()
