"""Ladders: always-on competitions played in epochs, their entrants and their rating history (rules §5).

A ladder (``store.models.Ladder``) is a game with fixed parameters, time control and
settings. Its games are played in **epochs**, and an epoch is a season
(``seasons.ladder_id``, ``seasons.epoch``) with its own key, commitment, chance
scheme and chain (``store.chain``), so claims, leases, workers, sealing, the audit
and ``league.integrity.verify`` are the seasons' own. An epoch is opened with no game; the
ladder's runner appends tables to the open epoch (:meth:`Ladders.append_games`,
compare-and-append, safe when several runners race) until it closes it by opening
the next (:meth:`Ladders.open_epoch`). A closed epoch's key is published once all
its games are final (``league.policy.Policy.key_is_public``), exactly as a finished
season's; an open epoch's never.

Entrants (``store.models.LadderEntrant``) are bot versions: :meth:`Ladders.sync_entrants`
enters every active bot registered for the ladder's game with its current version,
marks its other versions superseded, and its entrants retired once it is.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import and_, bindparam, func, insert, literal_column, select, union_all, update
from sqlalchemy.exc import IntegrityError

from referee.chance import PER_DEAL, SCHEMES
from store.bots import check_game_name
from store.chain import append, chain_format, close_if_finished, ratings_entry, season_entry
from store.db import NameTaken, NotFound
from store.models import (
    Bot,
    ChainEntry,
    Game,
    GameSeat,
    GameStatus,
    Ladder,
    LadderCompare,
    LadderEntrant,
    LadderRating,
    Season,
    SeasonBotStatus,
    SeasonStatus,
    utcnow,
)
from store.policy import LeaguePolicy
from store.seasons import SeasonInfo, Seasons, check_tables, lock_season, season_info
from store.session import Database

#: The key of a ladder epoch's own entry in its season's config.
EPOCH_KEY = "ladder_epoch"


@dataclass(frozen=True)
class LadderInfo:
    """A ladder (``store.models.Ladder``); ``game`` a game name (``referee.games``)."""

    id: int
    name: str
    game: str
    params: dict[str, Any]
    time_control: dict[str, Any]
    config: dict[str, Any]
    status: str
    created_at: datetime


@dataclass(frozen=True)
class EntrantInfo:
    """A bot version entered in a ladder (``store.models.LadderEntrant``), with its bot's name and capacity.
    ``active``: neither superseded nor retired (it is scheduled)."""

    id: int
    ladder_id: int
    bot_id: int
    name: str
    version: str
    capacity: int
    joined_at: datetime
    superseded_at: datetime | None
    retired_at: datetime | None

    @property
    def active(self) -> bool:
        return self.superseded_at is None and self.retired_at is None

    @property
    def label(self) -> str:
        """``name@version``."""
        return f"{self.name}@{self.version}"


@dataclass(frozen=True)
class LadderGame:
    """A game of a ladder as its matchmaker and fit read it: ``id``, the epoch's season and the game's
    number there, its status, and per seat ``(bot id, version played or None before a claim, place or None)``."""

    id: int
    season_id: int
    number: int
    status: GameStatus
    seats: tuple[tuple[int, str | None, int | None], ...]


@dataclass(frozen=True)
class RatingPoint:
    """One snapshot of an entrant's ladder rating: after ``games`` rated games of the ladder."""

    entrant_id: int
    games: int
    played: int
    rating: float
    sd: float
    at: datetime


@dataclass(frozen=True)
class MatchAggregates:
    """The ladder's scheduled games aggregated (:meth:`Ladders.match_aggregates`): ``games`` tables, ``last_id``
    the largest game id (-1: none); ``seats`` rows ``(bot id, version, seat, games, first index, last index)``;
    ``pairs`` rows ``(bot a, version a, bot b, version b, last index at one table)``, a seated before b.
    A version is None for a seat not claimed yet (it is the bot's latest entrant's)."""

    games: int
    last_id: int
    seats: list[tuple[int, str | None, int, int, int, int]]
    pairs: list[tuple[int, str | None, int, str | None, int]]


@dataclass(frozen=True)
class BotLine:
    """A bot as a ladder's runner keeps it beside the entrants (:meth:`Ladders.bot_lines`; its author, for
    ``--one-per-author``): ``games`` the games it is registered for (names), ``retired_at`` None while it plays."""

    id: int
    name: str
    version: str
    author: str
    games: tuple[str, ...]
    capacity: int
    retired_at: datetime | None


