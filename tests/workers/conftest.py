"""Real parts for the worker tests: a private redis-server, real ``cardarena worker``
processes (Celery, prefork), reference bots as gRPC servers in their own processes.

The redis-server is always this session's own, on a free port of 127.0.0.1 with
no persistence (tests kill and restart it); never a shared one.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import redis
from referee.games import spec
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from cli.demo import register_or_update
from league.competition.seasons import create_season
from league.policy import POLICY
from referee.botprocess import BotProcess, start_bot_process
from referee.clients import GrpcBotClient
from store import Store, open_store
from tests.a_game import GAME, QUICK, STRONG
from tests.store.conftest import PgDatabase, pg_database  # noqa: F401  (the session's PostgreSQL database)

REPO = Path(__file__).resolve().parents[2]
#: The four deterministic reference bots of the seasons here (GAME's): (reference name, seed).
LINEUP = ((STRONG, 0), ("random", 1), (STRONG, 1), ("random", 2))


def free_port() -> int:
    """A TCP port of 127.0.0.1 nothing listens on (now)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class RedisServer:
    """A redis-server on 127.0.0.1:``port`` owned by the tests: ``url``, ``start``, ``stop``, ``restart``."""

    port: int
    log: Path
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout_s: float = 10.0) -> None:
        """Start it and wait until it answers PING. Raises RuntimeError after ``timeout_s`` s."""
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server is not installed (apt-get install redis-server)")
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
                stdout=log, stderr=subprocess.STDOUT)
        client = redis.Redis(port=self.port, socket_connect_timeout=0.5)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            try:
                if client.ping():
                    return
            except redis.ConnectionError:
                time.sleep(0.05)
        raise RuntimeError(f"redis-server on port {self.port} did not answer within {timeout_s} s")

    def stop(self) -> None:
        """Kill it (SIGKILL: nothing is saved, as after a crash)."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)
        self.process = None

    def restart(self, down_s: float = 1.0) -> None:
        """Kill it, stay down ``down_s`` seconds, start it again, empty."""
        self.stop()
        time.sleep(down_s)
        self.start()


def free_port_outside_the_ephemeral_range() -> int:
    """A free TCP port of 127.0.0.1 below the kernel's ephemeral range, for a server restarted
    mid-test: while it is down, a client reconnecting from an ephemeral port cannot take its
    port (or connect to itself on it)."""
    try:
        low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768
    rng = random.Random()
    for _ in range(200):
        port = rng.randrange(max(1024, low - 12000), low)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    return free_port()


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """This session's own redis-server on a free port (restarted by one test: see the port's choice)."""
    server = RedisServer(free_port_outside_the_ephemeral_range(), tmp_path_factory.mktemp("redis") / "redis.log")
    server.start()
    yield server
    server.stop()


@pytest.fixture
def broker(redis_server: RedisServer) -> str:
    """The broker URL, running and empty at the start of the test."""
    if redis_server.process is None or redis_server.process.poll() is not None:
        redis_server.start()
    redis.Redis(port=redis_server.port).flushall()
    return redis_server.url


@dataclass
class Worker:
    """A ``cardarena worker`` process (the Celery main process) and its log."""

    name: str
    process: subprocess.Popen[bytes]
    log: Path

    @property
    def pid(self) -> int:
        return self.process.pid

    def children(self) -> list[int]:
        """Pids of its pool processes."""
        kids = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == self.pid:
                kids.append(int(stat.parent.name))
        return sorted(kids)

    def stop(self) -> None:
        """SIGKILL of the whole process group (the test is over: nothing to finish cleanly)."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait(10)


@dataclass
class Workers:
    """Starts workers for one test (``start``) and stops them all at teardown."""

    broker: str
    db_url: str
    logs: Path
    env: dict[str, str] = field(default_factory=dict)
    started: list[Worker] = field(default_factory=list)

    def start(self, concurrency: int = 1, timeout_s: float = 60.0) -> Worker:
        """Start one worker and wait until it consumes. Raises RuntimeError with its log if it does not."""
        name = f"w{len(self.started)}-{os.getpid()}@test"
        log = self.logs / f"{name.split('@')[0]}.log"
        env = {**os.environ, "CARDARENA_LEASE_S": "10", **self.env}
        with log.open("wb") as out:
            process = subprocess.Popen(
                [sys.executable, "-m", "cli.main", "worker", "--concurrency", str(concurrency), "--broker", self.broker,
                 "--db", self.db_url, "--name", name, "--loglevel", "INFO"],
                cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        worker = Worker(name, process, log)
        self.started.append(worker)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if b" ready." in log.read_bytes():
                return worker
            if process.poll() is not None:
                break
            time.sleep(0.1)
        raise RuntimeError(f"worker {name} did not become ready:\n{log.read_text(errors='replace')[-3000:]}")

    def stop_all(self) -> None:
        for worker in self.started:
            worker.stop()


@pytest.fixture
def workers(broker: str, db_url: str, tmp_path: Path) -> Iterator[Workers]:
    """A factory of real Celery worker processes on this test's broker and store."""
    pool = Workers(broker, db_url, tmp_path)
    yield pool
    pool.stop_all()


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    """A fresh SQLite store file (the PostgreSQL variant parametrizes ``pg_url``)."""
    return f"sqlite:///{tmp_path / 'arena.db'}"


@pytest.fixture
def pg_url(pg_database: PgDatabase) -> Iterator[str]:
    """A fresh schema of the session's PostgreSQL database (skipped, with the reason, if none answers)."""
    if pg_database.url is None:
        pytest.skip(pg_database.reason)
    schema = f"w_{uuid.uuid4().hex[:12]}"
    engine = create_engine(pg_database.url, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    yield make_url(pg_database.url).update_query_dict({"options": f"-csearch_path={schema}"}).render_as_string(
        hide_password=False)
    with engine.connect() as conn:
        conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
    engine.dispose()


@pytest.fixture(scope="session")
def reference_bots() -> Iterator[list[BotProcess]]:
    """The LINEUP as gRPC servers in their own processes, for the whole session."""
    processes = [start_bot_process(name, seed) for name, seed in LINEUP]
    yield processes
    for process in processes:
        process.stop()


def register(store: Store, processes: list[BotProcess], prefix: str = "") -> list[str]:
    """Register running bot processes through Describe (as the platform does); returns their names."""
    return [register_or_update(store, f"{prefix}{p.name.split(':')[-1]}-{i}", p.endpoint,
                               GrpcBotClient(p.endpoint).describe()) for i, p in enumerate(processes)]


def make_season(db_url: str, processes: list[BotProcess], name: str, games: int, seed: int = 7,
                tables: tuple[int, ...] = (3, 4)) -> tuple[Store, int]:
    """Open the store, register the bots, create a season of GAME (its quick parameters); returns (store, season id)."""
    store = open_store(db_url, policy=POLICY)
    names = register(store, processes)
    return store, create_season(store, name, spec(GAME), names, list(tables), games, seed, params=dict(QUICK))


@pytest.fixture
def season_factory() -> Callable[..., tuple[Store, int]]:
    return make_season


@pytest.fixture(scope="session")
def sleepy_bots() -> Iterator[list[BotProcess]]:
    """Four odds bots that take 20 ms per decision (games last long enough to kill a worker mid-game)."""
    processes = [start_bot_process("tests.workers.slowbots:SleepyOdds", seed) for seed in range(4)]
    yield processes
    for process in processes:
        process.stop()
