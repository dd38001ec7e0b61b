"""The life of a game: claim, lease, heartbeat, defer, void, and storing its result.

The life of a game (rules §4.3, DESIGN "a game is the unit of work and of
failure")::

    pending --claim_game--> running --finish_game--> done      (rated)
       |                       |
       |                       +--void_game / lease expired--> pending  (attempts < 3)
       |                                                   \\-> failed   (3rd attempt: shown, not rated)
       +--defer_game (a bot does not answer at game start, rules §4.9)--> pending, or not_played
       +--cancel_season (rules §4.11)--> not_played, reason "cancelled" (and a running game whose
                                          attempt is voided after it: the same)

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
season-then-game, and season-then-the-bots'-marks (``store.availability`` locks the
season before it marks a bot down), so no two transactions wait for each other.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, Row, bindparam, exists, func, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite

from referee.record import EndReason, GameRecord
from store.chain import append_games, close_if_finished, replay_digest
from store.db import InvalidRecord, NotFound
from store.models import (
    CANCELLED,
    AttemptOutcome,
    Bot,
    Game,
    GameAttempt,
    GameSeat,
    GameStatus,
    LadderEntrant,
    Replay,
    Season,
    SeasonBotStatus,
    SeasonStatus,
)
from store.policy import LeaguePolicy
from store.ratings import rewrite_ratings
from store.replays import encode_record
from store.seasons import LOCK_SEASON, SEASON_COLUMNS, LockedSeason, SeatBot
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
    #: the season was cancelled (rules §4.11): the game is not played, reason ``cancelled``
    CANCELLED = "cancelled"


@dataclass(frozen=True)
class Cancellation:
    """What :meth:`GameLifecycle.cancel_season` did: ``cancelled`` pending games now not played
    (reason ``cancelled``); ``running`` games left to finish (stored and rated if they do; cancelled
    too if their attempt is voided or its lease runs out); ``already``: the season was cancelled before."""

    season_id: int
    cancelled: int
    running: int
    already: bool = False


@dataclass(frozen=True)
class Claim:
    """A game claimed by a worker: everything needed to referee it.

    ``seats`` are the seats' bots in seat order (``seats[s].seat == s``). ``token`` is the id the bots are
    sent (``ActRequest.game_id``) and the replay keeps: keyed from the season's key, the same for every
    attempt, telling a bot nothing of ``number`` (``league.integrity.fairness.game_token``); a game stored
    before keyed ids (migration 0013) has ``<season id>/<number>``.
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
    token: str

    @property
    def bots(self) -> tuple[SeatBot, ...]:
        """Alias of :attr:`seats`."""
        return self.seats


@dataclass(frozen=True)
class BotsBusy:
    """A claim refused for now: ``bots`` are ``(name, capacity)`` of the table's bots already playing
    ``capacity`` games, or ``rotation`` is the number of a game of the same deal group still running
    (rules §0.6: a duplicate table's rotations are played one at a time). Nothing was written; try again
    later."""

    game_id: int
    bots: tuple[tuple[str, int], ...]
    rotation: int | None = None

    def __str__(self) -> str:
        if self.rotation is not None:
            return f"waiting for game {self.rotation}, a rotation of the same deal, to end"
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


# The statements of a game's life, built once: building a statement and its cache key costs more
# than SQLite running it, and a claim and a finish run a dozen. They run on the transaction's
# Connection and load no ORM objects. Every per-game one reads rows by key or probes an index:
# none reads the whole season.
#: Lock (PostgreSQL ``FOR UPDATE``) and read the season of a game (by id: ``store.seasons.LOCK_SEASON``).
_LOCK_SEASON_OF_GAME = select(*SEASON_COLUMNS).where(
    Season.id == select(Game.season_id).where(Game.id == bindparam("game_id")).scalar_subquery()).with_for_update()
#: A game's state, and whether a bot of its season is marked not answering (``_MARK_ANSWERING`` to do).
_GAME = select(Game.status, Game.attempts, Game.lease_expires_at, Game.number, Game.seed, Game.deal_group, Game.token, exists().where(
    SeasonBotStatus.season_id == Game.season_id, SeasonBotStatus.unavailable_since.is_not(None),
    SeasonBotStatus.suspended_at.is_(None)).label("unanswered")).where(Game.id == bindparam("game_id"))
