"""The game service: what every worker (local pool or Celery) does with a game id.

``run_game`` is idempotent: it first asks every seat's bot the gRPC health
check, for this game (:mod:`workers.availability`; a table with a bot that does
not answer, or that the store marks down, is deferred, not claimed, rules §4.9),
then claims the game atomically
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
back to pending for another worker. An attempt that lost its lease (the
process stalled past it, and the game was put back) stops at its next
decision: the referee asks :meth:`Heartbeat.cancelled` before every decision,
so no bot is called for a game another attempt now plays. A result that cannot
be stored at once (the database unreachable for a moment) is stored again with
backoff while the heartbeat keeps the lease (:func:`store_result`), so a blip
shorter than the lease costs no game.
"""

from __future__ import annotations

import enum
import logging
import os
import socket
import threading
import time
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TypeVar

from config import get_settings
from league.competition.availability import defer_backoff_s
from league.entry.netpolicy import EndpointError, NetworkPolicy, PolicyError, ResolveError, parse_endpoint
from referee.clients import BotClient, GrpcBotClient, UnreachableBotClient
from referee.games import spec
from referee.live import LiveView
from referee.record import FaultKind
from referee.record import GameRecord
from referee.referee import GameCancelled, play
from referee.timecontrol import TimeControl
from store import BotsBusy, Claim, GameStatus, Store, StoreError, StoreUnavailable
from store.artifacts import HOSTED_PREFIX
from workers import hosted
from workers.availability import HealthCache
from workers.identity import IdentityCheck

log = logging.getLogger(__name__)
T = TypeVar("T")

#: Seconds a finished game's result is retried for while the store is unavailable (and an
#: unconfirmed lease is confirmed for before the next decision); backoff from
#: RETRY_FIRST_S doubling up to RETRY_MAX_S between tries.
STORE_RETRY_S = 60.0
RETRY_FIRST_S = 0.2
RETRY_MAX_S = 2.0
#: The share of the lease after its last accepted renewal up to which a request may still go out
#: (:meth:`Heartbeat.may_send`): the lease surely holds for the whole of it, and the rest is margin.
SEND_FENCE = 0.9


class Outcome(enum.StrEnum):
    """What one run of the game service did."""

    DONE = "done"          # played and stored
    SKIPPED = "skipped"    # not pending: already done, failed, not played, or claimed elsewhere
    BUSY = "busy"          # a bot of the table has no room: still pending, try again later
    DEFERRED = "deferred"  # a bot of the table does not answer: still pending, try again after retry_after_s
    NOT_PLAYED = "not_played"  # a bot of the table was suspended from the season: stored as not played
    VOIDED = "voided"      # platform failure: back to pending (or failed after 3 attempts)
    STALE = "stale"        # the lease was lost meanwhile (stopped at a decision, or played out): nothing stored


@dataclass(frozen=True)
class RunResult:
    """The outcome of one run for ``game_id``; ``detail`` says why (busy bots, void reason)."""

    game_id: int
    outcome: Outcome
    detail: str = ""
    retry_after_s: float = 0.0  # DEFERRED: seconds before the game should be tried again (rules §4.9)
    store_s: float = 0.0  # seconds this run spent in the store's transactions (check, claim, result), not the heartbeat's

    def said(self) -> str:
        """The outcome and its detail in one phrase for a log line (``deferred: b does not answer (refused)``):
        a detail that starts with the outcome's word is not preceded by it again."""
        word = self.outcome.value
        if not self.detail:
            return word
        return self.detail if self.detail.startswith(word) else f"{word}: {self.detail}"


class StoreClock:
    """Adds up the seconds spent inside ``with clock:`` blocks (the store's calls of one run)."""

    def __init__(self) -> None:
        self.total_s = 0.0
        self._since = 0.0

    def __enter__(self) -> StoreClock:
        self._since = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.total_s += time.perf_counter() - self._since


@lru_cache(maxsize=1)
def _policy() -> NetworkPolicy:
    settings = get_settings()
    return NetworkPolicy.from_strings(settings.allowed_networks, settings.denied_networks)


def client_for(endpoint: str, fence: Callable[[], bool] | None = None) -> BotClient:
    """The referee's client for a seat, its endpoint resolved under the network policy now, at play time;
    ``fence`` (the attempt's :meth:`Heartbeat.may_send`) is asked before each request goes out.

    A hosted bot's endpoint (``hosted:<bot id>/<sha256>``) is its copy's Unix socket in this process's sandboxes,
    started if needed (``workers.hosted``).

    Registration checked the endpoint once; resolving again before every game
    means a host name re-pointed since (DNS rebinding) cannot make a worker
    dial a refused address. The checked address is dialled, not the name. A
    refused or unresolvable endpoint plays as unreachable: the seat's fault
    (rules §4.2), not the platform's. The client calls the bot on the settings' transport
    (``config.Settings.bot_transport``: its ActStream where it serves it, by default).
    """
    if endpoint.startswith(HOSTED_PREFIX):
        return hosted.client(endpoint, fence)  # type: ignore[return-value]
    try:
        parsed = parse_endpoint(endpoint)
        addresses = _policy().resolve(parsed)
    except (EndpointError, PolicyError, ResolveError) as exc:
        return UnreachableBotClient(str(exc))
    return GrpcBotClient(parsed.dial(addresses[0]), get_settings().bot_transport, fence)


