"""Start one copy of a hosted bot in its sandbox and wait until it answers; capture what it writes.

:func:`start_bot` builds the sandbox of a bot from its manifest (:mod:`hosting.manifest`), its unpacked
artifact and Python environment and the platform's runtime, launches it (:mod:`hosting.sandbox`) and
returns a :class:`RunningBot` once the bot's gRPC health service answers SERVING on its Unix socket,
within ``HostingConfig.start_timeout_s``; a bot that exits or does not answer in time is stopped and
:class:`StartError` says why with the last lines it wrote.

What the bot writes (stdout and stderr, one stream) is read by a thread into an :class:`OutputLog`:
the last ``keep`` bytes with their offsets from the start, so a game can take what was written while it
was played (:meth:`OutputLog.since`). The reader takes at most ``RATE`` bytes a second: a bot that
writes faster blocks on its own full pipe, and costs the worker nothing more.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import grpc

from config import Settings, get_settings
from hosting.artifact import Limits
from hosting.cgroups import ResourceLimits
from hosting.manifest import Manifest
from hosting.runtime import runtime_dir
from hosting.sandbox import CODE, ENV, RUNTIME, SOCKET, Bind, Sandbox, SandboxSpec, environment, launch
from referee.clients import health_problem

#: The TCP port a ``{port}`` bot listens on inside its own network namespace.
BOT_PORT = 50051
#: Bytes a second the output reader takes from one bot at most.
RATE = 1 << 20
#: Bytes of a copy's output kept for the games that read it.
KEEP = 1 << 20


class StartError(RuntimeError):
    """A hosted bot that did not start; the message says why (one line, then its last output lines)."""


@dataclass(frozen=True)
class HostingConfig:
    """What hosting needs of the settings (``config.Settings``, the ``hosted_*`` fields): the ``directory``
    (cache, runtime, sockets), every sandbox's ``limits`` and ``tmp_bytes``, ``artifact_limits``,
    ``start_timeout_s``, ``idle_s``, ``copies`` per bot per machine, ``output_bytes`` kept per game,
    ``build_timeout_s`` and ``index_url`` of Python builds."""

    directory: Path
    limits: ResourceLimits
    tmp_bytes: int
    artifact_limits: Limits
    start_timeout_s: float = 10.0
    idle_s: float = 120.0
    copies: int = 0
    output_bytes: int = 64 << 10
    build_timeout_s: float = 300.0
    index_url: str = ""

    @classmethod
    def from_settings(cls, settings: Settings | None = None) -> HostingConfig:
        """From ``config.Settings`` (default: the environment's)."""
        s = settings or get_settings()
        return cls(Path(s.hosting_dir).absolute(), ResourceLimits(s.hosted_memory_mb << 20, s.hosted_cpus, s.hosted_pids),
                   s.hosted_tmp_mb << 20, Limits(s.hosted_max_mb << 20, s.hosted_max_unpacked_mb << 20),
                   s.hosted_start_timeout_s, s.hosted_idle_s, s.hosted_copies or (os.cpu_count() or 1),
                   s.hosted_output_kb << 10, s.hosted_build_timeout_s, s.hosted_index_url)


class OutputLog:
    """The last ``keep`` bytes a bot wrote, read from ``stream`` by a daemon thread; offsets count every byte
    written since the start."""

    def __init__(self, stream: object, keep: int = KEEP, rate: int = RATE) -> None:
        self._stream = stream
        self._keep = keep
        self._rate = rate
        self._data = bytearray()
        self._start = 0  # offset of _data[0]
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._read, name="hosted-output", daemon=True)
        self._thread.start()

    def _read(self) -> None:
        fd = self._stream.fileno()  # type: ignore[attr-defined]
        window, taken = time.monotonic(), 0
        while True:
            try:
                chunk = os.read(fd, 1 << 16)
            except OSError:
                return
            if not chunk:
                return
            with self._lock:
                self._data += chunk
                if len(self._data) > self._keep:
                    cut = len(self._data) - self._keep
                    del self._data[:cut]
                    self._start += cut
            taken += len(chunk)
            if taken >= self._rate:
                left = window + 1.0 - time.monotonic()
                if left > 0:
                    time.sleep(left)
                window, taken = time.monotonic(), 0

    @property
    def offset(self) -> int:
        """Bytes written so far."""
        with self._lock:
            return self._start + len(self._data)

    def since(self, offset: int, limit: int) -> tuple[str, bool]:
        """What was written from ``offset`` on, at most ``limit`` bytes (the first ones), as text; and whether
        anything was left out (cut to the limit, or already dropped from what is kept)."""
        with self._lock:
            lost = offset < self._start
            begin = max(offset - self._start, 0)
            piece = bytes(self._data[begin:begin + limit])
            more = self._start + len(self._data) - max(offset, self._start) > limit
        return piece.decode("utf-8", "replace"), lost or more

    def tail(self, lines: int = 5) -> str:
        """The last ``lines`` lines written, joined with `` | `` (for one-line errors)."""
        with self._lock:
            text = bytes(self._data[-4096:]).decode("utf-8", "replace")
        return " | ".join(line.strip() for line in text.strip().splitlines()[-lines:] if line.strip())


