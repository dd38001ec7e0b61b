"""The one Celery app of cardarena: every setting is here (STYLE 15).

Start a worker with ``cardarena worker`` (or ``celery -A workers.celery_app worker``).
The broker URL comes from ``CARDARENA_BROKER_URL`` (``redis://host:6379/0``), the
store from ``CARDARENA_DB_URL``; the game time limits from
``CARDARENA_GAME_SOFT_LIMIT_S``/``CARDARENA_GAME_HARD_LIMIT_S`` (``config``).
Settings are read when this module is imported, which happens in the worker and
in whatever enqueues; ``configure(broker_url)`` points the app elsewhere later.

Exactly once comes from the store, not from the broker: the task claims its
game (pending -> running, with an attempt number and a lease) and stores the
result only for that attempt, so a message delivered twice plays at most once
and a redelivered message for a finished game does nothing. That is what
makes ``acks_late`` safe here (STYLE 17). Recovery after a lost worker does not
come from the broker either, which keeps no copy of a message once a worker has
taken it (no acknowledgement emulation, below): the worker renews its game's
lease every few seconds, and the ``season run`` follower's sweeper puts back
games whose lease ran out and enqueues them again, ahead of the games already
waiting (a message priority); a message lost before its game was claimed is
sent again by the follower too (``workers.follower``, ``lost_after_s``).
"""

from __future__ import annotations

from celery import Celery

from config import get_settings

#: The queue of game tasks (workers consume it; ``season run`` publishes to it).
GAMES_QUEUE = "cardarena.games"


def make_app(broker_url: str | None = None) -> Celery:
    """A Celery app configured for cardarena; ``broker_url`` defaults to the settings'."""
    settings = get_settings()
    app = Celery("cardarena")
    app.conf.update(
        broker_url=broker_url or settings.broker_url or "redis://127.0.0.1:6379/0",
        # Explicit task modules and one named queue: a worker imports exactly these and
        # consumes exactly this, whatever else shares the broker.
        include=["workers.tasks"],
        task_default_queue=GAMES_QUEUE,
        task_routes={"cardarena.run_game": {"queue": GAMES_QUEUE}},
        # JSON only: a task carries a game id; pickle would let whoever can write to the
        # broker run code on every worker.
        task_serializer="json",
        accept_content=["json"],
        result_serializer="json",
        # No result backend: results live in the store (the follower reads progress there).
        task_ignore_result=True,
        # Ack after the game is stored, so that a pool child killed mid-game (OOM, hard time
        # limit, kill -9) has its message requeued by its worker instead of acked as failed;
        # harmless, because the claim makes a second run a no-op.
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        # One message per process at a time: games are long (~10 ms to minutes), so
        # prefetching would park games behind a busy process while another idles, and a game
        # sent again (priority 0) could not overtake the one a process holds. Measured, a
        # prefetch of 2 shortened the hand-off between a process's games by ~0.3 ms of ~1.7 ms
        # in one round and not at all in the next (1.98-2.26 ms against 2.12-2.24: in half the
        # hand-offs the main process still sent its next BRPOP and took in that message between
        # the ack and the child's next start); docs/measurements.md, "bench_celery".
        worker_prefetch_multiplier=1,
        # A game is bounded by its time control; these catch a hung referee. The soft limit
        # raises inside the game (the attempt is voided and re-run), the hard one kills the
        # process (its lease expires and the sweeper puts the game back).
        task_soft_time_limit=settings.game_soft_limit_s,
        task_time_limit=settings.game_hard_limit_s,
        broker_transport_options={
            # No acknowledgement emulation: a message leaves Redis when a worker takes it (BRPOP)
            # and waits for its ack in that worker's memory only. Kombu's emulation keeps a copy of
            # every delivered message in Redis to deliver it again after a visibility timeout, at
            # the cost of two more round trips between two games of a worker process (MULTI ZADD
            # HSET EXEC on delivery, MULTI ZREM HDEL EXEC at the ack: 8 of the task's 10 broker
            # commands), and nothing here relies on it: a lost worker's game comes back by its lease
            # and the sweeper, a message taken and lost before its claim is sent again by the
            # follower (lost_after_s), and a pool child lost mid-game has its message requeued by its
            # worker (task_reject_on_worker_lost, from memory). Nor is a game that outlives a
            # visibility timeout (large thinking budgets) delivered a second time. Measured on a
            # busy machine, 6 alternated pairs: broker commands per game 13.5 -> 6.8, and Celery's
            # extra hand-off between two games of a worker process, over the pool's, 3.2 -> 1.8 ms
            # (medians; docs/measurements.md, "bench_celery").
            "ack_emulation": False,
            # Game ids sent again (a lost or voided attempt) carry priority 0 and go ahead of
            # the new games (priority 9, workers.follower): these are kombu's default steps,
            # named here because the follower depends on them.
            "priority_steps": [0, 3, 6, 9],
        },
        # Keep reconnecting through a broker restart (default gives up after 100 tries).
        broker_connection_retry_on_startup=True,
        broker_connection_max_retries=None,
        # A running game finishes and stores its result when the broker goes away; its
        # message may come again later and is then skipped by the claim.
        worker_cancel_long_running_tasks_on_connection_loss=False,
        # Task events stay off (the default: they cost a broker message per state change
        # per game); Flower, or `celery -A workers.celery_app control enable_events`, turns
        # them on at run time while someone watches.
    )
    return app


app = make_app()


def configure(broker_url: str) -> Celery:
    """Point the app at ``broker_url`` (``cardarena worker --broker``, ``season run --broker``)."""
    app.conf.broker_url = broker_url
    return app
