"""Does each endpoint of a table still serve the bot registered there? Describe before a claim.

Before every claim a worker compares each seat's ``Describe`` answer with
the store (``league.entry.identity``, rules §4.9). The answer is read again
whenever it may have changed:

- the first time this process sees the endpoint (a season run's pool
  processes are new; ``season run`` also checks every bot before it starts);
- whenever the process's channel to the endpoint reconnects: a bot restarted
  or replaced behind its endpoint drops its connections, the channel leaves
  READY (watched with ``grpc.Channel.subscribe``), and the next game start
  reads Describe again; a channel replaced after an outage is new too;
- at the latest ``DESCRIBE_CACHE_S`` seconds after the last read (a switch
  that kept the connection, e.g. behind a proxy).

In between, the kept answer is compared again at every game start (a pure
comparison, microseconds). One Describe is a unary call on the cached
channel, about 0.3-0.8 ms on 127.0.0.1 (``bench/bench_identity.py``); the
table's endpoints to read are asked at the same time.

- another bot's name at the endpoint: the bot's games are deferred as for a
  bot that does not answer (``store.games.defer_game``), with the problem
  ``endpoint serves another bot: X``, so nothing is played or rated under the
  registered name; ``season run`` and the season page name it like a bot that
  does not answer;
- a changed capacity or version: stored at once (``store.bots.update_bot``), so
  the claim that follows counts the new capacity and records the new version
  on the game's seats.

An endpoint that cannot be reached is the health check's concern
(``workers.availability``): no problem is reported here for it. A Describe
that fails on a working connection (an error status, no answer in time) is a
problem: the bot cannot be identified.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import grpc

from cardarena.v1 import bot_pb2, bot_pb2_grpc
from league.competition.availability import HEALTH_TIMEOUT_S
from league.entry.identity import VERSION_WINDOW_S, Declared, Expected, Review, review, version_limit
from referee.clients import GrpcBotClient, channel_for
from store import SeatBot, Store
from store.artifacts import hosted_sha

log = logging.getLogger(__name__)

#: Seconds a Describe answer is kept at most while its channel stays connected.
DESCRIBE_CACHE_S = 3.0
_REQUEST = bot_pb2.DescribeRequest()


@dataclass
class _Kept:
    """The last Describe answer read on ``channel`` at ``at`` (monotonic seconds); ``stale`` once
    the channel left READY after it (it reconnects: the bot may have been restarted or replaced)."""

    channel: grpc.Channel
    answer: Declared
    at: float
    stale: bool = False


class IdentityCheck:
    """Describe the bots of a table and compare (``connect``: an endpoint to the referee's client,
    resolving the network policy, ``workers.service.client_for``; ``timeout_s``: Describe's deadline
    here, seconds; ``ttl_s``: seconds an answer is kept at most; ``clock``: monotonic seconds)."""

    def __init__(self, connect: Callable[[str], object], timeout_s: float = HEALTH_TIMEOUT_S,
                 ttl_s: float = DESCRIBE_CACHE_S, clock: Callable[[], float] = time.monotonic) -> None:
        self._connect = connect
        self.timeout_s = timeout_s
        self.ttl_s = ttl_s
        self._clock = clock
        self._kept: dict[str, _Kept] = {}
        self._watched: set[int] = set()  # id() of the channels subscribed to
        self._lock = threading.Lock()
        self.reads = 0  # Describe calls made (tests, benchmarks)

    def _watch(self, endpoint: str, channel: grpc.Channel) -> None:
        """Mark the kept answer of ``endpoint`` stale whenever ``channel`` leaves READY."""
        with self._lock:
            if id(channel) in self._watched:
                return
            self._watched.add(id(channel))

        def changed(state: grpc.ChannelConnectivity) -> None:
            if state != grpc.ChannelConnectivity.READY:
                with self._lock:
                    kept = self._kept.get(endpoint)
                    if kept is not None and kept.channel is channel:
                        kept.stale = True

        channel.subscribe(changed, try_to_connect=False)

    def _fresh(self, endpoint: str, channel: grpc.Channel) -> Declared | None:
        with self._lock:
            kept = self._kept.get(endpoint)
        if (kept is None or kept.stale or kept.channel is not channel
                or self._clock() - kept.at >= self.ttl_s):
            return None
        return kept.answer

    def describe(self, endpoints: Sequence[str]) -> dict[str, Declared | str | None]:
        """``{endpoint: answer}`` for each endpoint: the Declared identity (kept, or read now, the
        endpoints to read asked at the same time), a string saying why Describe failed on a working
        connection, or None (not reached: the health check's concern; or an in-process bot of the
        tests, which has no endpoint)."""
        calls: dict[str, tuple[grpc.Channel, grpc.Future]] = {}
        answers: dict[str, Declared | str | None] = {}
        for endpoint in endpoints:
            client = self._connect(endpoint)
            if not isinstance(client, GrpcBotClient):
                answers[endpoint] = None
                continue
            channel = channel_for(client.endpoint)
            kept = self._fresh(endpoint, channel)
            if kept is not None:
                answers[endpoint] = kept
                continue
            self._watch(endpoint, channel)
            at = self._clock()
            if len(endpoints) == 1:  # a blocking call costs less than a future
                try:
                    reply = bot_pb2_grpc.BotStub(channel).Describe(_REQUEST, timeout=self.timeout_s)
                except grpc.RpcError as exc:
                    answers[endpoint] = _failure(exc)
                    continue
                answers[endpoint] = self._keep(endpoint, channel, reply, at)
                continue
            calls[endpoint] = (channel, bot_pb2_grpc.BotStub(channel).Describe.future(_REQUEST, timeout=self.timeout_s))
        for endpoint, (channel, call) in calls.items():
            try:
                reply = call.result()
            except grpc.RpcError as exc:
                answers[endpoint] = _failure(exc)
                continue
            answers[endpoint] = self._keep(endpoint, channel, reply, self._clock())
        return answers

    def _keep(self, endpoint: str, channel: grpc.Channel, reply: bot_pb2.DescribeResponse, at: float) -> Declared:
        answer = Declared(reply.name, reply.version, reply.capacity)
        with self._lock:
            self.reads += 1
            self._kept[endpoint] = _Kept(channel, answer, at)
        return answer

    def problems(self, store: Store, seats: Sequence[SeatBot]) -> dict[int, str]:
        """``{bot id: why}`` for every bot of the table whose endpoint serves another bot (or whose
        Describe fails on a working connection); a changed capacity or version is stored before this
        returns (rules §4.9). Raises StoreError if the store cannot be written."""
        answers = self.describe(list(dict.fromkeys(seat.endpoint for seat in seats)))
        found: dict[int, str] = {}
        seen: set[int] = set()
        for seat in seats:
            if seat.bot_id in seen:
                continue
            seen.add(seat.bot_id)
            answer = answers[seat.endpoint]
            if answer is None:
                continue
            if isinstance(answer, str):
                found[seat.bot_id] = answer
                continue
            verdict = review(Expected(seat.described_name, seat.described_version, seat.described_capacity,
                                      pinned=hosted_sha(seat.endpoint) is not None), answer)
            if verdict.problem is not None:
                log.warning("%s at %s: %s", seat.name, seat.endpoint, verdict.problem)
                found[seat.bot_id] = verdict.problem
            elif "version" in verdict.changes and (limited := _over_version_limit(store, seat, verdict)) is not None:
                log.warning("%s at %s: %s", seat.name, seat.endpoint, limited)
                found[seat.bot_id] = limited
            elif verdict.changes:
                log.info("%s at %s declares %s", seat.name, seat.endpoint,
                         ", ".join(f"{k} {v}" for k, v in verdict.changes.items()))
                store.bots.update_bot(seat.bot_id, **verdict.changes)  # type: ignore[arg-type]
        return found


def _over_version_limit(store: Store, seat: SeatBot, verdict: Review) -> str | None:
    """The problem of a new version over the bot's limit (``league.entry.identity.version_limit``, rules §5.2),
    or None. Read only when a version changes (rare): one count of the bot's ladder entrants of the last day."""
    since = datetime.now(UTC) - timedelta(seconds=VERSION_WINDOW_S)
    return version_limit(store.bots.versions_entered_since(seat.bot_id, since), str(verdict.changes["version"]),
                         seat.described_version)


def _failure(exc: grpc.RpcError) -> str | None:
    """None for a Describe that could not connect (the health check's concern), else why it failed."""
    code = exc.code() if hasattr(exc, "code") else None
    if code == grpc.StatusCode.UNAVAILABLE:
        return None
    details = exc.details() if hasattr(exc, "details") else str(exc)
    return f"Describe failed: {code.name if code is not None else 'UNKNOWN'}: {details}"


def bots_of(store: Store, bot_ids: Sequence[int]) -> list[SeatBot]:
    """The bots ``bot_ids`` as seats (seat 0) with what the store holds of their identity: for a
    check outside a game's table (``season run``'s check before it starts)."""
    seats = []
    for bot_id in bot_ids:
        b = store.bots.get_bot(bot_id)
        if b is not None:
            seats.append(SeatBot(0, b.id, b.name, b.endpoint, b.capacity, b.version, b.described_name,
                                 b.described_version, b.described_capacity))
    return seats
