"""The sandbox a hosted bot runs in: Debian's bubblewrap (``bwrap``) and cgroups.

Every sandbox, whatever the bot:

- runs as the unprivileged user ``nobody`` (uid and gid 65534; a worker that is not root runs it as
  itself), in new user, PID, mount, network, IPC, UTS and cgroup namespaces (``--unshare-all``), with
  every capability dropped and no further user namespaces (``--disable-userns``), in a session of its
  own (``--new-session``: no terminal to inject into), killed when its worker process dies
  (``--die-with-parent``);
- has **no network**: its network namespace holds a loopback device only, so it can reach nothing,
  and nothing reaches it but through its Unix socket (:data:`SOCKET`), which the worker dials through
  ``/proc``;
- sees a read-only system (``/usr`` and its usual links, ``/etc/ld.so.cache``), its artifact read-only
  at ``/bot/code``, its Python environment read-only at ``/bot/env`` and the platform's runtime read-only
  at ``/opt/cardarena``; a private ``/tmp`` (tmpfs of ``tmp_bytes``), its own ``/proc`` (its own
  processes only) and a minimal ``/dev``; the root and ``/dev`` are remounted read-only, so ``/tmp`` is
  the only place it can write;
- has an environment of its own (``--clearenv``): nothing of the worker's environment, settings or
  store URL reaches it;
- is limited by a cgroup of its own (:mod:`hosting.cgroups`): memory, a fixed CPU quota, tasks.

Both bubblewrap processes are put into the cgroup before the bot's command starts (``--info-fd``
gives the sandbox's first process, ``--block-fd`` holds the command until then), so no process of the
bot ever runs outside its limits. :meth:`Sandbox.stop` kills the cgroup's every task.

:func:`unavailable` says in one line why sandboxes cannot run on this machine (no ``bwrap``, no
cgroups, user namespaces refused): the platform then refuses hosted bots, it never runs one unsandboxed.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from pathlib import Path

from hosting.cache import unreachable
from hosting.cgroups import Cgroup, CgroupUnavailable, Hierarchy, ResourceLimits, hierarchy

#: The Unix socket a hosted bot listens on, inside its sandbox.
SOCKET = "/tmp/cardarena.sock"
#: Where the artifact, its Python environment and the platform's runtime are mounted.
CODE, ENV, RUNTIME = "/bot/code", "/bot/env", "/opt/cardarena"
#: The user a root worker runs sandboxes as (``nobody``).
SANDBOX_UID = SANDBOX_GID = 65534
#: The system paths every sandbox sees read-only (the ones missing on a machine are skipped).
SYSTEM_LINKS = (("usr/bin", "/bin"), ("usr/sbin", "/sbin"), ("usr/lib", "/lib"), ("usr/lib64", "/lib64"),
                ("usr/lib32", "/lib32"))
SYSTEM_FILES = ("/etc/ld.so.cache", "/etc/alternatives", "/etc/localtime")
#: What a build sandbox also sees, to resolve names and reach the package index.
NETWORK_FILES = ("/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf", "/etc/ssl", "/etc/ca-certificates")
#: Seconds bubblewrap is given to set a sandbox up (mounts, namespaces) before it counts as failed.
SETUP_S = 10.0


class SandboxUnavailable(RuntimeError):
    """Sandboxes cannot run here; the message says why, in one line (and never leads to running unsandboxed)."""


@dataclass(frozen=True)
class Bind:
    """A host directory or file ``source`` mounted at ``dest`` in the sandbox (read-only unless ``writable``)."""

    source: Path
    dest: str
    writable: bool = False


@dataclass(frozen=True)
class SandboxSpec:
    """What to run: ``argv`` in ``cwd`` with ``env`` (nothing else of the worker's), the ``binds``, the cgroup
    ``limits``, a ``/tmp`` of ``tmp_bytes``; ``network``: share the worker's network (a build reaching the
    package index; never a bot); ``name``: the cgroup's name (unique on the machine)."""

    name: str
    argv: tuple[str, ...]
    binds: tuple[Bind, ...]
    limits: ResourceLimits
    tmp_bytes: int
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str = CODE
    network: bool = False


