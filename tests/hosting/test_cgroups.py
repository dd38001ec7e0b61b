"""Where a worker makes its sandboxes' cgroups and what it writes there, on cgroup v2 and v1.

The kernel's own behaviour (limits, kills) is tested by the attacks (``test_exhausting``, ``test_escaping``) on this
machine's hierarchy; here a hierarchy laid out in files checks which files each version writes, so the v2 path,
which this machine (cgroup v1) cannot run, is checked too.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hosting.cgroups import PARENT, CgroupUnavailable, ResourceLimits, hierarchy

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