@lru_cache(maxsize=1)
def health_cache() -> HealthCache:
    """This process's cache of the bots' health answers (rules §4.9)."""
    return HealthCache(client_for)


@lru_cache(maxsize=1)
def identity_check() -> IdentityCheck:
    """This process's identity check of the bots before a claim (``workers.identity``, rules §4.9)."""
    return IdentityCheck(client_for)


def check_table(store: Store, game_id: int, clock: StoreClock | None = None) -> RunResult | None:
    """Before a claim: None if the game is pending and every bot of its table answers its health
    check now; else the result to report (SKIPPED: not pending; DEFERRED or NOT_PLAYED: a bot does
    not answer, or the store marks it down and it is not due to be asked again, and the store has
    recorded it, rules §4.9). ``clock``: adds up the time in the store."""
    with clock or nullcontext():
        found = store.marks.table_and_down(game_id)
    if found is None:
        return RunResult(game_id, Outcome.SKIPPED)
    table, marked = found
    down = health_cache().problems(table, marked)
    down = {**identity_check().problems(store, [s for s in table if s.bot_id not in down]), **down}  # identity
    if not down:
        return None
    with clock or nullcontext():
        deferral = store.games.defer_game(game_id, down)
    if deferral.status == GameStatus.PENDING:
        log.info("game %s %s", game_id, deferral.detail)
        return RunResult(game_id, Outcome.DEFERRED, deferral.detail, defer_backoff_s(deferral.deferrals))
    if deferral.status == GameStatus.NOT_PLAYED and deferral.suspended:  # this check suspended its bot
        log.warning("game %s not played: %s", game_id, deferral.detail)
        return RunResult(game_id, Outcome.NOT_PLAYED, deferral.detail)
    return RunResult(game_id, Outcome.SKIPPED)  # no longer pending: played, or not played, elsewhere


def mark_unreachable(store: Store, claim: Claim, record: GameRecord) -> dict[int, str]:
    """After a game: the bots of its seats that went unreachable during it (rules §4.2) and do not
    answer their health check now are marked down in the season for every worker (rules §4.9),
    so no other game is started against them until one answers. Returns ``{bot id: why}`` marked;
    a store error is logged, not raised (the per-game health check still guards every game)."""
    lost = {f.seat for f in record.faults if f.kind is FaultKind.UNREACHABLE}
    if not lost:
        return {}
    seats = [seat for seat in claim.seats if seat.seat in lost]
    down = health_cache().problems(seats)
    if down:
        try:
            store.marks.mark_down(claim.season_id, down)
        except StoreError as exc:
            log.warning("game %s: marking %s down failed: %s", claim.game_id, sorted(down), exc)
            return {}
        log.warning("game %s: marked down: %s", claim.game_id,
                    "; ".join(f"{seat.name} ({down[seat.bot_id]})" for seat in seats if seat.bot_id in down))
    return down


def worker_name(pid: int | None = None) -> str:
    """``host:pid``: who holds a claim, for the attempt log (``pid``: another process of this host; default this one)."""
    return f"{socket.gethostname()}:{os.getpid() if pid is None else pid}"