@dataclass
class RunningBot:
    """A started copy: its ``sandbox``, the host ``socket`` path of its Unix socket (through ``/proc``),
    its ``output`` and when it was started (monotonic seconds)."""

    sandbox: Sandbox
    socket: str
    output: OutputLog
    started: float

    def alive(self) -> bool:
        """Whether the copy still runs."""
        return self.sandbox.alive()

    def stop(self) -> bool:
        """Stop the copy and every process of it; True if nothing of it is left."""
        return self.sandbox.stop()


def bot_spec(name: str, manifest: Manifest, code: Path, env: Path | None, config: HostingConfig) -> SandboxSpec:
    """The sandbox of a bot: its code (and Python environment) read-only, the runtime, its command."""
    runtime = runtime_dir(config.directory)
    binds = [Bind(code, CODE), Bind(runtime, RUNTIME)]
    if env is not None:
        binds.append(Bind(env, ENV))
    pythonpath = ([ENV] if env is not None else []) + [f"{RUNTIME}/python"] if manifest.python else []
    argv = manifest.argv(SOCKET, BOT_PORT)
    extra = {"CARDARENA_SOCKET": SOCKET}
    if manifest.listen == "port":
        extra = {"CARDARENA_PORT": str(BOT_PORT)}
        argv = ["python3", f"{RUNTIME}/forward.py", SOCKET, str(BOT_PORT), "--", *argv]
    return SandboxSpec(name, tuple(argv), tuple(binds), config.limits, config.tmp_bytes,
                       environment(extra, pythonpath))


def start_bot(spec: SandboxSpec, timeout_s: float,
              launcher: Callable[[SandboxSpec], Sandbox] = launch) -> RunningBot:
    """Launch ``spec`` (with ``launcher``: the supervisor starts every sandbox from one long-lived thread, since
    a sandbox dies with the thread that started it) and wait until the bot answers its health check on its
    socket (``timeout_s``). Raises StartError (the bot exited, or did not answer in time; it is stopped) or
    SandboxUnavailable."""
    started = time.monotonic()
    sandbox = launcher(spec)
    output = OutputLog(sandbox.output)
    socket = sandbox.root() + SOCKET
    deadline = started + timeout_s
    problem = "its socket never appeared"
    try:
        while time.monotonic() < deadline:
            if not sandbox.alive():
                time.sleep(0.05)  # its last words reach the log
                raise StartError(f"the bot exited with status {sandbox.process.returncode} before it answered: "
                                 f"{output.tail() or 'no output'}")
            if os.path.exists(socket):
                with grpc.insecure_channel(f"unix:{socket}") as channel:
                    problem = health_problem(channel, max(0.05, min(1.0, deadline - time.monotonic()))) or ""
                if not problem:
                    return RunningBot(sandbox, socket, output, started)
            time.sleep(0.01)
        raise StartError(f"the bot did not answer its health check within {timeout_s:g} s ({problem}): "
                         f"{output.tail() or 'no output'}")
    except BaseException:
        sandbox.stop()
        raise
