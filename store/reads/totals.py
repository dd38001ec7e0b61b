"""Per-bot totals of finished seasons: what a bot's page sums instead of reading every seat it ever played.

A finished season (done and its key public, :func:`store.chain.finished`) takes no new game, and none of its games
changes again: a sequential season between batches and a ladder's open epoch are not finished. So its per-bot
results are folded once into ``bot_totals`` (by game, seat position and version), ``bot_season_totals`` (done games
per season) and ``bot_opponent_totals`` (head to head), and its games by status into ``season_game_totals``, with a
``folded_seasons`` row written in the same transaction. The bot reads (``store.reads.bots``) and the season list
(``store.reads.seasons``) fold what is newly finished, then add these rows to a live aggregate over the seasons not
folded. Nothing in a finished season is sealed (no game of it is still to be played), so the totals hold
exactly what :func:`store.sealing.published` would count.

Folding runs in the read path (the first page after a season finishes): every season finished since the last fold,
in one write transaction of four ``INSERT ... SELECT`` statements. Two processes folding the same season race on
its ``folded_seasons`` row, and the loser rolls back; on PostgreSQL the folds also take one advisory lock, so that
two folds never add to the same totals rows at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Select, and_, case, func, select, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, aliased

from store.chain import finished
from store.models import (BotOpponentTotal, BotSeasonTotal, BotTotal, FoldedSeason, Game, GameSeat,
                          GameStatus, Season, SeasonGameTotal, SeasonStatus)
from store.policy import LeaguePolicy
from store.seasons import IS_CANCELLED
from store.session import Database

#: The version shown for seats stored before versions were recorded (migration 0008).
UNKNOWN_VERSION = "unknown"
#: The PostgreSQL advisory lock key every fold takes (an arbitrary constant of this store).
FOLD_LOCK = 0x0CA4_0015


def fold_finished(db: Database, policy: LeaguePolicy) -> int:
    """Fold every finished season not folded yet, all in one write transaction (four ``INSERT ... SELECT``
    statements over their games); returns how many this call folded (seasons another process folded meanwhile are
    skipped). Raises the store's errors (StoreError)."""
    with db.read() as s:
        candidates = s.execute(select(Season.id, Season.status, Season.config)
                               .where(Season.status == SeasonStatus.DONE,
                                      Season.id.not_in(select(FoldedSeason.season_id)))).all()
    ids = sorted(season_id for season_id, status, config in candidates if finished(status, config, policy))
    if not ids:
        return 0
    try:
        with db.write() as s:
            return fold_seasons(s, ids)
    except IntegrityError:
        return 0  # another process folded some of them meanwhile; the next read folds the rest


def fold_seasons(s: Session, season_ids: Sequence[int]) -> int:
    """Fold these finished seasons' results into the totals, in the transaction of ``s``, leaving out any folded
    already; returns how many were folded. Raises IntegrityError when another transaction folds one of them at the
    same time (SQLite serialises write transactions, PostgreSQL the folds through an advisory lock)."""
    if s.get_bind().dialect.name == "postgresql":
        s.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": FOLD_LOCK})
    done_before = set(s.scalars(select(FoldedSeason.season_id).where(FoldedSeason.season_id.in_(season_ids))))
    ids = [i for i in season_ids if i not in done_before]
    if not ids:
        return 0
    s.execute(FoldedSeason.__table__.insert(), [{"season_id": i} for i in ids])
    done = Game.status == GameStatus.DONE
    version = func.coalesce(GameSeat.version, UNKNOWN_VERSION)
    by_seat = (select(GameSeat.bot_id, Season.game, GameSeat.seat, version, func.count(),
                      func.coalesce(func.sum(GameSeat.place), 0), func.coalesce(func.sum(GameSeat.change), 0),
                      func.sum(case((GameSeat.place == 1, 1), else_=0)), func.coalesce(func.sum(GameSeat.faults), 0),
                      func.min(Game.id))
               .join(Game, Game.id == GameSeat.game_id).join(Season, Season.id == Game.season_id)
               .where(Game.season_id.in_(ids), done)
               .group_by(GameSeat.bot_id, Season.game, GameSeat.seat, version))
    _add(s, BotTotal, by_seat, ("bot_id", "game", "seat", "version"),
         ("games", "place_sum", "change_sum", "wins", "faults"), "first_game")
    per_season = (select(GameSeat.bot_id, Game.season_id, func.count(case((done, 1))), func.count())
                  .join(Game, Game.id == GameSeat.game_id).where(Game.season_id.in_(ids))
                  .group_by(GameSeat.bot_id, Game.season_id))
    s.execute(BotSeasonTotal.__table__.insert().from_select(["bot_id", "season_id", "games", "seated"], per_season))
    a, o = aliased(GameSeat), aliased(GameSeat)
    met = (select(a.bot_id, o.bot_id, func.count(), func.sum(case((a.place < o.place, 1), else_=0)),
                  func.sum(case((a.place == o.place, 1), else_=0)))
           .select_from(a).join(Game, Game.id == a.game_id)
           .join(o, and_(o.game_id == a.game_id, o.bot_id != a.bot_id))
           .where(Game.season_id.in_(ids), done).group_by(a.bot_id, o.bot_id))
    _add(s, BotOpponentTotal, met, ("bot_id", "opponent_id"), ("games", "wins", "draws"))
    by_status = (select(Game.season_id, Game.status, IS_CANCELLED, func.count()).where(Game.season_id.in_(ids))
                 .group_by(Game.season_id, Game.status, IS_CANCELLED))
    s.execute(SeasonGameTotal.__table__.insert().from_select(["season_id", "status", "cancelled", "games"], by_status))
    return len(ids)


def folded_ids(s: Session) -> set[int]:
    """The ids of the folded seasons."""
    return set(s.scalars(select(FoldedSeason.season_id)))


def unfolded_ids(s: Session) -> list[int]:
    """The ids of the seasons not folded (the open ones, and those finished since the last fold): what a read adds
    to the totals from their games."""
    return list(s.scalars(select(Season.id).where(Season.id.not_in(select(FoldedSeason.season_id)))))


def _add(s: Session, model: Any, rows: Select[Any], keys: Sequence[str], sums: Sequence[str],
         least: str | None = None) -> None:
    """Insert the rows of the query ``rows`` (the table's columns in order) into ``model``'s table, adding the
    ``sums`` columns (and keeping the smaller ``least``) to a row that exists already: one ``INSERT ... SELECT ...
    ON CONFLICT DO UPDATE`` (PostgreSQL and SQLite)."""
    dialect = s.get_bind().dialect.name
    table = model.__table__
    insert = (postgresql.insert if dialect == "postgresql" else sqlite.insert)(model).from_select(
        [c.name for c in table.columns], rows)
    update = {c: table.c[c] + insert.excluded[c] for c in sums}
    if least is not None:
        smaller = func.least if dialect == "postgresql" else func.min
        update[least] = smaller(table.c[least], insert.excluded[least])
    s.execute(insert.on_conflict_do_update(index_elements=list(keys), set_=update))