#: ``(seat, bot id, name, endpoint, capacity, version, described name, version, capacity)`` of a game's seats.
_TABLE = (select(GameSeat.seat, Bot.id, Bot.name, Bot.endpoint, Bot.capacity, Bot.version, Bot.described_name,
                 Bot.described_version, Bot.described_capacity)
          .join(Bot, Bot.id == GameSeat.bot_id).where(GameSeat.game_id == bindparam("game_id")))
_TABLE_BY_SEAT = _TABLE.order_by(GameSeat.seat)
#: The same, the bots' rows locked (PostgreSQL) in id order.
_LOCK_TABLE = _TABLE.order_by(Bot.id).with_for_update(of=Bot)
#: ``(bot id, running games)`` of the given bots: from the running games (few, by the status index)
#: to their seats, not from the bots' history.
_RUNNING_PER_BOT = (select(GameSeat.bot_id, func.count()).where(
    GameSeat.game_id.in_(select(Game.id).where(Game.status == GameStatus.RUNNING)),
    GameSeat.bot_id.in_(bindparam("bot_ids", expanding=True))).group_by(GameSeat.bot_id))
#: The number of a running game of a deal group other than ``game_id`` (one probe of
#: ``ix_games_season_id_deal_group_status``).
_DEAL_IN_PLAY = (select(Game.number).where(
    Game.season_id == bindparam("season_id"), Game.deal_group == bindparam("deal_group"),
    Game.status == GameStatus.RUNNING, Game.id != bindparam("game_id")).limit(1))
_CLAIM = (update(Game).where(Game.id == bindparam("game_id"), Game.status == GameStatus.PENDING)
          .values(status=GameStatus.RUNNING, attempts=Game.attempts + 1, lease_owner=bindparam("owner"),
                  lease_expires_at=bindparam("expires"), started_at=bindparam("now"))
          .returning(Game.attempts))
#: Each seat of a game just claimed: the version its bot has now (the version it plays).
_SEAT_VERSIONS = (update(GameSeat).where(GameSeat.game_id == bindparam("v_game"))
                  .values(version=select(Bot.version).where(Bot.id == GameSeat.bot_id).scalar_subquery()))
#: The bots of a game that just started answered its health checks: not unavailable.
_MARK_ANSWERING = (update(SeasonBotStatus).where(
    SeasonBotStatus.season_id == bindparam("b_season"), SeasonBotStatus.unavailable_since.is_not(None),
    SeasonBotStatus.suspended_at.is_(None),
    SeasonBotStatus.bot_id.in_(select(GameSeat.bot_id).where(GameSeat.game_id == bindparam("b_game"))))
    .values(unavailable_since=None))
_SEASON_RUNNING = update(Season).where(Season.id == bindparam("season_id")).values(status=SeasonStatus.RUNNING)
_SEASON_DONE = (update(Season).where(Season.id == bindparam("season_id"))
                .values(status=SeasonStatus.DONE, finished_at=bindparam("now")))
_RENEW = (update(Game).where(Game.id == bindparam("game_id"), Game.status == GameStatus.RUNNING,
                             Game.attempts == bindparam("attempt"))
          .values(lease_expires_at=bindparam("expires")))
_RENEW_LIVE = _RENEW.values(live_record=bindparam("live"))
#: ``(status, attempts, seed, seat)`` of each of a game's seats.
_GAME_SEATS = (select(Game.status, Game.attempts, Game.seed, GameSeat.seat)
               .join(GameSeat, GameSeat.game_id == Game.id).where(Game.id == bindparam("game_id"))
               .order_by(GameSeat.seat))
_FINISH = (update(Game).where(Game.id == bindparam("game_id"), Game.status == GameStatus.RUNNING,
                              Game.attempts == bindparam("attempt"))
           .values(status=GameStatus.DONE, reason=bindparam("end_reason"), detail=bindparam("end_detail"),
                   live_record=None, finished_at=bindparam("now"), lease_owner=None, lease_expires_at=None))
_SEAT_RESULT = (update(GameSeat).where(GameSeat.game_id == bindparam("r_game"), GameSeat.seat == bindparam("r_seat"))
                .values(place=bindparam("r_place"), score=bindparam("r_score"), change=bindparam("r_change"),
                        faults=bindparam("r_faults"), retired=bindparam("r_retired")))
_ADD_ATTEMPT = insert(GameAttempt)
_ADD_REPLAY = insert(Replay)
_CLOSE_ATTEMPT = (update(GameAttempt)
                  .where(GameAttempt.game_id == bindparam("a_game"), GameAttempt.attempt == bindparam("a_attempt"))
                  .values(ended_at=bindparam("a_now"), outcome=bindparam("a_outcome"), detail=bindparam("a_detail")))
