"""Read models of a season: summaries, the results its standings are computed from, head-to-head, ratings.

Written to stay fast with a large store (100,000 games and more): aggregates
are computed in SQL over the indexes of the ``games`` and ``game_seats``
tables, never by loading every row into Python. Only published results count
(done and not sealed: ``store.sealing``). Rankings, ratings and their
intervals are the league's to compute from these (``league.competition.standings``,
``league.ratings.elo``): nothing here rates.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import NamedTuple, cast

from sqlalchemy import and_, case, func, select
from sqlalchemy.orm import Session, aliased

from store.db import NotFound
from store.models import Bot, Game, GameSeat, GameStatus, Season, SeasonBotStatus, SeasonGameTotal
from store.policy import LeaguePolicy
from store.ratings import stored_ratings
from store.sealing import published
from store.reads import doc, totals
from store.seasons import IS_CANCELLED, progress_counts, season_state
from store.session import Database

#: What the API says of a season's commitment.
COMMITMENT = ("SHA-256 of the season key's 32 raw bytes (not of its hex) followed by the ASCII name of the season's "
              "chance scheme, as 64 lowercase hex digits (of the key alone for a season from before the scheme was "
              "committed); published from the season's creation (null: a season from before season keys, whose seed "
              "was public)")
#: What the API says of a season's chain head.
CHAIN_HEAD = ("the hash of the last entry of the season's chain of stored records (store.chain: the season and its "
              "schedule, then every game as it became final, each entry hashed with the one before), 64 hex digits; "
              "it changes as games are stored. Keep the heads you see: `cardarena season verify --head HASH` checks "
              "that the store still extends them, so a result changed or removed after you saw it is caught")
#: Finished statuses: a game in one of these never changes again.
FINAL = (GameStatus.DONE, GameStatus.FAILED)


@dataclass(frozen=True)
class Progress:
    """A season's games per status."""

    pending: int
    running: int
    done: int
    failed: int
    total: int
    not_played: int = field(default=0, metadata=doc("games a bot suspended from the season could not play (never rated)"))
    cancelled: int = field(default=0, metadata=doc(
        "games never played because the season was cancelled (never rated; rules §4.11)"))


@dataclass(frozen=True)
class SeasonSummary:
    """A season with its progress."""

    id: int
    name: str
    game: str = field(metadata=doc("the game's name"))
    status: str = field(metadata=doc(
        "scheduled, running, paused (its runner stopped; run it again to resume), done, or cancelled (rules §4.11)"))
    created_at: datetime
    finished_at: datetime | None
    progress: Progress
    reproducible: bool = field(default=False, metadata=doc(
        "the deals come from the organiser's --seed: anyone who knows the seed knows every card (false: a secret "
        "key drawn at random)"))
    commitment: str | None = field(default=None, metadata=doc(COMMITMENT))
    chance_scheme: str | None = field(default=None, metadata=doc(
        "the chance scheme every game is dealt with (referee/chance.py), fixed at creation and covered by the "
        "commitment (null: a season from before the scheme was committed)"))
    chain_head: str | None = field(default=None, metadata=doc(CHAIN_HEAD))
    chain_length: int = field(default=0, metadata=doc("entries in the season's chain (chain_head is the last's hash)"))


@dataclass(frozen=True)
class CrossCell:
    """``bot_id``'s record against ``opponent_id`` over the done games where both sat: ``games`` shared,
    ``wins`` (placed ahead), ``draws`` (same place), ``losses``."""

    bot_id: int
    opponent_id: int
    games: int
    wins: int
    draws: int
    losses: int


class SeasonName(NamedTuple):
    """A season's id and name."""

    id: int
    name: str


class SeatTotals(NamedTuple):
    """One bot's published seats of a season summed in SQL: ``games`` seats, sums of places, changes
    (tokens or points) and faults, ``retired`` seats; ``elo`` its stored rating (None: no rated game)."""

    bot_id: int
    name: str
    games: int
    places: int
    change: int
    faults: int
    retired: int
    elo: float | None


