"""The store's operations: bots, seasons, the life of a game, results, ratings, standings.

A :class:`Store` wraps one SQLAlchemy Engine; every method is one transaction
and returns plain frozen dataclasses (never ORM objects), so values can cross
processes and outlive the session. Create one with :func:`store.open_store`.

The life of a game (rules §4.3, DESIGN "a game is the unit of work and of
failure")::

    pending --claim_game--> running --finish_game--> done      (rated)
                               |
                               +--void_game / lease expired--> pending  (attempts < 3)
                                                           \\-> failed   (3rd attempt: shown, not rated)

Every claim is an *attempt* (a ``game_attempts`` row closed as done or voided)
holding a lease: the worker renews it (``renew_lease``) while it plays; a lease
that runs out (worker lost) voids the attempt, at the next ``claim_game`` of
that game or when a sweeper calls ``release_expired``. Leases are set and
compared by the database's clock alone (:func:`db_now`, read once per
transaction), never a worker's or a sweeper's, so machines whose clocks
disagree still agree on which lease ran out. A result or void counts
only for the running attempt: a redelivered or stale task's call does nothing
and says so. Concurrency: a claim is one conditional
``UPDATE ... WHERE status = 'pending'`` checked by rowcount; every transaction
that moves a game also locks its season row first (PostgreSQL ``FOR UPDATE``;
SQLite's ``BEGIN IMMEDIATE`` already serialises writers), so the season's Elo,
recomputed inside ``finish_game`` as Elo over all done games in schedule order
(replayed from a checkpoint of final games), always sees every committed
result, and locks are always taken season-then-game (no deadlocks).
"""

from __future__ import annotations

import enum
import json
import zlib
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any, cast

from sqlalchemy import CursorResult, Engine, delete, exists, func, insert, select, text, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, aliased

from league import elo as elo_rating
from league import fairness
from league.availability import suspend_after_s
from league.settling import SEQUENTIAL_KEY
from league.luck import luck_adjusted_by_bot
from league.standings import SeatOutcome, StandingRow, compute_standings, group_games, standings_json
from referee.games import games as registered_games, spec
from referee.record import EndReason, GameRecord
from store import db
from store.db import (
    InvalidRecord,
    NameTaken,
    NotFound,
    SeasonExists,
    StoreError,
    StoreUnavailable,
    transaction,
)
from store.models import (
    AttemptOutcome,
    Bot,
    Game,
    GameAttempt,
    GameSeat,
    GameStatus,
    Rating,
    Replay,
    Season,
    SeasonBotStatus,
    SeasonStatus,
    utcnow,
)
from store.sealing import OPEN, published

#: Voided attempts after which a game is stored as failed (rules §4.3).
MAX_ATTEMPTS = 3
#: Seeds are stored as signed 64-bit integers.
SEED_LIMIT = 2**63
LEASE_EXPIRED = "lease expired"

__all__ = [
    "LEASE_EXPIRED", "MAX_ATTEMPTS", "AttemptInfo", "BotAvailability", "BotInfo", "BotsBusy", "Claim", "Deferral",
    "GameInfo", "InvalidRecord", "NameTaken",
    "NotFound", "SeasonExists", "SeasonInfo", "SeatBot", "SeatInfo", "Store", "StoreError", "StoreUnavailable",
    "VoidResult", "open_store",
]


def open_store(url: str, *, run_migrations: bool = True) -> Store:
    """Open the store at ``url`` and (unless ``run_migrations=False``) bring its schema
    to the latest Alembic migration.

    SQLite files and their directory are created on first use; many processes
    may open (and migrate) the same database at once. ``run_migrations=False``
    suits worker processes of a pool whose parent already migrated.
    Raises StoreUnavailable (a StoreError) with a one-line message for a
    malformed URL, a missing driver, an unreachable or unusable database, or a
    failed migration.
    """
    engine = db.create_store_engine(url)
    if run_migrations:
        try:
            db.migrate(engine)
        except BaseException:
            engine.dispose()
            raise
    return Store(engine)


class VoidResult(enum.StrEnum):
    """What :meth:`Store.void_game` did: the game is pending again, failed for good,
    or nothing (``stale``: the game was not running with that attempt)."""

    PENDING = "pending"
    FAILED = "failed"
    STALE = "stale"


@dataclass(frozen=True)
class BotInfo:
    """A registered bot (see ``store.models.Bot``)."""

    id: int
    name: str
    endpoint: str
    version: str
    author: str
    games: tuple[str, ...]
    capacity: int
    token_hash: str | None
    created_at: datetime
    retired_at: datetime | None


@dataclass(frozen=True)
class SeasonInfo:
    """A season (see ``store.models.Season``); ``game`` is a game name (``referee.games.games()``).

    ``seed`` is the organiser's seed of a reproducible season (None: a secret season);
    like the key it is never shown. ``commitment`` is the SHA-256 of the season key
    (``league.fairness``; None for a season stored before keys). The key itself is
    not here: :meth:`Store.revealed_key` gives it once the season is done."""

    id: int
    name: str
    game: str
    params: dict[str, Any]
    time_control: dict[str, Any]
    seed: int | None
    config: dict[str, Any]
    status: SeasonStatus
    created_at: datetime
    finished_at: datetime | None
    commitment: str | None = None
    reproducible: bool = False


