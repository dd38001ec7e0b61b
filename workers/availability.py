"""Is every bot of a table answering? The health checks a worker makes before it claims a game.

Every seat's endpoint is resolved under the network policy (as for play,
:func:`workers.service.client_for`) and asked the standard gRPC health check
within ``league.competition.availability.HEALTH_TIMEOUT_S`` at the start of every game: a
SERVING answer is trusted for the game it was asked for, no longer (a Slippery
Sam game lasts about 0.1 s, a bot can die between two). The endpoints of a
table are asked at the same time, one in the game's own thread and the others
on a small thread pool (a stopped bot costs one deadline, not one per seat).
gRPC's own futures were measured slower here: 4.0 ms for three endpoints
against 1.4 ms on threads, 1.4 ms one after the other, on a loaded 2-core
machine (``python -m bench.bench_bot_kill --health-cost``).

A bot the store already marks down in the season (another worker found it
down, or one of its seats went unreachable during a game, rules §4.9) is not
dialled for each of its games: its games are deferred at once, and this
process asks it again at most every ``league.competition.availability.REPROBE_S`` seconds
(a game deferred waits out its own backoff anyway). rules §4.9.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor

from league.competition.availability import HEALTH_CACHE_S, HEALTH_TIMEOUT_S, REPROBE_S
from referee.clients import GrpcBotClient, UnreachableBotClient
from store import SeatBot


class HealthCache:
    """Health answers per endpoint: asked at each game start (``ttl_s``: seconds an answer is
    reused, 0 by default: never), and the endpoints the store marks down asked again at most every
    ``reprobe_s`` seconds. ``clock``: monotonic seconds."""

    def __init__(self, connect: Callable[[str], object], timeout_s: float = HEALTH_TIMEOUT_S,
                 ttl_s: float = HEALTH_CACHE_S, clock: Callable[[], float] = time.monotonic,
                 reprobe_s: float = REPROBE_S) -> None:
        self._connect = connect
        self.timeout_s = timeout_s
        self.ttl_s = ttl_s
        self.reprobe_s = reprobe_s
        self._clock = clock
        self._answers: dict[str, tuple[float, str | None]] = {}
        #: endpoints marked down in the store: when this process last dialled them (or first saw the mark)
        self._marked_seen: dict[str, float] = {}
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=8, thread_name_prefix="health")

    def _cached(self, endpoints: Sequence[str]) -> dict[str, str | None]:
        """The answers kept for those of ``endpoints`` asked within the last ``ttl_s`` seconds."""
        if self.ttl_s <= 0:
            return {}
        now = self._clock()
        with self._lock:
            kept = {e: self._answers.get(e) for e in endpoints}
        return {e: answer[1] for e, answer in kept.items() if answer is not None and now - answer[0] < self.ttl_s}

    def problem(self, endpoint: str) -> str | None:
        """None if the bot at ``endpoint`` answers SERVING now (or within the last ``ttl_s``), else why not."""
        cached = self._cached([endpoint])
        if endpoint in cached:
            return cached[endpoint]
        return self._ask([endpoint])[endpoint]

    def _ask_one(self, endpoint: str) -> str | None:
        """Ask the bot at ``endpoint`` now: None if SERVING, else why not."""
        client = self._connect(endpoint)
        if isinstance(client, UnreachableBotClient):
            return client.reason
        if isinstance(client, GrpcBotClient):
            return client.health(self.timeout_s)
        return None  # an in-process bot (tests) is always there

    def _ask(self, endpoints: Sequence[str]) -> dict[str, str | None]:
        """Ask the bots at ``endpoints`` now, all at once (the first in this thread), and keep their
        answers: None if SERVING, else why not."""
        others = [(endpoint, self._pool.submit(self._ask_one, endpoint)) for endpoint in endpoints[1:]]
        answers = {endpoints[0]: self._ask_one(endpoints[0])}
        answers.update((endpoint, future.result()) for endpoint, future in others)
        now = self._clock()
        with self._lock:
            for endpoint, answer in answers.items():
                self._answers[endpoint] = (now, answer)
                if answer is None:
                    self._marked_seen.pop(endpoint, None)
                elif endpoint in self._marked_seen:
                    self._marked_seen[endpoint] = now
        return answers

    def _marked_and_not_due(self, endpoint: str, now: float) -> bool:
        """For an endpoint the store marks down: True if this process dialled it (or first saw the
        mark) less than ``reprobe_s`` ago, so it is not dialled now."""
        with self._lock:
            seen = self._marked_seen.get(endpoint)
            if seen is None:
                self._marked_seen[endpoint] = now
                return True
            if now - seen < self.reprobe_s:
                return True
            self._marked_seen[endpoint] = now  # dialled now: the next one after reprobe_s
            return False

    def problems(self, seats: Sequence[SeatBot], marked: Mapping[int, str] | None = None) -> dict[int, str]:
        """``{bot id: why}`` for every bot of the table that does not answer SERVING now.

        ``marked``: ``{bot id: why}`` of the table's bots the store marks down in the season; they
        count as down without being dialled unless this process last dialled them ``reprobe_s`` or
        more ago (their game is deferred either way until one answers). The other endpoints are
        asked at the same time (:meth:`_ask`)."""
        marked = marked or {}
        endpoints = list(dict.fromkeys(seat.endpoint for seat in seats))
        answers = self._cached(endpoints)
        now = self._clock()
        for seat in seats:
            if seat.bot_id in marked and seat.endpoint not in answers and self._marked_and_not_due(seat.endpoint, now):
                answers[seat.endpoint] = marked[seat.bot_id]
        todo = [e for e in endpoints if e not in answers]
        if todo:
            answers.update(self._ask(todo))
        return {seat.bot_id: why for seat in seats if (why := answers[seat.endpoint]) is not None}