@dataclass(frozen=True)
class SeasonResults:
    """Everything a season's standings are computed from (``league.competition.standings.standings_of``).

    ``names``: every bot seated in the season; ``outcomes``: ``(bot, place, change, faults, retired)``
    of every published seat; ``elo``: the stored ratings; ``placings``: ``(game number, bot, place)``
    of the published games, by game then seat; ``suspended``: bots suspended from the season."""

    season_id: int
    game: str
    names: dict[int, str]
    outcomes: tuple[tuple[int, int, int, int, bool], ...]
    elo: dict[int, float]
    placings: tuple[tuple[int, int, int], ...]
    suspended: frozenset[int]


def _require_season(s: Session, season_id: int) -> Season:
    season = s.get(Season, season_id)
    if season is None:
        raise NotFound(f"no season with id {season_id}")
    return season


class SeasonReads:
    """Seasons as read models, over one :class:`~store.session.Database`."""

    def __init__(self, db: Database, policy: LeaguePolicy) -> None:
        self._db = db
        self._policy = policy  # which seasons are finished (folded: store.reads.totals)

    def season_summaries(self, season_id: int | None = None, *, epochs: bool = True) -> list[SeasonSummary]:
        """Every season (or just ``season_id``; ``epochs=False``: leaving out the ladders' epochs) with its games per
        status, by id. A folded season's counts are read from ``season_game_totals`` (``store.reads.totals``; the whole
        list folds what is newly finished first), the others' in one grouped query over their games, so the list costs
        about the same at a thousand finished seasons as at one. Raises the store's errors (StoreError)."""
        if season_id is None:
            totals.fold_finished(self._db, self._policy)
        with self._db.read() as s:
            q = select(Season).order_by(Season.id)
            folded_q = select(SeasonGameTotal.season_id, SeasonGameTotal.status, SeasonGameTotal.cancelled,
                              SeasonGameTotal.games)
            if season_id is not None:
                q = q.where(Season.id == season_id)
                folded_q = folded_q.where(SeasonGameTotal.season_id == season_id)
            if not epochs:
                q = q.where(Season.ladder_id.is_(None))
                folded_q = folded_q.join(Season, Season.id == SeasonGameTotal.season_id).where(
                    Season.ladder_id.is_(None))
            seasons = list(s.scalars(q))
            rows: dict[int, list[tuple[str, bool, int]]] = {x.id: [] for x in seasons}
            folded = totals.folded_ids(s)
            for sid, status, cancelled, n in (s.execute(folded_q) if folded else ()):
                if sid in rows:
                    rows[sid].append((status, cancelled, n))
            live = [x.id for x in seasons if x.id not in folded]
            if live:
                cq = (select(Game.season_id, Game.status, IS_CANCELLED, func.count())
                      .where(Game.season_id.in_(live)).group_by(Game.season_id, Game.status, IS_CANCELLED))
                for sid, status, cancelled, n in s.execute(cq):
                    rows[sid].append((status, cancelled, n))
            return [SeasonSummary(x.id, x.name, x.game, season_state(x.status, x.config), x.created_at, x.finished_at,
                                  Progress(**progress_counts(rows[x.id])),
                                  bool(x.reproducible), x.commitment, x.chance_scheme, x.chain_head, x.chain_length)
                    for x in seasons]

    def season_names(self) -> list[SeasonName]:
        """Every season's id and name, newest first: the games page's season filter (nothing counted)."""
        with self._db.read() as s:
            return [SeasonName(i, n) for i, n in s.execute(select(Season.id, Season.name).order_by(Season.id.desc()))]

    def done_count(self, season_id: int) -> tuple[int, int]:
        """``(done, failed)`` games of the season: a cache key for anything computed from final games."""
        with self._db.read() as s:
            rows = {GameStatus(st): int(n) for st, n in s.execute(select(Game.status, func.count()).where(
                Game.season_id == season_id, Game.status.in_(FINAL)).group_by(Game.status))}
        return rows.get(GameStatus.DONE, 0), rows.get(GameStatus.FAILED, 0)

    def ratings(self, season_id: int) -> dict[int, float]:
        """The season's stored Elo ratings ``{bot_id: elo}`` (bots with a rated game)."""
        with self._db.read() as s:
            return stored_ratings(s, season_id)

    def seat_totals(self, season_id: int) -> list[SeatTotals]:
        """Every bot seated in the season with its published seats summed (``league.competition.standings.core_standings``
        ranks them). One pass over the season's seats in SQL: ~0.1 s at 100,000 games. Raises NotFound."""
        done = published(season_id=season_id)
        with self._db.read() as s:
            _require_season(s, season_id)
            rows = s.execute(
                select(GameSeat.bot_id, Bot.name,
                       func.count(case((done, 1))),
                       func.sum(case((done, GameSeat.place))),
                       func.sum(case((done, GameSeat.change))),
                       func.sum(case((done, GameSeat.faults))),
                       func.count(case((done & GameSeat.retired.is_(True), 1))))
                .join(Game, Game.id == GameSeat.game_id)
                .join(Bot, Bot.id == GameSeat.bot_id)
                .where(Game.season_id == season_id)
                .group_by(GameSeat.bot_id, Bot.name)
            ).all()
            elo = stored_ratings(s, season_id)
        return [SeatTotals(bot, name, int(g), int(places or 0), int(change or 0), int(faults or 0), int(retired),
                           elo.get(bot))
                for bot, name, g, places, change, faults, retired in rows]

    def season_results(self, season_id: int) -> SeasonResults:
        """The season's published results, for its standings (loads every published seat). Raises NotFound."""
        with self._db.read() as s:
            season = _require_season(s, season_id)
            names = dict(s.execute(
                select(Bot.id, Bot.name).where(
                    Bot.id.in_(select(GameSeat.bot_id).join(Game, Game.id == GameSeat.game_id)
                               .where(Game.season_id == season_id)))
            ).all())
            outcomes = tuple(  # result columns are set for every seat of a done game
                (bot, cast(int, place), cast(int, change), cast(int, faults), bool(retired))
                for bot, place, change, faults, retired in s.execute(
                    select(GameSeat.bot_id, GameSeat.place, GameSeat.change, GameSeat.faults, GameSeat.retired)
                    .join(Game, Game.id == GameSeat.game_id)
                    .where(Game.season_id == season_id, published(season_id=season_id))))
            elo = stored_ratings(s, season_id)
            placings = tuple((number, bot, cast(int, place)) for number, bot, place in s.execute(
                select(Game.number, GameSeat.bot_id, GameSeat.place)
                .join(GameSeat, GameSeat.game_id == Game.id)
                .where(Game.season_id == season_id, published(season_id=season_id))
                .order_by(Game.number, GameSeat.seat)))
            suspended = frozenset(s.scalars(select(SeasonBotStatus.bot_id).where(
                SeasonBotStatus.season_id == season_id, SeasonBotStatus.suspended_at.is_not(None))))
            return SeasonResults(season_id, season.game, names, outcomes, elo, placings, suspended)

    def rated_games(self, season_id: int) -> list[tuple[int, int, list[int], list[int]]]:
        """``(game id, number, bot of each seat, place of each seat)`` of the season's published games in
        schedule order (as the store rates them; ``league.ratings.elo.histories``). Raises NotFound."""
        with self._db.read() as s:
            _require_season(s, season_id)
            rows = s.execute(
                select(Game.id, Game.number, GameSeat.bot_id, GameSeat.place)
                .join(GameSeat, GameSeat.game_id == Game.id)
                .where(Game.season_id == season_id, published(season_id=season_id))
                .order_by(Game.number, GameSeat.seat)
            ).all()
        games: list[tuple[int, int, list[int], list[int]]] = []
        for game_id, number, bot, place in rows:
            if not games or games[-1][0] != game_id:
                games.append((game_id, number, [], []))
            games[-1][2].append(bot)
            games[-1][3].append(cast(int, place))
        return games

    def crosstable(self, season_id: int) -> list[CrossCell]:
        """Head-to-head results of every ordered pair of bots over the season's done games. Raises NotFound."""
        a, b = aliased(GameSeat), aliased(GameSeat)
        with self._db.read() as s:
            _require_season(s, season_id)
            rows = s.execute(
                select(a.bot_id, b.bot_id, func.count(),
                       func.sum(case((a.place < b.place, 1), else_=0)),
                       func.sum(case((a.place == b.place, 1), else_=0)))
                .select_from(Game)
                .join(a, a.game_id == Game.id)
                .join(b, and_(b.game_id == Game.id, b.bot_id != a.bot_id))
                .where(Game.season_id == season_id, published(season_id=season_id))
                .group_by(a.bot_id, b.bot_id)
            ).all()
        return [CrossCell(x, y, int(n), int(w), int(d), int(n - w - d)) for x, y, n, w, d in rows]
