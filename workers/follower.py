"""Driving a season on Celery workers: enqueue, sweep, re-enqueue, follow, report.

:class:`SeasonFollower` is what ``cardarena season run NAME --broker URL`` runs.
Each tick (``tick_s``) it

1. sweeps expired leases (:mod:`workers.sweeper`), at most every ``sweep_s``
   (a sweep is a write to the store; a lease lasts seconds): a killed worker's
   game is pending again about ``lease_s`` (plus up to ``sweep_s``) after the kill;
2. enqueues pending games in schedule order while the broker queue holds fewer
   than ``window`` messages (at least ``2 x`` the games running): the queue
   stays short, so a game put back waits behind a few games, not the season;
3. enqueues again every game whose task was used up without finishing it (an
   attempt voided, a lease released: its attempt count grew since it was
   sent) or that was deferred because a bot did not answer (after its backoff,
   rules §4.9), and, when the broker queue is empty, every game sent more than
   ``lost_after_s`` ago and still never claimed (its message was lost: a broker
   restarted without persistence, a worker killed while holding a retry).
   These go ahead of the window (``PRIORITY_AGAIN``: the next free worker
   process takes them before any game waiting in the queue), so a killed
   worker's game runs again about ``lease_s`` after the kill whatever ``window`` is.

A tick asks the broker for the queue's depth first (one round trip) and reads
the store (steps 2 and 3, three queries over the season's pending games) only
when the queue has fallen to half the window or less, or when a sweep is due:
while the queue is fuller no new game could be sent, and a game to send again
(a lease swept, an attempt voided, a deferral's backoff over, a lost message)
waits at most ``sweep_s`` for the next look. The store's work per game then no
longer grows with how often the follower ticks.

A duplicate message is harmless (the claim skips a game that is not pending),
so the follower errs on the side of sending. What it drives is a :class:`FollowScope`: one
season's games (:class:`SeasonScope`) or a ladder's over its epochs, whose ``refill`` adds
games at every tick (``cli.ladder``). When no game is pending or running
it lets a sequential season take its look (``league.competition.sequential.advance``) and
follows the batch that adds; it returns when nothing was added, and raises :class:`SeasonStuck` naming every unfinished game and why
when nothing changed for ``stall_s`` seconds.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from celery import Celery
from kombu import Connection
from kombu.exceptions import OperationalError as BrokerError

from league.competition.availability import defer_backoff_s
from league.competition.sequential import advance
from store import GameInfo, GameStatus, Store, StoreError
from workers.celery_app import GAMES_QUEUE
from workers.sweeper import sweep

log = logging.getLogger(__name__)

#: How many unfinished games a stuck report lists one by one.
REPORT_LIMIT = 20
#: Message priorities on the Redis transport, where 0 is served first: a game sent again
#: (its attempt voided, its lease expired, its message lost) goes ahead of the new games
#: waiting in the window.
PRIORITY_NEW = 9
PRIORITY_AGAIN = 0


class SeasonStuck(Exception):
    """Nothing moved for the stall time; ``str(e)`` names the unfinished games and why (several lines)."""


class BrokerUnreachable(Exception):
    """The broker does not answer; ``str(e)`` is one line naming it (password hidden) and the error."""


@dataclass
class FollowStats:
    """What the follower did: messages sent, re-sent after a used-up task (a deferral), games swept.
    (Re-sends of lost tasks are not counted: nothing reads such a count.)"""

    sent: int = 0
    resent_used: int = 0
    swept: list[int] = field(default_factory=list)


def game_time_limits(store: Store, season_id: int) -> tuple[float, float]:
    """Celery's soft and hard limits for one game of the season, seconds.

    At least the configured ``game_soft_limit_s``/``game_hard_limit_s``, and always
    enough for every seat of the season's largest table to spend its whole thinking
    budget (rules §4.1) plus two minutes: a slow but legal game must end with a
    result, not be voided by the limit.
    """
    from config import get_settings
    from referee.timecontrol import TimeControl

    settings = get_settings()
    season = store.seasons.get_season(season_id)
    seats = max((season.config or {}).get("table_sizes") or [8]) if season else 8
    budget = TimeControl.from_json(season.time_control if season else None).budget_s
    soft = max(settings.game_soft_limit_s, seats * budget + 120.0)
    return soft, soft + max(30.0, settings.game_hard_limit_s - settings.game_soft_limit_s)


class FollowScope(Protocol):
    """The games a follower drives: one season's (:class:`SeasonScope`) or a ladder's over its epochs
    (``cli.ladder``). Every method reads the store; ``refill`` may add games (a ladder's runner)."""

    def pending_attempts(self) -> dict[int, int]: ...

    def progress(self) -> dict[str, int]: ...

    def pending_deferrals(self) -> dict[int, int]: ...

    def games(self, status: GameStatus, limit: int) -> list[GameInfo]: ...

    def refill(self) -> None: ...

    def next_batch(self) -> bool: ...


@dataclass
class SeasonScope:
    """One season's games; ``next_batch`` lets a sequential season take its look (``league.competition.sequential.advance``)."""

    store: Store
    season_id: int

    def pending_attempts(self) -> dict[int, int]:
        return self.store.seasons.pending_attempts(self.season_id)

    def progress(self) -> dict[str, int]:
        return self.store.seasons.season_progress(self.season_id)

    def pending_deferrals(self) -> dict[int, int]:
        return self.store.seasons.pending_deferrals(self.season_id)

    def games(self, status: GameStatus, limit: int) -> list[GameInfo]:
        return self.store.game_reads.list_games(self.season_id, status=status, limit=limit)

    def refill(self) -> None:
        """A season's schedule is stored before it runs: nothing to add each tick."""

    def next_batch(self) -> bool:
        """For a sequential season whose games are all final: look, and add its next batch if it is not
        settled (``league.competition.sequential.advance``). True when games were added (the follower goes on)."""
        settling = advance(self.store, self.season_id)
        return settling is not None and settling.stop is None


class SeasonFollower:
    """Runs one season to the end on the workers behind ``app``'s broker (see the module docstring)."""

    def __init__(self, store: Store, app: Celery, season_id: int, *, window: int = 32, tick_s: float = 0.25,
                 lost_after_s: float = 10.0, stall_s: float = 120.0, sweep_s: float = 1.0,
                 scope: FollowScope | None = None) -> None:
        self.store = store
        self.app = app
        self.season_id = season_id  # the season whose time control sets the games' time limits
        self.scope: FollowScope = scope or SeasonScope(store, season_id)
        self.window = window
        self.tick_s = tick_s
        self.lost_after_s = lost_after_s
        self.stall_s = stall_s
        self.sweep_s = sweep_s
        self._next_sweep = 0.0  # monotonic time of the next sweep: the first tick sweeps
        self.stats = FollowStats()
        self._sent: dict[int, tuple[float, int]] = {}  # game id -> (monotonic time sent, attempts then)
        self._deferrals_sent: dict[int, int] = {}  # game id -> its deferrals when last sent
        self._resend_at: dict[int, float] = {}  # deferred game id -> monotonic time to send it again
        self._last_state: tuple[object, ...] = ()
        self._progress: dict[str, int] | None = None  # the season's progress at the last look at the store
        self._last_change = time.monotonic()
        self._limits = game_time_limits(store, season_id)
        self._conn: Connection | None = None
        #: on a Redis broker, one Redis client on the connection's pool for the queue depth (kombu's
        #: own depth call builds a new client and asks twice, existence then length, every time)
        self._depth_client: Any = None

    # ------------------------------------------------------------ broker

    def _connection(self) -> Connection:
        """The follower's one broker connection (opened on first use, again after an error)."""
        if self._conn is None:
            self._conn = self.app.connection_for_write()
        return self._conn

    def _drop_connection(self) -> None:
        self._depth_client = None
        if self._conn is not None:
            try:
                self._conn.release()
            except Exception:  # already broken: nothing to release
                pass
            self._conn = None

    def check_broker(self) -> None:
        """Connect to the broker once (no retries). Raises BrokerUnreachable.

        For the start of a season run: a broker that is down then is a wrong URL or a
        service not started, better said at once than after the stall time. Once the season
        runs, a broker outage is waited out (Redis restarts lose nothing that the store keeps).
        """
        try:
            self._connection().ensure_connection(max_retries=1)
        except Exception as exc:  # any transport's connection error
            self._drop_connection()
            raise BrokerUnreachable(f"cannot reach the broker {self._broker()}: {exc}") from exc

    def queue_depth(self) -> int | None:
        """Messages waiting in the games queue; None if the broker cannot be asked now."""
        try:
            conn = self._connection()
            conn.ensure_connection(max_retries=1)
            channel = conn.default_channel
            if hasattr(channel, "priority_steps") and hasattr(channel, "_q_for_pri"):  # kombu's Redis channel
                return self._redis_depth(channel)
            try:
                return int(channel.queue_declare(GAMES_QUEUE, passive=True).message_count)
            except conn.channel_errors:  # no such queue (Redis drops empty lists): empty
                return 0
        except Exception as exc:  # any transport's connection error: ask again next tick
            log.warning("broker unavailable: %s", exc)
            self._drop_connection()
            return None

    def _redis_depth(self, channel: Any) -> int:
        """The games queue's depth on a Redis broker, in one round trip on the follower's one client:
        the lengths of the queue's list at each message priority (kombu keeps one list per
        priority step; a missing list is an empty queue)."""
        if self._depth_client is None:
            self._depth_client = channel.Client(connection_pool=channel.pool)
        with self._depth_client.pipeline(transaction=False) as pipe:
            for priority in channel.priority_steps:
                pipe.llen(channel._q_for_pri(GAMES_QUEUE, priority))
            return sum(int(n) for n in pipe.execute())

    def _send(self, game_ids: list[int], priority: int = PRIORITY_NEW) -> list[int]:
        """Publish one task per game id at ``priority``; returns those published (stops at a broker error)."""
        sent: list[int] = []
        if not game_ids:
            return sent
        try:
            producer = self.app.amqp.Producer(self._connection().default_channel)
            for gid in game_ids:
                self.app.send_task("cardarena.run_game", args=[gid], queue=GAMES_QUEUE, producer=producer,
                                   priority=priority, soft_time_limit=self._limits[0], time_limit=self._limits[1], retry=True, retry_policy={"max_retries": 2, "interval_start": 0.2,
                                                             "interval_step": 0.5})
                sent.append(gid)
        except Exception as exc:  # any transport's connection error: the rest go next tick
            log.warning("publishing failed after %d of %d: %s", len(sent), len(game_ids), exc)
            self._drop_connection()
        return sent

    def close(self) -> None:
        """Release the broker connection."""
        self._drop_connection()

    # -------------------------------------------------------------- loop

    def tick(self) -> dict[str, int]:
        """One round: sweep, (re-)enqueue, check for a stall. Returns the season's progress.

        Raises SeasonStuck after ``stall_s`` seconds without change. Between sweeps, while the
        broker queue holds more than half of what the window allows, the store is not read and
        the progress of the last look is returned (the module docstring says why).
        """
        sweep_due = time.monotonic() >= self._next_sweep
        if sweep_due:
            self._next_sweep = time.monotonic() + self.sweep_s
            self.stats.swept += sweep(self.store)
        depth = self.queue_depth()
        if not sweep_due and self._progress is not None and depth is not None and depth > self._low_water():
            return self._progress
        self.scope.refill()
        pending = self.scope.pending_attempts()
        progress = self.scope.progress()
        self._progress = progress
        now = time.monotonic()
        used = [gid for gid, att in pending.items() if gid in self._sent and self._sent[gid][1] != att]
        deferrals = self.scope.pending_deferrals()
        for gid, n in deferrals.items():  # put off at game start (rules §4.9): again after the backoff
            if gid in self._sent and n != self._deferrals_sent.get(gid, 0) and gid not in used:
                self._resend_at.setdefault(gid, now + defer_backoff_s(n))
        used += [gid for gid, at in self._resend_at.items() if at <= now and gid in pending and gid not in used]
        unsent = [gid for gid in pending if gid not in self._sent]
        to_send = list(used)
        lost: list[int] = []
        if depth is not None:
            if depth == 0:
                lost = [gid for gid, att in pending.items() if gid in self._sent and self._sent[gid][1] == att
                        and gid not in self._resend_at and now - self._sent[gid][0] > self.lost_after_s]
                to_send += lost
            room = self._target() - depth - len(to_send)
            new = unsent[:max(0, room)]
            lost_set, used_set = set(lost), set(used)
            again = self._send(to_send, PRIORITY_AGAIN)
            sent = again + (self._send(new) if len(again) == len(to_send) else [])
            for gid in sent:
                self._sent[gid] = (now, pending[gid])
                self._deferrals_sent[gid] = deferrals.get(gid, 0)
                self._resend_at.pop(gid, None)
                if gid in used_set and gid not in lost_set:
                    self.stats.resent_used += 1
                elif gid not in lost_set:  # a lost task sent again is neither
                    self.stats.sent += 1
        state = (tuple(sorted(progress.items())), sum(pending.values()), sum(deferrals.values()))
        if state != self._last_state:
            self._last_state, self._last_change = state, now
        elif progress["pending"] + progress["running"] and now - self._last_change > self.stall_s:
            raise SeasonStuck(self.stuck_report())
        return progress

    def _target(self) -> int:
        """Messages the broker queue may hold: the window, or twice the games running if more."""
        return max(self.window, 2 * (self._progress or {}).get("running", 0))

    def _low_water(self) -> int:
        """The queue depth at or below which a tick reads the store to send more: half the target."""
        return self._target() // 2

    def run(self, on_progress: Callable[[dict[str, int]], None] | None = None) -> dict[str, int]:
        """Tick until no game is pending or running; returns the final progress.

        ``on_progress`` gets the progress after every tick. Raises SeasonStuck; a
        database error lasting longer than the stall time raises SeasonStuck too.
        """
        try:
            return self._loop(on_progress)
        finally:
            self.close()

    def _loop(self, on_progress: Callable[[dict[str, int]], None] | None) -> dict[str, int]:
        while True:
            try:
                progress = self.tick()
            except StoreError as exc:
                log.warning("store unavailable: %s", exc)
                if time.monotonic() - self._last_change > self.stall_s:
                    raise SeasonStuck(f"the store is unavailable: {exc}") from exc
                time.sleep(self.tick_s)
                continue
            if on_progress:
                on_progress(progress)
            if progress["pending"] + progress["running"] == 0 and not self._next_batch():
                return progress
            time.sleep(self.tick_s)

    def _next_batch(self) -> bool:
        """When the scope's games are all final: whether it adds more (a sequential season's next batch,
        a ladder's refill: ``FollowScope.next_batch``). True when the follower goes on."""
        try:
            return self.scope.next_batch()
        except StoreError as exc:  # looked at again on the next tick
            log.warning("store unavailable for the next batch: %s", exc)
            return True

    # ------------------------------------------------------------ report

    def stuck_report(self) -> str:
        """Several lines: how many games are unfinished, then each (up to REPORT_LIMIT) and why."""
        progress = self.scope.progress()
        lines = [f"season stuck: no progress for {self.stall_s:.0f} s with {progress['pending']} pending and "
                 f"{progress['running']} running game(s) ({progress['done']} done, {progress['failed']} failed)"]
        if self.queue_depth() is None:
            lines.append(f"the broker {self._broker()} does not answer: games cannot be sent to workers")
        workers = self._ping_workers()
        if workers is not None and not workers:
            lines.append(f"no worker answers on the broker {self._broker()}: start one with "
                         f"`cardarena worker --broker {self._broker()}`")
        elif workers:
            lines.append(f"workers answering: {', '.join(sorted(workers))}")
        running = self.scope.games(GameStatus.RUNNING, 10**6)
        busy: dict[int, int] = {}
        for game in running:
            for seat in game.seats:
                busy[seat.bot_id] = busy.get(seat.bot_id, 0) + 1
        shown = 0
        for game in [*running[:REPORT_LIMIT],
                     *self.scope.games(GameStatus.PENDING, REPORT_LIMIT)]:
            if shown == REPORT_LIMIT:
                break
            lines.append(self._why(game, busy))
            shown += 1
        left = progress["pending"] + progress["running"] - shown
        if left > 0:
            lines.append(f"... and {left} more")
        return "\n".join(lines)

    def _why(self, game: GameInfo, busy: dict[int, int]) -> str:
        """One line: what an unfinished game is waiting for."""
        bots = ", ".join(s.bot_name for s in game.seats)
        if game.status == GameStatus.RUNNING:
            until = f"{game.lease_expires_at:%H:%M:%S} UTC" if game.lease_expires_at else "?"
            return (f"game {game.number} (id {game.id}, {bots}): running on {game.lease_owner}, "
                    f"attempt {game.attempts}, lease until {until}")
        why = [f"game {game.number} (id {game.id}, {bots}): pending after {game.attempts} attempt(s)"]
        if game.detail:
            why.append(f"last attempt: {game.detail}")
        for seat in game.seats:
            bot = self.store.bots.get_bot(seat.bot_id)
            if bot is not None and busy.get(bot.id, 0) >= bot.capacity:
                why.append(f"waiting for {bot.name} (capacity {bot.capacity}, in {busy[bot.id]} running game(s))")
        if game.id not in self._sent:
            why.append("not enqueued yet")
        return "; ".join(why)

    def _broker(self) -> str:
        from kombu.utils.url import maybe_sanitize_url

        return str(maybe_sanitize_url(self.app.conf.broker_url))

    def _ping_workers(self) -> list[str] | None:
        try:
            replies = self.app.control.ping(timeout=1.0)
        except (BrokerError, OSError):
            return None
        return [name for reply in replies for name in reply]
