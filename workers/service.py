"""The game service: what every worker (local pool or Celery) does with a game id.

``run_game`` is idempotent (STYLE 16-17): it claims the game atomically
(pending -> running, with an attempt number and a lease), plays it with the
referee against the seats' bots over gRPC, and stores the result, the replay
and the ratings update in one transaction. A game that is not pending (done,
failed, or running elsewhere) is left alone, so a redelivered task does
nothing. A platform failure voids the attempt: the game goes back to pending,
or to failed after 3 attempts (RULINGS 4.3).
"""

from __future__ import annotations

import enum
import logging
import os
import socket
from dataclasses import dataclass

from referee.clients import GrpcBotClient
from referee.games import make_params, spec
from referee.referee import RefereeError, play
from referee.timecontrol import TimeControl
from store import Store

log = logging.getLogger(__name__)


class Outcome(enum.StrEnum):
    """What one run of the game service did."""

    DONE = "done"          # played and stored
    SKIPPED = "skipped"    # not pending: already done, failed, or claimed elsewhere
    VOIDED = "voided"      # platform failure: back to pending (or failed after 3 attempts)
    STALE = "stale"        # played, but the lease was lost meanwhile: nothing stored


@dataclass(frozen=True)
class RunResult:
    game_id: int
    outcome: Outcome
    detail: str = ""


def worker_name() -> str:
    """``host:pid``: who holds a claim, for the attempt log."""
    return f"{socket.gethostname()}:{os.getpid()}"


def run_game(store: Store, game_id: int, lease_s: float = 600.0, owner: str | None = None) -> RunResult:
    """Claim, play and store game ``game_id``; never raises for bot or game failures.

    Store errors (database down) propagate, so the caller's task can be retried.
    """
    claim = store.claim_game(game_id, owner or worker_name(), lease_s)
    if claim is None:
        return RunResult(game_id, Outcome.SKIPPED)
    try:
        game_spec = spec(claim.game)
        record = play(
            game_spec,
            make_params(claim.game, claim.params),
            len(claim.seats),
            claim.seed,
            [GrpcBotClient(seat.endpoint) for seat in claim.seats],
            TimeControl.from_json(claim.time_control),
            game_id=f"{claim.season_id}/{claim.number}",
        )
    except (RefereeError, ValueError) as exc:
        log.exception("game %s attempt %s voided", game_id, claim.attempt)
        status = store.void_game(game_id, claim.attempt, f"platform failure: {exc}")
        return RunResult(game_id, Outcome.VOIDED, f"{exc} -> {status}")
    if not store.finish_game(game_id, claim.attempt, record):
        return RunResult(game_id, Outcome.STALE, "lease lost before the result was stored")
    return RunResult(game_id, Outcome.DONE)