def bwrap_args(spec: SandboxSpec, info_fd: int, block_fd: int) -> list[str]:
    """The bubblewrap command line of ``spec`` (see the module docstring); as root, started as ``nobody``
    through ``setpriv``."""
    args: list[str] = []
    if os.geteuid() == 0:
        args += ["setpriv", f"--reuid={SANDBOX_UID}", f"--regid={SANDBOX_GID}", "--clear-groups", "--"]
    args += ["bwrap", "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session",
             "--cap-drop", "ALL", "--hostname", "bot"]
    if spec.network:
        args.append("--share-net")
    args += ["--ro-bind", "/usr", "/usr"]
    for target, link in SYSTEM_LINKS:
        if os.path.lexists(link):
            args += ["--symlink", target, link]
    for path in SYSTEM_FILES + (NETWORK_FILES if spec.network else ()):
        args += ["--ro-bind-try", path, path]
    args += ["--proc", "/proc", "--dev", "/dev", "--size", str(spec.tmp_bytes), "--tmpfs", "/tmp"]
    for bind in spec.binds:
        args += ["--bind" if bind.writable else "--ro-bind", str(bind.source), bind.dest]
    args += ["--remount-ro", "/dev", "--remount-ro", "/", "--chdir", spec.cwd, "--clearenv"]
    for key, value in sorted(spec.env.items()):
        args += ["--setenv", key, value]
    args += ["--info-fd", str(info_fd), "--block-fd", str(block_fd), "--", *spec.argv]
    return args


class Sandbox:
    """A running sandbox: ``process`` (bubblewrap's outer process, our child), ``pid`` (the sandbox's first
    process, pid 1 inside), ``cgroup``, and ``output`` (the bot's stdout and stderr, one pipe)."""

    def __init__(self, process: subprocess.Popen[bytes], pid: int, cgroup: Cgroup) -> None:
        self.process = process
        self.pid = pid
        self.cgroup = cgroup
        self.output = process.stdout
        self._stopped = threading.Lock()

    def alive(self) -> bool:
        """Whether the sandbox still runs."""
        return self.process.poll() is None

    def root(self) -> str:
        """The sandbox's root directory seen from the worker (``/proc/<pid>/root``)."""
        return f"/proc/{self.pid}/root"

    def wait(self, timeout_s: float | None = None) -> int:
        """Wait for the sandbox to end; its exit status. Raises subprocess.TimeoutExpired."""
        return self.process.wait(timeout_s)

    def stop(self) -> bool:
        """Kill every process of the sandbox (its cgroup's every task), reap bubblewrap and remove the cgroup;
        True if nothing of it is left. Safe to call twice."""
        with self._stopped:
            emptied = self.cgroup.kill()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
            if self.output is not None and not self.output.closed:
                try:
                    self.output.close()
                except OSError:
                    pass
            emptied = self.cgroup.kill(1.0) and emptied
            self.cgroup.remove()
            return emptied


def _read_info(fd: int, deadline: float) -> dict[str, object]:
    """bubblewrap's JSON on ``--info-fd`` (until it parses, or the pipe ends)."""
    data = b""
    while time.monotonic() < deadline:
        chunk = os.read(fd, 4096)
        if not chunk:
            break
        data += chunk
        try:
            return dict(json.loads(data))
        except ValueError:
            continue
    raise SandboxUnavailable(f"bubblewrap gave no sandbox information ({data[:200]!r})")


_hierarchy_lock = threading.Lock()
_hierarchy: Hierarchy | None = None


def cgroups() -> Hierarchy:
    """This process's cgroup hierarchy for sandboxes (found once); raises SandboxUnavailable."""
    global _hierarchy
    with _hierarchy_lock:
        if _hierarchy is None:
            try:
                _hierarchy = hierarchy()
            except CgroupUnavailable as exc:
                raise SandboxUnavailable(str(exc)) from None
        return _hierarchy


