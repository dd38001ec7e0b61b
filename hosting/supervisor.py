"""The hosted bots of one worker process: started when a game needs them, reused, stopped when idle.

A worker process (a local pool process, a Celery pool process) has one :class:`Supervisor`. Asked for
a hosted bot's endpoint (:meth:`Supervisor.endpoint`, from the worker's ``client_for`` when a game's
table is checked and played), it:

- **reuses** its running copy of the bot (the bot's code artifact of that hash; two bots that submitted
  the same files each run in copies of their own, so no two bots ever share a process);
- **restarts** a copy that exited (a crash is logged with its last lines; it cost only the games that
  were in flight on it, which saw the bot unreachable, rules §4.2);
- else **starts** one: fetches the build and artifacts from the store by hash into the machine's cache
  (:mod:`hosting.cache`), launches the sandbox (:mod:`hosting.launch`) and waits for its health check;
- never runs more than ``HostingConfig.copies`` copies of one bot on the machine (one per core by
  default): a copy holds one of that many slot locks (``<hosting dir>/slots/<bot>-<sha>/<k>``, ``flock``),
  and a process that finds every slot taken uses a copy another process runs (the slot's file names
  its socket) rather than start one more.

The endpoint is ``unix:<hosting dir>/run/<pid>.<k>/<n>.sock``: a symbolic link, replaced atomically when the
copy is, to ``/proc/<worker pid>/fd/<fd>/tmp/cardarena.sock``, where ``fd`` is this process's handle on the
sandbox's root. A dead copy's socket therefore refuses connections (unreachable, as a remote bot that is
down) and never leads to another process's sandbox, even once its pids are reused.

A thread stops each copy that has had no lookup, no decision asked of it and no work for ``HostingConfig.idle_s``
seconds (:meth:`Supervisor.reap_idle`); :meth:`Supervisor.close` stops them all (at exit). A decision asked through
this process's client marks the copy used (:meth:`Supervisor.touch`); a copy that used more than
:data:`IDLE_CPU_SHARE` of a core between two looks was working (a long decision, a game of another process that
borrowed it). Less is an idle server's own wake-ups: gRPC's Python server polls several times a second, about
0.1-0.4% of a core measured, so "used no CPU" would never hold.
"""

from __future__ import annotations

import fcntl
import itertools
import logging
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from hosting.cache import ArtifactCache, CacheError, private_dir
from hosting.launch import HostingConfig, OutputLog, RunningBot, StartError, bot_spec, start_bot
from hosting.manifest import Manifest
from hosting.sandbox import SOCKET, Sandbox, SandboxSpec, SandboxUnavailable, cgroups, launch, require, unique_name
from store.artifacts import BuildInfo, Hosted

log = logging.getLogger(__name__)

#: Seconds a failed start is remembered: lookups meanwhile fail at once with the same reason.
FAILED_START_S = 2.0
#: The share of one core a copy may use between two looks and still count as idle (its server's own wake-ups).
IDLE_CPU_SHARE = 0.01
#: Longest Unix socket path (sun_path holds 108 bytes with its terminating zero).
MAX_SOCKET_PATH = 107
_instances = itertools.count(1)


class HostingError(RuntimeError):
    """A hosted bot this process cannot run now; the message says why (one line)."""


class Source(Protocol):
    """Where builds and artifacts come from (``store.artifacts.Artifacts``)."""

    def build(self, code_sha256: str) -> BuildInfo | None:
        """How the code artifact runs, or None."""
        ...

    def blob(self, sha256: str) -> bytes | None:
        """An artifact's stored bytes, or None."""
        ...


@dataclass(frozen=True)
class Mark:
    """Where a copy's output stood when a game started: ``(log, offset)``."""

    log: OutputLog
    offset: int


@dataclass
class _Copy:
    hosted: Hosted
    bot: RunningBot
    slot: int  # the slot lock's fd
    root: int  # an O_PATH fd of the sandbox's root
    used: float
    cpu: int | None = None
    restarts: int = 0
    looked: float = 0.0  # when ``cpu`` was read (the supervisor's clock)


@dataclass
class _Link:
    """The stable socket link of one bot in this process."""

    path: Path
    lock: threading.Lock = field(default_factory=threading.Lock)