class Heartbeat:
    """Renews a claim's lease every ``lease_s / 3`` seconds in a daemon thread until stopped,
    storing the game's public progress from ``live`` with it when it has moved on (so
    spectators can follow a running game, ``referee.live``).

    ``lost`` is set when the store says the attempt is no longer running (voided
    by a sweeper after a stall): the result will then not be stored. A store
    error is logged and retried sooner (from ``RETRY_FIRST_S``, backing off; the lease has
    two beats of slack).
    ``since``: the ``time.monotonic()`` taken just before the claim (the lease runs
    from no earlier than then, by the database's clock).
    """

    def __init__(self, store: Store, claim: Claim, lease_s: float, live: LiveView | None = None,
                 since: float | None = None) -> None:
        self.store = store
        self.claim = claim
        self.lease_s = lease_s
        self.live = live
        self._stored_events = -1
        self.lost = threading.Event()
        self._stop = threading.Event()
        #: held while the lease is renewed; hold it to keep renewals out (storing the result)
        self.renewing = threading.Lock()
        # monotonic time just before the last renewal (or the claim) the store accepted: the
        # lease holds, by the database's clock, at least until this + lease_s
        self._renewed = time.monotonic() if since is None else since
        self._thread = threading.Thread(target=self._beat, name=f"lease-{claim.game_id}", daemon=True)

    def __enter__(self) -> Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        """Stop renewing: a renewal under way ends first, and none reaches the store after this
        (:meth:`renew` checks ``stop`` under ``renewing``). The thread is not joined: it ends
        when it next wakes, and joining waited for that wake-up between two games (0.10-0.15 ms)."""
        self.stop()
        with self.renewing:
            pass

    def stop(self) -> None:
        """No renewal after this one (the attempt is over)."""
        self._stop.set()

    def _beat(self) -> None:
        wait = self.lease_s / 3
        while not self._stop.wait(wait):
            snapshot = self.live.snapshot() if self.live is not None else None
            if snapshot is not None and snapshot["event_count"] == self._stored_events:
                snapshot = None  # nothing new to show
            renewed = self.renew(snapshot)
            if renewed is False:
                return
            if renewed and snapshot is not None:
                self._stored_events = snapshot["event_count"]
            if renewed:
                wait = self.lease_s / 3
            else:  # the store did not answer: again soon, backing off
                wait = min(RETRY_FIRST_S if wait == self.lease_s / 3 else 2 * wait, RETRY_MAX_S, self.lease_s / 3)

    def renew(self, live: dict[str, object] | None = None) -> bool | None:
        """Renew the lease now: True if renewed, False if lost (``lost`` is set), None if the
        store could not be asked (logged)."""
        with self.renewing:
            if self.lost.is_set():
                return False
            if self._stop.is_set():
                return True  # the attempt is over (stored): nothing to renew
            sent = time.monotonic()
            try:
                ok = self.store.games.renew_lease(self.claim.game_id, self.claim.attempt, self.lease_s, live=live)
            except StoreError as exc:
                log.warning("game %s: renewing the lease failed: %s", self.claim.game_id, exc)
                return None
            if not ok:
                log.warning("game %s attempt %s: lease lost", self.claim.game_id, self.claim.attempt)
                self.lost.set()
                return False
            self._renewed = max(self._renewed, sent)
            return True

    def cancelled(self) -> bool:
        """The referee's hook before each decision: True if this attempt must stop calling bots.

        True once the lease is lost. While the last accepted renewal is less than two
        thirds of the lease old this answers at once (no store access: the common case).
        Older (the process stalled, or the store is slow), the lease may have run out and
        the game been given to another attempt, so it is confirmed first by a renewal in
        this thread, retried with backoff for up to STORE_RETRY_S while the store is
        unavailable; still unconfirmed then, the attempt stops.
        """
        if self.lost.is_set():
            return True
        if time.monotonic() - self._renewed < self.lease_s * 2 / 3:
            return False
        renewed = retry_while_unavailable(self.renew, f"game {self.claim.game_id}: confirming the lease")
        return renewed is not True

    def may_send(self) -> bool:
        """The clients' fence (:class:`referee.clients.CallWithheld`), asked the moment before each request
        goes out: True while the lease surely holds (the last accepted renewal is less than SEND_FENCE of
        the lease old) and has not been lost. :meth:`cancelled`, asked before, confirms an older lease
        by a renewal; a request still unsent when the fence closes was held up by a stall of this
        process after that check, and another attempt may play the game by now."""
        return not self.lost.is_set() and time.monotonic() - self._renewed < self.lease_s * SEND_FENCE


def retry_while_unavailable(attempt: Callable[[], T | None], what: str, budget_s: float = STORE_RETRY_S) -> T | None:
    """``attempt()`` until it answers other than None (None: the store could not be asked),
    with backoff from RETRY_FIRST_S doubling to RETRY_MAX_S, for at most ``budget_s`` seconds;
    the last answer (None if the store never answered)."""
    deadline = time.monotonic() + budget_s
    delay = RETRY_FIRST_S
    while True:
        answer = attempt()
        if answer is not None or time.monotonic() + delay > deadline:
            return answer
        log.warning("%s: the store is unavailable, again in %.1f s", what, delay)
        time.sleep(delay)
        delay = min(2 * delay, RETRY_MAX_S)


