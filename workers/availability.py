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

    def problem(self, endpoint: str) -> str | None:
        """None if the bot at ``endpoint`` answers SERVING (now or within the last ``ttl_s``), else why not."""
        now = self._clock()
        with self._lock:
            cached = self._answers.get(endpoint)
        if cached is not None and now - cached[0] < self.ttl_s:
            return cached[1]
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
        """``{bot id: why}`` for every bot of the table that does not answer; asked at the same time."""
        answers = list(self._pool.map(lambda seat: self.problem(seat.endpoint), seats))
        return {seat.bot_id: why for seat, why in zip(seats, answers, strict=True) if why is not None}
