"""Celery tasks: thin wrappers taking ids, the work lives in :mod:`workers.service` (STYLE 16).

``run_game(game_id)`` runs the game service with this worker process's store
(opened once per process, from ``CARDARENA_DB_URL``). It is safe to run twice:
a second delivery finds the game claimed or done and does nothing. A game
whose bots are full is retried a moment later (the worker meanwhile takes
other messages); a database outage is retried with backoff.
"""

from __future__ import annotations

import logging
import os

from celery import Task

from config import get_settings
from league.policy import POLICY
from store import Store, StoreUnavailable, open_store
from workers.celery_app import app
from workers.service import Outcome, run_game as run_game_service

log = logging.getLogger(__name__)

#: Seconds before a game refused for capacity is tried again.
BUSY_COUNTDOWN_S = 0.5

_store: tuple[int, Store] | None = None


def process_store() -> Store:
    """This process's Store (opened on first use in each process, never shared across a fork)."""
    global _store
    if _store is None or _store[0] != os.getpid():
        _store = (os.getpid(), open_store(get_settings().db_url, run_migrations=False, policy=POLICY))
    return _store[1]


@app.task(name="cardarena.run_game", bind=True, autoretry_for=(StoreUnavailable,), retry_backoff=1,
          retry_backoff_max=30, max_retries=20)
def run_game(self: Task, game_id: int) -> str:
    """Run game ``game_id`` (claim, referee, store); returns the outcome's value."""
    result = run_game_service(process_store(), game_id, get_settings().lease_s)
    if result.outcome == Outcome.BUSY:
        # not an error: wait for room, with no limit (the follower reports a stuck season)
        raise self.retry(countdown=BUSY_COUNTDOWN_S, max_retries=None)
    # DEFERRED (a bot does not answer, rules §4.9) is not retried here: the follower sends the
    # game again after its backoff, so a long outage holds no message in any worker.
    log.info("game %s: %s %s", game_id, result.outcome.value, result.detail)
    return result.outcome.value
