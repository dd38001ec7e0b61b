"""The life of a game: claim, lease, heartbeat, defer, void, and storing its result.

The life of a game (rules §4.3, DESIGN "a game is the unit of work and of
failure")::

    pending --claim_game--> running --finish_game--> done      (rated)
       |                       |
       |                       +--void_game / lease expired--> pending  (attempts < 3)
       |                                                   \\-> failed   (3rd attempt: shown, not rated)
       +--defer_game (a bot does not answer at game start, rules §4.9)--> pending, or not_played

Every claim is an *attempt* (a ``game_attempts`` row closed as done or voided)
holding a lease: the worker renews it (``renew_lease``) while it plays; a lease
that runs out (worker lost) voids the attempt, at the next ``claim_game`` of
that game or when a sweeper calls ``release_expired``. Leases are set and
compared by the database's clock alone (:func:`store.session.db_now`, read once
per transaction), never a worker's or a sweeper's, so machines whose clocks
disagree still agree on which lease ran out. A result or void counts only for
the running attempt: a redelivered or stale task's call does nothing and says
so. Concurrency: a claim is one conditional ``UPDATE ... WHERE status =
'pending'`` checked by rowcount; every transaction that moves a game also locks
its season row first (PostgreSQL ``FOR UPDATE``; SQLite's ``BEGIN IMMEDIATE``
already serialises writers), so the season's ratings, rewritten inside the
transaction that makes a game final (``store.ratings``, rated by the league's
policy), always see every committed result, and locks are always taken
season-then-game (no deadlocks).
"""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import exists, func, select, update
from sqlalchemy.orm import Session

from referee.record import EndReason, GameRecord
from store.db import InvalidRecord, NotFound
from store.models import (
    AttemptOutcome,
    Bot,
    Game,
    GameAttempt,
    GameSeat,
    GameStatus,
    Replay,
    Season,
    SeasonBotStatus,
    SeasonStatus,
)
from store.policy import LeaguePolicy
from store.ratings import rewrite_ratings
from store.replays import encode_record
from store.seasons import SeatBot
from store.session import Database, db_now, updated_rows

#: Voided attempts after which a game is stored as failed (rules §4.3).
MAX_ATTEMPTS = 3
LEASE_EXPIRED = "lease expired"


class VoidResult(enum.StrEnum):
    """What :meth:`GameLifecycle.void_game` did: the game is pending again, failed for good,
    or nothing (``stale``: the game was not running with that attempt)."""

    PENDING = "pending"
    FAILED = "failed"
    STALE = "stale"


@dataclass(frozen=True)
class Claim:
    """A game claimed by a worker: everything needed to referee it.

    ``seats`` are the seats' bots in seat order (``seats[s].seat == s``).
    ``attempt`` (1-based) must be passed back to :meth:`GameLifecycle.finish_game` or
    :meth:`GameLifecycle.void_game`; the lease must be renewed before ``lease_expires_at``
    (:meth:`GameLifecycle.renew_lease`) or the attempt is voided as "lease expired".
    """

    game_id: int
    season_id: int
    season_name: str
    number: int
    attempt: int
    game: str
    params: dict[str, Any]
    time_control: dict[str, Any]
    seed: int
    seats: tuple[SeatBot, ...]
    lease_owner: str
    lease_expires_at: datetime

    @property
    def bots(self) -> tuple[SeatBot, ...]:
        """Alias of :attr:`seats`."""
        return self.seats


@dataclass(frozen=True)
class BotsBusy:
    """A claim refused for capacity: ``bots`` are ``(name, capacity)`` of the table's bots
    already playing ``capacity`` games. Nothing was written; try again later."""

    game_id: int
    bots: tuple[tuple[str, int], ...]

    def __str__(self) -> str:
        return "waiting for " + ", ".join(f"{name} (capacity {cap})" for name, cap in self.bots)