#: ``(id, attempts)`` of the season's running games whose lease expired before ``now``, in schedule order.
_EXPIRED = (select(Game.id, Game.attempts).where(
    Game.season_id == bindparam("season_id"), Game.status == GameStatus.RUNNING,
    Game.lease_expires_at < bindparam("now")).order_by(Game.number))


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
        ``owner`` until ``now + lease_seconds``, one ``game_attempts`` row, and each seat's
        ``version`` set to its bot's version now (the version it plays; a later change of the
        bot's version changes no game already claimed). ``now`` defaults
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
        games (any season) than its ``capacity``, and no other game of its deal group is running
        (rules §0.6: a bot never has two rotations of one deal in flight, so the order in which it
        played them is the order in which it could learn from them, the order the duplicate audit
        reads). Otherwise nothing is written and the answer is :class:`BotsBusy` naming the full
        bots or the rotation in play (the caller retries later).

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
        with self._db.write_rows() as conn:
            now = now or db_now(conn)
            season = self._lock_season_of(conn, game_id)
            game = conn.execute(_GAME, {"game_id": game_id}).one()
            status = game.status
            expired = game.lease_expires_at is not None and game.lease_expires_at < now
            if status == GameStatus.RUNNING and expired:  # its worker is gone: void it first
                voided = self._void(conn, season, game_id, game.attempts, LEASE_EXPIRED, MAX_ATTEMPTS, now,
                                    expired_before=now)
                status = GameStatus.PENDING if voided == VoidResult.PENDING else status
            if status != GameStatus.PENDING:
                return None  # done, failed, not played or running: nothing to claim
            if (season.config or {}).get("paused_at"):
                return None  # its runner stopped (season run, Ctrl-C): left pending until it runs again
            if capacity:
                in_play = conn.scalar(_DEAL_IN_PLAY, {"season_id": season.id, "deal_group": game.deal_group,
                                                      "game_id": game_id}) if game.deal_group is not None else None
                if in_play is not None:  # the season's lock serialises claims: one rotation at a time
                    return BotsBusy(game_id, (), in_play)
                table = conn.execute(_LOCK_TABLE, {"game_id": game_id}).all()
                busy = self._full_bots(conn, game_id, table)
                if busy is not None:
                    return busy
                table.sort(key=lambda row: row.seat)
            else:
                table = conn.execute(_TABLE_BY_SEAT, {"game_id": game_id}).all()
            expires = now + timedelta(seconds=lease_seconds)
            attempt = conn.scalar(_CLAIM, {"game_id": game_id, "owner": owner, "expires": expires, "now": now})
            if attempt is None:
                return None
            conn.execute(_ADD_ATTEMPT, {"game_id": game_id, "attempt": attempt, "worker": owner, "started_at": now})
            conn.execute(_SEAT_VERSIONS, {"v_game": game_id})
            if game.unanswered:
                conn.execute(_MARK_ANSWERING, {"b_season": season.id, "b_game": game_id})
            if season.status == SeasonStatus.SCHEDULED:
                conn.execute(_SEASON_RUNNING, {"season_id": season.id})
                season.status = SeasonStatus.RUNNING
            return Claim(
                game_id=game_id, season_id=season.id, season_name=season.name, number=game.number,
                attempt=attempt, game=season.game, params=season.params, time_control=season.time_control,
                seed=game.seed, seats=tuple(SeatBot(*row) for row in table), lease_owner=owner,
                lease_expires_at=expires,
                token=game.token if game.token is not None else f"{season.id}/{game.number}",
            )

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
            conn = s.connection()  # the Core statements below; the bots' statuses are ORM rows, flushed at commit
            now = now or db_now(conn)  # one clock for every worker's deferrals (the database's)
            season = self._lock_season_of(conn, game_id)
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
                    self._not_played(conn, season, bot_id, f"{names.get(bot_id, bot_id)} suspended from the season: "
                                     f"no answer at game start since {row.unavailable_since:%Y-%m-%d %H:%M:%S} UTC "
                                     f"(more than {limit:g} s); last: {why}", now)
            detail = "deferred: " + "; ".join(f"{names.get(b, b)} does not answer ({why})" for b, why in sorted(down.items()))
            changed = updated_rows(s, update(Game).where(Game.id == game_id, Game.status == GameStatus.PENDING)
                                   .values(deferrals=Game.deferrals + 1, detail=detail))
            status = GameStatus.PENDING if changed else GameStatus.NOT_PLAYED
            if suspended:  # the checkpoint may move past the games not played
                self._rate(conn, season, now)
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
        params: dict[str, Any] = {"game_id": game_id, "attempt": attempt}
        if live is not None:
            params["live"] = json.dumps(live, separators=(",", ":"))
        with self._db.write_rows() as conn:
            params["expires"] = (now or db_now(conn)) + timedelta(seconds=lease_seconds)
            return conn.execute(_RENEW if live is None else _RENEW_LIVE, params).rowcount == 1

    def finish_game(self, game_id: int, attempt: int, record: GameRecord, now: datetime | None = None) -> bool:
        """Store a completed game in one transaction: per-seat results, the replay
        (compressed JSON, ``store.replays``), running -> done, the attempt closed as done, and the season's
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
        with self._db.write_rows() as conn:
            now = now or db_now(conn)
            season = self._lock_season_of(conn, game_id)
            seats = conn.execute(_GAME_SEATS, {"game_id": game_id}).all()
            if not seats or seats[0].status != GameStatus.RUNNING or seats[0].attempts != attempt:
                return False
            _check_record(record, game_id, season.game, seats[0].seed, [row.seat for row in seats])
            if conn.execute(_FINISH, {"game_id": game_id, "attempt": attempt, "end_reason": record.reason.value,
                                      "end_detail": record.detail, "now": now}).rowcount != 1:
                return False
            conn.execute(_SEAT_RESULT, [
                {"r_game": game_id, "r_seat": x.seat, "r_place": x.place, "r_score": x.score,
                 "r_change": x.change, "r_faults": x.faults, "r_retired": x.retired}
                for x in record.results
            ])
            conn.execute(_ADD_REPLAY, {"game_id": game_id, "record": blob, "json_size": json_size})
            self._close_attempt(conn, game_id, attempt, AttemptOutcome.DONE, None, now)
            append_games(conn, season, self._policy, [game_id], replay_digest(blob))  # store.chain
            self._rate(conn, season, now)
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
        with self._db.write_rows() as conn:
            now = now or db_now(conn)
            season = self._lock_season_of(conn, game_id)
            return self._void(conn, season, game_id, attempt, reason, max_attempts, now)

    def release_expired(self, now: datetime | None = None, max_attempts: int = MAX_ATTEMPTS) -> list[int]:
        """Void every running attempt whose lease expired before ``now`` (default: the
        database's clock, :func:`db_now`; never the caller's) as "lease expired" (back to
        pending, or failed after ``max_attempts``). Returns the ids of the games released,
        ascending. A lease renewed after it was found expired is not voided (the void
        checks the expiry again in its own UPDATE)."""
        with self._db.read_rows() as conn:
            season_ids = list(conn.scalars(
                select(Game.season_id).distinct()
                .where(Game.status == GameStatus.RUNNING, Game.lease_expires_at < (now or db_now(conn)))
            ))
        released: list[int] = []
        for season_id in season_ids:
            with self._db.write_rows() as conn:
                at = now or db_now(conn)
                season = LockedSeason(**conn.execute(LOCK_SEASON, {"season_id": season_id}).one()._asdict())
                expired = conn.execute(_EXPIRED, {"season_id": season_id, "now": at}).all()
                released += [gid for gid, att in expired
                             if self._void(conn, season, gid, att, LEASE_EXPIRED, max_attempts, at,
                                           expired_before=at) != VoidResult.STALE]
        return sorted(released)

    def cancel_season(self, season_id: int, reason: str, now: datetime | None = None) -> Cancellation:
        """Cancel a season (rules §4.11), in one transaction: ``config["cancelled"]`` records when
        and ``reason``; every pending game becomes not played with reason ``cancelled`` and the detail
        ``season cancelled: REASON``, each appended to the season's chain in schedule order
        (``store.chain``), and the season is done once nothing runs. Games running finish and are
        stored and rated as usual; one whose attempt is voided later is cancelled too (:meth:`_void`).
        What was played stays rated. Cancelling a cancelled season again changes nothing
        (``already``). Raises NotFound for an unknown id, ValueError for a season already done
        (nothing is left to cancel) or an empty reason."""
        reason = " ".join(reason.split())
        if not reason:
            raise ValueError("a cancellation needs a reason")
        with self._db.write_rows() as conn:
            now = now or db_now(conn)
            row = conn.execute(LOCK_SEASON, {"season_id": season_id}).one_or_none()
            if row is None:
                raise NotFound(f"no season with id {season_id}")
            season = LockedSeason(**row._asdict())
            config = dict(season.config or {})
            running = conn.scalar(select(func.count()).select_from(Game).where(
                Game.season_id == season_id, Game.status == GameStatus.RUNNING)) or 0
            if config.get("cancelled"):
                return Cancellation(season_id, 0, running, already=True)
            if SeasonStatus(season.status) == SeasonStatus.DONE:
                raise ValueError(f"season {season.name!r} is over (every game final): nothing to cancel")
            config.pop("paused_at", None)
            config["cancelled"] = {"at": now.isoformat(timespec="seconds"), "reason": reason}
            conn.execute(update(Season).where(Season.id == season_id).values(config=config))
            season.config = config
            where = (Game.season_id == season_id, Game.status == GameStatus.PENDING)
            ids = list(conn.scalars(select(Game.id).where(*where).order_by(Game.number)))
            conn.execute(update(Game).where(*where).values(
                status=GameStatus.NOT_PLAYED, reason=CANCELLED, detail=_cancel_detail(config),
                finished_at=now, lease_owner=None, lease_expires_at=None))
            append_games(conn, season, self._policy, ids, None)  # store.chain
            self._rate(conn, season, now)  # done now if nothing runs
            return Cancellation(season_id, len(ids), running)

    @staticmethod
    def _full_bots(conn: Connection, game_id: int, table: Sequence[Row[Any]]) -> BotsBusy | None:
        """The table's bots (``_TABLE`` rows, locked) with no room; None if all have room."""
        running = dict(conn.execute(_RUNNING_PER_BOT, {"bot_ids": sorted({row.id for row in table})}).all())
        full = tuple(dict.fromkeys((row.name, row.capacity) for row in table
                                   if running.get(row.id, 0) >= row.capacity))
        return BotsBusy(game_id, full) if full else None

    def _not_played(self, conn: Connection, season: LockedSeason, bot_id: int, detail: str,
                    now: datetime) -> list[int]:
        """Every pending game of the season with ``bot_id`` at the table: not played, with ``detail``, each
        appended to the season's chain in schedule order. Returns their ids."""
        where = (Game.season_id == season.id, Game.status == GameStatus.PENDING,
                 exists().where(GameSeat.game_id == Game.id, GameSeat.bot_id == bot_id))
        ids = list(conn.scalars(select(Game.id).where(*where).order_by(Game.number)))
        conn.execute(update(Game).where(*where)
                     .values(status=GameStatus.NOT_PLAYED, reason=GameStatus.NOT_PLAYED.value, detail=detail,
                             finished_at=now))
        append_games(conn, season, self._policy, ids, None)  # store.chain
        return ids

    def retire_bot(self, bot_id: int, now: datetime | None = None) -> list[int]:
        """Retire a bot (kept for history, never scheduled again) and take it out of every ladder in the
        same transaction (rules §5.3): its ladder entrants are retired, and in every ladder epoch with a
        pending game of it the bot is marked suspended (reason ``retired``) and those games become not
        played (shown, never rated), chained and rated as a suspension's are (rules §4.9). Its games
        already running end and count; no game starts with it afterwards: a claim holds the epoch's
        lock, taken here first. Returns the ids of the games not played. Raises NotFound."""
        with self._db.write_rows() as conn:
            now = now or db_now(conn)
            name = conn.scalar(select(Bot.name).where(Bot.id == bot_id))
            if name is None:
                raise NotFound(f"no bot with id {bot_id}")
            season_ids = sorted(conn.scalars(
                select(Game.season_id).distinct().join(Season, Season.id == Game.season_id)
                .where(Season.ladder_id.is_not(None), Game.status == GameStatus.PENDING,
                       exists().where(GameSeat.game_id == Game.id, GameSeat.bot_id == bot_id))))
            seasons = [LockedSeason(**conn.execute(LOCK_SEASON, {"season_id": sid}).one()._asdict())
                       for sid in season_ids]  # in id order, before the bot's row: a claim's order
            conn.execute(update(Bot).where(Bot.id == bot_id).values(retired_at=now))
            conn.execute(update(LadderEntrant).where(LadderEntrant.bot_id == bot_id, LadderEntrant.retired_at.is_(None))
                         .values(retired_at=now))
            dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
            withdrawn: list[int] = []
            for season in seasons:
                stmt = dialect.insert(SeasonBotStatus).values(season_id=season.id, bot_id=bot_id, unavailable_since=now,
                                                              reason="retired", suspended_at=now)
                conn.execute(stmt.on_conflict_do_update(
                    index_elements=[SeasonBotStatus.season_id, SeasonBotStatus.bot_id],
                    set_={"reason": stmt.excluded.reason,
                          "unavailable_since": func.coalesce(SeasonBotStatus.unavailable_since, now),
                          "suspended_at": func.coalesce(SeasonBotStatus.suspended_at, now)}))
                withdrawn += self._not_played(conn, season, bot_id, f"{name} suspended from the season: retired at "
                                              f"{now:%Y-%m-%d %H:%M:%S} UTC (rules §5.3)", now)
                self._rate(conn, season, now)
            return withdrawn

    @staticmethod
    def _lock_season_of(conn: Connection, game_id: int) -> LockedSeason:
        """Lock (PostgreSQL ``FOR UPDATE``) and return the season of a game. Raises NotFound."""
        row = conn.execute(_LOCK_SEASON_OF_GAME, {"game_id": game_id}).one_or_none()
        if row is None:
            raise NotFound(f"no game with id {game_id}")
        return LockedSeason(**row._asdict())

    def _void(self, conn: Connection, season: LockedSeason, game_id: int, attempt: int, reason: str,
              max_attempts: int, now: datetime, *, expired_before: datetime | None = None) -> VoidResult:
        """Void the running ``attempt``; with ``expired_before``, only if its lease still
        expires before then (a renewal committed since it was read keeps the attempt)."""
        failed = attempt >= max_attempts
        cancelled = bool((season.config or {}).get("cancelled")) and not failed
        values: dict[str, Any] = {"lease_owner": None, "lease_expires_at": None, "live_record": None}
        if cancelled:  # rules §4.11: never played again
            values |= {"status": GameStatus.NOT_PLAYED, "reason": CANCELLED, "finished_at": now,
                       "detail": _cancel_detail(season.config, f"its attempt {attempt} voided: {reason}")}
        elif failed:
            values |= {"status": GameStatus.FAILED, "reason": EndReason.FAILED.value, "finished_at": now,
                       "detail": f"voided {attempt} times; last: {reason}"}
        else:
            values |= {"status": GameStatus.PENDING, "reason": EndReason.VOIDED.value, "detail": reason}
        stmt = update(Game).where(Game.id == game_id, Game.status == GameStatus.RUNNING, Game.attempts == attempt)
        if expired_before is not None:
            stmt = stmt.where(Game.lease_expires_at < expired_before)
        if conn.execute(stmt.values(**values)).rowcount != 1:
            return VoidResult.STALE
        self._close_attempt(conn, game_id, attempt, AttemptOutcome.VOIDED, reason, now)
        if cancelled:
            append_games(conn, season, self._policy, [game_id], None)  # store.chain
            self._rate(conn, season, now)
            return VoidResult.CANCELLED
        if failed:
            append_games(conn, season, self._policy, [game_id], None)  # store.chain
            self._rate(conn, season, now)  # a sealed group it closed is rated now
            return VoidResult.FAILED
        return VoidResult.PENDING

    @staticmethod
    def _close_attempt(conn: Connection, game_id: int, attempt: int, outcome: AttemptOutcome,
                       detail: str | None, now: datetime) -> None:
        conn.execute(_CLOSE_ATTEMPT, {"a_game": game_id, "a_attempt": attempt, "a_now": now, "a_outcome": outcome,
                                      "a_detail": detail})

    def _rate(self, conn: Connection, season: LockedSeason, now: datetime) -> None:
        """After a game became final: the season's ratings rewritten (``store.ratings``), and the
        season marked done once no game is pending or running (and its chain closed if that finishes
        it, ``store.chain.close_if_finished``)."""
        rewrite = rewrite_ratings(conn, season.id, season.rated_through, now, self._policy)
        season.rated_through = rewrite.rated_through
        if not rewrite.open_games and season.status != SeasonStatus.DONE:
            conn.execute(_SEASON_DONE, {"season_id": season.id, "now": now})
            season.status = SeasonStatus.DONE
            close_if_finished(conn, season, self._policy, season.status, season.config)  # store.chain


def _cancel_detail(config: Mapping[str, Any] | None, extra: str = "") -> str:
    """The detail of a game cancelled with its season: ``season cancelled: WHY`` (rules §4.11)."""
    why = ((config or {}).get("cancelled") or {}).get("reason", "")
    return f"season cancelled: {why}" + (f" ({extra})" if extra else "")


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
