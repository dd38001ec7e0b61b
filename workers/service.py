"""The game service: what every worker (local pool or Celery) does with a game id.

``run_game`` is idempotent: it first asks every seat's bot the gRPC health
check (:mod:`workers.availability`; a table with a bot that does not answer is
deferred, not claimed, rules §4.9), then claims the game atomically
(pending -> running, with an attempt number and a lease) if each of its bots
has room (running games < the bot's capacity), plays it with the referee
against the seats' bots over gRPC while a heartbeat thread renews the lease,
and stores the result, the replay and the ratings update in one transaction.
A game that is not pending (done, failed, or running elsewhere) is left alone,
so a redelivered task does nothing. A game whose bots are full is left pending
(``Outcome.BUSY``): the caller tries again later. A platform failure voids the
attempt: the game goes back to pending, or to failed after 3 attempts
(rules §4.3).

If the process dies mid-game the heartbeat dies with it: the lease runs out
(``lease_s`` seconds) and the sweeper (:mod:`workers.sweeper`) puts the game
back to pending for another worker.
"""

from __future__ import annotations

import enum
import logging
import os
import socket
import threading
from dataclasses import dataclass
from functools import lru_cache

from league.availability import defer_backoff_s
from league.netpolicy import EndpointError, NetworkPolicy, PolicyError, ResolveError, parse_endpoint
from referee.clients import BotClient, GrpcBotClient, UnreachableBotClient
from referee.games import make_params, spec
from referee.live import LiveView
from referee.referee import play
from referee.timecontrol import TimeControl
from store import BotsBusy, Claim, GameStatus, Store, StoreError
from workers.availability import HealthCache
from workers.settings import get_settings

log = logging.getLogger(__name__)


class Outcome(enum.StrEnum):
    """What one run of the game service did."""

    DONE = "done"          # played and stored
    SKIPPED = "skipped"    # not pending: already done, failed, not played, or claimed elsewhere
    BUSY = "busy"          # a bot of the table has no room: still pending, try again later
    DEFERRED = "deferred"  # a bot of the table does not answer: still pending, try again after retry_after_s
    NOT_PLAYED = "not_played"  # a bot of the table was suspended from the season: stored as not played
    VOIDED = "voided"      # platform failure: back to pending (or failed after 3 attempts)
    STALE = "stale"        # played, but the lease was lost meanwhile: nothing stored


@dataclass(frozen=True)
class RunResult:
    """The outcome of one run for ``game_id``; ``detail`` says why (busy bots, void reason)."""

    game_id: int
    outcome: Outcome
    detail: str = ""
    retry_after_s: float = 0.0  # DEFERRED: seconds before the game should be tried again (rules §4.9)


@lru_cache(maxsize=1)
def _policy() -> NetworkPolicy:
    settings = get_settings()
    return NetworkPolicy.from_strings(settings.allowed_networks, settings.denied_networks)


def client_for(endpoint: str) -> BotClient:
    """The referee's client for a seat, its endpoint resolved under the network policy now, at play time.

    Registration checked the endpoint once; resolving again before every game
    means a host name re-pointed since (DNS rebinding) cannot make a worker
    dial a refused address. The checked address is dialled, not the name. A
    refused or unresolvable endpoint plays as unreachable: the seat's fault
    (rules §4.2), not the platform's.
    """
    try:
        parsed = parse_endpoint(endpoint)
        addresses = _policy().resolve(parsed)
    except (EndpointError, PolicyError, ResolveError) as exc:
        return UnreachableBotClient(str(exc))
    return GrpcBotClient(parsed.dial(addresses[0]))


@lru_cache(maxsize=1)
def health_cache() -> HealthCache:
    """This process's cache of the bots' health answers (rules §4.9)."""
    return HealthCache(client_for)


