"""The health checks a worker makes before a claim (workers.availability, rules §4.9): asked for
every game, the seats of a table at once, and a bot the store marks down not dialled again
before its re-probe time."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent import futures

import grpc
import pytest
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from referee.clients import GrpcBotClient, UnreachableBotClient
from store import SeatBot
from workers.availability import HealthCache


class FakeClock:
    """Monotonic seconds that move only when told."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def seat(seat_no: int, bot_id: int, endpoint: str) -> SeatBot:
    return SeatBot(seat=seat_no, bot_id=bot_id, name=f"bot{bot_id}", endpoint=endpoint, capacity=4)


class Counting:
    """A connect function over in-process clients: ``down`` endpoints are unreachable; records each dial."""

    def __init__(self, down: set[str]) -> None:
        self.down = down
        self.asked: list[str] = []

    def __call__(self, endpoint: str) -> object:
        self.asked.append(endpoint)
        return UnreachableBotClient(f"{endpoint} is down") if endpoint in self.down else object()


def test_every_game_asks_again_by_default() -> None:
    connect = Counting({"b:1"})
    cache = HealthCache(connect, clock=FakeClock())
    table = [seat(0, 1, "a:1"), seat(1, 2, "b:1"), seat(2, 3, "a:1")]
    assert cache.problems(table) == {2: "b:1 is down"}
    assert cache.problems(table) == {2: "b:1 is down"}
    assert sorted(connect.asked) == ["a:1", "a:1", "b:1", "b:1"]  # one question per endpoint and game
    connect.down.clear()
    assert cache.problems(table) == {}  # back: the very next game sees it


def test_with_a_reuse_time_kept_answers_are_used_until_they_are_that_old() -> None:
    connect = Counting({"a:1", "b:1"})
    clock = FakeClock()
    cache = HealthCache(connect, ttl_s=3.0, clock=clock)
    table = [seat(0, 1, "a:1"), seat(1, 2, "b:1")]
    assert cache.problems(table) == {1: "a:1 is down", 2: "b:1 is down"}
    clock.now += 2.9
    assert cache.problems(table) == {1: "a:1 is down", 2: "b:1 is down"}
    assert sorted(connect.asked) == ["a:1", "b:1"]
    clock.now += 0.2
    cache.problems([seat(0, 2, "b:1")])
    assert sorted(connect.asked) == ["a:1", "b:1", "b:1"]


def test_a_bot_the_store_marks_down_is_asked_again_only_after_the_reprobe_time() -> None:
    connect = Counting({"b:1"})
    clock = FakeClock()
    cache = HealthCache(connect, clock=clock, reprobe_s=0.5)
    table = [seat(0, 1, "a:1"), seat(1, 2, "b:1")]
    marked = {2: "refused (seen by another worker)"}
    assert cache.problems(table, marked) == {2: "refused (seen by another worker)"}
    assert connect.asked == ["a:1"]  # not dialled: deferred on the store's word
    clock.now += 0.4
    assert cache.problems(table, marked) == {2: "refused (seen by another worker)"}
    assert connect.asked == ["a:1", "a:1"]
    clock.now += 0.2
    assert cache.problems(table, marked) == {2: "b:1 is down"}  # due: dialled, still down
    assert sorted(connect.asked[2:]) == ["a:1", "b:1"]
    clock.now += 0.6
    connect.down.clear()
    assert cache.problems(table, marked) == {}  # due again: it answers, the game may start
    assert cache.problems(table, {}) == {}


class WaitsForTheOther(health.HealthServicer):
    """A health service that answers SERVING only once the other server's check has arrived too."""

    def __init__(self, both: threading.Barrier) -> None:
        super().__init__()
        self.both = both

    def Check(self, request, context):  # noqa: N802, ANN001, ANN201 (the generated servicer's names)
        self.both.wait()
        return health_pb2.HealthCheckResponse(status=health_pb2.HealthCheckResponse.SERVING)


@pytest.fixture
def two_servers() -> Iterator[list[str]]:
    """Two real gRPC servers on 127.0.0.1 whose health checks each wait for the other's."""
    both = threading.Barrier(2, timeout=10)
    servers, endpoints = [], []
    for _ in range(2):
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        health_pb2_grpc.add_HealthServicer_to_server(WaitsForTheOther(both), server)
        port = server.add_insecure_port("127.0.0.1:0")
        server.start()
        servers.append(server)
        endpoints.append(f"127.0.0.1:{port}")
    yield endpoints
    for server in servers:
        server.stop(0)


def test_the_endpoints_of_a_table_are_asked_at_the_same_time(two_servers: list[str]) -> None:
    """Each server answers only once both questions are in: asked one after the other, the first
    would wait out its deadline (the barrier breaks) and both would be reported down."""
    cache = HealthCache(GrpcBotClient, timeout_s=8.0)
    assert cache.problems([seat(0, 1, two_servers[0]), seat(1, 2, two_servers[1])]) == {}
