"""Memory, CPU and process-count limits for a sandboxed bot, through the kernel's cgroups (v2 or v1).

Each sandbox gets a cgroup of its own, made under the worker process's own cgroup (read from
``/proc/self/cgroup``, per controller on v1) in a ``cardarena-hosted`` directory:

- **memory**: at most ``memory_bytes``, swap included (v2 ``memory.max`` and ``memory.swap.max`` 0; v1
  ``memory.limit_in_bytes`` and ``memory.memsw.limit_in_bytes`` where swap is accounted). Its ``/tmp`` is a
  tmpfs whose pages count here too. Past it the kernel's OOM killer kills in that cgroup only.
- **CPU**: the same fixed share for every bot: a quota of ``cpus`` CPUs per 100 ms period (v2 ``cpu.max``,
  v1 ``cpu.cfs_quota_us``) and the default weight (v2 ``cpu.weight`` 100, v1 ``cpu.shares`` 1024), so a bot
  never runs faster for being alone on a machine, nor gets more of a busy one than another bot (rules §4.12).
- **processes**: at most ``pids`` tasks (threads count; v2 and v1 ``pids.max``): a fork bomb stops there.

:meth:`Cgroup.kill` kills every task of the cgroup (v2 ``cgroup.kill``; v1: frozen, each task SIGKILLed,
thawed), so nothing of a bot outlives it. A machine with cgroup v2 mounted as the unified hierarchy uses
v2, else v1 with the memory, cpu and pids controllers mounted (Debian's hybrid mode counts as v1).
:func:`hierarchy` raises :class:`CgroupUnavailable` with one line saying what is missing.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

#: Where cgroup file systems are mounted.
CGROUP_ROOT = Path("/sys/fs/cgroup")
#: The directory, under the worker's own cgroup, holding every sandbox's cgroup.
PARENT = "cardarena-hosted"
#: Microseconds of one CPU period.
PERIOD_US = 100_000
#: v1 controllers needed (cpuacct and freezer are used when present).
V1_NEEDED = ("memory", "cpu", "pids")


class CgroupUnavailable(RuntimeError):
    """Cgroups cannot limit a sandbox here; the message says why, in one line."""


@dataclass(frozen=True)
class ResourceLimits:
    """A sandbox's limits: ``memory_bytes`` (swap included), ``cpus`` (CPUs of quota per period), ``pids``
    (tasks: processes and threads)."""

    memory_bytes: int
    cpus: float
    pids: int


def _write(path: Path, value: str) -> None:
    with open(path, "w") as handle:
        handle.write(value)


def _own_paths(text: str) -> dict[str, str]:
    """``{controller: path}`` from ``/proc/self/cgroup`` (v2's line is under ``""``)."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        for controller in parts[1].split(",") if parts[1] else [""]:
            out[controller] = parts[2]
    return out


class Cgroup:
    """One sandbox's cgroup (v1: one directory per controller; v2: one directory)."""

    def __init__(self, version: int, dirs: dict[str, Path]) -> None:
        self.version = version
        self.dirs = dirs  # controller ("" for v2) -> directory

    def _procs_files(self) -> list[Path]:
        return [d / "cgroup.procs" for d in self.dirs.values()]

    def add(self, pid: int) -> None:
        """Move process ``pid`` (and, on v2, its threads) into the cgroup, in every controller."""
        for procs in self._procs_files():
            _write(procs, str(pid))

    def pids(self) -> set[int]:
        """The processes in the cgroup now."""
        out: set[int] = set()
        for procs in self._procs_files():
            try:
                out |= {int(p) for p in procs.read_text().split()}
            except OSError:
                pass
        return out

    def cpu_usage_ns(self) -> int | None:
        """CPU time used by the cgroup's tasks so far, nanoseconds (None where not accounted)."""
        try:
            if self.version == 2:
                for line in (self.dirs[""] / "cpu.stat").read_text().splitlines():
                    key, _, value = line.partition(" ")
                    if key == "usage_usec":
                        return int(value) * 1000
                return None
            acct = self.dirs.get("cpuacct")
            return int((acct / "cpuacct.usage").read_text()) if acct is not None else None
        except (OSError, ValueError):
            return None

    def memory_peak(self) -> int | None:
        """The most memory the cgroup used, bytes (None where not known)."""
        name = "memory.peak" if self.version == 2 else "memory.max_usage_in_bytes"
        try:
            return int((self.dirs["" if self.version == 2 else "memory"] / name).read_text())
        except (OSError, ValueError, KeyError):
            return None

    def oom_kills(self) -> int:
        """How many times the kernel's OOM killer killed a task of the cgroup (0 where not known)."""
        try:
            if self.version == 2:
                for line in (self.dirs[""] / "memory.events").read_text().splitlines():
                    key, _, value = line.partition(" ")
                    if key == "oom_kill":
                        return int(value)
                return 0
            for line in (self.dirs["memory"] / "memory.oom_control").read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    return int(value)
        except (OSError, ValueError, KeyError):
            pass
        return 0

    def kill(self, timeout_s: float = 5.0) -> bool:
        """SIGKILL every task of the cgroup and wait until none is left (at most ``timeout_s``);
        True if it is empty. A fork racing the kill is caught: v2 kills atomically, v1 freezes first."""
        deadline = time.monotonic() + timeout_s
        if self.version == 2:
            try:
                _write(self.dirs[""] / "cgroup.kill", "1")
            except OSError:
                self._kill_each()
        else:
            freezer = self.dirs.get("freezer")
            if freezer is not None:
                try:
                    _write(freezer / "freezer.state", "FROZEN")
                except OSError:
                    freezer = None
            self._kill_each()
            if freezer is not None:
                _write(freezer / "freezer.state", "THAWED")
        while time.monotonic() < deadline:
            if not self.pids():
                return True
            self._kill_each()
            time.sleep(0.01)
        return not self.pids()

    def _kill_each(self) -> None:
        for pid in self.pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def remove(self) -> None:
        """Remove the cgroup's directories (after :meth:`kill`); one still busy is left (logged by the caller)."""
        for d in self.dirs.values():
            try:
                d.rmdir()
            except OSError:
                pass


class Hierarchy:
    """Where this process makes sandbox cgroups: ``version`` 1 or 2, ``parents`` per controller."""

    def __init__(self, version: int, parents: dict[str, Path]) -> None:
        self.version = version
        self.parents = parents

    def create(self, name: str, limits: ResourceLimits) -> Cgroup:
        """A new cgroup ``name`` with ``limits``; raises CgroupUnavailable if it cannot be made or limited."""
        dirs = {c: p / name for c, p in self.parents.items()}
        try:
            for d in dirs.values():
                d.mkdir(exist_ok=True)
            if self.version == 2:
                self._limit_v2(dirs[""], limits)
            else:
                self._limit_v1(dirs, limits)
        except OSError as exc:
            Cgroup(self.version, dirs).remove()
            raise CgroupUnavailable(f"cannot limit a sandbox with cgroup v{self.version} ({exc})") from None
        return Cgroup(self.version, dirs)

    @staticmethod
    def _limit_v2(d: Path, limits: ResourceLimits) -> None:
        _write(d / "memory.max", str(limits.memory_bytes))
        if (d / "memory.swap.max").exists():
            _write(d / "memory.swap.max", "0")
        _write(d / "cpu.max", f"{max(1000, int(limits.cpus * PERIOD_US))} {PERIOD_US}")
        _write(d / "cpu.weight", "100")
        _write(d / "pids.max", str(limits.pids))

    @staticmethod
    def _limit_v1(dirs: dict[str, Path], limits: ResourceLimits) -> None:
        memory = dirs["memory"]
        _write(memory / "memory.limit_in_bytes", str(limits.memory_bytes))
        if (memory / "memory.memsw.limit_in_bytes").exists():
            _write(memory / "memory.memsw.limit_in_bytes", str(limits.memory_bytes))
        if (memory / "memory.swappiness").exists():
            try:
                _write(memory / "memory.swappiness", "0")
            except OSError:
                pass
        _write(dirs["cpu"] / "cpu.cfs_period_us", str(PERIOD_US))
        _write(dirs["cpu"] / "cpu.cfs_quota_us", str(max(1000, int(limits.cpus * PERIOD_US))))
        _write(dirs["cpu"] / "cpu.shares", "1024")
        _write(dirs["pids"] / "pids.max", str(limits.pids))

    def sweep(self, keep: Callable[[str], bool]) -> None:
        """Remove the empty sandbox cgroups left by dead processes (the names ``keep`` refuses; a busy one stays)."""
        for parent in self.parents.values():
            try:
                children = list(parent.iterdir())
            except OSError:
                continue
            for child in children:
                if child.is_dir() and not keep(child.name):
                    try:
                        child.rmdir()
                    except OSError:
                        pass


def hierarchy(root: Path = CGROUP_ROOT, own: str | None = None) -> Hierarchy:
    """This process's place for sandbox cgroups (``own``: the text of ``/proc/self/cgroup``). Raises
    CgroupUnavailable, in one line, when no hierarchy can limit memory, CPU and processes here."""
    own_text = own if own is not None else Path("/proc/self/cgroup").read_text()
    paths = _own_paths(own_text)
    if (root / "cgroup.controllers").exists():  # the unified hierarchy: v2
        return _v2(root / paths.get("", "/").lstrip("/"))
    missing = [c for c in V1_NEEDED if not (root / c).is_dir() or c not in paths]
    if missing:
        raise CgroupUnavailable(f"no cgroup {', '.join(missing)} controller here (neither cgroup v2 nor v1 with "
                                "memory, cpu and pids mounted under /sys/fs/cgroup)")
    parents: dict[str, Path] = {}
    for controller in (*V1_NEEDED, "cpuacct", "freezer"):
        if not (root / controller).is_dir() or controller not in paths:
            continue
        parent = root / controller / paths[controller].lstrip("/") / PARENT
        try:
            parent.mkdir(exist_ok=True)
        except OSError as exc:
            if controller in V1_NEEDED:
                raise CgroupUnavailable(f"cannot make cgroups under {parent.parent} ({exc.strerror}): the worker "
                                        "needs write access to its own cgroup") from None
            continue
        parents[controller] = parent
    return Hierarchy(1, parents)


def _v2(own: Path) -> Hierarchy:
    parent = own / PARENT
    wanted = {"memory", "cpu", "pids"}
    try:
        available = set((own / "cgroup.controllers").read_text().split())
        if not wanted <= available:
            raise CgroupUnavailable(f"cgroup v2: the controllers {', '.join(sorted(wanted - available))} are not "
                                    f"delegated to {own}")
        enabled = set((own / "cgroup.subtree_control").read_text().split())
        if not wanted <= enabled:
            _write(own / "cgroup.subtree_control", " ".join(f"+{c}" for c in sorted(wanted - enabled)))
        parent.mkdir(exist_ok=True)
        _write(parent / "cgroup.subtree_control", " ".join(f"+{c}" for c in sorted(wanted)))
    except OSError as exc:
        raise CgroupUnavailable(f"cgroup v2: cannot enable memory, cpu and pids below {own} ({exc.strerror}); run the "
                                "worker in a delegated cgroup of its own (e.g. systemd's Delegate=yes)") from None
    return Hierarchy(2, {"": parent})