def check_table(store: Store, game_id: int) -> RunResult | None:
    """Before a claim: None if the game is pending and every bot of its table answers its health
    check; else the result to report (SKIPPED: not pending; DEFERRED or NOT_PLAYED: a bot does
    not answer, and the store has recorded it, rules §4.9)."""
    table = store.table_of(game_id)
    if table is None:
        return RunResult(game_id, Outcome.SKIPPED)
    down = health_cache().problems(table)
    if not down:
        return None
    deferral = store.defer_game(game_id, down)
    if deferral.status == GameStatus.PENDING:
        log.info("game %s %s", game_id, deferral.detail)
        return RunResult(game_id, Outcome.DEFERRED, deferral.detail, defer_backoff_s(deferral.deferrals))
    if deferral.status == GameStatus.NOT_PLAYED:
        log.warning("game %s not played: %s", game_id, deferral.detail)
        return RunResult(game_id, Outcome.NOT_PLAYED, deferral.detail)
    return RunResult(game_id, Outcome.SKIPPED)


def worker_name() -> str:
    """``host:pid``: who holds a claim, for the attempt log."""
    return f"{socket.gethostname()}:{os.getpid()}"


class Heartbeat:
    """Renews a claim's lease every ``lease_s / 3`` seconds in a daemon thread until stopped,
    storing the game's public progress from ``live`` with it when it has moved on (so
    spectators can follow a running game, ``referee.live``).

    ``lost`` is set when the store says the attempt is no longer running (voided
    by a sweeper after a stall): the result will then not be stored. A store
    error is logged and retried at the next beat (the lease has two beats of slack).
    """

    def __init__(self, store: Store, claim: Claim, lease_s: float, live: LiveView | None = None) -> None:
        self.store = store
        self.claim = claim
        self.lease_s = lease_s
        self.live = live
        self._stored_events = -1
        self.lost = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name=f"lease-{claim.game_id}", daemon=True)

    def __enter__(self) -> Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _beat(self) -> None:
        while not self._stop.wait(self.lease_s / 3):
            snapshot = self.live.snapshot() if self.live is not None else None
            if snapshot is not None and snapshot["event_count"] == self._stored_events:
                snapshot = None  # nothing new to show
            try:
                if not self.store.renew_lease(self.claim.game_id, self.claim.attempt, self.lease_s, live=snapshot):
                    log.warning("game %s attempt %s: lease lost", self.claim.game_id, self.claim.attempt)
                    self.lost.set()
                    return
                if snapshot is not None:
                    self._stored_events = snapshot["event_count"]
            except StoreError as exc:
                log.warning("game %s: renewing the lease failed: %s", self.claim.game_id, exc)


def run_game(store: Store, game_id: int, lease_s: float = 10.0, owner: str | None = None) -> RunResult:
    """Check that every bot of the table answers, claim (within the bots' capacity), play and
    store game ``game_id``; never raises for bot or game failures. ``lease_s``: seconds of
    lease, renewed every ``lease_s / 3``. A table with a bot that does not answer is not
    claimed: the game is deferred (or not played once the bot is suspended), rules §4.9.

    Store errors (database down) propagate, so the caller's task can be retried;
    a referee error or any other exception while playing voids the attempt.
    ``BaseException``s that are not ``Exception`` (a hard kill, ``SystemExit``)
    leave the claim to expire.
    """
    refused = check_table(store, game_id)
    if refused is not None:
        return refused
    claim = store.claim_within_capacity(game_id, owner or worker_name(), lease_s)
    if claim is None:
        return RunResult(game_id, Outcome.SKIPPED)
    if isinstance(claim, BotsBusy):
        return RunResult(game_id, Outcome.BUSY, str(claim))
    live = LiveView()
    with Heartbeat(store, claim, lease_s, live):
        try:
            game_spec = spec(claim.game)
            record = play(
                game_spec,
                make_params(claim.game, claim.params),
                len(claim.seats),
                claim.seed,
                [client_for(seat.endpoint) for seat in claim.seats],
                TimeControl.from_json(claim.time_control),
                game_id=f"{claim.season_id}/{claim.number}",
                live=live,
            )
        except Exception as exc:  # referee error, soft time limit, bug: a platform failure (rules §4.3)
            log.exception("game %s attempt %s voided", game_id, claim.attempt)
            status = store.void_game(game_id, claim.attempt, f"platform failure: {type(exc).__name__}: {exc}")
            return RunResult(game_id, Outcome.VOIDED, f"{exc} -> {status}")
    if not store.finish_game(game_id, claim.attempt, record):
        return RunResult(game_id, Outcome.STALE, "lease lost before the result was stored")
    return RunResult(game_id, Outcome.DONE)