@dataclass(frozen=True)
class RefillView:
    """What a ladder's runner reads before it adds tables (:meth:`Ladders.refill_view`), in two or three statements:
    the open epoch (``epoch_id`` None before the first is opened; its number, when it was opened, its games so
    far), ``open_rows`` the ladder's pending and running seats grouped as :func:`open_tables` reads them,
    ``marked`` the bots the open epoch marks (as :meth:`Ladders.marked_bots`; None when not asked for),
    ``new_games`` the ladder's games with an id above the one asked for, by id, ``compares`` how many of the
    ladder's compares run or follow their candidate, ``entrants`` how many entrants the ladder has (entrants are
    only ever added, or marked superseded or retired as their bot changes) and ``bots`` the count of bots and the
    sum of their revisions (``store.models.Bot.revision``): both change whenever any bot does."""

    epoch_id: int | None
    epoch: int
    epoch_opened_at: datetime | None
    epoch_games: int
    open_rows: list[tuple[int, int, int, str, int]]
    marked: dict[int, str] | None
    new_games: list[LadderGame]
    compares: int
    entrants: int
    bots: tuple[int, int]

    def open_tables(self, stalled_by: Collection[int] = ()) -> tuple[int, dict[int, int]]:
        """``(pending games, {bot id: its tables pending or running})``, as :meth:`Ladders.open_games` counts them."""
        return open_tables(self.open_rows, stalled_by)


def open_tables(rows: Iterable[tuple[int, int, int, str, int]], stalled_by: Collection[int] = ()
                ) -> tuple[int, dict[int, int]]:
    """``(pending games, {bot id: its tables pending or running})`` from rows ``(bot id, season id, deal group,
    status, seats)`` of the ladder's pending and running games (:meth:`Ladders.open_games`, which says what
    ``stalled_by`` leaves out)."""
    tables: dict[tuple[int, int], set[int]] = {}
    waiting: dict[tuple[int, int], int] = {}  # pending games of each table
    started: set[tuple[int, int]] = set()
    for bot, season_id, group, status, n in rows:
        table = (season_id, group)
        tables.setdefault(table, set()).add(bot)
        if GameStatus(status) == GameStatus.RUNNING:
            started.add(table)
        else:  # every seat of a game is one row: the table's pending games, counted once per seat
            waiting[table] = max(waiting.get(table, 0), n)
    stalled = set(stalled_by)
    pending, per_bot = 0, {}
    for table, bots in tables.items():
        if table not in started and bots & stalled:
            continue
        pending += waiting.get(table, 0)
        for bot in bots:
            per_bot[bot] = per_bot.get(bot, 0) + 1
    return pending, per_bot


def entrants_stale(game: str, bots: Iterable[tuple[int, str, Any, datetime | None]],
                   entrants: Iterable[tuple[int, str, datetime | None, datetime | None]]) -> bool:
    """Whether :meth:`Ladders.sync_entrants` has anything to write, from ``bots`` ``(id, version, games registered
    for, retired_at)`` and the ladder's ``entrants`` ``(bot id, version, superseded_at, retired_at)`` (rules §5.2)."""
    bots = list(bots)
    current = {(bot, version) for bot, version, games, retired in bots if retired is None and game in (games or [])}
    retired = {bot for bot, _, _, r in bots if r is not None}
    rows = list(entrants)
    for bot, version, superseded, gone in rows:
        if gone is None and bot in retired:
            return True
        if bot not in retired and (superseded is None) != ((bot, version) in current) and \
                any(b == bot for b, _ in current):
            return True
    return bool(current - {(bot, version) for bot, version, _, _ in rows})


_OPEN = (GameStatus.PENDING, GameStatus.RUNNING)


def _refill_statements() -> dict[str, Any]:
    """The statements of :meth:`Ladders.refill_view`, built once (building a statement costs more CPU than a
    small query takes to run); parameters ``ladder`` and ``after``."""
    # constants written into the text, parameters only where the value changes: PostgreSQL then plans the head
    # once for all (a generic plan) instead of at every refill
    ladder, one = bindparam("ladder"), literal_column("1")
    last = (select(Season.id).where(Season.ladder_id == ladder).order_by(Season.epoch.desc()).limit(one)
            .scalar_subquery())
    ids = select(Season.id).where(Season.ladder_id == ladder).scalar_subquery()
    games = select(func.count()).select_from(Game).where(Game.season_id == Season.id).scalar_subquery()
    compares = select(func.count()).select_from(LadderCompare).where(
        LadderCompare.ladder_id == ladder, (LadderCompare.status == literal_column("'running'"))
        | LadderCompare.follow.is_(True))
    entrants = select(func.count()).select_from(LadderEntrant).where(LadderEntrant.ladder_id == ladder)
    newest = (select(Game.id, Game.season_id, Game.number, Game.deal_group, Game.status)
              .where(Game.id > bindparam("after"), Game.season_id.in_(ids))
              .order_by(Game.id).limit(literal_column(str(NEW_GAMES))).subquery("newest"))
    return {
        "head": (select(Season.id, Season.epoch, Season.created_at, games, compares.scalar_subquery(),
                        entrants.scalar_subquery(), select(func.count()).select_from(Bot).scalar_subquery(),
                        select(func.coalesce(func.sum(Bot.revision), literal_column("0"))).scalar_subquery())
                 .select_from(Ladder).outerjoin(Season, Season.id == last).where(Ladder.id == ladder)),
        # a row per seat of the open games (part 1), then of the first NEW_GAMES games after ``after`` (part 2),
        # by id: two parts that each plan well once for all values (a generic plan, see Ladders.refill_view)
        "games": union_all(
            select(literal_column("1").label("part"), Game.id, Game.season_id, Game.number, Game.deal_group,
                   Game.status, GameSeat.bot_id, GameSeat.version, GameSeat.place, GameSeat.seat)
            .join(GameSeat, GameSeat.game_id == Game.id)
            .where(Game.season_id.in_(ids), Game.status.in_([literal_column(f"'{s.value}'") for s in _OPEN])),
            select(literal_column("2"), newest.c.id, newest.c.season_id, newest.c.number, newest.c.deal_group,
                   newest.c.status, GameSeat.bot_id, GameSeat.version, GameSeat.place, GameSeat.seat)
            .join(GameSeat, GameSeat.game_id == newest.c.id),
        ).order_by(literal_column("part"), literal_column("id"), literal_column("seat")),
        "marked": select(SeasonBotStatus.bot_id, SeasonBotStatus.reason, SeasonBotStatus.suspended_at)
                  .where(SeasonBotStatus.season_id == last, (SeasonBotStatus.unavailable_since.is_not(None))
                         | (SeasonBotStatus.suspended_at.is_not(None))),
    }