@dataclass(frozen=True)
class Deferral:
    """What :meth:`GameLifecycle.defer_game` did. ``status``: the game's status after it (``pending``:
    deferred; ``not_played``: a bot of its table was suspended; anything else: the game was
    not pending, nothing written). ``deferrals``: the game's deferral count now;
    ``suspended``: names of the bots this call suspended from the season; ``detail``: why."""

    game_id: int
    status: GameStatus
    deferrals: int
    suspended: tuple[str, ...]
    detail: str


class GameLifecycle:
    """The game state machine over one :class:`~store.session.Database`; ``policy`` rates the
    season when a game becomes final and says when a bot is suspended (``store.policy``)."""

    def __init__(self, db: Database, policy: LeaguePolicy) -> None:
        self._db = db
        self._policy = policy

    def claim_game(
        self, game_id: int, owner: str, lease_seconds: float, now: datetime | None = None
    ) -> Claim | None:
        """Start an attempt at a pending game: pending -> running, attempts + 1, lease to
        ``owner`` until ``now + lease_seconds``, one ``game_attempts`` row. ``now`` defaults
        to the database's clock (:func:`db_now`); tests pass a fixed time.

        A running game whose lease has expired is first voided as "lease expired"
        (and claimed if that leaves it pending). Returns None if the game is not
        pending (done, failed, or running under a live lease); exactly one of any
        number of concurrent claimers gets the Claim. Raises NotFound for an
        unknown game id, ValueError for ``lease_seconds <= 0``.
        """
        claim = self._claim(game_id, owner, lease_seconds, now, capacity=False)
        if isinstance(claim, BotsBusy):  # cannot happen: capacity is not checked on this path
            raise RuntimeError("claim_game checked capacity")
        return claim

    def claim_within_capacity(
        self, game_id: int, owner: str, lease_seconds: float, now: datetime | None = None
    ) -> Claim | BotsBusy | None:
        """:meth:`claim_game`, but only if every bot of the table has room: fewer running
        games (any season) than its ``capacity``. Otherwise nothing is written and the
        answer is :class:`BotsBusy` naming the full bots (the caller retries later).

        Atomic across processes: the bots' rows are locked (PostgreSQL ``FOR UPDATE``,
        in id order, after the season's lock; SQLite's ``BEGIN IMMEDIATE`` serialises
        writers) while running games are counted and the claim is made. A game still
        running under an expired lease counts until it is released (``release_expired``).
        Raises as :meth:`claim_game`.
        """
        return self._claim(game_id, owner, lease_seconds, now, capacity=True)

    def _claim(self, game_id: int, owner: str, lease_seconds: float, now: datetime | None,
               *, capacity: bool) -> Claim | BotsBusy | None:
        if lease_seconds <= 0:
            raise ValueError(f"lease_seconds must be > 0, got {lease_seconds}")
        with self._db.write() as s:
            now = now or db_now(s)
            season = self._lock_season_of(s, game_id)
            self._void_expired(s, now, season.id, game_id=game_id)
            if capacity:
                if s.scalar(select(Game.status).where(Game.id == game_id)) != GameStatus.PENDING:
                    return None  # done, failed or running: nothing to wait for
                busy = self._full_bots(s, game_id)
                if busy is not None:
                    return busy
            changed = updated_rows(s,
                update(Game)
                .where(Game.id == game_id, Game.status == GameStatus.PENDING)
                .values(status=GameStatus.RUNNING, attempts=Game.attempts + 1, lease_owner=owner,
                        lease_expires_at=now + timedelta(seconds=lease_seconds), started_at=now)
            )
            if changed != 1:
                return None
            game = s.execute(select(Game.attempts, Game.number, Game.seed, Game.lease_expires_at)
                             .where(Game.id == game_id)).one()
            s.add(GameAttempt(game_id=game_id, attempt=game.attempts, worker=owner, started_at=now))
            self._mark_answering(s, season.id, game_id)
            if season.status == SeasonStatus.SCHEDULED:
                season.status = SeasonStatus.RUNNING
            seats = s.execute(
                select(GameSeat.seat, Bot.id, Bot.name, Bot.endpoint, Bot.capacity)
                .join(Bot, Bot.id == GameSeat.bot_id)
                .where(GameSeat.game_id == game_id).order_by(GameSeat.seat)
            ).all()
            return Claim(
                game_id=game_id, season_id=season.id, season_name=season.name, number=game.number,
                attempt=game.attempts, game=season.game, params=season.params,
                time_control=season.time_control, seed=game.seed,
                seats=tuple(SeatBot(*row) for row in seats), lease_owner=owner,
                lease_expires_at=now + timedelta(seconds=lease_seconds),
            )

    def table_of(self, game_id: int) -> tuple[SeatBot, ...] | None:
        """The bots of a pending game's table, in seat order, with their endpoints (for the
        health checks before a claim); None if the game is not pending or unknown."""
        with self._db.read() as s:
            if s.scalar(select(Game.status).where(Game.id == game_id)) != GameStatus.PENDING:
                return None
            rows = s.execute(
                select(GameSeat.seat, Bot.id, Bot.name, Bot.endpoint, Bot.capacity)
                .join(Bot, Bot.id == GameSeat.bot_id)
                .where(GameSeat.game_id == game_id).order_by(GameSeat.seat)
            ).all()
            return tuple(SeatBot(*row) for row in rows)

    def defer_game(self, game_id: int, down: Mapping[int, str], now: datetime | None = None) -> Deferral:
        """Put off a pending game because the bots ``down`` (``{bot id: why}``) did not answer
        at game start (rules §4.9): no attempt, no fault, nothing rated.

        In one transaction: each bot in ``down`` is marked unavailable in the season since
        ``now`` unless it already was; a bot unavailable for longer than the season's
        ``suspend_after_s`` (the policy's, ``store.policy``) is suspended from the season, and
        every pending game of the season with that bot at the table becomes not played
        (reason ``not_played``, the detail naming the bot); otherwise the game stays
        pending with its deferral count + 1 and the reason in its detail. Returns what
        happened; nothing is written if the game is not pending. Raises NotFound.
        """
        with self._db.write() as s:
            now = now or db_now(s)  # one clock for every worker's deferrals (the database's)
            season = self._lock_season_of(s, game_id)
            game = s.execute(select(Game.status, Game.deferrals).where(Game.id == game_id)).one()
            if game.status != GameStatus.PENDING:
                return Deferral(game_id, GameStatus(game.status), game.deferrals, (), "not pending")
            names = dict(s.execute(select(Bot.id, Bot.name).where(Bot.id.in_(list(down)))).all())
            limit = self._policy.suspend_after_s(season.config or {})
            suspended: list[str] = []
            for bot_id, why in sorted(down.items()):
                row = s.get(SeasonBotStatus, (season.id, bot_id))
                if row is None:
                    row = SeasonBotStatus(season_id=season.id, bot_id=bot_id)
                    s.add(row)
                if row.unavailable_since is None:
                    row.unavailable_since = now
                row.reason = why
                if row.suspended_at is None and (now - row.unavailable_since).total_seconds() > limit:
                    row.suspended_at = now
                    suspended.append(names.get(bot_id, str(bot_id)))
                    self._not_played(s, season.id, bot_id, f"{names.get(bot_id, bot_id)} suspended from the season: "
                                     f"no answer at game start since {row.unavailable_since:%Y-%m-%d %H:%M:%S} UTC "
                                     f"(more than {limit:g} s); last: {why}", now)
            detail = "deferred: " + "; ".join(f"{names.get(b, b)} does not answer ({why})" for b, why in sorted(down.items()))
            changed = updated_rows(s, update(Game).where(Game.id == game_id, Game.status == GameStatus.PENDING)
                                   .values(deferrals=Game.deferrals + 1, detail=detail))
            status = GameStatus.PENDING if changed else GameStatus.NOT_PLAYED
            if suspended:
                self._maybe_finish_season(s, season, now)
                rewrite_ratings(s, season, now, self._policy)  # the checkpoint may move past the games not played
            final = s.scalar(select(Game.detail).where(Game.id == game_id)) or detail
            return Deferral(game_id, status, game.deferrals + (1 if changed else 0), tuple(suspended), final)

    def renew_lease(
        self, game_id: int, attempt: int, lease_seconds: float, now: datetime | None = None,
        live: Mapping[str, Any] | None = None,
    ) -> bool:
        """Extend a running attempt's lease to ``now + lease_seconds`` and, if ``live`` is
        given, store it as the game's public progress (``referee.live.LiveView.snapshot``:
        public events and faults only; the caller never passes anything secret). False if
        the game is no longer running with this attempt (the worker should stop and store
        nothing; nothing is written). ``now`` defaults to the database's clock."""
        values: dict[str, Any] = {}
        if live is not None:
            values["live_record"] = json.dumps(live, separators=(",", ":"))
        with self._db.write() as s:
            values["lease_expires_at"] = (now or db_now(s)) + timedelta(seconds=lease_seconds)
            changed = updated_rows(s,
                update(Game)
                .where(Game.id == game_id, Game.status == GameStatus.RUNNING, Game.attempts == attempt)
                .values(**values)
            )
            return changed == 1

    def finish_game(self, game_id: int, attempt: int, record: GameRecord, now: datetime | None = None) -> bool:
        """Store a completed game in one transaction: per-seat results, the replay
        (zlib JSON), running -> done, the attempt closed as done, and the season's
        Elo recomputed from all its done games in schedule order.

        Returns False and writes nothing if the game is not running with this
        attempt (a redelivered or stale task, or a second finish).
        Raises NotFound for an unknown game id; InvalidRecord if the record is
        not a completed game (``reason`` must be ``EndReason.COMPLETED``; a
        platform failure goes to :meth:`void_game`) or does not fit the game
        (game name, seed, seats).
        """
        if record.reason != EndReason.COMPLETED:
            raise InvalidRecord(f"finish_game takes completed games; got reason {record.reason!s}: "
                                "void the attempt instead")
        blob, json_size = encode_record(record)  # before taking the season's lock
        with self._db.write() as s:
            now = now or db_now(s)
            season = self._lock_season_of(s, game_id)
            game = s.execute(select(Game.status, Game.attempts, Game.seed).where(Game.id == game_id)).one()
            if game.status != GameStatus.RUNNING or game.attempts != attempt:
                return False
            seats = list(s.scalars(select(GameSeat.seat).where(GameSeat.game_id == game_id)
                                   .order_by(GameSeat.seat)))
            _check_record(record, game_id, season.game, game.seed, seats)
            changed = updated_rows(s,
                update(Game)
                .where(Game.id == game_id, Game.status == GameStatus.RUNNING, Game.attempts == attempt)
                .values(status=GameStatus.DONE, reason=record.reason.value, detail=record.detail, live_record=None,
                        finished_at=now, lease_owner=None, lease_expires_at=None)
            )
            if changed != 1:
                return False
            s.execute(update(GameSeat), [
                {"game_id": game_id, "seat": x.seat, "place": x.place, "score": x.score,
                 "change": x.change, "faults": x.faults, "retired": x.retired}
                for x in record.results
            ])
            s.add(Replay(game_id=game_id, record=blob, json_size=json_size))
            self._close_attempt(s, game_id, attempt, AttemptOutcome.DONE, None, now)
            rewrite_ratings(s, season, now, self._policy)
            self._maybe_finish_season(s, season, now)
            return True

    def void_game(
        self, game_id: int, attempt: int, reason: str, max_attempts: int = MAX_ATTEMPTS,
        now: datetime | None = None,
    ) -> VoidResult:
        """Void a running attempt after a platform failure (rules §4.3): the attempt
        row is closed as voided with ``reason``; the game goes back to pending, or to
        failed (reason "failed", not rated) if this was attempt ``max_attempts``.

        Returns what happened; ``STALE`` (nothing written) if the game is not
        running with this attempt. Raises NotFound for an unknown game id.
        """
        with self._db.write() as s:
            now = now or db_now(s)
            season = self._lock_season_of(s, game_id)
            return self._void(s, season, game_id, attempt, reason, max_attempts, now)

    def release_expired(self, now: datetime | None = None, max_attempts: int = MAX_ATTEMPTS) -> list[int]:
        """Void every running attempt whose lease expired before ``now`` (default: the
        database's clock, :func:`db_now`; never the caller's) as "lease expired" (back to
        pending, or failed after ``max_attempts``). Returns the ids of the games released,
        ascending. A lease renewed after it was found expired is not voided (the void
        checks the expiry again in its own UPDATE)."""
        with self._db.read() as s:
            season_ids = list(s.scalars(
                select(Game.season_id).distinct()
                .where(Game.status == GameStatus.RUNNING, Game.lease_expires_at < (now or db_now(s)))
            ))
        released: list[int] = []
        for season_id in season_ids:
            with self._db.write() as s:
                season = s.execute(select(Season).where(Season.id == season_id).with_for_update()).scalar_one()
                released += self._void_expired(s, now or db_now(s), season.id, max_attempts=max_attempts,
                                               season=season)
        return sorted(released)

    @staticmethod
    def _full_bots(s: Session, game_id: int) -> BotsBusy | None:
        """Lock the game's bots (id order) and name those with no room; None if all have room."""
        bots = s.execute(
            select(Bot.id, Bot.name, Bot.capacity).where(
                Bot.id.in_(select(GameSeat.bot_id).where(GameSeat.game_id == game_id)))
            .order_by(Bot.id).with_for_update()
        ).all()
        # from the running games (few, by the status index) to their seats, not from the bots' history
        running = dict(s.execute(
            select(GameSeat.bot_id, func.count()).where(
                GameSeat.game_id.in_(select(Game.id).where(Game.status == GameStatus.RUNNING)),
                GameSeat.bot_id.in_([b.id for b in bots]))
            .group_by(GameSeat.bot_id)
        ).all())
        full = tuple((b.name, b.capacity) for b in bots if running.get(b.id, 0) >= b.capacity)
        return BotsBusy(game_id, full) if full else None

    @staticmethod
    def _mark_answering(s: Session, season_id: int, game_id: int) -> None:
        """The bots of a game that just started answered its health checks: not unavailable."""
        updated_rows(s, update(SeasonBotStatus)
                     .where(SeasonBotStatus.season_id == season_id, SeasonBotStatus.unavailable_since.is_not(None),
                            SeasonBotStatus.suspended_at.is_(None),
                            SeasonBotStatus.bot_id.in_(select(GameSeat.bot_id).where(GameSeat.game_id == game_id)))
                     .values(unavailable_since=None))

    @staticmethod
    def _not_played(s: Session, season_id: int, bot_id: int, detail: str, now: datetime) -> None:
        """Every pending game of the season with ``bot_id`` at the table: not played, with ``detail``."""
        updated_rows(s, update(Game)
                     .where(Game.season_id == season_id, Game.status == GameStatus.PENDING,
                            exists().where(GameSeat.game_id == Game.id, GameSeat.bot_id == bot_id))
                     .values(status=GameStatus.NOT_PLAYED, reason=GameStatus.NOT_PLAYED.value, detail=detail, finished_at=now))

    @staticmethod
    def _lock_season_of(s: Session, game_id: int) -> Season:
        """Lock (PostgreSQL ``FOR UPDATE``) and return the season of a game. Raises NotFound."""
        season_id = s.scalar(select(Game.season_id).where(Game.id == game_id))
        if season_id is None:
            raise NotFound(f"no game with id {game_id}")
        return s.execute(select(Season).where(Season.id == season_id).with_for_update()).scalar_one()

    def _void(self, s: Session, season: Season, game_id: int, attempt: int, reason: str,
              max_attempts: int, now: datetime, *, expired_before: datetime | None = None) -> VoidResult:
        """Void the running ``attempt``; with ``expired_before``, only if its lease still
        expires before then (a renewal committed since it was read keeps the attempt)."""
        failed = attempt >= max_attempts
        values: dict[str, Any] = {"lease_owner": None, "lease_expires_at": None, "live_record": None}
        if failed:
            values |= {"status": GameStatus.FAILED, "reason": EndReason.FAILED.value, "finished_at": now,
                       "detail": f"voided {attempt} times; last: {reason}"}
        else:
            values |= {"status": GameStatus.PENDING, "reason": EndReason.VOIDED.value, "detail": reason}
        stmt = update(Game).where(Game.id == game_id, Game.status == GameStatus.RUNNING, Game.attempts == attempt)
        if expired_before is not None:
            stmt = stmt.where(Game.lease_expires_at < expired_before)
        if updated_rows(s, stmt.values(**values)) != 1:
            return VoidResult.STALE
        self._close_attempt(s, game_id, attempt, AttemptOutcome.VOIDED, reason, now)
        if failed:
            rewrite_ratings(s, season, now, self._policy)  # a sealed group it closed is rated now
            self._maybe_finish_season(s, season, now)
            return VoidResult.FAILED
        return VoidResult.PENDING

    def _void_expired(self, s: Session, now: datetime, season_id: int, *, game_id: int | None = None,
                      max_attempts: int = MAX_ATTEMPTS, season: Season | None = None) -> list[int]:
        """Void the season's running attempts whose lease expired (the caller holds the season lock)."""
        q = select(Game.id, Game.attempts).where(
            Game.season_id == season_id, Game.status == GameStatus.RUNNING, Game.lease_expires_at < now)
        if game_id is not None:
            q = q.where(Game.id == game_id)
        expired = s.execute(q.order_by(Game.number)).all()
        if not expired:
            return []
        season = season or s.get_one(Season, season_id)
        return [gid for gid, att in expired
                if self._void(s, season, gid, att, LEASE_EXPIRED, max_attempts, now,
                              expired_before=now) != VoidResult.STALE]

    @staticmethod
    def _close_attempt(s: Session, game_id: int, attempt: int, outcome: AttemptOutcome,
                       detail: str | None, now: datetime) -> None:
        updated_rows(s, update(GameAttempt)
                     .where(GameAttempt.game_id == game_id, GameAttempt.attempt == attempt)
                     .values(ended_at=now, outcome=outcome, detail=detail))

    @staticmethod
    def _maybe_finish_season(s: Session, season: Season, now: datetime) -> None:
        """Mark the season done once no game is pending or running."""
        left = s.scalar(select(func.count()).select_from(Game).where(
            Game.season_id == season.id, Game.status.in_([GameStatus.PENDING, GameStatus.RUNNING])))
        if not left and season.status != SeasonStatus.DONE:
            season.status = SeasonStatus.DONE
            season.finished_at = now


def _check_record(record: GameRecord, game_id: int, game: str, seed: int, seats: list[int]) -> None:
    """Raise InvalidRecord unless the record is of this game, seed and table, with
    one result per seat and places >= 1."""
    problems = []
    if record.game != game:
        problems.append(f"game {record.game!r} != {game!r}")
    if record.seed != seed:
        problems.append(f"seed {record.seed} != {seed}")
    if record.num_seats != len(seats) or sorted(r.seat for r in record.results) != seats:
        problems.append(f"results for seats {sorted(r.seat for r in record.results)}, table has {seats}")
    if any(r.place < 1 for r in record.results):
        problems.append("a place < 1")
    if problems:
        raise InvalidRecord(f"record does not fit game {game_id}: " + "; ".join(problems))