class Supervisor:
    """The hosted bots of this process, from ``source`` under ``config``. Thread-safe. ``reaper`` False: no thread
    stops idle copies, the caller calls :meth:`reap_idle` itself (a test that moves its own ``clock``)."""

    def __init__(self, source: Source, config: HostingConfig, clock: Callable[[], float] = time.monotonic,
                 reaper: bool = True) -> None:
        self.source = source
        self.config = config
        self.clock = clock
        self.cache = ArtifactCache(config.directory / "artifacts", config.artifact_limits)
        self._copies: dict[Hosted, _Copy] = {}
        self._links: dict[Hosted, _Link] = {}
        self._failed: dict[Hosted, tuple[float, str]] = {}
        self._lock = threading.Lock()
        self._count = 0
        self._pid = os.getpid()
        self._run = config.directory / "run" / f"{self._pid}.{next(_instances)}"
        self._launcher = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hosted-launcher")
        self._reaper: threading.Thread | None = None
        self._reaps = reaper
        self._closed = threading.Event()
        self.starts = 0  # copies started (tests, benchmarks)

    # ------------------------------------------------------------ lookups

    def endpoint(self, hosted: Hosted) -> str:
        """The gRPC target of the hosted bot (``unix:PATH``), running now: this process's copy (started or
        restarted if needed), or another process's when every slot is taken. Raises HostingError."""
        link = self._link(hosted)
        with link.lock:
            with self._lock:
                copy = self._copies.get(hosted)
            if copy is not None and copy.bot.alive():
                copy.used = self.clock()
                return f"unix:{link.path}"
            if copy is not None:
                self._crashed(copy)
            failed = self._failed.get(hosted)
            if failed is not None and self.clock() - failed[0] < FAILED_START_S:
                raise HostingError(failed[1])
            slot = copy.slot if copy is not None else self._take_slot(hosted)
            if slot is None:
                borrowed = self._borrow(hosted)
                if borrowed is None:
                    raise HostingError(f"no room for hosted bot {hosted.sha256[:12]} on this machine: {self.config.copies} "
                                       "copies of it run already")
                return borrowed
            try:
                self._start(hosted, link, slot, copy.restarts + 1 if copy is not None else 0)
            except HostingError as exc:
                os.close(slot)
                with self._lock:
                    self._copies.pop(hosted, None)
                self._failed[hosted] = (self.clock(), str(exc))
                raise
            self._failed.pop(hosted, None)
            return f"unix:{link.path}"

    def touch(self, hosted: Hosted) -> None:
        """Mark this process's copy of the hosted bot used now (a decision asked of it); nothing if it has none."""
        copy = self._copies.get(hosted)
        if copy is not None:
            copy.used = self.clock()

    def mark(self, hosted: Hosted) -> Mark | None:
        """Where this process's copy of the hosted bot has got to in its output (None: no copy of its own)."""
        with self._lock:
            copy = self._copies.get(hosted)
        return Mark(copy.bot.output, copy.bot.output.offset) if copy is not None else None

    def running(self) -> dict[Hosted, Sandbox]:
        """The sandboxes this process runs now, by hosted bot (tests)."""
        with self._lock:
            return {hosted: c.bot.sandbox for hosted, c in self._copies.items()}

    # ------------------------------------------------------------- copies

    def _link(self, hosted: Hosted) -> _Link:
        with self._lock:
            link = self._links.get(hosted)
            if link is None:
                if not self._links:
                    self._prepare()
                self._count += 1
                path = self._run / f"{self._count}.sock"
                if len(str(path)) > MAX_SOCKET_PATH:
                    raise HostingError(f"the hosting directory's path is too long for a Unix socket ({path}); set "
                                       "CARDARENA_HOSTING_DIR to a shorter one")
                link = self._links[hosted] = _Link(path)
            return link

    def _prepare(self) -> None:
        """This process's run directory (a stale one of a dead process of the same pid is replaced)."""
        private_dir(self._run.parent)
        for stale in self._run.parent.iterdir():
            pid = stale.name.partition(".")[0]
            if pid.isdigit() and (stale == self._run or not _alive(int(pid))):
                try:
                    for item in stale.iterdir():
                        item.unlink(missing_ok=True)
                    stale.rmdir()
                except FileNotFoundError:  # another process of this machine, preparing too, removed it first
                    pass
        self._run.mkdir(mode=0o700)
        try:  # the empty cgroups of dead processes (named <pid>-<n>-<what>)
            cgroups().sweep(lambda name: name.partition("-")[0].isdigit() and _alive(int(name.partition("-")[0])))
        except SandboxUnavailable:
            pass

    def _take_slot(self, hosted: Hosted) -> int | None:
        """A free slot lock for a copy of the bot on this machine (its fd, held while the copy runs), or None."""
        slots = private_dir(self.config.directory / "slots" / hosted.key)
        for k in range(max(1, self.config.copies)):
            fd = os.open(slots / str(k), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            return fd
        return None

    def _borrow(self, hosted: Hosted) -> str | None:
        """Another process's running copy of the bot (every slot taken), or None."""
        slots = self.config.directory / "slots" / hosted.key
        for k in range(max(1, self.config.copies)):
            try:
                path = (slots / str(k)).read_text().strip()
            except OSError:
                continue
            if path and os.path.exists(path):
                return f"unix:{path}"
        return None

    def _start(self, hosted: Hosted, link: _Link, slot: int, restarts: int) -> _Copy:
        try:
            return self._start_copy(hosted, link, slot, restarts)
        except SandboxUnavailable as exc:
            raise HostingError(str(exc)) from None
        except OSError as exc:  # the machine's own trouble (disk, files): this worker cannot run it now
            raise HostingError(f"hosted bot {hosted.sha256[:12]} cannot be started here: {exc}") from None

    def _start_copy(self, hosted: Hosted, link: _Link, slot: int, restarts: int) -> _Copy:
        require(self.config.directory)
        sha = hosted.sha256
        build = self.source.build(sha)
        if build is None:
            raise HostingError(f"hosted bot {sha[:12]} was never submitted here (no build in the store)")
        try:
            code = self.cache.path(sha, self.source.blob)
            env = self.cache.path(build.env_sha256, self.source.blob) if build.env_sha256 else None
        except CacheError as exc:
            raise HostingError(str(exc)) from None
        manifest = Manifest.from_json(build.manifest)
        spec = bot_spec(unique_name(f"bot{hosted.bot_id}"), manifest, code, env, self.config)
        try:
            bot = start_bot(spec, self.config.start_timeout_s, self._launch)
        except (StartError, SandboxUnavailable) as exc:
            raise HostingError(f"hosted bot {sha[:12]} did not start: {exc}") from None
        try:
            root = os.open(bot.sandbox.root(), os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError as exc:
            bot.stop()
            raise HostingError(f"hosted bot {sha[:12]} exited as it started: {exc}") from None
        temporary = link.path.with_name(link.path.name + ".new")
        temporary.unlink(missing_ok=True)
        os.symlink(f"/proc/{self._pid}/fd/{root}{SOCKET}", temporary)
        os.rename(temporary, link.path)
        os.ftruncate(slot, 0)
        os.pwrite(slot, str(link.path).encode(), 0)
        started = self.clock()
        copy = _Copy(hosted, bot, slot, root, started, bot.sandbox.cgroup.cpu_usage_ns(), restarts, started)
        with self._lock:
            self._copies[hosted] = copy
            self.starts += 1
        self._start_reaper()
        log.info("hosted bot %s (bot %s) started in %.2f s%s", sha[:12], hosted.bot_id, time.monotonic() - bot.started,
                 f" (restart {restarts})" if restarts else "")
        return copy

    def _launch(self, spec: SandboxSpec) -> Sandbox:
        """Launch from the one long-lived launcher thread (a sandbox dies with the thread that forked it)."""
        return self._launcher.submit(launch, spec).result()

    def _crashed(self, copy: _Copy) -> None:
        code = copy.bot.sandbox.process.returncode
        oom = copy.bot.sandbox.cgroup.oom_kills()
        log.warning("hosted bot %s (bot %s) exited (status %s%s): %s", copy.hosted.sha256[:12], copy.hosted.bot_id, code,
                    f", {oom} task(s) killed for memory" if oom else "", copy.bot.output.tail() or "no output")
        self._stop_copy(copy, keep_slot=True)

    def _stop_copy(self, copy: _Copy, keep_slot: bool = False) -> bool:
        emptied = copy.bot.stop()
        os.close(copy.root)
        if not keep_slot:
            os.ftruncate(copy.slot, 0)
            os.close(copy.slot)
            with self._lock:
                if self._copies.get(copy.hosted) is copy:
                    del self._copies[copy.hosted]
        return emptied

    # --------------------------------------------------------- idle stops

    def _start_reaper(self) -> None:
        with self._lock:
            if self._reaper is not None or not self._reaps:
                return
            self._reaper = threading.Thread(target=self._reap_loop, name="hosted-reaper", daemon=True)
            self._reaper.start()

    def _reap_loop(self) -> None:
        every = max(0.2, min(5.0, self.config.idle_s / 4))
        while not self._closed.wait(every):
            try:
                self.reap_idle()
            except Exception:  # noqa: BLE001 - the reaper must go on
                log.exception("stopping idle hosted bots")

    def reap_idle(self) -> list[Hosted]:
        """Stop every copy that had no lookup or decision and did no work (:data:`IDLE_CPU_SHARE`) for ``idle_s``
        seconds; their bots."""
        now = self.clock()
        with self._lock:
            copies = list(self._copies.values())
        stopped = []
        for copy in copies:
            cpu = copy.bot.sandbox.cgroup.cpu_usage_ns()
            if cpu is not None:
                before, since = copy.cpu, max(now - copy.looked, 0.0)
                copy.cpu, copy.looked = cpu, now
                if before is not None and cpu - before > IDLE_CPU_SHARE * since * 1e9:
                    copy.used = max(copy.used, now)  # it is working: a game is in flight on it
                    continue
            if now - copy.used < self.config.idle_s:
                continue
            link = self._link(copy.hosted)
            with link.lock:
                if self._copies.get(copy.hosted) is copy and self.clock() - copy.used >= self.config.idle_s:
                    self._stop_copy(copy)
                    stopped.append(copy.hosted)
                    log.info("hosted bot %s (bot %s) stopped: idle for %.0f s", copy.hosted.sha256[:12],
                             copy.hosted.bot_id, self.config.idle_s)
        return stopped

    def stop(self, hosted: Hosted) -> bool:
        """Stop this process's copy of the hosted bot now (tests, shutdown); True if nothing of it is left."""
        with self._lock:
            copy = self._copies.get(hosted)
        if copy is None:
            return True
        with self._link(hosted).lock:
            return self._stop_copy(copy)

    def close(self) -> None:
        """Stop every copy (at the process's exit)."""
        self._closed.set()
        with self._lock:
            running = list(self._copies)
        for hosted in running:
            self.stop(hosted)
        self._launcher.shutdown(wait=False)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True

