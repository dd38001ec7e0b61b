"""Celery tasks: thin wrappers taking ids, the work lives in :mod:`workers.service` (STYLE 16).

``run_game(game_id)`` runs the game service with this worker process's store
(opened once per process, from ``CARDARENA_DB_URL``). It is safe to run twice:
a second delivery finds the game claimed or done and does nothing. A game
whose bots are full is retried a moment later (the worker meanwhile takes
other messages); a database outage is retried with backoff.

No retry depends on a worker's wall clock. A Celery countdown becomes an ETA
stamped with the sending worker's clock and compared with the receiving
worker's, so a worker a minute off would hold a retried game a minute. A retry
here is sent with no ETA and carries its wait in seconds (the ``WAIT_HEADER``
message header); the worker that receives it holds it that long on its own
monotonic clock, in its consumer's timer (:func:`wait_strategy`), taking other
messages meanwhile, as it would an ETA.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from celery import Task
from celery.utils.time import get_exponential_backoff_interval
from celery.worker.strategy import default as default_strategy

from config import get_settings
from league.policy import POLICY
from store import Store, StoreUnavailable, open_store
from workers.celery_app import app
from workers.service import Outcome, run_game as run_game_service

log = logging.getLogger(__name__)

#: Seconds before a game refused for capacity is tried again.
BUSY_COUNTDOWN_S = 0.5
#: Backoff of a store outage: up to 1, 2, 4 ... seconds (full jitter), at most STORE_BACKOFF_MAX_S; a message
#: retried STORE_RETRIES times in all (for room or for the store) gives up on the next outage, and the
#: follower sends its game again (``workers.follower``, lost_after_s).
STORE_BACKOFF_MAX_S = 30
STORE_RETRIES = 20
#: Message header of a retry: seconds the receiving worker holds it (its monotonic clock) before running it.
WAIT_HEADER = "cardarena_wait_s"
#: The longest wait a header may ask for, seconds (a larger value is cut to this).
MAX_WAIT_S = 60.0

_store: tuple[int, Store] | None = None


def process_store() -> Store:
    """This process's Store (opened on first use in each process, never shared across a fork)."""
    global _store
    if _store is None or _store[0] != os.getpid():
        _store = (os.getpid(), open_store(get_settings().db_url, run_migrations=False, policy=POLICY))
    return _store[1]


def wait_strategy(task: Task, app: Any, consumer: Any, **kwargs: Any) -> Any:
    """Celery's default strategy for ``task``, except that a message whose headers carry
    ``WAIT_HEADER`` (seconds, capped at MAX_WAIT_S) is first held that long in the consumer's
    timer, which counts on the monotonic clock; its prefetch slot is given back meanwhile, so the
    worker takes other messages as it does while it holds an ETA task. A worker stopped meanwhile
    loses the message unacknowledged; the ``season run`` follower sends its game again
    (``workers.follower``, lost_after_s)."""
    handle = default_strategy(task, app, consumer, **kwargs)

    def on_message(message: Any, body: Any, ack: Any, reject: Any, callbacks: Any, **options: Any) -> Any:
        try:
            wait_s = min(MAX_WAIT_S, max(0.0, float((message.headers or {}).get(WAIT_HEADER) or 0.0)))
        except (TypeError, ValueError):
            wait_s = 0.0
        if wait_s <= 0.0:
            return handle(message, body, ack, reject, callbacks, **options)
        consumer.qos.increment_eventually()

        def later() -> None:
            consumer.qos.decrement_eventually()
            handle(message, body, ack, reject, callbacks, **options)

        consumer.timer.call_after(wait_s, later, priority=6)
        return None

    return on_message


def retry_after(task: Task, wait_s: float, max_retries: int | None, exc: BaseException | None = None) -> Exception:
    """The Retry to raise: the same task sent again at once (no ETA, no countdown), held ``wait_s``
    seconds by the worker that receives it (:func:`wait_strategy`)."""
    return task.retry(countdown=0, max_retries=max_retries, exc=exc, headers={WAIT_HEADER: wait_s})


@app.task(name="cardarena.run_game", bind=True, max_retries=None, Strategy="workers.tasks:wait_strategy")
def run_game(self: Task, game_id: int) -> str:
    """Run game ``game_id`` (claim, referee, store); returns the outcome's value."""
    try:
        result = run_game_service(process_store(), game_id, get_settings().lease_s)
    except StoreUnavailable as exc:
        wait_s = get_exponential_backoff_interval(1, self.request.retries, STORE_BACKOFF_MAX_S, full_jitter=True)
        raise retry_after(self, wait_s, STORE_RETRIES, exc) from exc
    if result.outcome == Outcome.BUSY:
        # not an error: wait for room, with no limit (the follower reports a stuck season)
        raise retry_after(self, BUSY_COUNTDOWN_S, None)
    # DEFERRED (a bot does not answer, rules §4.9) is not retried here: the follower sends the
    # game again after its backoff, so a long outage holds no message in any worker.
    log.info("game %s: %s", game_id, result.said())
    return result.outcome.value
