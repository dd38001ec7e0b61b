"""Is every bot of a table answering? The health checks a worker makes before it claims a game.

Each seat's endpoint is resolved under the network policy (as for play,
:func:`workers.service.client_for`) and asked the standard gRPC health check
within ``league.availability.HEALTH_TIMEOUT_S``; the answer is kept for
``HEALTH_CACHE_S`` seconds per endpoint in this process, so a worker playing
many games with the same bots asks each about once every few seconds. The
seats of a table are asked at the same time (a stopped bot costs one deadline,
not one per seat). rules §4.9.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

from league.availability import HEALTH_CACHE_S, HEALTH_TIMEOUT_S
from referee.clients import GrpcBotClient, UnreachableBotClient
from store import SeatBot


class HealthCache:
    """Health answers per endpoint, reused for ``ttl_s`` seconds (``clock``: monotonic seconds)."""

    def __init__(self, connect: Callable[[str], object], timeout_s: float = HEALTH_TIMEOUT_S,
                 ttl_s: float = HEALTH_CACHE_S, clock: Callable[[], float] = time.monotonic) -> None:
        self._connect = connect
        self.timeout_s = timeout_s
        self.ttl_s = ttl_s
        self._clock = clock
        self._answers: dict[str, tuple[float, str | None]] = {}
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=8, thread_name_prefix="health")

    def _cached(self, endpoints: Sequence[str]) -> dict[str, str | None]:
        """The answers kept for those of ``endpoints`` asked within the last ``ttl_s`` seconds."""
        now = self._clock()
        with self._lock:
            kept = {e: self._answers.get(e) for e in endpoints}
        return {e: answer[1] for e, answer in kept.items() if answer is not None and now - answer[0] < self.ttl_s}

    def problem(self, endpoint: str) -> str | None:
        """None if the bot at ``endpoint`` answers SERVING (now or within the last ``ttl_s``), else why not."""
        cached = self._cached([endpoint])
        if endpoint in cached:
            return cached[endpoint]
        return self._ask(endpoint)

    def _ask(self, endpoint: str) -> str | None:
        """Ask the bot at ``endpoint`` now and keep its answer: None if SERVING, else why not."""
        client = self._connect(endpoint)
        if isinstance(client, UnreachableBotClient):
            answer: str | None = client.reason
        elif isinstance(client, GrpcBotClient):
            answer = client.health(self.timeout_s)
        else:
            answer = None  # an in-process bot (tests) is always there
        with self._lock:
            self._answers[endpoint] = (self._clock(), answer)
        return answer

    def problems(self, seats: Sequence[SeatBot]) -> dict[int, str]:
        """``{bot id: why}`` for every bot of the table that does not answer; the endpoints without a
        kept answer are asked at the same time (one of them in this thread).

        The kept answers are read first, in this thread: in a season the table's bots were
        nearly always asked within ``ttl_s``, and handing each seat to the thread pool and
        waiting for it cost more than the lookup (about 0.15 ms per game, between two games
        of a worker process; ``docs/design.md``, "Celery's cost per game")."""
        endpoints = list(dict.fromkeys(seat.endpoint for seat in seats))
        answers = self._cached(endpoints)
        todo = [e for e in endpoints if e not in answers]
        if len(todo) == 1:
            answers[todo[0]] = self._ask(todo[0])
        elif todo:
            answers.update(zip(todo, self._pool.map(self._ask, todo), strict=True))
        return {seat.bot_id: why for seat in seats if (why := answers[seat.endpoint]) is not None}
