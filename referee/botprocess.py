"""Run bots as real gRPC servers in their own processes (the demo, tests, local seasons)."""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
from dataclasses import dataclass
from multiprocessing.connection import Connection


@dataclass
class BotProcess:
    """A bot server running in a child process, listening on ``endpoint`` ("127.0.0.1:PORT")."""

    name: str
    endpoint: str
    process: mp.process.BaseProcess

    def stop(self, timeout_s: float = 5.0) -> None:
        """Terminate the server process and wait for it."""
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(timeout_s)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(timeout_s)


def _serve_child(bot_name: str, seed: int, threads: int | None, conn: Connection, port: int = 0,
                 cpu: int | None = None) -> None:
    from referee.bots import load_bot
    from botsdk.server import serve

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops us; Ctrl-C goes to it
    try:
        if cpu is not None:
            os.sched_setaffinity(0, {cpu})  # before gRPC starts its threads: they inherit it
        server, port = serve(load_bot(bot_name, seed), port=port, threads=threads)
    except Exception as exc:  # report, don't hang the parent
        conn.send(("error", repr(exc)))
        return
    conn.send(("ok", port))
    conn.close()
    server.wait_for_termination()


def start_bot_process(bot_name: str, seed: int = 0, threads: int | None = None, timeout_s: float = 30.0,
                      port: int = 0, cpu: int | None = None) -> BotProcess:
    """Start ``bot_name`` (reference name or ``module:Class``) in a new process on ``port`` of
    127.0.0.1 (0: an ephemeral port).

    ``cpu``: the one CPU (a number of ``os.sched_setaffinity``) the process and all its threads
    run on; None leaves it to the scheduler. A gRPC server hands every call between its
    threads (the poller, the handler's pool, the transport's) a dozen times or more, and on
    one CPU those hand-offs cost less than waking another one (``bench.bench_bots --pin``).

    Returns once the server listens. Raises RuntimeError if it fails to start within ``timeout_s`` seconds.
    """
    ctx = mp.get_context("spawn")
    parent, child = ctx.Pipe(duplex=False)
    process = ctx.Process(target=_serve_child, args=(bot_name, seed, threads, child, port, cpu), daemon=True, name=f"bot-{bot_name}")
    process.start()
    child.close()
    if not parent.poll(timeout_s):
        process.kill()
        raise RuntimeError(f"bot {bot_name!r} did not start within {timeout_s} s")
    status, value = parent.recv()
    if status != "ok":
        process.join(5)
        raise RuntimeError(f"bot {bot_name!r} failed to start: {value}")
    return BotProcess(bot_name, f"127.0.0.1:{value}", process)
