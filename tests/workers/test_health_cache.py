"""The health answers a worker keeps per endpoint before a claim (workers.availability, rules §4.9)."""

from __future__ import annotations

import threading

from referee.clients import UnreachableBotClient
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


def test_kept_answers_are_used_until_they_are_ttl_old() -> None:
    asked: list[str] = []

    def connect(endpoint: str) -> UnreachableBotClient:
        asked.append(endpoint)
        return UnreachableBotClient(f"{endpoint} is down")

    clock = FakeClock()
    cache = HealthCache(connect, ttl_s=3.0, clock=clock)
    table = [seat(0, 1, "a:1"), seat(1, 2, "b:1"), seat(2, 3, "a:1")]
    assert cache.problems(table) == {1: "a:1 is down", 2: "b:1 is down", 3: "a:1 is down"}
    assert sorted(asked) == ["a:1", "b:1"]  # one question per endpoint, however many seats share it
    clock.now += 2.9
    assert cache.problems(table) == {1: "a:1 is down", 2: "b:1 is down", 3: "a:1 is down"}
    assert cache.problem("b:1") == "b:1 is down"
    assert sorted(asked) == ["a:1", "b:1"]
    clock.now += 0.2
    cache.problems([seat(0, 2, "b:1")])
    assert sorted(asked) == ["a:1", "b:1", "b:1"]


def test_endpoints_without_a_kept_answer_are_asked_at_the_same_time() -> None:
    both_asking = threading.Barrier(2, timeout=10)  # broken (an error) unless two questions overlap
    asked: list[str] = []

    def connect(endpoint: str) -> UnreachableBotClient | object:
        asked.append(endpoint)
        if endpoint == "kept:1":
            return object()  # an in-process bot: always there
        both_asking.wait()
        return UnreachableBotClient("no answer")

    cache = HealthCache(connect, clock=FakeClock())
    assert cache.problem("kept:1") is None
    down = cache.problems([seat(0, 1, "kept:1"), seat(1, 2, "x:1"), seat(2, 3, "y:1")])
    assert down == {2: "no answer", 3: "no answer"}
    assert sorted(asked) == ["kept:1", "x:1", "y:1"]