@dataclass(frozen=True)
class SeatBot:
    """Who plays a seat of a claimed game: the bot and how to reach it."""

    seat: int
    bot_id: int
    name: str
    endpoint: str
    capacity: int


@dataclass(frozen=True)
class Claim:
    """A game claimed by a worker: everything needed to referee it.

    ``seats`` are the seats' bots in seat order (``seats[s].seat == s``).
    ``attempt`` (1-based) must be passed back to :meth:`Store.finish_game` or
    :meth:`Store.void_game`; the lease must be renewed before ``lease_expires_at``
    (:meth:`Store.renew_lease`) or the attempt is voided as "lease expired".
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
    """What :meth:`Store.defer_game` did. ``status``: the game's status after it (``pending``:
    deferred; ``not_played``: a bot of its table was suspended; anything else: the game was
    not pending, nothing written). ``deferrals``: the game's deferral count now;
    ``suspended``: names of the bots this call suspended from the season; ``detail``: why."""

    game_id: int
    status: GameStatus
    deferrals: int
    suspended: tuple[str, ...]
    detail: str


@dataclass(frozen=True)
class BotAvailability:
    """A bot of a season that did not answer at a game start (``store.models.SeasonBotStatus``):
    unavailable since when (None: answering again), the last reason, suspended when (or None)."""

    bot_id: int
    name: str
    unavailable_since: datetime | None
    reason: str | None
    suspended_at: datetime | None


@dataclass(frozen=True)
class SeatInfo:
    """A seat of a game with its result (result fields are ``None`` until done)."""

    seat: int
    bot_id: int
    bot_name: str
    place: int | None
    score: int | None
    change: int | None
    faults: int | None
    retired: bool | None


@dataclass(frozen=True)
class AttemptInfo:
    """One attempt at a game: ``outcome`` is None while it runs; ``detail`` why it was voided."""

    attempt: int
    worker: str
    started_at: datetime
    ended_at: datetime | None
    outcome: AttemptOutcome | None
    detail: str | None


@dataclass(frozen=True)
class GameInfo:
    """A game of a season, its state and its seats (see ``store.models.Game``)."""

    id: int
    season_id: int
    number: int
    seed: int
    status: GameStatus
    attempts: int
    reason: str | None
    detail: str | None
    lease_owner: str | None
    lease_expires_at: datetime | None
    started_at: datetime | None
    finished_at: datetime | None
    seats: tuple[SeatInfo, ...]


def db_now(s: Session) -> datetime:
    """The database's clock, timezone-aware UTC, read in the session's transaction.

    PostgreSQL: ``now()`` (the transaction's start); SQLite: ``strftime('%f', 'now')``
    (milliseconds; SQLite runs in the caller's process, on the one machine that holds
    the file, so its clock is that machine's). Every lease is set and compared by this
    clock, so a worker or sweeper whose own clock is off never decides a lease.
    """
    if s.get_bind().dialect.name == "sqlite":
        stamp = s.scalar(text("SELECT strftime('%Y-%m-%d %H:%M:%f', 'now')"))
        return datetime.fromisoformat(str(stamp)).replace(tzinfo=UTC)
    value = s.scalar(select(func.now()))
    if not isinstance(value, datetime):
        raise StoreError(f"the database's clock gave {value!r}, not a timestamp")
    return value.astimezone(UTC)


def _changed(s: Session, stmt: Any) -> int:
    """Execute an UPDATE without touching loaded objects; the number of rows it changed."""
    result = s.execute(stmt.execution_options(synchronize_session=False))
    return int(cast(CursorResult[Any], result).rowcount)


def _bot_info(b: Bot) -> BotInfo:
    return BotInfo(b.id, b.name, b.endpoint, b.version, b.author, tuple(b.games), b.capacity,
                   b.token_hash, b.created_at, b.retired_at)


def _season_info(s: Season) -> SeasonInfo:
    return SeasonInfo(s.id, s.name, s.game, s.params, s.time_control, s.seed if s.reproducible else None, s.config,
                      SeasonStatus(s.status), s.created_at, s.finished_at, s.commitment, bool(s.reproducible))


def _check_seed(seed: int, what: str) -> None:
    if not 0 <= seed < SEED_LIMIT:
        raise ValueError(f"{what} must be in [0, 2**63), got {seed}")


def _check_games(games: Sequence[tuple[int, Sequence[int]]], what: str) -> set[int]:
    """The bot ids of ``(seed, seats)`` games; raises ValueError for a bad seed or fewer than two seats."""
    bot_ids: set[int] = set()
    for i, (game_seed, seats) in enumerate(games):
        _check_seed(game_seed, f"seed of {what} {i}")
        if len(seats) < 2:
            raise ValueError(f"{what} {i} has {len(seats)} seats; at least 2 are needed")
        bot_ids.update(seats)
    return bot_ids


def _check_game_name(game: str) -> str:
    if game not in registered_games():
        raise ValueError(f"unknown game {game!r}; expected one of {registered_games()}")
    return game


class Store:
    """The store over one Engine. Thread- and process-safe: share it within a process,
    open one per process (``open_store``) across processes."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def close(self) -> None:
        """Close the engine's pooled connections."""
        self.engine.dispose()

    def _read(self) -> AbstractContextManager[Session]:
        return transaction(self.engine, write=False)

    def _write(self) -> AbstractContextManager[Session]:
        return transaction(self.engine, write=True)

    # ----------------------------------------------------------------- bots

    def register_bot(
        self,
        name: str,
        endpoint: str,
        version: str,
        author: str,
        games: Sequence[str],
        capacity: int = 1,
        token_hash: str | None = None,
    ) -> int:
        """Register a bot; returns its id.

        ``endpoint`` is ``host:port``; ``games`` are game names;
        ``capacity`` the number of games it accepts at once (>= 1).
        Raises NameTaken if the name is registered, ValueError for an empty
        name or endpoint, an unknown game or a capacity < 1.
        """
        if not name.strip() or not endpoint.strip():
            raise ValueError("a bot needs a name and an endpoint")
        if capacity < 1:
            raise ValueError(f"capacity must be >= 1, got {capacity}")
        names = [_check_game_name(g) for g in games]
        try:
            with self._write() as s:
                if s.scalar(select(Bot.id).where(Bot.name == name)) is not None:
                    raise NameTaken(f"a bot named {name!r} is already registered")
                bot = Bot(name=name, endpoint=endpoint, version=version, author=author, games=names,
                          capacity=capacity, token_hash=token_hash)
                s.add(bot)
                s.flush()
                return bot.id
        except IntegrityError as e:  # a concurrent registration of the same name
            raise NameTaken(f"a bot named {name!r} is already registered") from e

    def update_bot(
        self,
        bot_id: int,
        *,
        endpoint: str | None = None,
        version: str | None = None,
        author: str | None = None,
        games: Sequence[str] | None = None,
        capacity: int | None = None,
        token_hash: str | None = None,
    ) -> BotInfo:
        """Change the given fields of a bot (``None``: unchanged); returns the bot as updated.

        A new endpoint takes effect at the next claim of each game (claims carry it).
        Raises NotFound for an unknown id, ValueError as :meth:`register_bot` does.
        """
        values: dict[str, Any] = {}
        if endpoint is not None:
            if not endpoint.strip():
                raise ValueError("a bot needs an endpoint")
            values["endpoint"] = endpoint
        if capacity is not None:
            if capacity < 1:
                raise ValueError(f"capacity must be >= 1, got {capacity}")
            values["capacity"] = capacity
        if games is not None:
            values["games"] = [_check_game_name(g) for g in games]
        values |= {k: v for k, v in (("version", version), ("author", author), ("token_hash", token_hash))
                   if v is not None}
        with self._write() as s:
            if values and not _changed(s, update(Bot).where(Bot.id == bot_id).values(**values)):
                raise NotFound(f"no bot with id {bot_id}")
            bot = s.get(Bot, bot_id)
            if bot is None:
                raise NotFound(f"no bot with id {bot_id}")
            return _bot_info(bot)

    def get_bot(self, bot_id: int) -> BotInfo | None:
        """The bot with this id, or None."""
        with self._read() as s:
            bot = s.get(Bot, bot_id)
            return _bot_info(bot) if bot else None

    def get_bot_by_name(self, name: str) -> BotInfo | None:
        """The bot with this name, or None."""
        with self._read() as s:
            bot = s.scalar(select(Bot).where(Bot.name == name))
            return _bot_info(bot) if bot else None

    def list_bots(self, *, include_retired: bool = True) -> list[BotInfo]:
        """All bots by id."""
        with self._read() as s:
            q = select(Bot).order_by(Bot.id)
            if not include_retired:
                q = q.where(Bot.retired_at.is_(None))
            return [_bot_info(b) for b in s.scalars(q)]

    def retire_bot(self, bot_id: int, now: datetime | None = None) -> None:
        """Mark a bot retired (kept for history; not scheduled any more). Raises NotFound."""
        with self._write() as s:
            if not _changed(s, update(Bot).where(Bot.id == bot_id).values(retired_at=now or utcnow())):
                raise NotFound(f"no bot with id {bot_id}")

    # -------------------------------------------------------------- seasons

    def create_season(
        self,
        name: str,
        game: str,
        params: dict[str, Any],
        time_control: dict[str, Any],
        seed: int | None,
        config: dict[str, Any],
        games: Sequence[tuple[int, Sequence[int]]],
        *,
        key: bytes | None = None,
        deal_groups: Sequence[int] | None = None,
    ) -> int:
        """Write a season and its whole schedule in one transaction; returns the season id.

        ``games[i] = (seed, [bot id per seat])`` becomes game number ``i``, pending, in
        deal group ``deal_groups[i]`` (default ``i``: no game shares its deal).
        ``key`` is the season's key (``league.fairness``; 32 bytes); without it the key
        of the reproducible season of ``seed`` (``fairness.key_from_seed``). ``seed``:
        the organiser's seed of a reproducible season, or None for a secret one (then
        ``key`` is needed). The commitment is stored with the key.
        ``params``, ``time_control`` and ``config`` must be JSON-serialisable.
        Raises SeasonExists if the name is taken, NotFound for an unknown bot id,
        ValueError for an unknown game, an empty schedule, a table of fewer than
        two seats, a seed outside [0, 2**63), no seed and no key, a key not of 32
        bytes, or a ``deal_groups`` not of one per game.
        """
        game = _check_game_name(game)
        if seed is not None:
            _check_seed(seed, "season seed")
        if key is None:
            if seed is None:
                raise ValueError("a season needs a key or a seed")
            key = fairness.key_from_seed(seed)
        if len(key) != fairness.KEY_BYTES:
            raise ValueError(f"a season key has {fairness.KEY_BYTES} bytes, got {len(key)}")
        if not games:
            raise ValueError("a season needs at least one game")
        groups = list(deal_groups) if deal_groups is not None else list(range(len(games)))
        if len(groups) != len(games):
            raise ValueError(f"{len(groups)} deal groups for {len(games)} games")
        bot_ids = _check_games(games, "game")
        try:
            with self._write() as s:
                if s.scalar(select(Season.id).where(Season.name == name)) is not None:
                    raise SeasonExists(f"a season named {name!r} already exists")
                known = set(s.scalars(select(Bot.id).where(Bot.id.in_(bot_ids))))
                if missing := sorted(bot_ids - known):
                    raise NotFound(f"unknown bot ids {missing}")
                season = Season(name=name, game=game, params=params, time_control=time_control,
                                seed=0 if seed is None else seed, config=config, status=SeasonStatus.SCHEDULED,
                                deal_key=key.hex(),
                                commitment=fairness.commitment(key), reproducible=seed is not None)
                s.add(season)
                s.flush()
                now = utcnow()
                rows = [{"season_id": season.id, "number": i, "seed": gs, "deal_group": groups[i],
                         "status": GameStatus.PENDING, "attempts": 0, "created_at": now}
                        for i, (gs, _) in enumerate(games)]
                ids = s.scalars(insert(Game).returning(Game.id, sort_by_parameter_order=True), rows).all()
                seat_rows = [{"game_id": gid, "seat": seat, "bot_id": bot}
                             for gid, (_, seats) in zip(ids, games, strict=True) for seat, bot in enumerate(seats)]
                s.execute(insert(GameSeat), seat_rows)
                return season.id
        except IntegrityError as e:  # a concurrent creation of the same name
            raise SeasonExists(f"a season named {name!r} already exists") from e

    def extend_season(self, season_id: int, config: dict[str, Any], games: Sequence[tuple[int, Sequence[int]]],
                      expected_games: int, deal_groups: Sequence[int] | None = None) -> bool:
        """Replace the season's ``config`` and append ``games`` (``(seed, [bot id per seat])``, pending,
        numbered on from the last game) in one transaction, if the season still has exactly
        ``expected_games`` games; otherwise another process extended it first and nothing is written
        (returns False). Adding games re-opens a done season. ``deal_groups``: one per game (the
        schedule's, ``league.schedule.ScheduledGame.deal_group``; default: each game its own).
        Raises NotFound for an unknown season or bot id, ValueError for a game of fewer than two
        seats, a seed outside [0, 2**63) or deal groups not one per game."""
        bot_ids = _check_games(games, "added game")
        groups = list(deal_groups) if deal_groups is not None else [None] * len(games)
        if len(groups) != len(games):
            raise ValueError(f"{len(groups)} deal groups for {len(games)} games")
        with self._write() as s:
            season = s.execute(select(Season).where(Season.id == season_id).with_for_update()).scalar_one_or_none()
            if season is None:
                raise NotFound(f"no season with id {season_id}")
            count = s.scalar(select(func.count()).select_from(Game).where(Game.season_id == season_id))
            if count != expected_games:
                return False
            if missing := sorted(bot_ids - set(s.scalars(select(Bot.id).where(Bot.id.in_(bot_ids))))):
                raise NotFound(f"unknown bot ids {missing}")
            season.config = dict(config)
            if games:
                now = utcnow()
                rows = [{"season_id": season_id, "number": count + i, "seed": gs, "status": GameStatus.PENDING,
                         "deal_group": count + i if groups[i] is None else groups[i],
                         "attempts": 0, "created_at": now} for i, (gs, _) in enumerate(games)]
                ids = s.scalars(insert(Game).returning(Game.id, sort_by_parameter_order=True), rows).all()
                s.execute(insert(GameSeat), [{"game_id": gid, "seat": seat, "bot_id": bot}
                                             for gid, (_, seats) in zip(ids, games, strict=True)
                                             for seat, bot in enumerate(seats)])
                if season.status == SeasonStatus.DONE:
                    season.status, season.finished_at = SeasonStatus.RUNNING, None
            return True

    def get_season(self, season_id: int) -> SeasonInfo | None:
        """The season with this id, or None."""
        with self._read() as s:
            season = s.get(Season, season_id)
            return _season_info(season) if season else None

    def get_season_by_name(self, name: str) -> SeasonInfo | None:
        """The season with this name, or None."""
        with self._read() as s:
            season = s.scalar(select(Season).where(Season.name == name))
            return _season_info(season) if season else None

    def revealed_key(self, season_id: int) -> bytes | None:
        """The season's key once it may be published: the season is done (every game final), has a
        key, and, for a sequential season, has stopped (between two batches its later games'
        seeds still come from the key); else None. Raises NotFound for an unknown id."""
        with self._read() as s:
            season = s.get(Season, season_id)
            if season is None:
                raise NotFound(f"no season with id {season_id}")
            if SeasonStatus(season.status) != SeasonStatus.DONE or season.deal_key is None:
                return None
            sequential = (season.config or {}).get(SEQUENTIAL_KEY)
            if sequential is not None and sequential.get("stop") is None:
                return None
            return bytes.fromhex(season.deal_key)

    def schedule_key(self, season_id: int) -> bytes:
        """The season's key, for the scheduler that adds a sequential season's next batch of games
        (their seeds come from it, ``league.schedule``). Never to be shown: publishing goes through
        :meth:`revealed_key`. Raises NotFound for an unknown season or one without a key."""
        with self._read() as s:
            season = s.get(Season, season_id)
            if season is None or season.deal_key is None:
                raise NotFound(f"no season with id {season_id} and a key")
            return bytes.fromhex(season.deal_key)

    def season_deals(self, season_id: int) -> list[tuple[int, int, int, int, GameStatus]]:
        """``(game id, number, deal group, stored seed, status)`` of every game of the season, in
        schedule order: what ``league.verify`` checks against the published key. Not for display."""
        with self._read() as s:
            rows = s.execute(select(Game.id, Game.number, Game.deal_group, Game.seed, Game.status)
                             .where(Game.season_id == season_id).order_by(Game.number)).all()
            return [(gid, number, number if group is None else group, seed, GameStatus(status))
                    for gid, number, group, seed, status in rows]

    def list_seasons(self) -> list[SeasonInfo]:
        """All seasons by id."""
        with self._read() as s:
            return [_season_info(x) for x in s.scalars(select(Season).order_by(Season.id))]

    def season_progress(self, season_id: int) -> dict[str, int]:
        """Games per status: ``{"pending", "running", "done", "failed", "not_played", "total"}``. Raises NotFound."""
        with self._read() as s:
            if s.get(Season, season_id) is None:
                raise NotFound(f"no season with id {season_id}")
            counts = {st.value: 0 for st in GameStatus}
            q = select(Game.status, func.count()).where(Game.season_id == season_id).group_by(Game.status)
            for status, n in s.execute(q):
                counts[GameStatus(status).value] = n
            counts["total"] = sum(counts.values())
            return counts

    def next_pending(self, season_id: int, limit: int = 100) -> list[int]:
        """Ids of up to ``limit`` pending games of the season, in schedule order."""
        with self._read() as s:
            q = (select(Game.id).where(Game.season_id == season_id, Game.status == GameStatus.PENDING)
                 .order_by(Game.number).limit(limit))
            return list(s.scalars(q))

    def pending_attempts(self, season_id: int) -> dict[int, int]:
        """``{game id: attempts so far}`` of every pending game of the season, in schedule
        order. A game whose attempts grew since it was enqueued has used its task (a
        voided attempt) and needs another."""
        with self._read() as s:
            q = (select(Game.id, Game.attempts).where(Game.season_id == season_id, Game.status == GameStatus.PENDING)
                 .order_by(Game.number))
            return {gid: attempts for gid, attempts in s.execute(q)}

    def pending_tables(self, season_id: int) -> tuple[dict[int, SeatBot], list[frozenset[int]]]:
        """The bots of the season's pending games (``{bot id: SeatBot}``, with ``seat`` 0) and
        each pending game's table as a set of bot ids: for checking, before a season runs,
        which games its answering bots can play."""
        with self._read() as s:
            rows = s.execute(
                select(Game.id, Bot.id, Bot.name, Bot.endpoint, Bot.capacity)
                .join(GameSeat, GameSeat.game_id == Game.id).join(Bot, Bot.id == GameSeat.bot_id)
                .where(Game.season_id == season_id, Game.status == GameStatus.PENDING)
            ).all()
        bots = {bot: SeatBot(0, bot, name, endpoint, cap) for _, bot, name, endpoint, cap in rows}
        tables: dict[int, set[int]] = {}
        for gid, bot, *_ in rows:
            tables.setdefault(gid, set()).add(bot)
        return bots, [frozenset(t) for t in tables.values()]

    def pending_deferrals(self, season_id: int) -> dict[int, int]:
        """``{game id: deferrals}`` of the season's pending games deferred at least once (rules §4.9)."""
        with self._read() as s:
            q = select(Game.id, Game.deferrals).where(
                Game.season_id == season_id, Game.status == GameStatus.PENDING, Game.deferrals > 0)
            return {gid: n for gid, n in s.execute(q)}

    # --------------------------------------------------------- game life

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
        with self._write() as s:
            now = now or db_now(s)
            season = self._lock_season_of(s, game_id)
            self._void_expired(s, now, season.id, game_id=game_id)
            if capacity:
                if s.scalar(select(Game.status).where(Game.id == game_id)) != GameStatus.PENDING:
                    return None  # done, failed or running: nothing to wait for
                busy = self._full_bots(s, game_id)
                if busy is not None:
                    return busy
            changed = _changed(s,
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
        with self._read() as s:
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
        ``suspend_after_s`` (``league.availability``) is suspended from the season, and
        every pending game of the season with that bot at the table becomes not played
        (reason ``not_played``, the detail naming the bot); otherwise the game stays
        pending with its deferral count + 1 and the reason in its detail. Returns what
        happened; nothing is written if the game is not pending. Raises NotFound.
        """
        with self._write() as s:
            now = now or db_now(s)  # one clock for every worker's deferrals (the database's)
            season = self._lock_season_of(s, game_id)
            game = s.execute(select(Game.status, Game.deferrals).where(Game.id == game_id)).one()
            if game.status != GameStatus.PENDING:
                return Deferral(game_id, GameStatus(game.status), game.deferrals, (), "not pending")
            names = dict(s.execute(select(Bot.id, Bot.name).where(Bot.id.in_(list(down)))).all())
            limit = suspend_after_s(season.config)
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
            changed = _changed(s, update(Game).where(Game.id == game_id, Game.status == GameStatus.PENDING)
                               .values(deferrals=Game.deferrals + 1, detail=detail))
            status = GameStatus.PENDING if changed else GameStatus.NOT_PLAYED
            if suspended:
                self._maybe_finish_season(s, season, now)
                self._recompute_ratings(s, season, now)  # the checkpoint may move past the games not played
            final = s.scalar(select(Game.detail).where(Game.id == game_id)) or detail
            return Deferral(game_id, status, game.deferrals + (1 if changed else 0), tuple(suspended), final)

    def season_availability(self, season_id: int) -> list[BotAvailability]:
        """The season's bots that did not answer at some game start, by name: unavailable since
        when (None once a game with them started again) and suspended when."""
        with self._read() as s:
            rows = s.execute(
                select(SeasonBotStatus, Bot.name).join(Bot, Bot.id == SeasonBotStatus.bot_id)
                .where(SeasonBotStatus.season_id == season_id).order_by(Bot.name)
            ).all()
            return [BotAvailability(r.bot_id, name, r.unavailable_since, r.reason, r.suspended_at) for r, name in rows]

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
        with self._write() as s:
            values["lease_expires_at"] = (now or db_now(s)) + timedelta(seconds=lease_seconds)
            changed = _changed(s,
                update(Game)
                .where(Game.id == game_id, Game.status == GameStatus.RUNNING, Game.attempts == attempt)
                .values(**values)
            )
            return changed == 1

    def live_record(self, game_id: int) -> dict[str, Any] | None:
        """The public progress of a running game as last stored by its worker, or None (not
        running, or nothing stored yet, or an unknown id)."""
        with self._read() as s:
            raw = s.scalar(select(Game.live_record).where(Game.id == game_id, Game.status == GameStatus.RUNNING))
        return json.loads(raw) if raw else None

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
        raw = json.dumps(record.to_json(), separators=(",", ":")).encode()
        blob = zlib.compress(raw, 6)  # before taking the season's lock
        with self._write() as s:
            now = now or db_now(s)
            season = self._lock_season_of(s, game_id)
            game = s.execute(select(Game.status, Game.attempts, Game.seed).where(Game.id == game_id)).one()
            if game.status != GameStatus.RUNNING or game.attempts != attempt:
                return False
            seats = list(s.scalars(select(GameSeat.seat).where(GameSeat.game_id == game_id)
                                   .order_by(GameSeat.seat)))
            _check_record(record, game_id, season.game, game.seed, seats)
            changed = _changed(s,
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
            s.add(Replay(game_id=game_id, record=blob, json_size=len(raw)))
            self._close_attempt(s, game_id, attempt, AttemptOutcome.DONE, None, now)
            self._recompute_ratings(s, season, now)
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
        with self._write() as s:
            now = now or db_now(s)
            season = self._lock_season_of(s, game_id)
            return self._void(s, season, game_id, attempt, reason, max_attempts, now)

    def release_expired(self, now: datetime | None = None, max_attempts: int = MAX_ATTEMPTS) -> list[int]:
        """Void every running attempt whose lease expired before ``now`` (default: the
        database's clock, :func:`db_now`; never the caller's) as "lease expired" (back to
        pending, or failed after ``max_attempts``). Returns the ids of the games released,
        ascending. A lease renewed after it was found expired is not voided (the void
        checks the expiry again in its own UPDATE)."""
        with self._read() as s:
            season_ids = list(s.scalars(
                select(Game.season_id).distinct()
                .where(Game.status == GameStatus.RUNNING, Game.lease_expires_at < (now or db_now(s)))
            ))
        released: list[int] = []
        for season_id in season_ids:
            with self._write() as s:
                season = s.execute(select(Season).where(Season.id == season_id).with_for_update()).scalar_one()
                released += self._void_expired(s, now or db_now(s), season.id, max_attempts=max_attempts,
                                               season=season)
        return sorted(released)

    # ------------------------------------------------------------- reads

    def get_game(self, game_id: int) -> GameInfo | None:
        """The game with its seats and results, or None."""
        with self._read() as s:
            game = s.get(Game, game_id)
            return self._game_infos(s, [game])[0] if game else None

    def list_games(
        self,
        season_id: int,
        *,
        status: GameStatus | str | None = None,
        bot_id: int | None = None,
        offset: int = 0,
        limit: int = 100,
    ) -> list[GameInfo]:
        """A page of the season's games in schedule order, optionally only those with
        ``status`` and/or with ``bot_id`` at the table."""
        with self._read() as s:
            q = select(Game).where(Game.season_id == season_id)
            if status is not None:
                q = q.where(Game.status == GameStatus(status))
            if bot_id is not None:
                q = q.where(exists().where(GameSeat.game_id == Game.id, GameSeat.bot_id == bot_id))
            games = list(s.scalars(q.order_by(Game.number).offset(offset).limit(limit)))
            return self._game_infos(s, games)

    def attempts(self, game_id: int) -> list[AttemptInfo]:
        """Every attempt at the game, in order (empty for an unknown id)."""
        with self._read() as s:
            rows = s.scalars(select(GameAttempt).where(GameAttempt.game_id == game_id)
                             .order_by(GameAttempt.attempt))
            return [AttemptInfo(a.attempt, a.worker, a.started_at, a.ended_at,
                                AttemptOutcome(a.outcome) if a.outcome else None, a.detail) for a in rows]

    def get_replay(self, game_id: int) -> GameRecord | None:
        """The stored GameRecord of a done game, or None (not done, or unknown id)."""
        with self._read() as s:
            blob = s.scalar(select(Replay.record).where(Replay.game_id == game_id))
        if blob is None:
            return None
        return GameRecord.from_json(json.loads(zlib.decompress(blob)))

    def season_records(self, season_id: int) -> list[tuple[list[int], GameRecord]]:
        """``(bot of each seat, GameRecord)`` of the season's done games, in schedule order
        (every stored replay is read and decompressed: ~1 ms per game)."""
        with self._read() as s:
            rows = s.execute(select(Game.id, Replay.record).join(Replay, Replay.game_id == Game.id)
                             .where(Game.season_id == season_id, Game.status == GameStatus.DONE)
                             .order_by(Game.number)).all()
            seats: dict[int, list[int]] = {}
            for game_id, bot in s.execute(select(GameSeat.game_id, GameSeat.bot_id).join(Game, Game.id == GameSeat.game_id)
                                          .where(Game.season_id == season_id, Game.status == GameStatus.DONE)
                                          .order_by(GameSeat.game_id, GameSeat.seat)):
                seats.setdefault(game_id, []).append(bot)
        return [(seats[game_id], GameRecord.from_json(json.loads(zlib.decompress(blob)))) for game_id, blob in rows]

    def ratings(self, season_id: int) -> dict[int, float]:
        """The season's stored Elo ratings ``{bot_id: elo}`` (bots with a rated game)."""
        with self._read() as s:
            return dict(s.execute(select(Rating.bot_id, Rating.elo).where(Rating.season_id == season_id)).all())

    def standings(self, season_id: int, with_luck: bool = True) -> list[StandingRow]:
        """The season's standings, in ``league.standings.rank_key`` order (best ML rating
        first, then Elo), one row per bot seated in the season
        (see ``league.standings.StandingRow``), with the season ratings and their intervals
        fitted over the done games (``league.ratings_ml``) and, for a game with a luck estimator, the luck-adjusted
        changes from the done games' replays (``league.luck``; ``with_luck=False`` skips reading them). Only done
        games count. Raises NotFound."""
        with self._read() as s:
            season = s.get(Season, season_id)
            if season is None:
                raise NotFound(f"no season with id {season_id}")
            game = season.game
            names = dict(s.execute(
                select(Bot.id, Bot.name).where(
                    Bot.id.in_(select(GameSeat.bot_id).join(Game, Game.id == GameSeat.game_id)
                               .where(Game.season_id == season_id)))
            ).all())
            outcomes = [  # result columns are set for every seat of a done game
                SeatOutcome(bot, cast(int, place), cast(int, change), cast(int, faults), bool(retired))
                for bot, place, change, faults, retired in s.execute(
                    select(GameSeat.bot_id, GameSeat.place, GameSeat.change, GameSeat.faults, GameSeat.retired)
                    .join(Game, Game.id == GameSeat.game_id)
                    .where(Game.season_id == season_id, published(season_id=season_id)))
            ]
            elo = dict(s.execute(select(Rating.bot_id, Rating.elo).where(Rating.season_id == season_id)).all())
            games = group_games((number, bot, cast(int, place)) for number, bot, place in s.execute(
                select(Game.number, GameSeat.bot_id, GameSeat.place)
                .join(GameSeat, GameSeat.game_id == Game.id)
                .where(Game.season_id == season_id, published(season_id=season_id))
                .order_by(Game.number, GameSeat.seat)))
            suspended = set(s.scalars(select(SeasonBotStatus.bot_id).where(
                SeasonBotStatus.season_id == season_id, SeasonBotStatus.suspended_at.is_not(None))))
        luck = luck_adjusted_by_bot(self.season_records(season_id)) \
            if with_luck and spec(game).luck is not None else None
        rows = compute_standings(outcomes, names, elo, games, luck)
        return [replace(r, suspended=True) if r.bot_id in suspended else r for r in rows]

    def standings_json(self, season_id: int) -> list[dict[str, Any]]:
        """:meth:`standings` as JSON-ready dicts (with ``rank``). Raises NotFound."""
        return standings_json(self.standings(season_id))

    # ----------------------------------------------------------- helpers

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
        _changed(s, update(SeasonBotStatus)
                 .where(SeasonBotStatus.season_id == season_id, SeasonBotStatus.unavailable_since.is_not(None),
                        SeasonBotStatus.suspended_at.is_(None),
                        SeasonBotStatus.bot_id.in_(select(GameSeat.bot_id).where(GameSeat.game_id == game_id)))
                 .values(unavailable_since=None))

    @staticmethod
    def _not_played(s: Session, season_id: int, bot_id: int, detail: str, now: datetime) -> None:
        """Every pending game of the season with ``bot_id`` at the table: not played, with ``detail``."""
        _changed(s, update(Game)
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
        if _changed(s, stmt.values(**values)) != 1:
            return VoidResult.STALE
        self._close_attempt(s, game_id, attempt, AttemptOutcome.VOIDED, reason, now)
        if failed:
            self._recompute_ratings(s, season, now)  # a sealed group it closed is rated now
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
        _changed(s, update(GameAttempt)
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

    @staticmethod
    def _recompute_ratings(s: Session, season: Season, now: datetime) -> None:
        """Make the season's ratings equal to Elo over all its published games (done and not
        sealed: ``store.sealing``) in schedule order.

        Games up to ``season.rated_through`` are final (done or failed, never re-run),
        so their Elo is kept in ``ratings.base_elo``; only the done games after that
        checkpoint are replayed from it, with exactly the float operations of a
        replay from the start (so the result is bit-identical to ``season_elo``).
        The checkpoint then moves to just before the first game of a deal group with a
        game still pending or running (every sealed game is after it). Cost: the games
        after the checkpoint, about the games in flight.
        """
        open_groups = aliased(Game)  # a sealed game's result waits for its deal group (store.sealing)
        first_open = s.scalar(select(func.min(Game.number)).where(
            Game.season_id == season.id, Game.status.in_(OPEN) | Game.deal_group.in_(select(open_groups.deal_group).where(
                open_groups.season_id == season.id, open_groups.status.in_(OPEN)))))
        if first_open is None:
            first_open = (s.scalar(select(func.max(Game.number)).where(Game.season_id == season.id)) or 0) + 1
        old = season.rated_through
        stored = s.execute(select(Rating.bot_id, Rating.base_elo, Rating.base_games)
                           .where(Rating.season_id == season.id, Rating.base_games > 0)).all()
        elo = {bot: base for bot, base, _ in stored}
        counts = {bot: n for bot, _, n in stored}
        rows = s.execute(
            select(Game.number, GameSeat.bot_id, GameSeat.place)
            .join(GameSeat, GameSeat.game_id == Game.id)
            .where(Game.season_id == season.id, published(season_id=season.id), Game.number > old)
            .order_by(Game.number, GameSeat.seat)
        ).all()
        games: list[tuple[int, list[int], list[int]]] = []
        for number, bot, place in rows:
            if not games or games[-1][0] != number:
                games.append((number, [], []))
            games[-1][1].append(bot)
            games[-1][2].append(cast(int, place))  # set for every seat of a done game
        base_elo, base_counts = elo, counts  # update() returns new dicts: these stay as they are
        for number, bots, places in games:
            elo = elo_rating.update(elo, bots, places)
            counts = dict(counts)
            for bot in bots:
                counts[bot] = counts.get(bot, 0) + 1
            if number < first_open:  # inside the new checkpoint
                base_elo, base_counts = elo, counts
        s.execute(delete(Rating).where(Rating.season_id == season.id))
        if elo:
            s.execute(insert(Rating), [
                {"season_id": season.id, "bot_id": bot, "elo": r, "games": counts[bot], "updated_at": now,
                 "base_elo": base_elo.get(bot, elo_rating.START), "base_games": base_counts.get(bot, 0)}
                for bot, r in sorted(elo.items())
            ])
        season.rated_through = max(old, first_open - 1)

    @staticmethod
    def _game_infos(s: Session, games: list[Game]) -> list[GameInfo]:
        if not games:
            return []
        seats: dict[int, list[SeatInfo]] = {g.id: [] for g in games}
        rows = s.execute(
            select(GameSeat, Bot.name).join(Bot, Bot.id == GameSeat.bot_id)
            .where(GameSeat.game_id.in_(list(seats))).order_by(GameSeat.game_id, GameSeat.seat)
        ).all()
        for seat, bot_name in rows:
            seats[seat.game_id].append(SeatInfo(seat.seat, seat.bot_id, bot_name, seat.place, seat.score,
                                                seat.change, seat.faults, seat.retired))
        return [GameInfo(g.id, g.season_id, g.number, g.seed, GameStatus(g.status), g.attempts, g.reason,
                         g.detail, g.lease_owner, g.lease_expires_at, g.started_at, g.finished_at,
                         tuple(seats[g.id])) for g in games]


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
