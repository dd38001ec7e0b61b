"""Shared fixtures: real gRPC bot servers on 127.0.0.1 with ephemeral ports."""

from __future__ import annotations

import fnmatch
import os
import socket
from collections.abc import Callable, Iterator
from typing import Any

import botsdk  # first: it sets gRPC's runtime before grpc is imported (botsdk.runtime)
import grpc
import pytest
from hypothesis import settings

from botsdk import Bot, serve
from referee.clients import TRANSPORTS, close_channels
from tests.raw_bots import RawBot

# A test process of `make test` (pytest-xdist) is given COLUMNS=80 and LINES=24; the commands the tests run, and the
# CLI's console, then print the 80-column tables of a terminal instead of the full width they print when piped.
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.pop("COLUMNS", None)
    os.environ.pop("LINES", None)

#: The files that take longest, longest first (their times in a `make test` run, docs/measurements.md), handed out
#: first when `make test` runs file by file in several processes, so that no process starts a long file last while
#: the others are idle; each file's tests keep their order. Patterns (fnmatch): a game's files are named by none.
FIRST = ("tests/cluster/test_cluster.py", "tests/test_adding_a_game.py", "referee/games/*/tests/test_*_props.py",
         "tests/test_audit.py", "tests/workers/test_identity.py", "tests/dashboard/test_collusion_flags.py",
         "tests/test_cli.py", "tests/workers/test_failures.py", "tests/test_verify_tampering.py",
         "tests/test_season_cancel.py", "tests/workers/test_leases.py", "tests/test_fair_deals.py",
         "tests/workers/test_bot_kill.py", "tests/test_readme.py", "tests/workers/test_ladder_compare_cli.py",
         "tests/workers/test_sequential_season.py", "tests/test_reconnect.py", "tests/dashboard/test_browser_replay.py",
         "tests/test_bench_run.py", "tests/workers/test_busy_retry_clock.py", "tests/workers/test_celery_season.py")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In a process of `make test` (pytest-xdist), the files of :data:`FIRST` first, in its order; the rest by how
    many tests they hold, most first (as pytest-xdist orders files itself unless told not to: `make test` tells it
    not to, so that this order holds). A single process keeps pytest's own order."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return
    tests_in: dict[str, int] = {}
    for item in items:
        path = item.nodeid.split("::", 1)[0]
        tests_in[path] = tests_in.get(path, 0) + 1

    def rank(item: pytest.Item) -> tuple[int, int]:
        path = item.nodeid.split("::", 1)[0]
        first = next((i for i, pattern in enumerate(FIRST) if fnmatch.fnmatchcase(path, pattern)), None)
        return (first, 0) if first is not None else (len(FIRST), -tests_in[path])

    items.sort(key=rank)  # stable: each file's tests, and files of the same rank, keep their order


# Property tests draw the same examples on every run (CI must not fail on a fresh draw) and
# keep no example database between runs; a test's own @settings still sets its example count.
settings.register_profile("cardarena", derandomize=True, database=None, deadline=None)
settings.load_profile("cardarena")


@pytest.fixture
def bot_server() -> Iterator[Callable[[Bot], str]]:
    """Start bots as real gRPC servers on ephemeral ports (``serve``'s options too); returns "127.0.0.1:PORT";
    stops them at teardown."""
    servers: list[grpc.Server] = []

    def start(bot: Bot, threads: int | None = None, **options: Any) -> str:
        server, port = serve(bot, port=0, threads=threads, **options)
        servers.append(server)
        return f"127.0.0.1:{port}"

    yield start
    for server in servers:
        server.stop(0)
    close_channels()


@pytest.fixture
def dead_endpoint() -> str:
    """An address on 127.0.0.1 where nothing listens."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"127.0.0.1:{port}"


@pytest.fixture(params=TRANSPORTS)
def transport(request: pytest.FixtureRequest) -> str:
    """Each transport of the referee's bot client in turn (``referee.clients.TRANSPORTS``): ``stream``
    (the bot's ActStream, where it serves it) and ``unary`` (one Act call per decision)."""
    return str(request.param)


@pytest.fixture(autouse=True)
def _no_hosted_supervisor_left() -> Iterator[None]:
    """A test that plays a game in this process attaches it a hosted-bot supervisor over its own store
    (``workers.hosted.attach``); stopped after the test, so that a later test, on another store, is not checked
    against the first one's builds."""
    yield
    import sys

    hosted = sys.modules.get("workers.hosted")
    if hosted is not None:
        hosted.detach()


@pytest.fixture
def raw() -> Iterator[list[RawBot]]:
    """Raw bots started by a test (``tests/raw_bots.py``), stopped after it."""
    bots: list[RawBot] = []
    yield bots
    for bot in bots:
        bot.server.stop(0)