def store_result(store: Store, claim: Claim, record: GameRecord, heartbeat: Heartbeat,
                 budget_s: float = STORE_RETRY_S) -> bool:
    """Store a played game's result (``store.games.finish_game``), retried with backoff while the
    store is unavailable, for up to ``budget_s`` seconds, in this worker (the caller's
    heartbeat keeps renewing the lease meanwhile, so the game is not played again).

    True once stored (also when a try whose answer was lost had in fact committed); False if
    the attempt is no longer running (lease lost). Raises StoreUnavailable when the store
    stayed unavailable for the whole budget.
    """
    failed = False

    def attempt() -> bool | None:
        nonlocal failed
        if heartbeat.lost.is_set():
            return False
        try:
            with heartbeat.renewing:  # no renewal racing the finish (it would see the game done: "lost")
                if store.games.finish_game(claim.game_id, claim.attempt, record):
                    heartbeat.stop()
                    return True
        except StoreUnavailable as exc:
            log.warning("game %s attempt %s: storing the result failed: %s", claim.game_id, claim.attempt, exc)
            failed = True
            return None
        if failed:  # an earlier try may have committed before its connection broke
            game = store.game_reads.get_game(claim.game_id)
            return game is not None and game.status == GameStatus.DONE and game.attempts == claim.attempt
        return False

    stored = retry_while_unavailable(attempt, f"game {claim.game_id}: storing the result", budget_s)
    if stored is None:
        raise StoreUnavailable(f"game {claim.game_id}: the result could not be stored for {budget_s:.0f} s")
    return stored


def run_game(store: Store, game_id: int, lease_s: float | None = None, owner: str | None = None) -> RunResult:
    """Check that every bot of the table answers, claim (within the bots' capacity), play and
    store game ``game_id``; never raises for bot or game failures. ``lease_s``: seconds of
    lease, renewed every ``lease_s / 3`` (None: the settings', ``config.Settings.lease_s``).
    A table with a bot that does not answer is not claimed: the game is deferred (or not
    played once the bot is suspended), rules §4.9.

    Store errors (database down) at the claim propagate, so the caller's task can be
    retried; the result is stored with retries in this worker (:func:`store_result`).
    An attempt whose lease was lost stops at its next decision, stores nothing and
    returns ``Outcome.STALE``; a referee error or any other exception while playing
    voids the attempt.
    ``BaseException``s that are not ``Exception`` (a hard kill, ``SystemExit``)
    leave the claim to expire. The result's ``store_s`` is the time spent in the store's
    transactions (the season benchmark reports it).
    """
    clock = StoreClock()
    result = _run_game(store, game_id, lease_s, owner, clock)
    return replace(result, store_s=clock.total_s)


def _run_game(store: Store, game_id: int, lease_s: float | None, owner: str | None, clock: StoreClock) -> RunResult:
    hosted.attach(store)  # this process plays games: it runs the hosted bots they need
    refused = check_table(store, game_id, clock)
    if refused is not None:
        return refused
    if lease_s is None:
        lease_s = get_settings().lease_s
    since = time.monotonic()
    with clock:
        claim = store.games.claim_within_capacity(game_id, owner or worker_name(), lease_s)
    if claim is None:
        return RunResult(game_id, Outcome.SKIPPED)
    if isinstance(claim, BotsBusy):
        return RunResult(game_id, Outcome.BUSY, str(claim))
    live = LiveView()
    outputs = hosted.marks(claim.seats)  # where each hosted seat's output stands: its author reads the game's part
    with Heartbeat(store, claim, lease_s, live, since) as heartbeat:
        try:
            game_spec = spec(claim.game)  # the stored game id, resolved once: what follows takes the spec
            record = play(
                game_spec,
                game_spec.params(claim.params),
                len(claim.seats),
                claim.seed,
                [client_for(seat.endpoint, heartbeat.may_send) for seat in claim.seats],
                TimeControl.from_json(claim.time_control),
                game_id=claim.token,
                live=live,
                cancelled=heartbeat.cancelled,
                attempt=claim.attempt,  # a rerun deals other cards (rules §4.3)
            )
        except GameCancelled as exc:
            log.warning("game %s attempt %s: %s: its lease is lost or could not be confirmed; nothing stored",
                        game_id, claim.attempt, exc)
            return RunResult(game_id, Outcome.STALE, f"lease lost: {exc}")
        except Exception as exc:  # referee error, soft time limit, bug: a platform failure (rules §4.3)
            log.exception("game %s attempt %s voided", game_id, claim.attempt)
            with clock:
                status = store.games.void_game(game_id, claim.attempt, f"platform failure: {type(exc).__name__}: {exc}")
            return RunResult(game_id, Outcome.VOIDED, f"{exc} -> {status}")
        mark_unreachable(store, claim, record)  # rare: a seat lost during the game
        with clock:
            stored = store_result(store, claim, record, heartbeat)
        if not stored:
            return RunResult(game_id, Outcome.STALE, "lease lost before the result was stored")
    hosted.keep_outputs(store, game_id, outputs)
    return RunResult(game_id, Outcome.DONE)
