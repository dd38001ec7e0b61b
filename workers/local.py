"""The embedded local pool: the game service in worker processes on this machine.

The same task code as the Celery workers (:func:`workers.service.run_game`),
run by a pool of processes (:mod:`workers.pool`), one per core by default, each
refereeing two games at once (``config.Settings.games_per_process``). A game
whose bots are full (``Outcome.BUSY``) is tried again a moment later while
the pool plays other games, as the Celery task retries with a countdown. A
pool process that dies mid-game (killed, out of memory) loses the games it
held: those not claimed yet are handed out again at once; for a claimed one,
every ``SWEEP_S`` the parent sweeps expired leases and hands such a game to
the pool again, as the Celery follower does. When the run stops early
(Ctrl-C, SIGTERM, an error), the pool is terminated and the games its processes
were playing are released at once (pending again) rather than left running
until their lease runs out.
"""

from __future__ import annotations

import heapq
import itertools
import os
import signal
import time
from collections.abc import Callable, Iterable, Iterator

from league.policy import POLICY
from workers.pool import Failed, GamePool
from workers.service import Outcome, RunResult, run_game, worker_name

#: Seconds before a game refused for capacity is offered again.
BUSY_RETRY_S = 0.05
#: Seconds between the parent's checks for games lost with a pool process.
SWEEP_S = 1.0

#: The attempt log's reason for a game released because its run was stopped.
INTERRUPTED = "interrupted: the run was stopped (Ctrl-C or SIGTERM)"

_store = None
_lease_s: float | None = None


def _init(db_url: str, lease_s: float | None) -> None:
    global _store, _lease_s
    from store import open_store

    # Ctrl-C reaches the whole process group: the parent stops the pool; a child
    # interrupted mid-game would only print a traceback (its lease runs out and
    # the game is played again).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _store = open_store(db_url, run_migrations=False, policy=POLICY)
    _lease_s = lease_s


def _run(game_id: int) -> RunResult:
    if _store is None:
        raise RuntimeError("the pool's initializer did not run")
    return run_game(_store, game_id, _lease_s)


def release_interrupted(store, game_ids: Iterable[int], owners: set[str]) -> list[int]:  # store: store.Store
    """Void, as :data:`INTERRUPTED`, the running attempts of ``game_ids`` whose lease is held by one of
    ``owners`` (pool processes that are gone): back to pending now, not when their lease runs out,
    and never failed for it (stopping a run is not the game's platform failure, rules §4.3).
    Returns the games released; claims of anyone else are left alone."""
    released = []
    for gid in game_ids:
        game = store.game_reads.get_game(gid)
        if game is not None and game.status == "running" and game.lease_owner in owners:
            if store.games.void_game(gid, game.attempts, INTERRUPTED, max_attempts=game.attempts + 1) != "stale":
                released.append(gid)
    return released


def default_processes() -> int:
    """One worker process per core."""
    return max(1, os.cpu_count() or 1)


def run_local(db_url: str, game_ids: Iterable[int], processes: int | None = None, lease_s: float | None = None,
              on_result: Callable[[RunResult], None] | None = None,
              games_per_process: int | None = None) -> list[RunResult]:
    """Run the games on a local pool of ``processes`` worker processes; return every final result
    (one per game: busy retries are not reported).

    ``on_result`` is called in this process as each game finishes (progress bars).
    ``lease_s``: seconds of a claimed game's lease (None: the settings', ``config.Settings.lease_s``).
    ``games_per_process``: games each process referees at once (None: the settings', see :func:`iter_local`).
    The store must already exist (migrated) at ``db_url``.
    """
    results = []
    for result in iter_local(db_url, game_ids, processes, lease_s, games_per_process):
        results.append(result)
        if on_result:
            on_result(result)
    return results


