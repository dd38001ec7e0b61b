"""Escaping its life or its files: a process left behind after the bot is stopped, signalling or ptracing the
worker and other processes, writing outside its ``/tmp``.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import time
from pathlib import Path

from hosting.launch import HostingConfig
from hosting.sandbox import SANDBOX_GID, SANDBOX_UID
from hosting.supervisor import Supervisor
from store import Store
from tests.hosting.conftest import hostile_dir, report, store_bot

DAEMON = '''
def attack():
    import os, signal, time
    if os.fork() == 0:  # a daemon: its own session, no parent, deaf to the polite signals
        os.setsid()
        if os.fork() == 0:
            for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
                signal.signal(sig, signal.SIG_IGN)
            os.execv("/usr/bin/python3", ["python3", "-c", "import time\\nwhile True: time.sleep(1)",
                                          "{marker}"])
        os._exit(0)
    time.sleep(0.5)
    return {{"forked": True}}
'''

SIGNALS = '''
def attack():
    import ctypes, os, signal
    out = {{"kill": {{}}, "ptrace": {{}}}}
    libc = ctypes.CDLL(None, use_errno=True)
    for pid in {pids!r}:
        try:
            os.kill(pid, signal.SIGKILL)
            out["kill"][pid] = "SENT"
        except OSError as exc:
            out["kill"][pid] = type(exc).__name__
        result = libc.ptrace(16, pid, None, None)  # PTRACE_ATTACH
        out["ptrace"][pid] = "ATTACHED" if result == 0 else os.strerror(ctypes.get_errno())
    try:
        os.kill(-1, signal.SIGKILL)  # every process it may signal: in its namespace, itself and its init only
    except OSError as exc:
        out["kill"]["-1"] = type(exc).__name__
    return out
'''

WRITES = '''
def attack():
    import os
    out = {{}}
    for path in {paths!r}:
        try:
            with open(path, "w") as handle:
                handle.write("escaped")
            out[path] = "WRITTEN"
        except OSError as exc:
            out[path] = type(exc).__name__ + " " + (exc.strerror or "")
    try:  # through a link made in its own /tmp
        os.symlink("/bot/code", "/tmp/code")
        with open("/tmp/code/escaped", "w") as handle:
            handle.write("escaped")
        out["/tmp/code/escaped"] = "WRITTEN"
    except OSError as exc:
        out["/tmp/code/escaped"] = type(exc).__name__
    try:
        os.mkdir("/tmp/mine")
        open("/tmp/mine/ok", "w").write("mine")
        out["/tmp/mine/ok"] = "WRITTEN"
    except OSError as exc:
        out["/tmp/mine/ok"] = type(exc).__name__
    return out
'''


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state == "Z"


def test_a_daemon_left_behind_dies_with_its_bot(tmp_path: Path, store: Store, config: HostingConfig,
                                                supervisor: Supervisor) -> None:
    marker = f"cardarena-daemon-{os.getpid()}-{time.monotonic_ns()}"
    sha = store_bot(store, hostile_dir(tmp_path, DAEMON.format(marker=marker)), config)
    assert report(supervisor, sha) == {"forked": True}
    cgroup = supervisor.running()[sha].cgroup
    daemons = [int(p) for p in os.listdir("/proc") if p.isdigit() and marker.encode() in _cmdline(p)]
    assert daemons, "the daemon did not start"
    assert set(daemons) <= cgroup.pids(), "the daemon left the bot's cgroup"
    assert supervisor.stop(sha)
    assert all(_gone(pid) for pid in daemons)
    assert not [p for p in os.listdir("/proc") if p.isdigit() and marker.encode() in _cmdline(p)]


def _cmdline(pid: str) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def test_a_hosted_bot_can_neither_signal_nor_ptrace_the_worker_or_anyone_else(tmp_path: Path, store: Store,
                                                                               config: HostingConfig,
                                                                               supervisor: Supervisor) -> None:
    # a victim running as the sandbox's own user (nobody) on the machine: the same uid may signal it, but the
    # bot's PID namespace does not hold it
    victim = subprocess.Popen(["sleep", "300"], user=SANDBOX_UID if os.geteuid() == 0 else None,
                              group=SANDBOX_GID if os.geteuid() == 0 else None)
    try:
        pids = [os.getpid(), victim.pid, 1]
        sha = store_bot(store, hostile_dir(tmp_path, SIGNALS.format(pids=pids)), config)
        supervisor.endpoint(sha)
        try:
            found = report(supervisor, sha, timeout_s=10.0)
        except Exception:  # noqa: BLE001 - kill(-1) may end the bot itself before it answers
            found = None
        assert victim.poll() is None, "the bot killed a process of the machine"
        if found is not None:
            for pid in (os.getpid(), victim.pid):
                if pid > 3:  # a pid that small may be one of its own processes, in its own namespace
                    assert found["kill"][str(pid)] == "ProcessLookupError", found
                    assert found["ptrace"][str(pid)] != "ATTACHED", found
        # this test process, the worker, is still here, and the bot's next start is clean
        assert supervisor.endpoint(sha).startswith("unix:")
    finally:
        victim.kill()
        victim.wait()


def test_a_hosted_bot_writes_nowhere_but_its_tmp(tmp_path: Path, store: Store, config: HostingConfig,
                                                 supervisor: Supervisor) -> None:
    paths = ["/escaped", "/bot/code/escaped", "/bot/code/bot.py", "/usr/escaped", "/usr/bin/python3", "/dev/shm/escaped",
             "/opt/cardarena/escaped", "/etc/escaped", "/etc/ld.so.cache", "/run/escaped", "/var/escaped",
             "/proc/sys/kernel/hostname", "/proc/self/root/escaped", "/sys/escaped",
             str(config.directory / "escaped"), str(tmp_path / "escaped")]
    sha = store_bot(store, hostile_dir(tmp_path, WRITES.format(paths=paths)), config)
    code = config.directory / "artifacts" / sha.sha256

    def digest() -> str:
        return hashlib.sha256(b"".join(p.read_bytes() for p in sorted(code.rglob("*")) if p.is_file())).hexdigest()

    supervisor.endpoint(sha)
    before = digest()
    found = report(supervisor, sha)
    written = [p for p, r in found.items() if r == "WRITTEN"]
    assert written == ["/tmp/mine/ok"], found
    assert digest() == before
    assert not (config.directory / "escaped").exists() and not (tmp_path / "escaped").exists()
