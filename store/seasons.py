"""Seasons and their schedules: create, extend, look up, and what is left to play.

A season is a game, its parameters and time control, its scheduler settings
(``config``) and its key (``league.integrity.fairness``), with its whole schedule of
games written at creation (and, for a season played until settled, extended
batch by batch). Keys: see :meth:`Seasons.revealed_key` for when one is shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from sqlalchemy import (BigInteger, Connection, Insert, Integer, String, bindparam, case, delete, func, insert,
                        literal_column, select, update)
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.exc import IntegrityError

from referee.chance import PER_DEAL, SCHEMES
from store.bots import check_game_name
from store.chain import append, close_if_finished, finished, link, schedule_entry, season_entry, with_entry
from store.db import NotFound, SeasonExists
from store.models import (
    CANCELLED,
    Bot,
    ChainEntry,
    Rating,
    Game,
    GameAttempt,
    GameSeat,
    GameStatus,
    Replay,
    Season,
    SeasonBotStatus,
    SeasonStatus,
    utcnow,
)
from store.policy import LeaguePolicy
from store.reads import doc
from store.session import Database

#: Seeds are stored as signed 64-bit integers.
SEED_LIMIT = 2**63


@dataclass(frozen=True)
class SeasonInfo:
    """A season (see ``store.models.Season``); ``game`` is a game name (``referee.games``).

    ``seed`` is the organiser's seed of a reproducible season (None: a secret season);
    like the key it is never shown. ``commitment`` is the SHA-256 of the season key
    (``league.integrity.fairness``; None for a season stored before keys). The key itself is
    not here: :meth:`Seasons.revealed_key` gives it once the season is done.
    ``chance_scheme``: the scheme every game is dealt with (``referee.chance``), covered by the
    commitment (None: a season from before the scheme was committed)."""

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
    chance_scheme: str | None = None
    #: a ladder's epoch (``store.ladders``): the ladder's id and the epoch's number; None for a season
    ladder_id: int | None = None
    epoch: int | None = None

    @property
    def state(self) -> str:
        """What the season is doing, as every page and command says it (:func:`season_state`)."""
        return season_state(self.status, self.config)


#: The counts of a season's games, in the order every page, command and the API show them (rules §4.11):
#: ``not_played`` (a bot suspended, rules §4.9) and ``cancelled`` (the season cancelled) are apart.
PROGRESS_KEYS = ("done", "failed", "not_played", "cancelled", "pending", "running")


def season_state(status: SeasonStatus | str, config: dict[str, Any] | None) -> str:
    """``scheduled``, ``running``, ``paused``, ``done`` or ``cancelled``: the stored status, except
    that a season cancelled (``config["cancelled"]``, rules §4.11) is ``cancelled`` and a season not
    done whose last runner stopped (``config["paused_at"]``, set by ``season run`` on Ctrl-C and
    cleared by the next run) is ``paused``."""
    config = config or {}
    if config.get("cancelled"):
        return "cancelled"
    if config.get("paused_at") and str(status) != SeasonStatus.DONE:
        return "paused"
    return str(SeasonStatus(status).value)


def progress_counts(rows: Sequence[tuple[Any, bool, int]]) -> dict[str, int]:
    """``{key: games}`` for :data:`PROGRESS_KEYS` and ``total`` from ``(status, cancelled?, count)`` rows."""
    counts = dict.fromkeys(PROGRESS_KEYS, 0)
    for status, cancelled, n in rows:
        key = "cancelled" if cancelled and GameStatus(status) == GameStatus.NOT_PLAYED else GameStatus(status).value
        counts[key] += n
    counts["total"] = sum(counts.values())
    return counts


#: SQL: true for a game not played because its season was cancelled.
IS_CANCELLED = case((Game.reason == CANCELLED, True), else_=False)


@dataclass(frozen=True)
class StoredGame:
    """Every stored field of a game that ``season verify`` checks (``league.integrity.verify``), as stored:
    ``attempts`` ``(attempt, outcome, detail)`` in order; ``seats`` ``(seat, bot id, place, score,
    change, faults, retired)`` in seat order (results None until done); ``replay``: a replay is stored;
    ``token``: the id its bots were sent (``Game.token``; None for a game stored before keyed ids)."""

    id: int
    number: int
    deal_group: int
    seed: int
    status: GameStatus
    reason: str | None
    detail: str | None
    attempts: tuple[tuple[int, str | None, str | None], ...]
    seats: tuple[tuple[int, int, int | None, int | None, int | None, int | None, bool | None], ...]
    replay: bool
    token: str | None = None


@dataclass(frozen=True)
class SeatBot:
    """Who plays a seat of a game: the bot and how to reach it; ``version``, ``described_name`` and
    ``described_version``, ``described_capacity`` as the store holds them (``store.models.Bot``; the identity check before a
    claim compares them with the endpoint's Describe, ``workers.identity``)."""

    seat: int
    bot_id: int
    name: str
    endpoint: str
    capacity: int
    version: str = ""
    described_name: str | None = None
    described_version: str | None = None
    described_capacity: int | None = None


@dataclass(frozen=True)
class BotAvailability:
    """A bot of a season that did not answer at a game start (``store.models.SeasonBotStatus``)."""

    bot_id: int
    name: str
    unavailable_since: datetime | None = field(
        metadata=doc("since when it has not answered; null once a game with it started again"))
    reason: str | None = field(metadata=doc("why the last health check failed"))
    suspended_at: datetime | None = field(
        metadata=doc("when it was suspended from the season (its remaining games not played)"))


def season_info(s: Season) -> SeasonInfo:
    """The SeasonInfo of a loaded row (the seed only of a reproducible season)."""
    return SeasonInfo(s.id, s.name, s.game, s.params, s.time_control, s.seed if s.reproducible else None, s.config,
                      SeasonStatus(s.status), s.created_at, s.finished_at, s.commitment, bool(s.reproducible),
                      s.chance_scheme, s.ladder_id, s.epoch)


def check_seed(seed: int, what: str) -> None:
    """Raise ValueError unless ``seed`` is in [0, 2**63)."""
    if not 0 <= seed < SEED_LIMIT:
        raise ValueError(f"{what} must be in [0, 2**63), got {seed}")


def check_tables(games: Sequence[tuple[int, Sequence[int]]], what: str) -> set[int]:
    """The bot ids of ``(seed, seats)`` games; raises ValueError for a bad seed or fewer than two seats."""
    bot_ids: set[int] = set()
    for i, (game_seed, seats) in enumerate(games):
        check_seed(game_seed, f"seed of {what} {i}")
        if len(seats) < 2:
            raise ValueError(f"{what} {i} has {len(seats)} seats; at least 2 are needed")
        bot_ids.update(seats)
    return bot_ids



@dataclass
class LockedSeason:
    """A season row that a transaction holds locked (plain values, no ORM object; a ``store.chain.ChainHolder``):
    read by :func:`lock_season`, the game lifecycle's (``store.lifecycle``) and extending a season's; its chain,
    checkpoint and status follow the transaction's own writes."""

    id: int
    name: str
    game: str
    params: dict[str, Any]
    time_control: dict[str, Any]
    config: dict[str, Any] | None
    status: SeasonStatus
    rated_through: int
    chain_head: str | None
    chain_length: int
    ladder_id: int | None
    deal_key: str | None


#: The columns of :class:`LockedSeason`, in its order.
SEASON_COLUMNS = (Season.id, Season.name, Season.game, Season.params, Season.time_control, Season.config,
                  Season.status, Season.rated_through, Season.chain_head, Season.chain_length, Season.ladder_id,
                  Season.deal_key)
#: Lock (PostgreSQL ``FOR UPDATE``; SQLite's write transaction holds the whole store) and read a season by id.
LOCK_SEASON = select(*SEASON_COLUMNS).where(Season.id == bindparam("season_id")).with_for_update()
#: PostgreSQL: :data:`LOCK_SEASON`, and the transaction's commit made not to wait for the log (``synchronous_commit``
#: off for this transaction alone), in the one statement
_LOCK_SEASON_QUICK_COMMIT = (select(*SEASON_COLUMNS, func.set_config("synchronous_commit", "off", True))
                             .where(Season.id == bindparam("season_id")).with_for_update())


_BOTS = bindparam("bots", expanding=True)
#: Extending a season reads, under its lock: its games, its largest deal group, and how many of the given bots
#: exist and how many of them are not retired (built once: building costs more than running it).
_GAMES_AND_BOTS = select(
    func.count(), func.max(Game.deal_group),
    select(func.count()).select_from(Bot).where(Bot.id.in_(_BOTS)).scalar_subquery(),
    select(func.count()).select_from(Bot).where(Bot.id.in_(_BOTS), Bot.retired_at.is_(None)).scalar_subquery(),
).where(Game.season_id == bindparam("season_id"))
_ADD_GAMES = insert(Game).returning(Game.id, sort_by_parameter_order=True)
_ADD_SEATS = insert(GameSeat)


def _add_games_and_seats() -> Insert:
    """PostgreSQL: games added to a season and their seats in one statement (a data-modifying WITH), one round
    trip; the games as arrays, so that its text, and its prepared plan, is the same for any number of them.
    Parameters: ``g_season``, ``g_status``, ``g_now``; ``g_number``, ``g_seed``, ``g_group``, ``g_token`` (one
    per game, in number order); ``s_number``, ``s_seat``, ``s_bot`` (one per seat)."""
    games = func.unnest(bindparam("g_number", type_=ARRAY(Integer)), bindparam("g_seed", type_=ARRAY(BigInteger)),
                        bindparam("g_group", type_=ARRAY(Integer)), bindparam("g_token", type_=ARRAY(String))
                        ).table_valued("number", "seed", "deal_group", "token").render_derived("g")
    added = (insert(Game).from_select(
        ["season_id", "number", "seed", "deal_group", "token", "status", "attempts", "created_at"],
        select(bindparam("g_season", type_=Integer), games.c.number, games.c.seed, games.c.deal_group,
               games.c.token, bindparam("g_status", type_=Game.status.type), literal_column("0"),
               bindparam("g_now", type_=Game.created_at.type)))
        .returning(Game.id, Game.number).cte("added_games"))
    seats = func.unnest(bindparam("s_number", type_=ARRAY(Integer)), bindparam("s_seat", type_=ARRAY(Integer)),
                        bindparam("s_bot", type_=ARRAY(Integer))
                        ).table_valued("number", "seat", "bot_id").render_derived("s")
    return insert(GameSeat).from_select(
        ["game_id", "seat", "bot_id"],
        select(added.c.id, seats.c.seat, seats.c.bot_id).join(seats, seats.c.number == added.c.number))


#: with the chain's entry of the games (its schedule entry) too: the whole of a ladder's append but its lock and read
_ADD_GAMES_AND_SEATS = with_entry(_add_games_and_seats())


def lock_season(conn: Connection, season_id: int, wait_for_log: bool = True) -> LockedSeason | None:
    """The season's row, locked until ``conn``'s transaction ends; None for an unknown id. ``wait_for_log``
    False: on PostgreSQL the transaction's commit does not wait for its log to reach the disk (what that risks:
    ``store.ladders.Ladders.append_games``); SQLite's commits (WAL, ``synchronous = NORMAL``) never wait for it."""
    if not wait_for_log and conn.dialect.name == "postgresql":
        row = conn.execute(_LOCK_SEASON_QUICK_COMMIT, {"season_id": season_id}).one_or_none()
        return None if row is None else LockedSeason(*row[:-1])
    row = conn.execute(LOCK_SEASON, {"season_id": season_id}).one_or_none()
    return None if row is None else LockedSeason(**row._asdict())


class Seasons:
    """The seasons and their schedules over one :class:`~store.session.Database`;
    ``policy`` derives keys and says when a key may be shown (``store.policy``)."""

    def __init__(self, db: Database, policy: LeaguePolicy) -> None:
        self._db = db
        self._policy = policy

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
        chance_scheme: str = PER_DEAL,
    ) -> int:
        """Write a season and its whole schedule in one transaction; returns the season id.

        ``games[i] = (seed, [bot id per seat])`` becomes game number ``i``, pending, in
        deal group ``deal_groups[i]`` (default ``i``: no game shares its deal).
        ``key`` is the season's key (``league.integrity.fairness``; 32 bytes); without it the key
        of the reproducible season of ``seed`` (the policy's ``season_key``). ``seed``:
        the organiser's seed of a reproducible season, or None for a secret one (then
        ``key`` is needed). ``chance_scheme``: the scheme every game is dealt with
        (``referee.chance.SCHEMES``; the referee's own by default). The commitment to the key
        and the scheme is stored with the key, and the season and its schedule are entry 0
        of the season's chain (``store.chain``).
        ``params``, ``time_control`` and ``config`` must be JSON-serialisable.
        Raises SeasonExists if the name is taken, NotFound for an unknown bot id,
        ValueError for an unknown game, an empty schedule, a table of fewer than
        two seats, a seed outside [0, 2**63), no seed and no key, a key not of 32
        bytes, or a ``deal_groups`` not of one per game.
        """
        game = check_game_name(game)
        if seed is not None:
            check_seed(seed, "season seed")
        if key is None:
            if seed is None:
                raise ValueError("a season needs a key or a seed")
            key = self._policy.season_key(seed)
        if len(key) != self._policy.key_bytes:
            raise ValueError(f"a season key has {self._policy.key_bytes} bytes, got {len(key)}")
        if not games:
            raise ValueError("a season needs at least one game")
        if chance_scheme not in SCHEMES:
            raise ValueError(f"unknown chance scheme {chance_scheme!r}; expected one of {SCHEMES}")
        groups = list(deal_groups) if deal_groups is not None else list(range(len(games)))
        if len(groups) != len(games):
            raise ValueError(f"{len(groups)} deal groups for {len(games)} games")
        bot_ids = check_tables(games, "game")
        try:
            with self._db.write() as s:
                if s.scalar(select(Season.id).where(Season.name == name)) is not None:
                    raise SeasonExists(f"a season named {name!r} already exists")
                known = set(s.scalars(select(Bot.id).where(Bot.id.in_(bot_ids))))
                if missing := sorted(bot_ids - known):
                    raise NotFound(f"unknown bot ids {missing}")
                season = Season(name=name, game=game, params=params, time_control=time_control,
                                seed=0 if seed is None else seed, config=config, status=SeasonStatus.SCHEDULED,
                                deal_key=key.hex(), chance_scheme=chance_scheme, chain_length=0,
                                commitment=self._policy.commitment(key, chance_scheme), reproducible=seed is not None)
                s.add(season)
                s.flush()
                now = utcnow()
                rows = [{"season_id": season.id, "number": i, "seed": gs, "deal_group": groups[i],
                         "token": self._policy.game_token(key, season.id, i),
                         "status": GameStatus.PENDING, "attempts": 0, "created_at": now}
                        for i, (gs, _) in enumerate(games)]
                ids = s.scalars(insert(Game).returning(Game.id, sort_by_parameter_order=True), rows).all()
                seat_rows = [{"game_id": gid, "seat": seat, "bot_id": bot}
                             for gid, (_, seats) in zip(ids, games, strict=True) for seat, bot in enumerate(seats)]
                s.execute(insert(GameSeat), seat_rows)
                append(s.connection(), season, self._policy,
                       season_entry(season, [(i, groups[i], list(seats)) for i, (_, seats) in enumerate(games)]))
                return season.id
        except IntegrityError as e:  # a concurrent creation of the same name
            raise SeasonExists(f"a season named {name!r} already exists") from e

    def extend_season(self, season_id: int, config: dict[str, Any], games: Sequence[tuple[int, Sequence[int]]],
                      expected_games: int, deal_groups: Sequence[int] | None = None) -> bool:
        """Replace the season's ``config`` and append ``games`` (``(seed, [bot id per seat])``, pending,
        numbered on from the last game) in one transaction, if the season still has exactly
        ``expected_games`` games; otherwise another process extended it first and nothing is written
        (returns False). Adding games re-opens a done season whose key is not public yet (a sequential
        season between batches); a finished one (done, key public) takes none. ``deal_groups``: one per game (the
        schedule's, ``league.competition.schedule.ScheduledGame.deal_group``; default: each game its own).
        Raises NotFound for an unknown season or bot id, ValueError for a game of fewer than two
        seats, a seed outside [0, 2**63), deal groups not one per game, a deal group the season
        already has (a group is played as a whole: games join the season in groups of their own),
        a cancelled season (rules §4.11) or a finished one (``store.chain.finished``)."""
        bot_ids = check_tables(games, "added game")
        groups = list(deal_groups) if deal_groups is not None else [None] * len(games)
        if len(groups) != len(games):
            raise ValueError(f"{len(groups)} deal groups for {len(games)} games")
        with self._db.write_rows() as conn:
            season = lock_season(conn, season_id)
            if season is None:
                raise NotFound(f"no season with id {season_id}")
            return self.extend_locked(conn, season, config, games, expected_games, groups, bot_ids)

    def extend_locked(self, conn: Connection, season: LockedSeason, config: dict[str, Any],
                      games: Sequence[tuple[int, Sequence[int]]], expected_games: int,
                      groups: Sequence[int | None], bot_ids: set[int], retired_ok: bool = True) -> bool:
        """:meth:`extend_season` in the caller's transaction ``conn``, ``season`` locked by it (:func:`lock_season`;
        a ladder's epoch, ``store.ladders``, checks more under the same lock); ``groups`` one per game (None: its
        own); ``retired_ok`` False: nothing is written (False) if a bot of ``bot_ids`` is retired. Core statements
        only, and one read before the writes: the ladder's refill appends through here at every table."""
        season_id = season.id
        if (season.config or {}).get("cancelled"):
            raise ValueError(f"season {season.name!r} was cancelled: no games are added to it (rules §4.11)")
        if finished(season.status, season.config, self._policy):
            raise ValueError(f"season {season.name!r} is finished (every game final and its key published): "
                             "no game is added to it")
        count, top, found, playing = conn.execute(_GAMES_AND_BOTS, {"season_id": season_id,
                                                                   "bots": sorted(bot_ids)}).one()
        if count != expected_games:
            return False
        if found != len(bot_ids):
            missing = sorted(bot_ids - set(conn.scalars(select(Bot.id).where(Bot.id.in_(bot_ids)))))
            raise NotFound(f"unknown bot ids {missing}")
        if playing != found and not retired_ok:
            return False
        now = utcnow()
        key = bytes.fromhex(season.deal_key) if season.deal_key is not None else None  # None: a season from before keys
        rows = [{"season_id": season_id, "number": count + i, "seed": gs, "status": GameStatus.PENDING,
                 "deal_group": count + i if groups[i] is None else groups[i],
                 "token": self._policy.game_token(key, season_id, count + i) if key is not None else None,
                 "attempts": 0, "created_at": now} for i, (gs, _) in enumerate(games)]
        fresh = top is None or all(row["deal_group"] > top for row in rows)  # the usual case: nothing to look up
        taken = conn.scalar(select(Game.deal_group).where(
            Game.season_id == season_id, Game.deal_group.in_([row["deal_group"] for row in rows])).limit(1)
        ) if rows and not fresh else None
        if taken is not None:  # the ratings checkpoint relies on it (store.ratings)
            raise ValueError(f"deal group {taken} already has games in the season: added games form groups "
                             "of their own")
        changes: dict[str, Any] = {}
        if season.config != config:
            changes["config"] = season.config = dict(config)
        if games and SeasonStatus(season.status) == SeasonStatus.DONE:  # a sequential season's next batch
            season.status = SeasonStatus.RUNNING
            changes.update(status=SeasonStatus.RUNNING, finished_at=None)
        if changes:
            conn.execute(update(Season).where(Season.id == season_id).values(**changes))
        entry = schedule_entry([(row["number"], row["deal_group"], list(seats))
                                for row, (_, seats) in zip(rows, games, strict=True)]) if games else None
        if entry is not None and conn.dialect.name == "postgresql":
            conn.execute(_ADD_GAMES_AND_SEATS, {
                **link(season, self._policy, entry),
                "g_season": season_id, "g_status": GameStatus.PENDING, "g_now": now,
                "g_number": [row["number"] for row in rows], "g_seed": [row["seed"] for row in rows],
                "g_group": [row["deal_group"] for row in rows], "g_token": [row["token"] for row in rows],
                "s_number": [row["number"] for row, (_, seats) in zip(rows, games, strict=True) for _ in seats],
                "s_seat": [seat for _, seats in games for seat in range(len(seats))],
                "s_bot": [bot for _, seats in games for bot in seats]})
        elif entry is not None:
            ids = conn.scalars(_ADD_GAMES, rows).all()
            conn.execute(_ADD_SEATS, [{"game_id": gid, "seat": seat, "bot_id": bot}
                                            for gid, (_, seats) in zip(ids, games, strict=True)
                                            for seat, bot in enumerate(seats)])
            append(conn, season, self._policy, entry)
        else:  # a sequential season that stopped is finished now (store.chain)
            close_if_finished(conn, season, self._policy, season.status, season.config)
        return True

    def get_season(self, season_id: int) -> SeasonInfo | None:
        """The season with this id, or None."""
        with self._db.read() as s:
            season = s.get(Season, season_id)
            return season_info(season) if season else None

    def get_season_by_name(self, name: str) -> SeasonInfo | None:
        """The season with this name, or None."""
        with self._db.read() as s:
            season = s.scalar(select(Season).where(Season.name == name))
            return season_info(season) if season else None

    def revealed_key(self, season_id: int) -> bytes | None:
        """The season's key once it may be published: the season is done (every game final), has a
        key, and, for a sequential season, has stopped (between two batches its later games'
        seeds still come from the key); else None. Raises NotFound for an unknown id."""
        with self._db.read() as s:
            season = s.get(Season, season_id)
            if season is None:
                raise NotFound(f"no season with id {season_id}")
            if SeasonStatus(season.status) != SeasonStatus.DONE or season.deal_key is None:
                return None
            if not self._policy.key_is_public(season.config or {}):
                return None  # a sequential season still drawing its later games' seeds from it
            return bytes.fromhex(season.deal_key)

    def schedule_key(self, season_id: int) -> bytes:
        """The season's key, for the scheduler that adds a sequential season's next batch of games
        (their seeds come from it, ``league.competition.schedule``). Never to be shown: publishing goes through
        :meth:`revealed_key`. Raises NotFound for an unknown season or one without a key."""
        with self._db.read() as s:
            season = s.get(Season, season_id)
            if season is None or season.deal_key is None:
                raise NotFound(f"no season with id {season_id} and a key")
            return bytes.fromhex(season.deal_key)

    def season_deals(self, season_id: int) -> list[tuple[int, int, int, int, GameStatus]]:
        """``(game id, number, deal group, stored seed, status)`` of every game of the season, in
        schedule order: what ``league.integrity.verify`` checks against the published key. Not for display."""
        with self._db.read() as s:
            rows = s.execute(select(Game.id, Game.number, Game.deal_group, Game.seed, Game.status)
                             .where(Game.season_id == season_id).order_by(Game.number)).all()
            return [(gid, number, number if group is None else group, seed, GameStatus(status))
                    for gid, number, group, seed, status in rows]

    def played_at(self, season_id: int) -> dict[int, float]:
        """``{number: when its stored attempt started}`` (seconds since the epoch, the database's clock) of
        the season's done games: the order in which they were played (the duplicate audit reads a deal
        group's rotations in that order, rules §0.6)."""
        with self._db.read() as s:
            rows = s.execute(select(Game.number, Game.started_at).where(
                Game.season_id == season_id, Game.status == GameStatus.DONE, Game.started_at.is_not(None))).all()
            return {number: _timestamp(started) for number, started in rows}

    def finished_at(self, season_id: int) -> dict[int, float]:
        """``{number: when it became final}`` (seconds since the epoch, the database's clock) of the season's
        done games: the order in which the luck audit (``league.integrity.eprocess``) takes them."""
        with self._db.read() as s:
            rows = s.execute(select(Game.number, Game.finished_at).where(
                Game.season_id == season_id, Game.status == GameStatus.DONE, Game.finished_at.is_not(None))).all()
            return {number: _timestamp(finished) for number, finished in rows}

    def stored_games(self, season_id: int) -> list[StoredGame]:
        """Every game of the season with every field ``league.integrity.verify`` checks, in schedule order. Not for display."""
        with self._db.read() as s:
            games = s.execute(select(Game.id, Game.number, Game.deal_group, Game.seed, Game.status, Game.reason,
                                     Game.detail, Game.token).where(Game.season_id == season_id)
                              .order_by(Game.number)).all()
            ids = select(Game.id).where(Game.season_id == season_id).scalar_subquery()
            attempts: dict[int, list[tuple[int, str | None, str | None]]] = {}
            for gid, attempt, outcome, detail in s.execute(
                    select(GameAttempt.game_id, GameAttempt.attempt, GameAttempt.outcome, GameAttempt.detail)
                    .where(GameAttempt.game_id.in_(ids)).order_by(GameAttempt.game_id, GameAttempt.attempt)):
                attempts.setdefault(gid, []).append((attempt, None if outcome is None else str(outcome), detail))
            seats: dict[int, list[tuple[Any, ...]]] = {}
            for row in s.execute(select(GameSeat.game_id, GameSeat.seat, GameSeat.bot_id, GameSeat.place, GameSeat.score,
                                        GameSeat.change, GameSeat.faults, GameSeat.retired)
                                 .where(GameSeat.game_id.in_(ids)).order_by(GameSeat.game_id, GameSeat.seat)):
                seats.setdefault(row[0], []).append((*row[1:7], None if row[7] is None else bool(row[7])))
            replays = set(s.scalars(select(Replay.game_id).where(Replay.game_id.in_(ids))))
        return [StoredGame(gid, number, number if group is None else group, seed, GameStatus(status), reason, detail,
                           tuple(attempts.get(gid, ())), tuple(seats.get(gid, ())), gid in replays, token)
                for gid, number, group, seed, status, reason, detail, token in games]

    def list_seasons(self) -> list[SeasonInfo]:
        """All seasons by id."""
        with self._db.read() as s:
            return [season_info(x) for x in s.scalars(select(Season).order_by(Season.id))]

    def season_progress(self, season_id: int) -> dict[str, int]:
        """Games per count of :data:`PROGRESS_KEYS` (``done``, ``failed``, ``not_played``, ``cancelled``,
        ``pending``, ``running``) and ``total``; a game not played because the season was cancelled
        counts as ``cancelled``, not ``not_played`` (rules §4.11). Raises NotFound."""
        with self._db.read() as s:
            if s.get(Season, season_id) is None:
                raise NotFound(f"no season with id {season_id}")
            q = (select(Game.status, IS_CANCELLED, func.count()).where(Game.season_id == season_id)
                 .group_by(Game.status, IS_CANCELLED))
            return progress_counts(s.execute(q).all())

    def set_paused(self, season_id: int, paused: bool, now: datetime | None = None) -> None:
        """Mark the season paused (``paused``: its runner stopped; no worker claims its games until
        a run clears the mark, :func:`season_state`) or not. Raises NotFound."""
        with self._db.write() as s:
            season = s.execute(select(Season).where(Season.id == season_id).with_for_update()).scalar_one_or_none()
            if season is None:
                raise NotFound(f"no season with id {season_id}")
            config = dict(season.config or {})
            if paused:
                config["paused_at"] = (now or utcnow()).isoformat(timespec="seconds")
            elif "paused_at" not in config:
                return
            else:
                del config["paused_at"]
            season.config = config

    def delete_season(self, season_id: int) -> int:
        """Delete a season that has no final game and no game running (a typo, a season created by
        mistake): its games, seats, attempts, availability, ratings and chain go with it. Returns the
        number of games deleted. Raises NotFound for an unknown id, ValueError naming the counts when a
        game of it is done, failed, not played, cancelled or running (cancel it instead: rules §4.11)."""
        with self._db.write() as s:
            season = s.execute(select(Season).where(Season.id == season_id).with_for_update()).scalar_one_or_none()
            if season is None:
                raise NotFound(f"no season with id {season_id}")
            counts = progress_counts(s.execute(select(Game.status, IS_CANCELLED, func.count()).where(
                Game.season_id == season_id).group_by(Game.status, IS_CANCELLED)).all())
            if kept := {k: n for k, n in counts.items() if n and k not in ("pending", "total")}:
                raise ValueError(f"season {season.name!r} has games that are not pending ("
                                 + ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in kept.items())
                                 + "): only a season with no final and no running game can be deleted; "
                                 f"cancel it instead: cardarena season cancel {season.name}")
            ids = select(Game.id).where(Game.season_id == season_id).scalar_subquery()
            for table in (GameAttempt, GameSeat, Replay):
                s.execute(delete(table).where(table.game_id.in_(ids)))
            s.execute(delete(Game).where(Game.season_id == season_id))
            for table in (SeasonBotStatus, Rating, ChainEntry):
                s.execute(delete(table).where(table.season_id == season_id))
            s.execute(delete(Season).where(Season.id == season_id))
            return counts["pending"]

    def next_pending(self, season_id: int, limit: int = 100) -> list[int]:
        """Ids of up to ``limit`` pending games of the season, in schedule order."""
        with self._db.read() as s:
            q = (select(Game.id).where(Game.season_id == season_id, Game.status == GameStatus.PENDING)
                 .order_by(Game.number).limit(limit))
            return list(s.scalars(q))

    def pending_attempts(self, season_id: int) -> dict[int, int]:
        """``{game id: attempts so far}`` of every pending game of the season, in schedule
        order. A game whose attempts grew since it was enqueued has used its task (a
        voided attempt) and needs another."""
        with self._db.read() as s:
            q = (select(Game.id, Game.attempts).where(Game.season_id == season_id, Game.status == GameStatus.PENDING)
                 .order_by(Game.number))
            return {gid: attempts for gid, attempts in s.execute(q)}

    def pending_tables(self, season_id: int) -> tuple[dict[int, SeatBot], list[frozenset[int]]]:
        """The bots of the season's pending games (``{bot id: SeatBot}``, with ``seat`` 0) and
        each pending game's table as a set of bot ids: for checking, before a season runs,
        which games its answering bots can play."""
        with self._db.read() as s:
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
        with self._db.read() as s:
            q = select(Game.id, Game.deferrals).where(
                Game.season_id == season_id, Game.status == GameStatus.PENDING, Game.deferrals > 0)
            return {gid: n for gid, n in s.execute(q)}

    def season_availability(self, season_id: int) -> list[BotAvailability]:
        """The season's bots that did not answer at some game start, by name: unavailable since
        when (None once a game with them started again) and suspended when."""
        with self._db.read() as s:
            rows = s.execute(
                select(SeasonBotStatus, Bot.name).join(Bot, Bot.id == SeasonBotStatus.bot_id)
                .where(SeasonBotStatus.season_id == season_id).order_by(Bot.name)
            ).all()
            return [BotAvailability(r.bot_id, name, r.unavailable_since, r.reason, r.suspended_at) for r, name in rows]


def _timestamp(when: datetime) -> float:
    """``when`` as seconds since the epoch; a naive datetime (SQLite's) is UTC."""
    return (when if when.tzinfo is not None else when.replace(tzinfo=timezone.utc)).timestamp()