def iter_local(db_url: str, game_ids: Iterable[int], processes: int | None = None,
               lease_s: float | None = None, games_per_process: int | None = None,
               on_tick: Callable[[], None] | None = None,
               refill: Callable[[], Iterable[int] | None] | None = None) -> Iterator[RunResult]:
    """Like :func:`run_local`, yielding each game's final result once, as it comes.

    Each of the ``processes`` pool processes referees ``games_per_process`` games at once
    (None: the settings', ``config.Settings.games_per_process``; :mod:`workers.pool`) and
    holds one more waiting for a thread, so a game put back for capacity waits behind a
    short queue, not behind the whole season. A game lost with its pool process is handed
    out again, ahead of the games not handed out yet: at once if it was not claimed yet,
    else once the sweeper has put it back (its lease ran out: about ``lease_s`` seconds
    after the loss). Raises :class:`workers.pool.GameError` when a game's run raises.
    ``on_tick`` is called in this process at least every ``SWEEP_S`` seconds while games remain,
    whether or not one finished (``season run`` names the bots that go down meanwhile).
    ``refill`` (a ladder's runner, ``cli.ladder``) is called as often, and whenever nothing is left to
    hand out: it returns more game ids to play (handed out after those given), or None once it adds
    no more; the run then ends when the games handed out are played.
    """
    from config import get_settings
    from store import open_store
    from workers.sweeper import sweep

    n = processes or default_processes()
    per_process = games_per_process or get_settings().games_per_process
    order = itertools.count()
    # (when it may be handed out, order, game id): a heap, so a game put off until later
    # (busy bots, a deferral) never holds up the games behind it
    game_ids = list(game_ids)
    todo: list[tuple[float, int, int]] = [(0.0, next(order), gid) for gid in game_ids]

    def later(delay_s: float, gid: int) -> None:
        heapq.heappush(todo, (time.monotonic() + delay_s, next(order), gid))

    def first(gid: int) -> None:  # a game to play again (lost or voided): ahead of every other
        heapq.heappush(todo, (-1.0, next(order), gid))

    reported: set[int] = set()
    in_flight: dict[int, int] = {}  # game id -> handed out how many times and not answered yet
    store = open_store(db_url, run_migrations=False, policy=POLICY)
    owners: set[str] = set()  # every pool process seen: whose claims to release if the run stops early
    try:
        with GamePool(n, per_process, _init, (db_url, lease_s), _run) as pool:
            next_sweep = time.monotonic() + SWEEP_S
            feeding, handed = refill is not None, set(game_ids)
            while todo or in_flight or feeding:
                owners |= {worker_name(pid) for pid in pool.pids}
                now = time.monotonic()
                if feeding and refill is not None:
                    more = refill()
                    if more is None:
                        feeding = False
                    else:
                        for gid in more:
                            if gid not in handed:
                                handed.add(gid)
                                heapq.heappush(todo, (0.0, next(order), gid))
                while todo and pool.has_room() and todo[0][0] <= now:
                    _, _, gid = heapq.heappop(todo)
                    pool.submit(gid)
                    in_flight[gid] = in_flight.get(gid, 0) + 1
                if now >= next_sweep:
                    next_sweep = now + SWEEP_S
                    for gid in _lost(sweep(store), in_flight, todo):
                        _forget(in_flight, gid)  # its answer will never come
                        first(gid)
                answers, lost = pool.wait(min(BUSY_RETRY_S if todo else SWEEP_S, SWEEP_S))
                if on_tick is not None:
                    on_tick()
                for gone in lost:
                    for gid in gone.game_ids:  # not claimed yet: again now; claimed: when swept
                        game = store.game_reads.get_game(gid)
                        if game is not None and game.status == "pending" and gid in in_flight:
                            _forget(in_flight, gid)
                            first(gid)
                for result in answers:
                    if isinstance(result, Failed):
                        raise result.error()
                    yield from _settle(result, store, in_flight, reported, later, first)
    except BaseException:  # Ctrl-C, SIGTERM, an error, the caller stopping early: the pool is terminated
        release_interrupted(store, list(in_flight), owners)
        raise
    finally:
        store.close()


def _settle(result: RunResult, store, in_flight: dict[int, int], reported: set[int],  # store: store.Store
            later: Callable[[float, int], None], first: Callable[[int], None]) -> Iterator[RunResult]:
    """What one answer of the pool means: the game again later (busy bots, a deferral), again first
    (voided), or its final result, yielded once."""
    gid = result.game_id
    _forget(in_flight, gid)
    if result.outcome == Outcome.BUSY:
        later(BUSY_RETRY_S, gid)
    elif result.outcome == Outcome.DEFERRED:  # a bot does not answer: later (rules §4.9)
        later(result.retry_after_s, gid)
    elif result.outcome == Outcome.VOIDED and store.game_reads.get_game(gid).status == "pending":
        first(gid)  # a platform failure: the game runs again (rules §4.3)
    elif gid not in reported and (result.outcome != Outcome.SKIPPED or gid not in in_flight):
        reported.add(gid)
        yield result


def _lost(released: list[int], in_flight: dict[int, int], todo: list[tuple[float, int, int]]) -> list[int]:
    """Games handed out whose attempt the sweeper just released (their process died), not queued again yet."""
    queued = {gid for _, _, gid in todo}
    return [gid for gid in released if gid in in_flight and gid not in queued]


def _forget(in_flight: dict[int, int], gid: int) -> None:
    """One handout of ``gid`` is over (answered, or lost with its process)."""
    left = in_flight.get(gid, 0) - 1
    if left > 0:
        in_flight[gid] = left
    else:
        in_flight.pop(gid, None)
