"""Which bots of a season are down, for every worker at once (rules §4.9).

A bot is marked unavailable in a season (``season_bot_status.unavailable_since``)
when it does not answer the health check at a game start
(:meth:`store.lifecycle.GameLifecycle.defer_game`) or when one of its seats went
unreachable during a game and it did not answer just after (:meth:`BotMarks.mark_down`);
the mark is cleared by the next claim of a game with it. Workers read the marks
with a game's table (:meth:`BotMarks.table_and_down`) and defer the games of a
marked bot without dialling it.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from sqlalchemy import and_, bindparam, func, select
from sqlalchemy.dialects import postgresql, sqlite

from store.db import NotFound
from store.models import Bot, Game, GameSeat, GameStatus, Season, SeasonBotStatus
from store.seasons import SeatBot
from store.session import Database, db_now

#: ``(seat, bot id, name, endpoint, capacity, version, described name, version, capacity, marked down
#: since, why)`` of a pending game's seats: the identity columns as ``store.lifecycle``'s table reads them.
_PENDING_TABLE_MARKED = (
    select(GameSeat.seat, Bot.id, Bot.name, Bot.endpoint, Bot.capacity, Bot.version, Bot.described_name,
           Bot.described_version, Bot.described_capacity, SeasonBotStatus.unavailable_since,
           SeasonBotStatus.reason)
    .join(Bot, Bot.id == GameSeat.bot_id).join(Game, Game.id == GameSeat.game_id)
    .outerjoin(SeasonBotStatus, and_(SeasonBotStatus.season_id == Game.season_id, SeasonBotStatus.bot_id == Bot.id,
                                     SeasonBotStatus.suspended_at.is_(None)))
    .where(GameSeat.game_id == bindparam("game_id"), Game.status == GameStatus.PENDING)
    .order_by(GameSeat.seat))
#: The season's row, locked (PostgreSQL ``FOR UPDATE``) before any bot's status row, as every writer of
#: those rows does (``store.lifecycle``): a new status row's foreign-key check waits for a season lock that
#: a deferral holds, and a deferral inserting the same row would wait for it in turn (a deadlock).
_LOCK_SEASON = select(Season.id).where(Season.id == bindparam("season_id")).with_for_update()


class BotMarks:
    """The bots' availability marks over one :class:`~store.session.Database`."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def table_and_down(self, game_id: int) -> tuple[tuple[SeatBot, ...], dict[int, str]] | None:
        """The bots of a pending game's table in seat order (``store.SeatBot`` rows) and ``{bot id: why}``
        of those marked unavailable in its season (not suspended), in one read; None if the game
        is not pending or unknown."""
        with self._db.read_rows() as conn:
            rows = conn.execute(_PENDING_TABLE_MARKED, {"game_id": game_id}).all()
        if not rows:
            return None
        table = tuple(SeatBot(r.seat, r.id, r.name, r.endpoint, r.capacity, r.version, r.described_name,
                              r.described_version, r.described_capacity) for r in rows)
        return table, {r.id: r.reason or "did not answer" for r in rows if r.unavailable_since is not None}

    def mark_down(self, season_id: int, down: Mapping[int, str], now: datetime | None = None) -> None:
        """Mark the bots ``down`` (``{bot id: why}``) unavailable in the season since ``now`` (the
        database's clock by default) unless they already are, with ``why`` as the reason; a bot
        suspended from the season is left as it is. One statement per bot, safe against other
        workers marking the same bot at once (an upsert), and taking the season's lock first, in the order
        every transaction that writes the marks takes its locks (season, then the bots' rows in id order).
        Raises NotFound for an unknown season."""
        if not down:
            return
        with self._db.write_rows() as conn:
            if conn.execute(_LOCK_SEASON, {"season_id": season_id}).one_or_none() is None:
                raise NotFound(f"no season with id {season_id}")
            now = now or db_now(conn)
            dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
            for bot_id, why in sorted(down.items()):
                stmt = dialect.insert(SeasonBotStatus).values(
                    season_id=season_id, bot_id=bot_id, unavailable_since=now, reason=why)
                conn.execute(stmt.on_conflict_do_update(
                    index_elements=[SeasonBotStatus.season_id, SeasonBotStatus.bot_id],
                    set_={"unavailable_since": func.coalesce(SeasonBotStatus.unavailable_since,
                                                             stmt.excluded.unavailable_since),
                          "reason": stmt.excluded.reason},
                    where=SeasonBotStatus.suspended_at.is_(None)))