_REFILL: dict[str, Any] = {}
_REFILL_TEXT: dict[str, str] = {}  # PostgreSQL's text of each, for Database.pipelined_reads
#: The most new games one statement of a refill's view reads; more are read after it, a statement at a time.
NEW_GAMES = 500


def marked_line(reason: str | None, suspended: datetime | None) -> str:
    """Why an epoch marks a bot (rules §4.9): ``suspended: <reason>`` or the reason it did not answer."""
    return ("suspended: " if suspended else "") + (reason or "did not answer")


def ladder_info(row: Ladder) -> LadderInfo:
    return LadderInfo(row.id, row.name, row.game, row.params, row.time_control, dict(row.config or {}),
                      row.status, row.created_at)


def epoch_name(ladder: str, epoch: int) -> str:
    """The season name of a ladder's epoch: ``<ladder>:epoch-<n>``."""
    return f"{ladder}:epoch-{epoch}"


class Ladders:
    """The ladders over one :class:`~store.session.Database`; ``seasons`` appends to epochs."""

    def __init__(self, db: Database, policy: LeaguePolicy, seasons: Seasons) -> None:
        self._db = db
        self._policy = policy
        self._seasons = seasons
        #: games per status of the epochs that are closed with every game final: they never change again
        self._final_epochs: dict[int, dict[str, int]] = {}

    # ----------------------------------------------------------- ladders

    def create_ladder(self, name: str, game: str, params: dict[str, Any], time_control: dict[str, Any],
                      config: dict[str, Any]) -> int:
        """Store a ladder (no epoch yet: :meth:`open_epoch` opens the first); returns its id.
        Raises NameTaken if a ladder or season has the name, ValueError for an unknown game."""
        game = check_game_name(game)
        try:
            with self._db.write() as s:
                if s.scalar(select(Ladder.id).where(Ladder.name == name)) is not None or \
                        s.scalar(select(Season.id).where(Season.name == name)) is not None:
                    raise NameTaken(f"a ladder or season named {name!r} exists already")
                row = Ladder(name=name, game=game, params=params, time_control=time_control, config=config,
                             status="open", created_at=utcnow())
                s.add(row)
                s.flush()
                return row.id
        except IntegrityError as e:
            raise NameTaken(f"a ladder named {name!r} exists already") from e

    def get_ladder(self, ladder_id: int) -> LadderInfo | None:
        with self._db.read() as s:
            row = s.get(Ladder, ladder_id)
            return ladder_info(row) if row else None

    def get_ladder_by_name(self, name: str) -> LadderInfo | None:
        with self._db.read() as s:
            row = s.scalar(select(Ladder).where(Ladder.name == name))
            return ladder_info(row) if row else None

    def list_ladders(self) -> list[LadderInfo]:
        with self._db.read() as s:
            return [ladder_info(r) for r in s.scalars(select(Ladder).order_by(Ladder.id))]

    # ------------------------------------------------------------ epochs

    def epochs(self, ladder_id: int) -> list[SeasonInfo]:
        """The ladder's epochs (seasons), first to last."""
        with self._db.read() as s:
            return [season_info(x) for x in s.scalars(
                select(Season).where(Season.ladder_id == ladder_id).order_by(Season.epoch))]

    def current_epoch(self, ladder_id: int) -> SeasonInfo | None:
        """The ladder's open epoch (its last), or None before the first is opened."""
        with self._db.read() as s:
            row = s.scalar(select(Season).where(Season.ladder_id == ladder_id).order_by(Season.epoch.desc()).limit(1))
            return season_info(row) if row else None

    def open_epoch(self, ladder_id: int, epoch: int, key: bytes, config: dict[str, Any],
                   chance_scheme: str = PER_DEAL) -> int | None:
        """Close the ladder's epoch ``epoch - 1`` (if any) and open epoch ``epoch`` in one transaction:
        a season with no game yet, ``key`` (32 bytes, never shown until the epoch is closed and all its
        games are final) and its commitment (public now), ``config`` (the scheduler's: table sizes,
        duplicate, suspension) with the epoch's own entry (:data:`EPOCH_KEY`). Its chain starts with the
        season entry (the commitment) and an ``epoch`` entry naming the previous epoch's commitment and
        chain head, so each epoch's commitment is chained before any game of it (rules §5.1).
        Returns the new season id, or None if the ladder's last epoch is not ``epoch - 1`` (another
        runner opened it first: nothing written). Raises NotFound for an unknown ladder, ValueError for
        a bad key or scheme."""
        if len(key) != self._policy.key_bytes:
            raise ValueError(f"an epoch key has {self._policy.key_bytes} bytes, got {len(key)}")
        if chance_scheme not in SCHEMES:
            raise ValueError(f"unknown chance scheme {chance_scheme!r}; expected one of {SCHEMES}")
        try:
            with self._db.write() as s:
                ladder = s.execute(select(Ladder).where(Ladder.id == ladder_id).with_for_update()).scalar_one_or_none()
                if ladder is None:
                    raise NotFound(f"no ladder with id {ladder_id}")
                last = s.execute(select(Season).where(Season.ladder_id == ladder_id).order_by(Season.epoch.desc())
                                 .limit(1).with_for_update()).scalar_one_or_none()
                if (last.epoch if last is not None else 0) != epoch - 1:
                    return None
                previous: dict[str, Any] | None = None
                if last is not None:
                    last.config = {**(last.config or {}), EPOCH_KEY: {**(last.config or {}).get(EPOCH_KEY, {}),
                                                                      "closed": True}}
                    s.flush()
                    close_if_finished(s.connection(), last, self._policy, last.status, last.config)  # store.chain
                    previous = {"epoch": last.epoch, "commitment": last.commitment, "chain_head": last.chain_head,
                                "chain_length": last.chain_length}
                now = utcnow()
                season = Season(name=epoch_name(ladder.name, epoch), game=ladder.game, params=ladder.params,
                                time_control=ladder.time_control, seed=0, reproducible=False,
                                config={**config, EPOCH_KEY: {"ladder": ladder.name, "epoch": epoch, "closed": False,
                                                              "opened_at": now.isoformat()}},
                                status=SeasonStatus.SCHEDULED, deal_key=key.hex(), chance_scheme=chance_scheme,
                                commitment=self._policy.commitment(key, chance_scheme), chain_length=0,
                                ladder_id=ladder_id, epoch=epoch, created_at=now)
                s.add(season)
                s.flush()
                conn = s.connection()
                append(conn, season, self._policy, season_entry(season, []))
                append(conn, season, self._policy, {"kind": "epoch", "ladder": ladder.name, "epoch": epoch,
                                                     "opened_at": now.isoformat(), "previous": previous})
                return season.id
        except IntegrityError:  # a concurrent opening of the same epoch
            return None

    def append_games(self, season_id: int, games: Sequence[tuple[int, Sequence[int]]], expected_games: int,
                     deal_groups: Sequence[int] | None = None) -> bool:
        """Append ``games`` (``(seed, [bot id per seat])``) to a ladder's open epoch, as
        ``store.seasons.Seasons.extend_season`` does, if the epoch is still open and has exactly
        ``expected_games`` games; else nothing is written (False): another runner appended or closed it
        first, or a bot of them was retired meanwhile (it is never dealt in).
        Raises NotFound for an unknown season, one that is not a ladder's epoch, or unknown bot ids.

        On PostgreSQL the transaction commits without waiting for its log to reach the disk
        (``synchronous_commit`` off for it alone; a refill's largest single wait): a crash of the database
        within a moment of it may lose these pending games and their chain entry together, never a game
        played, since a game's claim commits waiting for the log, which is written in order and so takes
        this append's with it. The runner then appends tables again."""
        bot_ids = check_tables(games, "added game")
        groups: list[int | None] = list(deal_groups) if deal_groups is not None else [None] * len(games)
        if len(groups) != len(games):
            raise ValueError(f"{len(groups)} deal groups for {len(games)} games")
        with self._db.write_rows() as conn:
            season = lock_season(conn, season_id, wait_for_log=False)
            if season is None or season.ladder_id is None:
                raise NotFound(f"no ladder epoch with id {season_id}")
            if (season.config or {}).get(EPOCH_KEY, {}).get("closed"):
                return False
            return self._seasons.extend_locked(conn, season, dict(season.config or {}), games, expected_games, groups,
                                               bot_ids, retired_ok=False)

    # ---------------------------------------------------------- entrants

    def sync_entrants(self, ladder_id: int) -> list[EntrantInfo]:
        """Bring the ladder's entrants up to date in one transaction and return them all (by id): every
        bot not retired and registered for the ladder's game is entered with its current version (a new
        entrant when that version is new); its other versions are superseded; every entrant of a retired
        bot is retired (rules §5.2). Raises NotFound for an unknown ladder."""
        if not self._entrants_stale(ladder_id):
            return self.entrants(ladder_id)  # the common case: a read, no write lock
        with self._db.write() as s:
            ladder = s.get(Ladder, ladder_id)
            if ladder is None:
                raise NotFound(f"no ladder with id {ladder_id}")
            now = utcnow()
            bots = s.execute(select(Bot.id, Bot.version, Bot.games, Bot.retired_at)).all()
            entrants = s.execute(select(LadderEntrant).where(LadderEntrant.ladder_id == ladder_id)).scalars().all()
            have = {(e.bot_id, e.version): e for e in entrants}
            for bot_id, version, games, retired_at in bots:
                if retired_at is not None:
                    for e in entrants:
                        if e.bot_id == bot_id and e.retired_at is None:
                            e.retired_at = retired_at
                    continue
                if ladder.game not in (games or []):
                    continue
                if (bot_id, version) not in have:
                    e = LadderEntrant(ladder_id=ladder_id, bot_id=bot_id, version=version, joined_at=now)
                    s.add(e)
                    have[(bot_id, version)] = e
                for e in entrants:
                    if e.bot_id == bot_id and e.version != version and e.superseded_at is None:
                        e.superseded_at = now
                current = have[(bot_id, version)]
                if current.superseded_at is not None:  # a version declared again: it is the current one again
                    current.superseded_at = None
            s.flush()
        return self.entrants(ladder_id)

    def _entrants_stale(self, ladder_id: int) -> bool:
        """Whether :meth:`sync_entrants` has anything to write (read only)."""
        with self._db.read_rows() as conn:
            game = conn.scalar(select(Ladder.game).where(Ladder.id == ladder_id))
            if game is None:
                return True  # the write path raises NotFound
            bots = conn.execute(select(Bot.id, Bot.version, Bot.games, Bot.retired_at)).all()
            rows = conn.execute(select(LadderEntrant.bot_id, LadderEntrant.version, LadderEntrant.superseded_at,
                                       LadderEntrant.retired_at).where(LadderEntrant.ladder_id == ladder_id)).all()
        return entrants_stale(game, bots, rows)

    def add_played_versions(self, ladder_id: int, pairs: Iterable[tuple[int, str]]) -> None:
        """Enter ``(bot id, version)`` pairs that played in the ladder but have no entrant (a version a
        bot declared and left between two refills): as superseded entrants, so their games are rated."""
        pairs = set(pairs)
        if not pairs:
            return
        with self._db.write() as s:
            have = set(tuple(r) for r in s.execute(select(LadderEntrant.bot_id, LadderEntrant.version)
                                 .where(LadderEntrant.ladder_id == ladder_id)).all())
            now = utcnow()
            for bot_id, version in sorted(pairs - have):
                s.add(LadderEntrant(ladder_id=ladder_id, bot_id=bot_id, version=version, joined_at=now,
                                    superseded_at=now))

    def entrants(self, ladder_id: int) -> list[EntrantInfo]:
        """Every entrant of the ladder (active, superseded and retired), by id."""
        with self._db.read_rows() as conn:
            rows = conn.execute(select(LadderEntrant.id, LadderEntrant.ladder_id, LadderEntrant.bot_id, Bot.name,
                                       LadderEntrant.version, Bot.capacity, LadderEntrant.joined_at,
                                       LadderEntrant.superseded_at, LadderEntrant.retired_at)
                                .join(Bot, Bot.id == LadderEntrant.bot_id)
                                .where(LadderEntrant.ladder_id == ladder_id).order_by(LadderEntrant.id)).all()
        return [EntrantInfo(*row) for row in rows]

    # ------------------------------------------------------------- games

    def open_games(self, ladder_id: int, stalled_by: Collection[int] = ()) -> tuple[int, dict[int, int]]:
        """``(pending games, {bot id: its tables pending or running})`` over all the ladder's epochs; a table
        is a deal group (a duplicate table's rotations are played one after another, ``store.sealing``).
        ``stalled_by``: bots paused in the ladder (down, rules §5.3): a table none of whose games has started
        and that seats one of them counts neither in the pending games nor in its other bots' tables, so
        the runner goes on seating the others while those games wait for the bot (or are not played)."""
        open_ = (GameStatus.PENDING, GameStatus.RUNNING)
        ids = select(Season.id).where(Season.ladder_id == ladder_id).scalar_subquery()
        with self._db.read_rows() as conn:
            rows = conn.execute(
                select(GameSeat.bot_id, Game.season_id, Game.deal_group, Game.status, func.count())
                .join(Game, Game.id == GameSeat.game_id)
                .where(Game.season_id.in_(ids), Game.status.in_(open_))
                .group_by(GameSeat.bot_id, Game.season_id, Game.deal_group, Game.status)).all()
        return open_tables(rows, stalled_by)

    def refill_view(self, ladder_id: int, after_id: int, marked: bool = True) -> RefillView:
        """Everything a ladder's runner reads before it adds tables (:class:`RefillView`), in two or three small
        statements (``marked``: read the open epoch's marks too; on PostgreSQL sent in one round trip,
        ``Database.pipelined_reads``), none of which reads more than the open games and the first
        :data:`NEW_GAMES` games after ``after_id`` (then the rest after those): the runner keeps the rest itself
        (``league.competition.ladder.LadderRunner``). Raises NotFound for an unknown ladder."""
        if not _REFILL:
            _REFILL.update(_refill_statements())
        q, at = _REFILL, {"ladder": ladder_id, "after": after_id}
        names = ["head", "games", "marked"] if marked else ["head", "games"]
        engine = self._db.engine
        if engine.dialect.name == "postgresql":  # one round trip, each statement planned once for all refills
            if not _REFILL_TEXT:
                _REFILL_TEXT.update({k: str(v.compile(dialect=engine.dialect)) for k, v in _REFILL.items()})
            read = self._db.pipelined_reads([(_REFILL_TEXT[k], at) for k in names], generic_plans=True)
        else:
            with self._db.read_rows() as conn:
                read = [conn.execute(q[k], at).all() for k in names]
        if not read[0]:
            raise NotFound(f"no ladder with id {ladder_id}")
        head, rows = read[0][0], read[1]
        marks = {bot: marked_line(why, suspended) for bot, why, suspended in read[2]} if marked else None
        new: list[LadderGame] = []
        seats: list[tuple[int, str | None, int | None]] = []
        per_table: dict[tuple[int, int, int, str], int] = {}  # as Ladders.open_games groups them
        for k, (part, gid, season_id, number, group, status, bot, version, place, _) in enumerate(rows):
            if part == 1:
                table = (bot, season_id, group, GameStatus(status))
                per_table[table] = per_table.get(table, 0) + 1
                continue
            seats.append((bot, version, place))
            if k + 1 == len(rows) or rows[k + 1][1] != gid:
                new.append(LadderGame(gid, season_id, number, GameStatus(status), tuple(seats)))
                seats = []
        if len(new) == NEW_GAMES:  # more than one statement reads: the rest, after them
            new += self.ladder_games(ladder_id, after_id=new[-1].id)
        open_rows = [(*table, n) for table, n in per_table.items()]
        epoch_id, epoch, opened_at, games, compares, entrants, bots, revisions = head
        return RefillView(epoch_id, epoch or 0, opened_at, games or 0, open_rows, marks, new, compares or 0,
                          entrants or 0, (bots or 0, int(revisions or 0)))

    def bot_lines(self) -> list[BotLine]:
        """Every bot, as a ladder's runner checks its entrants and their authors against it (:class:`BotLine`)."""
        with self._db.read_rows() as conn:
            return [BotLine(i, name, version, author, tuple(games or ()), capacity, retired)
                    for i, name, version, author, games, capacity, retired in conn.execute(
                        select(Bot.id, Bot.name, Bot.version, Bot.author, Bot.games, Bot.capacity, Bot.retired_at)
                        .order_by(Bot.id))]

    def chain_start(self, season_id: int, entries: int = 2) -> list[dict[str, Any]]:
        """The first ``entries`` entries of a season's chain, parsed (an epoch's: its season and epoch entries)."""
        with self._db.read_rows() as conn:
            texts = conn.scalars(select(ChainEntry.entry).where(ChainEntry.season_id == season_id)
                                 .order_by(ChainEntry.seq).limit(entries)).all()
        return [json.loads(t) for t in texts]

    def pending_attempts(self, ladder_id: int) -> dict[int, int]:
        """``{game id: attempts so far}`` of every pending game of the ladder (all epochs), by id: as
        ``Seasons.pending_attempts`` for the Celery follower."""
        ids = select(Season.id).where(Season.ladder_id == ladder_id).scalar_subquery()
        with self._db.read_rows() as conn:
            return dict(conn.execute(select(Game.id, Game.attempts).where(
                Game.season_id.in_(ids), Game.status == GameStatus.PENDING).order_by(Game.id)).all())

    def pending_deferrals(self, ladder_id: int) -> dict[int, int]:
        """``{game id: deferrals}`` of the ladder's pending games deferred at least once (rules §4.9)."""
        ids = select(Season.id).where(Season.ladder_id == ladder_id).scalar_subquery()
        with self._db.read_rows() as conn:
            return dict(conn.execute(select(Game.id, Game.deferrals).where(
                Game.season_id.in_(ids), Game.status == GameStatus.PENDING, Game.deferrals > 0)).all())

    def ladder_progress(self, ladder_id: int) -> dict[str, int]:
        """Games per status over all the ladder's epochs (as ``season_progress``), with ``total``.

        Counts only the epochs still open or with games not final: a closed epoch whose games are all
        final never changes (no game is added to a closed epoch, rules §5.1), so its counts are kept in
        this object after the first read, and a runner's progress costs the same at a million games."""
        counts = {st.value: 0 for st in GameStatus}
        with self._db.read_rows() as conn:
            epochs = conn.execute(select(Season.id, Season.status, Season.config)
                                  .where(Season.ladder_id == ladder_id)).all()
            live = [e.id for e in epochs if e.id not in self._final_epochs]
            per: dict[int, dict[str, int]] = {sid: {st.value: 0 for st in GameStatus} for sid in live}
            if live:
                for sid, status, n in conn.execute(select(Game.season_id, Game.status, func.count())
                                                   .where(Game.season_id.in_(live))
                                                   .group_by(Game.season_id, Game.status)):
                    per[sid][GameStatus(status).value] = n
        for e in epochs:
            got = self._final_epochs.get(e.id) or per[e.id]
            if e.id not in self._final_epochs and (e.config or {}).get(EPOCH_KEY, {}).get("closed") \
                    and SeasonStatus(e.status) == SeasonStatus.DONE and not got["pending"] + got["running"]:
                self._final_epochs[e.id] = got
            for k, n in got.items():
                counts[k] += n
        counts["total"] = sum(counts.values())
        return counts

    def ladder_games(self, ladder_id: int, after_id: int = 0, status: Sequence[GameStatus] | None = None,
                     limit: int | None = None) -> list[LadderGame]:
        """The ladder's games with an id above ``after_id`` (all epochs, by id), of the given statuses
        (default all), with their seats; ``limit`` games at most."""
        q = (select(Game.id, Game.season_id, Game.number, Game.status).join(Season, Season.id == Game.season_id)
             .where(Season.ladder_id == ladder_id, Game.id > after_id).order_by(Game.id))
        if status is not None:
            q = q.where(Game.status.in_(list(status)))
        if limit is not None:
            q = q.limit(limit)
        with self._db.read_rows() as conn:
            games = conn.execute(q).all()
            if not games:
                return []
            first, last = games[0].id, games[-1].id
            seats: dict[int, list[tuple[int, str | None, int | None]]] = {}
            for gid, bot, version, place in conn.execute(
                    select(GameSeat.game_id, GameSeat.bot_id, GameSeat.version, GameSeat.place)
                    .join(Game, Game.id == GameSeat.game_id).join(Season, Season.id == Game.season_id)
                    .where(Season.ladder_id == ladder_id, GameSeat.game_id.between(first, last))
                    .order_by(GameSeat.game_id, GameSeat.seat)):
                seats.setdefault(gid, []).append((bot, version, place))
        return [LadderGame(g.id, g.season_id, g.number, GameStatus(g.status), tuple(seats.get(g.id, ())))
                for g in games]

    def marked_bots(self, season_id: int) -> dict[int, str]:
        """``{bot id: why}`` of the bots an epoch marks not answering or suspended (rules §4.9)."""
        with self._db.read_rows() as conn:
            rows = conn.execute(select(SeasonBotStatus.bot_id, SeasonBotStatus.reason, SeasonBotStatus.suspended_at)
                                .where(SeasonBotStatus.season_id == season_id,
                                       (SeasonBotStatus.unavailable_since.is_not(None))
                                       | (SeasonBotStatus.suspended_at.is_not(None)))).all()
        return {bot: marked_line(why, suspended) for bot, why, suspended in rows}

    def marked_since(self, ladder_id: int, epoch: int) -> dict[int, str]:
        """``{bot id: why}`` of the bots that the ladder's epochs numbered ``epoch`` or later mark not answering
        or suspended (rules §4.9, §5.3), in one read: a bot marked in several, the latest epoch's line. For a caller
        that looks every few seconds from the epoch open at its last look, so that a bot marked in an epoch that
        closed in between is not missed."""
        with self._db.read_rows() as conn:
            rows = conn.execute(
                select(SeasonBotStatus.bot_id, SeasonBotStatus.reason, SeasonBotStatus.suspended_at)
                .join(Season, Season.id == SeasonBotStatus.season_id)
                .where(Season.ladder_id == ladder_id, Season.epoch >= epoch,
                       (SeasonBotStatus.unavailable_since.is_not(None)) | (SeasonBotStatus.suspended_at.is_not(None)))
                .order_by(Season.epoch)).all()
        return {bot: marked_line(why, suspended) for bot, why, suspended in rows}

    # ----------------------------------------------------- rating history

    def add_rating_points(self, ladder_id: int, games: int,
                          points: Mapping[int, tuple[int, float, float]]) -> int:
        """Store a snapshot of the ratings after ``games`` rated games: ``{entrant id: (its games, rating,
        sd)}``. A snapshot an entrant already has at that ``games`` is kept (several runners): returns
        how many were written. The points written are appended to the open epoch's chain (an entry of kind
        ``ratings``, chain format 2), so ``ladder verify`` checks the stored history against it."""
        if not points:
            return 0
        with self._db.write() as s:
            # the ladder's row first (KEY SHARE, which its snapshot rows take anyway for their reference to it):
            # opening an epoch locks the ladder, then the epoch, and so must everything that takes both
            s.execute(select(Ladder.id).where(Ladder.id == ladder_id).with_for_update(key_share=True))
            # then the open epoch: its chain takes the snapshot (store.chain, kind "ratings"). Locked, it
            # may turn out closed by an epoch opened meanwhile (PostgreSQL re-reads a row it waited for, not the
            # query): then the epoch opened is read and locked in its turn.
            latest = (select(Season).where(Season.ladder_id == ladder_id).order_by(Season.epoch.desc())
                      .limit(1).with_for_update())
            epoch = s.execute(latest).scalar_one_or_none()
            if epoch is not None and (epoch.config or {}).get(EPOCH_KEY, {}).get("closed"):
                s.expire(epoch)
                epoch = s.execute(latest).scalar_one_or_none()
            have = set(s.scalars(select(LadderRating.entrant_id).where(
                LadderRating.ladder_id == ladder_id, LadderRating.games == games)))
            rows = [{"ladder_id": ladder_id, "entrant_id": e, "games": games, "played": p, "rating": r, "sd": sd,
                     "at": utcnow()} for e, (p, r, sd) in sorted(points.items()) if e not in have]
            if rows:
                s.execute(insert(LadderRating), rows)
                conn = s.connection()
                if epoch is not None and chain_format(conn, epoch.id) >= 2 and \
                        not (epoch.config or {}).get(EPOCH_KEY, {}).get("closed"):
                    append(conn, epoch, self._policy, ratings_entry(games, [
                        (r["entrant_id"], r["played"], r["rating"], r["sd"]) for r in rows]))
            return len(rows)

    def rating_history(self, ladder_id: int, entrant_id: int | None = None) -> list[RatingPoint]:
        """The ladder's rating snapshots (of one entrant, or all), by entrant and games."""
        q = select(LadderRating.entrant_id, LadderRating.games, LadderRating.played, LadderRating.rating,
                   LadderRating.sd, LadderRating.at).where(LadderRating.ladder_id == ladder_id)
        if entrant_id is not None:
            q = q.where(LadderRating.entrant_id == entrant_id)
        with self._db.read_rows() as conn:
            return [RatingPoint(*row) for row in conn.execute(q.order_by(LadderRating.entrant_id, LadderRating.games))]

    def last_rating_games(self, ladder_id: int) -> int:
        """The ``games`` of the ladder's latest rating snapshot (-1: none)."""
        with self._db.read_rows() as conn:
            return conn.scalar(select(func.max(LadderRating.games)).where(LadderRating.ladder_id == ladder_id)) or -1

    # ------------------------------------------------------ fit checkpoint

    def fit_checkpoint(self, ladder_id: int) -> tuple[str | None, int]:
        """The ratings fit's checkpoint (JSON text or None) and the last game id it covers (-1: none)."""
        with self._db.read_rows() as conn:
            row = conn.execute(select(Ladder.fit_checkpoint, Ladder.fit_through).where(Ladder.id == ladder_id)).one_or_none()
        if row is None:
            raise NotFound(f"no ladder with id {ladder_id}")
        return row.fit_checkpoint, row.fit_through

    def save_fit_checkpoint(self, ladder_id: int, checkpoint: str, through: int, or_equal: bool = False) -> bool:
        """Store the fit's checkpoint covering games up to id ``through`` if it moves the stored one forward
        (``or_equal``: or covers the same games, with what it adds found from them, e.g. the ladder's founders)."""
        moves = Ladder.fit_through <= through if or_equal else Ladder.fit_through < through
        with self._db.write_rows() as conn:
            return conn.execute(update(Ladder).where(and_(Ladder.id == ladder_id, moves))
                                .values(fit_checkpoint=checkpoint, fit_through=through)).rowcount == 1

    # ------------------------------------------------ aggregates (scale)

    def fit_progress(self, ladder_id: int) -> tuple[int, int]:
        """``(through, done)``: the last game id the fit's checkpoint covers (-1: none) and how many of the
        ladder's games after it are done, in one read of the games after the checkpoint (a range of ids,
        not the whole record). Raises NotFound for an unknown ladder."""
        ids = select(Season.id).where(Season.ladder_id == ladder_id).scalar_subquery()
        with self._db.read_rows() as conn:
            through = conn.scalar(select(Ladder.fit_through).where(Ladder.id == ladder_id))
            if through is None:
                raise NotFound(f"no ladder with id {ladder_id}")
            done = conn.scalar(select(func.count()).where(Game.id > through, Game.season_id.in_(ids),
                                                          Game.status == GameStatus.DONE))
        return through, done or 0

    def match_aggregates(self, ladder_id: int) -> MatchAggregates:
        """What the matchmaker's state is made of (``league.competition.matchmaking.MatchState``), aggregated by the
        database over every game the ladder scheduled (all statuses), not read game by game: tables
        scheduled, the largest game id, and per seat player ``(bot id, version or None)`` (see
        :class:`MatchAggregates`). A game's index is its rank among the ladder's games by id (0-based)."""
        g = (select(Game.id.label("id"), (func.row_number().over(order_by=Game.id) - 1).label("idx"))
             .join(Season, Season.id == Game.season_id).where(Season.ladder_id == ladder_id).subquery())
        a, b = GameSeat.__table__.alias("a"), GameSeat.__table__.alias("b")
        with self._db.read_rows() as conn:
            games, last = conn.execute(select(func.count(), func.max(g.c.id))).one()
            seats = conn.execute(
                select(GameSeat.bot_id, GameSeat.version, GameSeat.seat, func.count(), func.min(g.c.idx),
                       func.max(g.c.idx)).join(g, g.c.id == GameSeat.game_id)
                .group_by(GameSeat.bot_id, GameSeat.version, GameSeat.seat)).all()
            pairs = conn.execute(
                select(a.c.bot_id, a.c.version, b.c.bot_id, b.c.version, func.max(g.c.idx))
                .select_from(g.join(a, a.c.game_id == g.c.id).join(b, and_(b.c.game_id == g.c.id,
                                                                             b.c.seat > a.c.seat)))
                .group_by(a.c.bot_id, a.c.version, b.c.bot_id, b.c.version)).all()
        return MatchAggregates(games or 0, last if last is not None else -1,
                               [tuple(r) for r in seats], [tuple(r) for r in pairs])