def launch(spec: SandboxSpec) -> Sandbox:
    """Start ``spec`` in a new sandbox and return it once its processes are in their cgroup and the command
    has been let go. Raises SandboxUnavailable when bubblewrap or the cgroup fails (the message says why)."""
    group = cgroups().create(spec.name, spec.limits)
    info_r, info_w = os.pipe()
    block_r, block_w = os.pipe()
    try:
        try:
            process = subprocess.Popen(bwrap_args(spec, info_w, block_r), pass_fds=(info_w, block_r),
                                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                       env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin"}, start_new_session=False)
        except OSError as exc:
            group.remove()
            raise SandboxUnavailable(f"cannot start bubblewrap: {exc}") from None
        os.close(info_w)
        os.close(block_r)
        info_w = block_r = -1
        try:
            info = _read_info(info_r, time.monotonic() + SETUP_S)
            pid = int(info["child-pid"])  # type: ignore[call-overload]
            group.add(process.pid)
            group.add(pid)
        except (SandboxUnavailable, OSError, KeyError, ValueError) as exc:
            process.kill()
            output = process.communicate(timeout=5)[0] or b""
            group.kill()
            group.remove()
            said = output.decode("utf-8", "replace").strip().splitlines()
            raise SandboxUnavailable(f"the sandbox did not start: {said[-1] if said else exc}") from None
        os.write(block_w, b"go")
        return Sandbox(process, pid, group)
    finally:
        for fd in (info_r, info_w, block_r, block_w):
            if fd >= 0:
                os.close(fd)


_names = itertools.count(1)
_check_lock = threading.Lock()


def unique_name(what: str) -> str:
    """A cgroup name no other sandbox of this machine has now: ``<pid>-<n>-<what>``."""
    return f"{os.getpid()}-{next(_names)}-{what}"


def unavailable() -> str | None:
    """Why hosted bots cannot run on this machine (one line), or None when they can: bubblewrap is installed,
    cgroups can limit memory, CPU and tasks, and a trial sandbox runs. Checked once per process (several
    threads asking at once wait for the one check)."""
    with _check_lock:
        return _unavailable()


@lru_cache(maxsize=1)
def _unavailable() -> str | None:
    if shutil.which("bwrap") is None:
        return "cannot run hosted bots: bubblewrap is not installed (apt-get install bubblewrap)"
    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        return "cannot run hosted bots: setpriv (util-linux) is not installed"
    try:
        cgroups()
        trial = launch(SandboxSpec(unique_name("trial"), ("/usr/bin/true",), (), ResourceLimits(64 << 20, 0.5, 16),
                                   1 << 20, cwd="/"))
        code = trial.wait(SETUP_S)
        output = trial.output.read().decode("utf-8", "replace").strip() if trial.output else ""
        trial.stop()
    except (SandboxUnavailable, subprocess.TimeoutExpired) as exc:
        return f"cannot run hosted bots: {exc}"
    if code != 0:
        return f"cannot run hosted bots: a trial sandbox failed: {output.splitlines()[-1] if output else code}"
    return None


def require(directory: Path | None = None) -> None:
    """Raise SandboxUnavailable (one line) unless hosted bots can run here (from the hosting ``directory``,
    if given, which the sandbox's user must be able to reach)."""
    why = unavailable()
    if why is None and directory is not None:
        why = unreachable(directory)
        why = f"cannot run hosted bots: {why}" if why else None
    if why is not None:
        raise SandboxUnavailable(why)


def host_path(root: str, path: str) -> str:
    """``path`` inside a sandbox whose root is ``root`` (``Sandbox.root()``), as the worker sees it."""
    return root + path


def environment(extra: Mapping[str, str], pythonpath: Sequence[str] = ()) -> dict[str, str]:
    """A sandbox's whole environment: a plain ``PATH``, ``HOME`` and ``TMPDIR`` in ``/tmp``, UTF-8, the
    ``PYTHONPATH`` given, and ``extra`` (the socket or port)."""
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8",
           "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1"}
    if pythonpath:
        env["PYTHONPATH"] = ":".join(pythonpath)
    env.update(extra)
    return env


def recheck() -> None:
    """Forget this process's answer of :func:`unavailable`: the next call checks again (a tool just installed)."""
    with _check_lock:
        _unavailable.cache_clear()
